package main

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/runner"
	"github.com/specrun/specrun/spec"
)

// benchEnv gives file ops a temp dir, as specrun's runner does.
type benchEnv struct{ dir string }

func (e benchEnv) TempDir() string        { return e.dir }
func (benchEnv) Servers() []string        { return nil }
func (benchEnv) Context() context.Context { return context.Background() }
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
//
// SPECRUN_SAME_BINARY_ROUNDS sets the rounds (3); each side's median of
// its rounds is printed, and its fastest run, which noise cannot make faster.
func TestSameBinary(t *testing.T) {
	pattern := os.Getenv("SPECRUN_SAME_BINARY")
	if pattern == "" {
		t.Skip("set SPECRUN_SAME_BINARY to a regexp of case names")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatal(err)
	}
	// On a busy machine more rounds make the medians and minimums steadier.
	rounds := 3
	if v := os.Getenv("SPECRUN_SAME_BINARY_ROUNDS"); v != "" {
		if rounds, err = strconv.Atoi(v); err != nil || rounds < 1 {
			t.Fatalf("SPECRUN_SAME_BINARY_ROUNDS=%q: want a count of at least 1", v)
		}
	}
	for _, c := range cases {
		if !re.MatchString(c.Name) {
			continue
		}
		def, v, err := c.values()
		if err != nil {
			t.Fatal(err)
		}
		var viaRunner, viaTesting, minRunner, minTesting []float64
		for round := 0; round < rounds; round++ {
			plan := &spec.Plan{Benchmarks: []*spec.Benchmark{{
				Name: c.Name, Block: c.Name, Label: c.Name, Op: def, Params: v,
				Timing: spec.Timing{Repeat: 5, Warmup: 100 * time.Millisecond, MinTime: 200 * time.Millisecond, Timeout: time.Minute},
			}}}
			out := runner.Run(context.Background(), plan, runner.Config{})
			if e := out.Benchmarks[0].Error; e != "" {
				t.Fatalf("%s: %s", c.Name, e)
			}
			viaRunner = append(viaRunner, out.Benchmarks[0].NsPerOp.Median)
			fastest := math.Inf(1)
			for _, run := range out.Benchmarks[0].Runs {
				fastest = min(fastest, run.NsPerOp)
			}
			minRunner = append(minRunner, fastest)
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
			minTesting = append(minTesting, viaTesting[len(viaTesting)-1])
		}
		mr, mt := median(viaRunner), median(viaTesting)
		fr, ft := slices.Min(minRunner), slices.Min(minTesting)
		t.Logf("%-22s runner %10.3f ns/op   testing.B %10.3f ns/op   ratio %.3f   fastest: %10.3f %10.3f ratio %.3f",
			c.Name, mr, mt, mr/mt, fr, ft, fr/ft)
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
