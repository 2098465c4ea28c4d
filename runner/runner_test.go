package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/param"
	"github.com/specrun/specrun/spec"
)

// fakeClock is a clock that moves only when a fake op says it worked.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// recorder logs every Run call of the ops it makes, in order.
type recorder struct {
	mu     sync.Mutex
	calls  []string // "name:n"
	closed []string
}

func (r *recorder) log(name string, n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, name+":"+strconv.FormatInt(n, 10))
}

// testOp is a fake op: each Run logs itself, advances the clock by n×cost
// and then does what its hook says.
type testOp struct {
	name  string
	rec   *recorder
	clock *fakeClock
	cost  time.Duration
	hook  func(ctx context.Context, n int64) (ops.Sample, error)
}

func (o *testOp) Run(ctx context.Context, n int64) (ops.Sample, error) {
	o.rec.log(o.name, n)
	if o.clock != nil {
		o.clock.advance(time.Duration(n) * o.cost)
	}
	if o.hook != nil {
		return o.hook(ctx, n)
	}
	return ops.Sample{}, nil
}

func (o *testOp) Close() error {
	o.rec.mu.Lock()
	defer o.rec.mu.Unlock()
	o.rec.closed = append(o.rec.closed, o.name)
	return nil
}

// bench makes a complete benchmark instance of a fake op with fixed
// iterations (0 for "auto"): two runs, no warm-up, and the other settings
// at spec's defaults, as spec.Load would leave them.
func bench(name string, iterations int64, op *testOp) *spec.Benchmark {
	block, _, _ := strings.Cut(name, "/")
	op.name = name
	return &spec.Benchmark{
		Name: name, Block: block, Label: name, Iterations: iterations,
		Timing: spec.Timing{Repeat: 2, MinTime: spec.DefaultMinTime, Timeout: spec.DefaultTimeout},
		Params: param.Values{},
		Op: &ops.Def{Name: "test", New: func(param.Values, ops.Env) (ops.Op, error) {
			return op, nil
		}},
	}
}

func plan(bs ...*spec.Benchmark) *spec.Plan { return &spec.Plan{Benchmarks: bs} }

func TestFixedIterationsAreExact(t *testing.T) {
	rec := &recorder{}
	clock := &fakeClock{}
	b := bench("a", 1000, &testOp{rec: rec, clock: clock, cost: 3 * time.Nanosecond})
	out := Run(context.Background(), plan(b), Config{now: clock.now})

	if diff := cmp.Diff([]string{"a:1000", "a:1000"}, rec.calls); diff != "" {
		t.Errorf("Run calls (-want +got):\n%s", diff)
	}
	got := out.Benchmarks[0]
	if got.Iterations != 1000 || len(got.Runs) != 2 {
		t.Fatalf("iterations %d, %d runs; want 1000, 2", got.Iterations, len(got.Runs))
	}
	for _, run := range got.Runs {
		if run.Iterations != 1000 || run.TotalNs != 3000 || run.NsPerOp != 3 {
			t.Errorf("run = %+v, want 1000 iterations, 3000 ns, 3 ns/op", run)
		}
		if run.Metrics["ops_per_sec"] != 1e9/3 {
			t.Errorf("ops_per_sec = %v, want %v", run.Metrics["ops_per_sec"], 1e9/3)
		}
	}
	if got.NsPerOp.Median != 3 || got.Error != "" || got.Interrupted {
		t.Errorf("benchmark = %+v", got)
	}
	if diff := cmp.Diff([]string{"a"}, rec.closed); diff != "" {
		t.Errorf("closed (-want +got):\n%s", diff)
	}
}

