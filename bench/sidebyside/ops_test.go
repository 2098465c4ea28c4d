package main

import (
	"context"
	"errors"
	"io"
	"os"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/runner"
	"github.com/specrun/specrun/spec"
)

// benchEnv gives file ops a temp dir, as specrun's runner does.
type benchEnv struct{ dir string }

func (e benchEnv) TempDir() string { return e.dir }
func (e benchEnv) Server(context.Context, string) (ops.Server, error) {
	return ops.Server{}, errors.New("no servers here")
}

// BenchmarkOps times each case through testing.B with the very code
// specrun runs: the op's own Run(ctx, b.N), prepared outside the timer.
func BenchmarkOps(b *testing.B) {
	for _, c := range cases {
		b.Run(c.Name, func(b *testing.B) {
			def, v, err := c.values()
			if err != nil {
				b.Fatal(err)
			}
			op, err := def.New(v, benchEnv{dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			if cl, ok := op.(io.Closer); ok {
				defer cl.Close()
			}
			b.ResetTimer()
			if _, err := op.Run(context.Background(), int64(b.N)); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// TestCasesRender keeps the generated spec in step with the cases.
func TestCasesRender(t *testing.T) {
	for _, c := range cases {
		if _, _, err := c.values(); err != nil {
			t.Error(err)
		}
		if c.hcl() == "" {
			t.Errorf("%s: empty block", c.Name)
		}
	}
}

// TestSameBinary separates the harness from code layout: it times the cases
// named by $SPECRUN_SAME_BINARY (a regexp) through runner.Run and through
// testing.Benchmark inside this one test binary, alternating. When specrun
// and go test disagree but these two agree, the difference is where the
// linker put the code, not what the harness adds.
//
//	SPECRUN_SAME_BINARY='memcpy_16B|alloc_16B' go test ./bench/sidebyside -run SameBinary -v
func TestSameBinary(t *testing.T) {
	pattern := os.Getenv("SPECRUN_SAME_BINARY")
	if pattern == "" {
		t.Skip("set SPECRUN_SAME_BINARY to a regexp of case names")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !re.MatchString(c.Name) {
			continue
		}
		def, v, err := c.values()
		if err != nil {
			t.Fatal(err)
		}
		var viaRunner, viaTesting []float64
		for round := 0; round < 3; round++ {
			plan := &spec.Plan{Benchmarks: []*spec.Benchmark{{
				Name: c.Name, Block: c.Name, Label: c.Name, Op: def, Params: v,
				Repeat: 5, Warmup: 100 * time.Millisecond, MinTime: 200 * time.Millisecond, Timeout: time.Minute,
			}}}
			out := runner.Run(context.Background(), plan, runner.Config{})
			if e := out.Benchmarks[0].Error; e != "" {
				t.Fatalf("%s: %s", c.Name, e)
			}
			viaRunner = append(viaRunner, out.Benchmarks[0].NsPerOp.Median)
			r := testing.Benchmark(func(b *testing.B) {
				op, err := def.New(v, benchEnv{dir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				if cl, ok := op.(io.Closer); ok {
					defer cl.Close()
				}
				b.ResetTimer()
				op.Run(context.Background(), int64(b.N))
			})
			viaTesting = append(viaTesting, float64(r.T.Nanoseconds())/float64(r.N))
		}
		sort.Float64s(viaRunner)
		sort.Float64s(viaTesting)
		t.Logf("%-22s runner %10.3f ns/op   testing.B %10.3f ns/op   ratio %.3f",
			c.Name, viaRunner[1], viaTesting[1], viaRunner[1]/viaTesting[1])
	}
}

func TestRatiosPrintAsARangeOrNA(t *testing.T) {
	for _, tc := range []struct {
		rs   []float64
		want string
	}{
		{nil, "N/A"},
		{[]float64{1.04, 0.97, 1}, "[0.970..1.040]"},
	} {
		if got := fmtRange(tc.rs); got != tc.want {
			t.Errorf("fmtRange(%v) = %q, want %q", tc.rs, got, tc.want)
		}
	}
}
