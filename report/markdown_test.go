package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/specrun/specrun/results"
)

func pf(x float64) *float64 { return &x }

// goldenResult is a result with one of everything the reporters render:
// a spread of magnitudes, a failed and an interrupted benchmark, each kind
// of assertion and a warning.
func goldenResult() *results.Result {
	run := func(n int64, nsPerOp ...float64) []results.Run {
		var runs []results.Run
		for _, x := range nsPerOp {
			runs = append(runs, results.Run{Iterations: n, TotalNs: int64(x * float64(n)), NsPerOp: x,
				Metrics: map[string]float64{"allocs_per_op": 0, "bytes_per_op": 0, "ops_per_sec": 1e9 / x}})
		}
		return runs
	}
	bench := func(name, label, op string, n int64, params map[string]any, nsPerOp ...float64) results.Benchmark {
		runs := run(n, nsPerOp...)
		xs := make([]float64, len(runs))
		for i, r := range runs {
			xs[i] = r.NsPerOp
		}
		s := results.Summarize(xs)
		block, _, _ := blockOf(name)
		return results.Benchmark{Name: name, Benchmark: block, Label: label, Op: op, Params: params, Iterations: n, Runs: runs, NsPerOp: s}
	}
	started := time.Date(2026, 11, 30, 6, 30, 12, 0, time.UTC)
	return &results.Result{
		Schema: results.Schema,
		Suite:  results.Suite{Name: "common-operations", Title: "Performance Comparisons of Common Operations"},
		Label:  "ci-box",
		Spec: results.Spec{Paths: []string{"common.hcl"}, SHA256: "9f2c",
			Files: map[string]string{"common.hcl": "suite \"common-operations\" {}\n"}},
		Environment: results.Environment{Hostname: "ci-box", OS: "linux", Kernel: "6.1.0-18-amd64", Arch: "amd64",
			CPUModel: "AMD EPYC", CPUCount: 2, MemoryBytes: 8 << 30, GoVersion: "go1.26.8",
			SpecrunVersion: "devel", GOMAXPROCS: 2, VM: "hypervisor flag set"},
		StartedAt:  started,
		FinishedAt: started.Add(42 * time.Second),
		Warnings:   []string{"3 runs give no 95% confidence interval of the median (need 6); the interval is min..max, a 75% interval"},
		Benchmarks: []results.Benchmark{
			bench("memcpy/size=1MB", "1MB memcpy", "memcpy", 10000, map[string]any{"size": float64(1 << 20)}, 123001.8, 121000.2, 125500.9),
			bench("func_value_call", "Cached func value call", "call.func_value", 1000000000, map[string]any{}, 0.71, 0.69, 0.7),
			bench("memcpy/size=16B", "16 byte memcpy", "memcpy", 100000000, map[string]any{"size": float64(16)}, 28.9, 28.7, 29.3, 28.8, 28.9, 29.0),
			{Name: "reflect_call", Benchmark: "reflect_call", Label: "Reflect | call", Op: "call.reflect", Params: map[string]any{},
				Iterations: 10000000, Runs: []results.Run{}, Error: "panic: reflect: call of nil function"},
			bench("file_write/size=16MB", "Write 16MB file", "file.write", 30, map[string]any{"size": float64(16 << 20)}, 361767086.5),
			func() results.Benchmark {
				b := bench("spawn", "Process spawn", "process.spawn", 1000, map[string]any{}, 6096478.5)
				b.Interrupted = true
				return b
			}(),
		},
		Assertions: []results.Assertion{
			{Name: "memcpy_scales", Description: "1MB memcpy costs over a thousand 16B ones", Value: pf(4212.5),
				Interval: &results.Interval{Low: 4150.25, High: 4301, Confidence: 0.95, Kind: results.Bootstrap}, Min: pf(1000), Verdict: results.Pass},
			{Name: "func_value_fast", Value: pf(0.7), Interval: &results.Interval{Low: 0.69, High: 0.71, Confidence: 0.95, Kind: results.Bootstrap}, Min: pf(0.1), Max: pf(0.7),
				Verdict: results.Inconclusive, Message: "the interval straddles max"},
			{Name: "spawn_cheap", Description: "spawning is cheap", Value: pf(6096478.5), Max: pf(1e6), Verdict: results.Fail,
				Message: "one run: the point value decides"},
			{Name: "reflect_ratio", Min: pf(10), Verdict: results.Error, Message: "benchmark reflect_call failed"},
		},
	}
}

func blockOf(name string) (string, string, bool) {
	for i := range name {
		if name[i] == '/' {
			return name[:i], name[i+1:], true
		}
	}
	return name, "", false
}

func TestMarkdownGolden(t *testing.T) {
	for sort, order := range map[string]func(*results.Result) *results.Result{
		"time": results.ByTime,
		"spec": func(r *results.Result) *results.Result { return r },
	} {
		t.Run(sort, func(t *testing.T) {
			var buf bytes.Buffer
			if err := (Markdown{}).Report(&buf, order(goldenResult())); err != nil {
				t.Fatal(err)
			}
			golden(t, "markdown-"+sort+".md", buf.Bytes())
		})
	}
}

func TestMarkdownNumbers(t *testing.T) {
	for _, c := range []struct {
		f    func(float64) string
		in   float64
		want string
	}{
		{nanoseconds, 0.7, "0.7"},
		{nanoseconds, 0.312, "0.31"},
		{nanoseconds, 28.94, "28.9"},
		{nanoseconds, 361767086.5, "361767086.5"},
		{nanoseconds, 6.0964785e9, "6096478500.0"},
		{results.Number, 4212.5, "4212"},
		{results.Number, 0.7, "0.7"},
		{results.Number, 12.3456, "12.35"},
		{results.Number, 1e-9, "1e-09"},
	} {
		if got := c.f(c.in); got != c.want {
			t.Errorf("format %v = %q, want %q", c.in, got, c.want)
		}
	}
}