func TestScaleRepeatFilter(t *testing.T) {
	for _, c := range []struct {
		name  string
		cfg   Config
		want  []string
		names []string
	}{
		{"scale", Config{Scale: 2.5}, []string{"a/x=1:2500", "a/x=1:2500", "a/x=2:2500", "a/x=2:2500"}, []string{"a/x=1", "a/x=2"}},
		{"scale never below one", Config{Scale: 1e-9}, []string{"a/x=1:1", "a/x=1:1", "a/x=2:1", "a/x=2:1"}, []string{"a/x=1", "a/x=2"}},
		{"repeat", Config{Repeat: 3, Filter: regexp.MustCompile(`x=2`)}, []string{"a/x=2:1000", "a/x=2:1000", "a/x=2:1000"}, []string{"a/x=2"}},
		{"filter none", Config{Filter: regexp.MustCompile(`^b`)}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{}
			out := Run(context.Background(), plan(
				bench("a/x=1", 1000, &testOp{rec: rec}),
				bench("a/x=2", 1000, &testOp{rec: rec}),
			), c.cfg)
			if diff := cmp.Diff(c.want, rec.calls); diff != "" {
				t.Errorf("Run calls (-want +got):\n%s", diff)
			}
			var names []string
			for _, b := range out.Benchmarks {
				names = append(names, b.Name)
			}
			if diff := cmp.Diff(c.names, names); diff != "" {
				t.Errorf("benchmarks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCalibrationConverges(t *testing.T) {
	for _, cost := range []time.Duration{1, 3, 700, 50 * time.Microsecond, 30 * time.Millisecond} {
		t.Run(cost.String(), func(t *testing.T) {
			rec := &recorder{}
			clock := &fakeClock{}
			b := bench("auto", 0, &testOp{rec: rec, clock: clock, cost: cost})
			b.MinTime = 200 * time.Millisecond
			out := Run(context.Background(), plan(b), Config{now: clock.now})
			got := out.Benchmarks[0]
			if got.Error != "" {
				t.Fatal(got.Error)
			}
			run := time.Duration(got.Runs[0].TotalNs)
			if run < b.MinTime || run > b.MinTime*3/2 {
				t.Errorf("a calibrated run lasts %v (n=%d), want about %v", run, got.Iterations, b.MinTime)
			}
			// testing.B's growth: start at 1, at most 100x a step, always up.
			prev := int64(0)
			calib := rec.calls[:len(rec.calls)-2]
			for i, call := range calib {
				n := callN(call)
				if i == 0 && n != 1 || i > 0 && (n <= prev || n > 100*prev) {
					t.Errorf("calibration steps %v grow wrongly at %d", calib, i)
					break
				}
				prev = n
			}
		})
	}
}

// TestWarmup: warm-up runs grow from one iteration, never beyond a fixed
// count, and last the warm-up's setting to within 10%, whatever an
// iteration costs (unless one iteration alone is more than that), for a
// fixed count and after "auto" calibration alike.
func TestWarmup(t *testing.T) {
	const warmup = 100 * time.Millisecond
	for _, c := range []struct {
		iterations int64 // 0: auto
		cost       time.Duration
	}{
		{1000, time.Microsecond}, {1e9, time.Nanosecond}, {1e9, 3 * time.Nanosecond}, {1e6, 700 * time.Nanosecond},
		{1e4, 50 * time.Microsecond}, {100, 7 * time.Millisecond}, {10, 30 * time.Millisecond},
		{0, time.Nanosecond}, {0, 700 * time.Nanosecond}, {0, 50 * time.Microsecond},
	} {
		rec := &recorder{}
		clock := &fakeClock{}
		b := bench("w", c.iterations, &testOp{rec: rec, clock: clock, cost: c.cost})
		b.Warmup = warmup
		b.MinTime = 10 * time.Millisecond
		out := Run(context.Background(), plan(b), Config{now: clock.now})
		calls := rec.calls[:len(rec.calls)-b.Repeat]
		if len(calls) < 2 || calls[0] != "w:1" {
			t.Errorf("iterations %d, cost %v: calls %v: want warm-up runs growing from 1 before the timed runs", c.iterations, c.cost, calls)
			continue
		}
		var warm time.Duration
		for _, call := range calls {
			n := callN(call)
			if c.iterations > 0 && n > c.iterations {
				t.Errorf("iterations %d, cost %v: warm-up run of %d iterations exceeds the fixed count", c.iterations, c.cost, n)
			}
			warm += time.Duration(n) * c.cost
		}
		if lo, hi := warmup*9/10, warmup*11/10; warm < lo || warm > hi {
			t.Errorf("iterations %d, cost %v: warm-up (calibration included) lasted %v, want %v to %v (calls %v)", c.iterations, c.cost, warm, lo, hi, calls)
		}
		if e := out.Benchmarks[0].Error; e != "" {
			t.Errorf("iterations %d, cost %v: %s", c.iterations, c.cost, e)
		}
		// Every warm-up run is recorded, in order, apart from the timed runs.
		got := out.Benchmarks[0]
		var warmups []string
		for _, w := range got.Warmups {
			warmups = append(warmups, "w:"+strconv.FormatInt(w.Iterations, 10))
			if want := float64(w.TotalNs) / float64(w.Iterations); w.NsPerOp != want || w.TotalNs != w.Iterations*c.cost.Nanoseconds() {
				t.Errorf("iterations %d, cost %v: warm-up %+v: want %v ns/op", c.iterations, c.cost, w, c.cost)
			}
		}
		if diff := cmp.Diff(calls[:min(len(calls), maxWarmups)], warmups); diff != "" {
			t.Errorf("iterations %d, cost %v: warm-ups recorded (-calls +recorded):\n%s", c.iterations, c.cost, diff)
		}
		if len(got.Runs) != b.Repeat || got.Runs[0].Iterations != callN(rec.calls[len(rec.calls)-1]) {
			t.Errorf("iterations %d, cost %v: %d runs of %d; want %d timed runs", c.iterations, c.cost, len(got.Runs), got.Runs[0].Iterations, b.Repeat)
		}
	}
}

func TestFaultsAreRecordedAndTheSuiteGoesOn(t *testing.T) {
	rec := &recorder{}
	release := make(chan struct{})
	defer close(release)
	hung := &testOp{rec: rec, hook: func(ctx context.Context, n int64) (ops.Sample, error) {
		<-release // ignores its context
		return ops.Sample{}, nil
	}}
	polite := &testOp{rec: rec, hook: func(ctx context.Context, n int64) (ops.Sample, error) {
		<-ctx.Done()
		return ops.Sample{}, ctx.Err()
	}}
	bs := []*spec.Benchmark{
		bench("fails", 10, &testOp{rec: rec, hook: func(context.Context, int64) (ops.Sample, error) {
			return ops.Sample{}, errors.New("disk on fire")
		}}),
		bench("panics", 10, &testOp{rec: rec, hook: func(context.Context, int64) (ops.Sample, error) {
			panic("kaboom")
		}}),
		bench("hangs", 10, hung),
		bench("waits", 10, polite),
		bench("ok", 10, &testOp{rec: rec}),
	}
	bs[2].Timeout = 50 * time.Millisecond
	bs[3].Timeout = 50 * time.Millisecond
	bs = append(bs, &spec.Benchmark{Name: "cannot-prepare", Block: "cannot-prepare", Iterations: 1, Timing: spec.Timing{Repeat: 1, Timeout: spec.DefaultTimeout},
		Op: &ops.Def{Name: "test", New: func(param.Values, ops.Env) (ops.Op, error) {
			return nil, errors.New("no such thing")
		}}})

	start := time.Now()
	out := Run(context.Background(), plan(bs...), Config{Grace: 20 * time.Millisecond})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("suite took %v: a hung op held it up", took)
	}
	errs := map[string]string{}
	for _, b := range out.Benchmarks {
		errs[b.Name] = b.Error
	}
	want := map[string]string{
		"fails":          "disk on fire",
		"panics":         "panic: kaboom",
		"hangs":          "timed out after 50ms",
		"waits":          "timed out after 50ms",
		"ok":             "",
		"cannot-prepare": "prepare: no such thing",
	}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if out.Interrupted {
		t.Error("Outcome.Interrupted set without a cancellation")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if diff := cmp.Diff([]string{"fails", "panics", "hangs", "waits", "ok"}, rec.closed); diff != "" {
		t.Errorf("closed (-want +got):\n%s", diff)
	}
}

func TestCancelStopsTheRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{}
	runs := 0
	b := bench("slow", 10, &testOp{rec: rec, hook: func(ctx context.Context, n int64) (ops.Sample, error) {
		runs++
		if runs == 2 {
			cancel() // Ctrl-C during the second run
			<-ctx.Done()
			return ops.Sample{}, ctx.Err()
		}
		return ops.Sample{}, nil
	}})
	b.Repeat = 3
	out := Run(ctx, plan(bench("first", 10, &testOp{rec: rec}), b, bench("never", 10, &testOp{rec: rec})), Config{})

	if !out.Interrupted {
		t.Error("Outcome.Interrupted not set")
	}
	if len(out.Benchmarks) != 2 {
		t.Fatalf("got %d benchmarks, want the finished one and the interrupted one", len(out.Benchmarks))
	}
	first, slow := out.Benchmarks[0], out.Benchmarks[1]
	if first.Interrupted || len(first.Runs) != 2 {
		t.Errorf("first = %+v, want complete", first)
	}
	if !slow.Interrupted || slow.Error != "" || len(slow.Runs) != 1 {
		t.Errorf("slow: interrupted %v, error %q, %d runs; want interrupted, no error, 1 run", slow.Interrupted, slow.Error, len(slow.Runs))
	}
	if diff := cmp.Diff([]string{"first", "slow"}, rec.closed); diff != "" {
		t.Errorf("closed (-want +got):\n%s", diff)
	}
}

func TestInterleave(t *testing.T) {
	rec := &recorder{}
	a := bench("m/v=a", 5, &testOp{rec: rec})
	b := bench("m/v=b", 5, &testOp{rec: rec})
	c := bench("solo", 5, &testOp{rec: rec})
	a.Interleave, b.Interleave = true, true
	a.Repeat, b.Repeat = 3, 3
	Run(context.Background(), plan(a, b, c), Config{})
	want := []string{"m/v=a:5", "m/v=b:5", "m/v=a:5", "m/v=b:5", "m/v=a:5", "m/v=b:5", "solo:5", "solo:5"}
	if diff := cmp.Diff(want, rec.calls); diff != "" {
		t.Errorf("Run calls (-want +got):\n%s", diff)
	}
}

func TestSampleAndMetrics(t *testing.T) {
	rec := &recorder{}
	var sink [][]byte
	b := bench("m", 100, &testOp{rec: rec, hook: func(_ context.Context, n int64) (ops.Sample, error) {
		for i := int64(0); i < n; i++ {
			sink = append(sink, make([]byte, 64))
		}
		sink = sink[:0]
		return ops.Sample{N: 50, Elapsed: time.Millisecond, Metrics: map[string]float64{"requests_per_sec": 7}}, nil
	}})
	b.Params = param.Values{"size": int64(16), "wait": 300 * time.Microsecond}
	out := Run(context.Background(), plan(b), Config{})
	got := out.Benchmarks[0]
	run := got.Runs[0]
	if run.Iterations != 50 || run.TotalNs != 1e6 || run.NsPerOp != 2e4 {
		t.Errorf("run = %+v, want the op's own N=50 and Elapsed=1ms", run)
	}
	if run.Metrics["requests_per_sec"] != 7 || run.Metrics["bytes_per_sec"] != 16*50/1e-3 || run.Metrics["ops_per_sec"] != 50/1e-3 {
		t.Errorf("metrics = %v", run.Metrics)
	}
	// 100 allocations of 64 bytes over the op's 50 iterations.
	if a := run.Metrics["allocs_per_op"]; a < 2 || a > 3 {
		t.Errorf("allocs_per_op = %v, want about 2", a)
	}
	if s, ok := got.Metrics["requests_per_sec"]; !ok || s.Median != 7 {
		t.Errorf("summary of requests_per_sec = %+v", s)
	}
	if diff := cmp.Diff(map[string]any{"size": int64(16), "wait": "300µs"}, got.Params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if !contains(out.Warnings, "runs give no 95% confidence interval") {
		t.Errorf("warnings %q: want the one about too few runs", out.Warnings)
	}
}

func TestShortRunWarning(t *testing.T) {
	clock := &fakeClock{}
	b := bench("tiny", 10, &testOp{rec: &recorder{}, clock: clock, cost: time.Microsecond})
	out := Run(context.Background(), plan(b), Config{now: clock.now})
	if !contains(out.Warnings, "tiny: a run lasts 10µs, too short") {
		t.Errorf("warnings %q: want one about a short run", out.Warnings)
	}
}

// TestOpWarningsReachTheOutcome: what an op found doubtful about a timed
// run (an http rate it could not reach) is a warning of the run, named
// after its benchmark; what it said during warm-up is not.
func TestOpWarningsReachTheOutcome(t *testing.T) {
	clock := &fakeClock{}
	var calls atomic.Int64
	op := &testOp{rec: &recorder{}, clock: clock, cost: time.Millisecond,
		hook: func(context.Context, int64) (ops.Sample, error) {
			return ops.Sample{Warnings: []string{fmt.Sprintf("call %d fell short", calls.Add(1))}}, nil
		}}
	b := bench("load", 10, op)
	b.Warmup = 5 * time.Millisecond
	out := Run(context.Background(), plan(b), Config{now: clock.now})
	warmups := len(op.rec.calls) - b.Repeat
	for i := 1; i <= len(op.rec.calls); i++ {
		w := fmt.Sprintf("load: call %d fell short", i)
		if got, want := contains(out.Warnings, w), i > warmups; got != want {
			t.Errorf("warning %q recorded = %v, want %v (warnings %q)", w, got, want, out.Warnings)
		}
	}
}

// timedOp is a fake op whose runs last a set time: its warm-up is WarmUp.
type timedOp struct {
	testOp
	warmups []time.Duration
}

func (o *timedOp) WarmUp(_ context.Context, d time.Duration) (ops.Sample, error) {
	o.warmups = append(o.warmups, d)
	o.clock.advance(d)
	return ops.Sample{N: 7, Elapsed: d, Metrics: map[string]float64{"requests_per_sec": 7 / d.Seconds()}}, nil
}

// TestDurationBoundWarmsUpOnce: an op whose runs last a duration warms up
// with one call of WarmUp for the warm-up's length, never with Run, which
// would take a whole run.
func TestDurationBoundWarmsUpOnce(t *testing.T) {
	for _, warmup := range []time.Duration{0, 100 * time.Millisecond} {
		clock := &fakeClock{}
		op := &timedOp{testOp: testOp{rec: &recorder{}, clock: clock, cost: time.Second}}
		b := bench("load", 0, &op.testOp)
		b.Op.New = func(param.Values, ops.Env) (ops.Op, error) { return op, nil }
		b.Op.Iterations = func(param.Values) int64 { return 1 }
		b.Warmup = warmup
		out := Run(context.Background(), plan(b), Config{now: clock.now})
		if diff := cmp.Diff([]string{"load:1", "load:1"}, op.rec.calls); diff != "" {
			t.Errorf("warm-up %v: Run calls (-want +got):\n%s", warmup, diff)
		}
		want := []time.Duration{warmup}
		if warmup == 0 {
			want = nil
		}
		if diff := cmp.Diff(want, op.warmups); diff != "" {
			t.Errorf("warm-up %v: WarmUp calls (-want +got):\n%s", warmup, diff)
		}
		if e := out.Benchmarks[0].Error; e != "" {
			t.Errorf("warm-up %v: error %s", warmup, e)
		}
		// The warm-up phase is recorded as WarmUp observed it, and only there.
		got := out.Benchmarks[0]
		var phases []int64
		for _, w := range got.Warmups {
			phases = append(phases, w.Iterations)
			if w.TotalNs != warmup.Nanoseconds() || w.Metrics["requests_per_sec"] != 7/warmup.Seconds() {
				t.Errorf("warm-up %v: recorded %+v", warmup, w)
			}
		}
		if want := []int64{7}; warmup > 0 && !slices.Equal(want, phases) || warmup == 0 && phases != nil {
			t.Errorf("warm-up %v: warm-up phases of %v iterations", warmup, phases)
		}
		if len(got.Runs) != 2 || got.NsPerOp.Median != float64(time.Second) {
			t.Errorf("warm-up %v: %d runs, median %v ns/op; want 2 runs of 1 s", warmup, len(got.Runs), got.NsPerOp.Median)
		}
	}
}

func TestDefaultEnvTempDirIsRemoved(t *testing.T) {
	var dir string
	b := bench("files", 1, &testOp{rec: &recorder{}})
	newOp := b.Op.New
	b.Op.New = func(p param.Values, env ops.Env) (ops.Op, error) {
		dir = env.TempDir()
		if err := os.WriteFile(dir+"/f", []byte("x"), 0o644); err != nil {
			return nil, err
		}
		if _, err := env.Server(context.Background(), "web"); err == nil {
			t.Error("default Env started a server")
		}
		return newOp(p, env)
	}
	out := Run(context.Background(), plan(b), Config{})
	if out.Benchmarks[0].Error != "" {
		t.Fatal(out.Benchmarks[0].Error)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temp dir %s left behind (stat: %v)", dir, err)
	}
}

func contains(ws []string, part string) bool {
	for _, w := range ws {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

// callN is the n of a logged call, "name:n".
func callN(call string) int64 {
	n, _ := strconv.ParseInt(call[strings.LastIndexByte(call, ':')+1:], 10, 64)
	return n
}

func TestOpFixesIterations(t *testing.T) {
	rec := &recorder{}
	b := bench("http", 1000, &testOp{rec: rec})
	b.Params = param.Values{"requests": int64(40)}
	b.Op.Iterations = func(p param.Values) int64 { return p.Int("requests") }
	Run(context.Background(), plan(b), Config{Scale: 10})
	if diff := cmp.Diff([]string{"http:40", "http:40"}, rec.calls); diff != "" {
		t.Errorf("Run calls (-want +got):\n%s", diff)
	}
}

// observed logs what an Observer is told.
type observed struct{ events []string }

func (o *observed) BenchmarkStart(b *spec.Benchmark, index, total int) {
	o.events = append(o.events, "start "+b.Name+" "+strconv.Itoa(index)+"/"+strconv.Itoa(total))
}

func (o *observed) RunDone(b *spec.Benchmark, run, runs int) {
	o.events = append(o.events, "run "+b.Name+" "+strconv.Itoa(run)+"/"+strconv.Itoa(runs))
}

func (o *observed) BenchmarkDone(b *spec.Benchmark, err error) {
	msg := "ok"
	if err != nil {
		msg = err.Error()
	}
	o.events = append(o.events, "done "+b.Name+" "+msg)
}

func TestObserver(t *testing.T) {
	rec := &recorder{}
	o := &observed{}
	fails := bench("fails", 1, &testOp{rec: rec, hook: func(context.Context, int64) (ops.Sample, error) {
		return ops.Sample{}, errors.New("no")
	}})
	Run(context.Background(), plan(bench("a", 1, &testOp{rec: rec}), fails), Config{Observer: o})
	want := []string{"start a 1/2", "run a 1/2", "run a 2/2", "done a ok", "start fails 2/2", "done fails no"}
	if diff := cmp.Diff(want, o.events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestLatePreparedOpIsClosed(t *testing.T) {
	rec := &recorder{}
	b := bench("slow-start", 1, &testOp{rec: rec})
	newOp := b.Op.New
	b.Op.New = func(p param.Values, env ops.Env) (ops.Op, error) {
		time.Sleep(200 * time.Millisecond)
		return newOp(p, env)
	}
	b.Timeout = 20 * time.Millisecond
	out := Run(context.Background(), plan(b), Config{Grace: 10 * time.Millisecond})
	if got := out.Benchmarks[0].Error; got != "timed out after 20ms" {
		t.Errorf("error %q, want a timeout", got)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		rec.mu.Lock()
		closed := len(rec.closed)
		rec.mu.Unlock()
		if closed == 1 {
			return
		}
	}
	t.Error("an op prepared after its timeout was never closed")
}

// stopEnv records which servers the runner stops, and when.
type stopEnv struct {
	rec     *recorder
	stopped []string
}

func (e *stopEnv) TempDir() string { return os.TempDir() }
func (e *stopEnv) Server(context.Context, string) (ops.Server, error) {
	return ops.Server{}, nil
}
func (e *stopEnv) StopServer(name string) error {
	e.rec.mu.Lock()
	defer e.rec.mu.Unlock()
	e.stopped = append(e.stopped, fmt.Sprintf("%s after %d runs", name, len(e.rec.calls)))
	return nil
}

// TestServersStopAfterTheirLastBenchmark: each server stops as soon as no
// benchmark left in the run loads it, and each instance is handed the
// servers the plan settled for it.
func TestServersStopAfterTheirLastBenchmark(t *testing.T) {
	rec := &recorder{}
	uses := func(b *spec.Benchmark, names ...string) *spec.Benchmark {
		b.Servers = names
		newOp := b.Op.New
		b.Op.New = func(p param.Values, env ops.Env) (ops.Op, error) {
			if got := env.Servers(); fmt.Sprint(got) != fmt.Sprint(names) {
				t.Errorf("%s: Env.Servers() = %v, want %v", b.Name, got, names)
			}
			return newOp(p, env)
		}
		return b
	}
	env := &stopEnv{rec: rec}
	Run(context.Background(), plan(
		uses(bench("a", 1, &testOp{rec: rec}), "s1"),
		uses(bench("b", 1, &testOp{rec: rec}), "s1", "s2"),
		uses(bench("c", 1, &testOp{rec: rec}), "s2"),
		bench("d", 1, &testOp{rec: rec}),
	), Config{Resources: env})
	runs := func(bench string) int { // calls up to and including bench's last
		last := 0
		for i, c := range rec.calls {
			if strings.HasPrefix(c, bench+":") {
				last = i + 1
			}
		}
		return last
	}
	want := []string{
		fmt.Sprintf("s1 after %d runs", runs("b")),
		fmt.Sprintf("s2 after %d runs", runs("c")),
	}
	if diff := cmp.Diff(want, env.stopped); diff != "" {
		t.Errorf("server stops (-want +got):\n%s", diff)
	}
}

// countingCtx counts how often the runner asks whether it was cancelled.
type countingCtx struct {
	context.Context
	errs atomic.Int64
}

func (c *countingCtx) Err() error {
	c.errs.Add(1)
	return c.Context.Err()
}

// TestHugeRepeatEndsWithItsInstances: once every instance of a group has
// stopped (here: failed), the runner leaves the group, whatever repeat was
// asked for, instead of counting through the rounds.
func TestHugeRepeatEndsWithItsInstances(t *testing.T) {
	failing := func(context.Context, int64) (ops.Sample, error) { return ops.Sample{}, errors.New("broken") }
	a := bench("m/a", 1, &testOp{rec: &recorder{}, hook: failing})
	b := bench("m/b", 1, &testOp{rec: &recorder{}})
	for _, x := range []*spec.Benchmark{a, b} {
		x.Interleave, x.Block, x.Repeat = true, "m", math.MaxInt32
	}
	b.Repeat = 3
	ctx := &countingCtx{Context: context.Background()}
	out := Run(ctx, plan(a, b), Config{})
	if n := ctx.errs.Load(); n > 1000 {
		t.Errorf("the runner checked for cancellation %d times for 3 rounds", n)
	}
	if len(out.Benchmarks) != 2 || out.Benchmarks[0].Error == "" || len(out.Benchmarks[1].Runs) != 3 {
		t.Errorf("benchmarks %+v, want m/a failed and m/b with 3 runs", out.Benchmarks)
	}
}

// TestScaleOverflowIsAnError: a scaled count beyond int64 fails its
// benchmark with a message instead of wrapping around to one iteration.
func TestScaleOverflowIsAnError(t *testing.T) {
	for _, c := range []struct {
		iterations int64
		scale      float64
	}{{5e18, 2}, {1000, 1e17}, {math.MaxInt64 - 1, 1}} {
		rec := &recorder{}
		out := Run(context.Background(), plan(bench("big", c.iterations, &testOp{rec: rec})), Config{Scale: c.scale})
		got := out.Benchmarks[0]
		if !strings.Contains(got.Error, "beyond the largest count") || len(rec.calls) != 0 {
			t.Errorf("iterations %d scale %g: error %q after calls %v, want an error and no call", c.iterations, c.scale, got.Error, rec.calls)
		}
	}
}

// TestStrayOpContaminatesLaterBenchmarks: an op that ignores its context
// is abandoned after its timeout and grace; the benchmarks timed while it
// still runs are marked, and a warning names them.
func TestStrayOpContaminatesLaterBenchmarks(t *testing.T) {
	release := make(chan struct{})
	stuck := bench("stuck", 1, &testOp{rec: &recorder{}, hook: func(context.Context, int64) (ops.Sample, error) {
		<-release // ignores ctx
		return ops.Sample{}, nil
	}})
	stuck.Timeout = 10 * time.Millisecond
	after := bench("after", 1, &testOp{rec: &recorder{}})
	out := Run(context.Background(), plan(stuck, after, bench("later", 1, &testOp{rec: &recorder{}})), Config{Grace: time.Millisecond})
	close(release)

	if !strings.Contains(out.Benchmarks[0].Error, "timed out") {
		t.Errorf("stuck: error %q, want a timeout", out.Benchmarks[0].Error)
	}
	if len(out.Benchmarks[0].ContaminatedBy) != 0 {
		t.Errorf("stuck is marked contaminated by %q", out.Benchmarks[0].ContaminatedBy)
	}
	for _, b := range out.Benchmarks[1:] {
		if diff := cmp.Diff([]string{"stuck"}, b.ContaminatedBy); diff != "" {
			t.Errorf("%s: contaminated by (-want +got):\n%s", b.Name, diff)
		}
	}
	want := "stuck: its op kept running after its timeout (it ignores cancellation), so the benchmarks timed beside it are suspect: after, later"
	if !contains(out.Warnings, want) {
		t.Errorf("warnings %q lack %q", out.Warnings, want)
	}
}

// TestIncompletePlanIsAnError: the runner fills in no defaults; a
// benchmark missing what spec.Load always sets fails with a message.
func TestIncompletePlanIsAnError(t *testing.T) {
	noRepeat := bench("norepeat", 1, &testOp{rec: &recorder{}})
	noRepeat.Repeat = 0
	noTimeout := bench("notimeout", 1, &testOp{rec: &recorder{}})
	noTimeout.Timeout = 0
	noMinTime := bench("nomintime", 0, &testOp{rec: &recorder{}})
	noMinTime.MinTime = 0
	out := Run(context.Background(), plan(noRepeat, noTimeout, noMinTime), Config{})
	for i, want := range []string{"has repeat 0", "has no timeout", "calibrates but has no min_time"} {
		if b := out.Benchmarks[i]; !strings.Contains(b.Error, want) || len(b.Runs) != 0 {
			t.Errorf("%s: error %q with %d runs, want %q and none", b.Name, b.Error, len(b.Runs), want)
		}
	}
}

// TestCollectsOnlyToProtectTimedRuns: a suite of ops that allocate nothing
// is not collected before every run (which would mark every finished
// result again each time); an op that allocates more than the heap has
// room for gets a clean heap before each of its timed runs.
func TestCollectsOnlyToProtectTimedRuns(t *testing.T) {
	const instances = 200
	var bs []*spec.Benchmark
	for i := range instances {
		bs = append(bs, bench(fmt.Sprintf("noop/i=%d", i), 10, &testOp{rec: &recorder{}}))
	}
	before := numGC()
	Run(context.Background(), plan(bs...), Config{})
	if n := numGC() - before; n > instances/4 {
		t.Errorf("%d collections for %d instances of %d runs each that allocate nothing", n, instances, bs[0].Repeat)
	}

	var sink [][]byte
	heavy := bench("heavy", 1, &testOp{rec: &recorder{}, hook: func(context.Context, int64) (ops.Sample, error) {
		sink = append(sink[:0], make([]byte, 64<<20))
		return ops.Sample{}, nil
	}})
	heavy.Repeat = 4
	heavy.Warmup = time.Nanosecond // one warm-up run tells the runner what a run allocates
	forced := 0
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	beforeForced := ms.NumForcedGC
	Run(context.Background(), plan(heavy), Config{})
	runtime.ReadMemStats(&ms)
	forced = int(ms.NumForcedGC - beforeForced)
	if forced < heavy.Repeat {
		t.Errorf("%d forced collections for %d timed runs that each allocate 64 MB", forced, heavy.Repeat)
	}
	_ = sink
}

func numGC() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.NumGC
}

// TestScaleShortensCalibratedRuns: --scale multiplies the min_time of an
// "auto" benchmark as it multiplies a fixed count, so that a quick rerun
// is quick for both.
func TestScaleShortensCalibratedRuns(t *testing.T) {
	for _, scale := range []float64{0.1, 1, 3} {
		clock := &fakeClock{}
		b := bench("auto", 0, &testOp{rec: &recorder{}, clock: clock, cost: 700 * time.Nanosecond})
		b.MinTime = 200 * time.Millisecond
		out := Run(context.Background(), plan(b), Config{now: clock.now, Scale: scale})
		goal := time.Duration(float64(b.MinTime) * scale)
		if run := time.Duration(out.Benchmarks[0].Runs[0].TotalNs); run < goal || run > goal*3/2 {
			t.Errorf("scale %g: a calibrated run lasts %v, want about %v", scale, run, goal)
		}
	}
	b := bench("auto", 0, &testOp{rec: &recorder{}})
	out := Run(context.Background(), plan(b), Config{Scale: 1e300})
	if e := out.Benchmarks[0].Error; !strings.Contains(e, "beyond the longest duration") {
		t.Errorf("scale 1e300: error %q, want one about the duration", e)
	}
}
