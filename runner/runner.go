// Package runner is specrun's harness: it prepares each benchmark instance of
// a Plan, calibrates or fixes its iteration count, warms it up, times its
// repeated runs and hands the outcomes to results. It knows no HCL and no
// output formats.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/param"
	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// Defaults for a benchmark whose plan leaves a setting at zero.
const (
	DefaultRepeat  = 3
	DefaultMinTime = 500 * time.Millisecond
	DefaultTimeout = 10 * time.Minute
	DefaultGrace   = 2 * time.Second
)

// ShortRun is the total time under which a run is too short for the
// clock to time precisely; such benchmarks get a warning.
const ShortRun = 100 * time.Microsecond

// maxN bounds calibration, as testing.B's 1e9 does, but higher: specrun's
// iteration counts are int64 and a 0.3 ns op needs more than 1e9 to fill a
// second.
const maxN = 1e11

// Config adjusts a run without editing the spec. The zero value runs the
// plan as written.
type Config struct {
	Filter *regexp.Regexp // instance names to run; nil runs all
	Scale  float64        // multiplies fixed iteration counts (never below 1); 0 means 1
	Repeat int            // overrides every benchmark's repeat when > 0
	Env    ops.Env        // servers and the temp dir; nil gives a private temp dir and no servers
	// Observer is told of progress (benchmark k of n, run r of R); nil is silent.
	Observer Observer
	// Grace is how long the runner waits, past a timeout or a cancellation,
	// for an op to return before it gives up on it and moves on; 0 means
	// DefaultGrace.
	Grace time.Duration

	now func() time.Time // the clock runs are timed with; tests replace it
}

// Observer follows a run's progress.
type Observer interface {
	BenchmarkStart(b *spec.Benchmark, index, total int)
	RunDone(b *spec.Benchmark, run, runs int)
	BenchmarkDone(b *spec.Benchmark, err error)
}

// Outcome is what a run produced: one entry per benchmark instance that was
// started, in plan order, and the warnings about how far to trust them.
type Outcome struct {
	Benchmarks []results.Benchmark
	Warnings   []string
	// Interrupted is set when ctx was cancelled: the benchmark that was
	// running is marked interrupted and the ones after it are missing.
	Interrupted bool
}

// Run times every instance of plan that cfg selects. Errors of a benchmark
// (an op that fails, panics or hangs past its timeout) are recorded in its
// results.Benchmark and the run goes on; cancelling ctx stops it, and what
// finished is returned.
//
// A benchmark's timeout bounds the time spent in its own op calls
// (prepare, warm-up, calibration and runs), so that interleaved instances
// do not spend each other's.
func Run(ctx context.Context, plan *spec.Plan, cfg Config) Outcome {
	r := &runner{ctx: ctx, cfg: cfg, env: cfg.Env, now: cfg.now, grace: cfg.Grace}
	if r.now == nil {
		r.now = time.Now
	}
	if r.grace <= 0 {
		r.grace = DefaultGrace
	}
	var selected []*spec.Benchmark
	for _, b := range plan.Benchmarks {
		if cfg.Filter == nil || cfg.Filter.MatchString(b.Name) {
			selected = append(selected, b)
		}
	}
	if r.env == nil {
		env, err := newTempEnv()
		if err != nil {
			for _, b := range selected {
				r.out.Benchmarks = append(r.out.Benchmarks, failed(b, err))
			}
			return r.out
		}
		defer env.remove()
		r.env = env
	}

	index := 0
	groups := interleaved(selected)
	stops := serverStops(groups, r.env)
	for gi, group := range groups {
		if ctx.Err() != nil {
			break
		}
		insts := make([]*instance, len(group))
		for i, b := range group {
			index++
			insts[i] = r.newInstance(b, index, len(selected))
		}
		r.runGroup(insts)
		r.stopServers(stops[gi])
	}
	r.strayWarnings()
	r.out.Interrupted = ctx.Err() != nil
	return r.out
}

type runner struct {
	ctx    context.Context
	cfg    Config
	env    ops.Env
	now    func() time.Time
	grace  time.Duration
	out    Outcome
	seen   map[string]bool // warnings already in out
	strays strays
}

// instance is one benchmark instance on its way through the harness.
type instance struct {
	b       *spec.Benchmark
	index   int
	total   int
	op      ops.Op
	n       int64         // iterations per timed run
	repeat  int           // timed runs
	budget  time.Duration // what is left of its timeout
	res     results.Benchmark
	err     error // why it stopped early, when it did
	stopped bool
	began   bool
}

func (r *runner) newInstance(b *spec.Benchmark, index, total int) *instance {
	in := &instance{b: b, index: index, total: total, repeat: b.Repeat, budget: b.Timeout}
	if r.cfg.Repeat > 0 {
		in.repeat = r.cfg.Repeat
	}
	if in.repeat <= 0 {
		in.repeat = DefaultRepeat
	}
	if in.budget <= 0 {
		in.budget = DefaultTimeout
	}
	in.res = record(b)
	return in
}

// serverStops maps the index of each group to the servers that no later
// group loads, so that a server stops after its last benchmark rather than
// idling (and costing CPU) through the rest of the suite.
func serverStops(groups [][]*spec.Benchmark, env ops.Env) map[int][]string {
	last := map[string]int{}
	for gi, group := range groups {
		for _, b := range group {
			if b.Op != nil && b.Op.Servers != nil {
				for _, name := range b.Op.Servers(b.Params, env) {
					last[name] = gi
				}
			}
		}
	}
	stops := map[int][]string{}
	for name, gi := range last {
		stops[gi] = append(stops[gi], name)
	}
	for _, names := range stops {
		sort.Strings(names)
	}
	return stops
}

// stopServers stops servers whose last benchmark has run; the Env stops
// whatever is left when the run ends.
func (r *runner) stopServers(names []string) {
	st, ok := r.env.(ops.ServerStopper)
	if !ok {
		return
	}
	for _, name := range names {
		if err := st.StopServer(name); err != nil {
			r.out.Warnings = append(r.out.Warnings, err.Error())
		}
	}
}

// runGroup runs instances that share a block round-robin: all are prepared
// and calibrated, then each does its first run, then each its second, so
// that drift in the machine hits every variant alike. A group of one is
// simply a benchmark run from start to finish.
func (r *runner) runGroup(insts []*instance) {
	for _, in := range insts {
		if r.ctx.Err() != nil {
			break
		}
		in.began = true
		if r.cfg.Observer != nil {
			r.cfg.Observer.BenchmarkStart(in.b, in.index, in.total)
		}
		if err := r.prepare(in); err != nil {
			r.stop(in, err)
			continue
		}
		if err := r.calibrate(in); err != nil {
			r.stop(in, err)
		}
	}
	// A round runs every instance that still has runs to do; the loop ends
	// when none has, however large a repeat the others asked for.
	for round, active := 1, true; active && r.ctx.Err() == nil; round++ {
		active = false
		for _, in := range insts {
			if in.stopped || round > in.repeat || r.ctx.Err() != nil {
				continue
			}
			if err := r.timedRun(in); err != nil {
				r.stop(in, err)
				continue
			}
			if r.cfg.Observer != nil {
				r.cfg.Observer.RunDone(in.b, round, in.repeat)
			}
			active = active || round < in.repeat
		}
	}
	for _, in := range insts {
		if in.began {
			r.finish(in)
		}
	}
}

// stop ends an instance early. An interruption is not the op's fault and
// is not recorded as its error.
func (r *runner) stop(in *instance, err error) {
	in.stopped = true
	in.err = err
	if !errors.Is(err, errInterrupted) {
		in.res.Error = err.Error()
	}
}

// prepare makes the op, untimed.
func (r *runner) prepare(in *instance) error {
	if in.b.Op == nil || in.b.Op.New == nil {
		return fmt.Errorf("benchmark %s has no op", in.b.Name)
	}
	op, err := call(r, in, func(context.Context) (ops.Op, error) {
		op, err := in.b.Op.New(in.b.Params, r.env)
		if err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
		return op, nil
	}, func(op ops.Op) {
		if c, ok := op.(io.Closer); ok {
			r.close(in.b.Name, c)
		}
	})
	in.op = op
	return err
}

// fixedN is the iteration count of every run when the plan fixes one: the
// op's own count (an http phase's requests), or the spec's times Scale. A
// scaled count that an int64 cannot hold is an error, not a wrapped-around
// count.
func (r *runner) fixedN(in *instance) (int64, error) {
	if in.b.Op.Iterations != nil {
		return max(in.b.Op.Iterations(in.b.Params), 1), nil
	}
	if in.b.Iterations <= 0 {
		return 0, nil
	}
	scale := r.cfg.Scale
	if scale <= 0 {
		scale = 1
	}
	n := math.Round(float64(in.b.Iterations) * scale)
	if !(n < math.MaxInt64) { // NaN too
		return 0, fmt.Errorf("iterations %d scaled by %g is beyond the largest count, %d", in.b.Iterations, scale, int64(math.MaxInt64))
	}
	return max(int64(n), 1), nil
}

// calibrate warms the op up and settles the iteration count. An op whose
// runs last a set time warms up once, for Warmup. With a fixed
// count, warm-up runs grow from one iteration towards it until Warmup is
// spent. With "auto", it is testing.B's loop: run, predict the n that fills
// MinTime, run again, until a run lasts MinTime; those runs are the warm-up,
// topped up at the final n if they took less than Warmup.
func (r *runner) calibrate(in *instance) error {
	fixed, err := r.fixedN(in)
	if err != nil {
		return err
	}
	var spent time.Duration
	if db, ok := in.op.(ops.DurationBound); ok {
		// Each run lasts its own duration: the warm-up is one short run.
		in.n = max(fixed, 1)
		if in.b.Warmup <= 0 {
			return nil
		}
		_, err := call(r, in, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, db.WarmUp(ctx, in.b.Warmup)
		}, nil)
		return err
	}
	if fixed > 0 {
		in.n = fixed
		// The bound on warm-up runs only matters for a clock that does not
		// move; real runs take time and end the loop.
		for n, runs := int64(1), 0; spent < in.b.Warmup && runs < 1000; runs++ {
			t, err := r.measure(in, n)
			if err != nil {
				return err
			}
			spent += t.elapsed
			n = min(predictN(in.b.Warmup.Nanoseconds(), t.n, t.elapsed.Nanoseconds(), n), fixed)
		}
		return nil
	}
	goal := in.b.MinTime
	if goal <= 0 {
		goal = DefaultMinTime
	}
	n := int64(1)
	for {
		t, err := r.measure(in, n)
		if err != nil {
			return err
		}
		spent += t.elapsed
		if n >= maxN || (t.elapsed >= goal && spent >= in.b.Warmup) {
			break
		}
		if t.elapsed >= goal {
			continue // calibrated; warm up at this n
		}
		n = predictN(goal.Nanoseconds(), t.n, t.elapsed.Nanoseconds(), n)
	}
	in.n = n
	return nil
}

// predictN is testing.B's: the n that would fill goalns at the last run's
// pace, multiplied before dividing, plus 20%, growing at most 100x and at
// least by one.
func predictN(goalns, prevIters, prevns, last int64) int64 {
	if prevns == 0 {
		prevns = 1 // round up so that a run too fast to see still grows
	}
	var n int64
	if prevIters > 0 && goalns > math.MaxInt64/prevIters {
		n = int64(float64(goalns) * float64(prevIters) / float64(prevns))
	} else {
		n = goalns * prevIters / prevns
	}
	n += n / 5
	n = min(n, 100*last)
	n = max(n, last+1)
	return min(n, maxN)
}

// timing is what one call of Run observed.
type timing struct {
	n       int64
	elapsed time.Duration
	sample  ops.Sample
	bytes   uint64 // allocated during the run
	allocs  uint64
}

// measure runs n iterations and times them. The garbage collector runs
// first so that one run's garbage is not collected on the next run's time;
// the allocation counters are read outside the timed region.
func (r *runner) measure(in *instance, n int64) (timing, error) {
	t, err := call(r, in, func(ctx context.Context) (timing, error) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := r.now()
		s, err := in.op.Run(ctx, n)
		elapsed := r.now().Sub(start)
		runtime.ReadMemStats(&after)
		if err != nil {
			return timing{}, err
		}
		t := timing{n: n, elapsed: elapsed, sample: s,
			bytes: after.TotalAlloc - before.TotalAlloc, allocs: after.Mallocs - before.Mallocs}
		if s.N > 0 {
			t.n = s.N
		}
		if s.Elapsed > 0 {
			t.elapsed = s.Elapsed
		}
		return t, nil
	}, nil)
	if err == nil && t.n <= 0 {
		err = fmt.Errorf("op did no iterations")
	}
	return t, err
}

// timedRun does one of the repeated runs and records it.
func (r *runner) timedRun(in *instance) error {
	t, err := r.measure(in, in.n)
	if err != nil {
		return err
	}
	run := results.Run{
		Iterations: t.n,
		TotalNs:    t.elapsed.Nanoseconds(),
		NsPerOp:    float64(t.elapsed.Nanoseconds()) / float64(t.n),
		Metrics: map[string]float64{
			metric.BytesPerOp:  float64(t.bytes) / float64(t.n),
			metric.AllocsPerOp: float64(t.allocs) / float64(t.n),
		},
	}
	metric.Derive(run.Metrics, run.NsPerOp, float64(in.b.Params.Size("size")))
	// The op knows its figures best: an http op's bytes_per_sec is the
	// transfer rate, not size times requests.
	for name, v := range t.sample.Metrics {
		run.Metrics[name] = v
	}
	for _, w := range t.sample.Warnings {
		r.warn(in.b.Name + ": " + w)
	}
	in.res.Runs = append(in.res.Runs, run)
	return nil
}

// finish closes the op and summarises the runs.
func (r *runner) finish(in *instance) {
	defer func() {
		if r.cfg.Observer != nil {
			r.cfg.Observer.BenchmarkDone(in.b, in.err)
		}
	}()
	if c, ok := in.op.(io.Closer); ok {
		if err := r.close(in.b.Name, c); err != nil {
			r.warn(fmt.Sprintf("%s: close: %v", in.b.Name, err))
		}
	}
	in.res.Iterations = in.n
	if errors.Is(in.err, errInterrupted) || (!in.stopped && len(in.res.Runs) < in.repeat) {
		in.res.Interrupted = true
	}
	r.summarize(in)
	r.out.Benchmarks = append(r.out.Benchmarks, in.res)
}

func (r *runner) summarize(in *instance) {
	runs := in.res.Runs
	if len(runs) == 0 {
		return
	}
	nsPerOp := make([]float64, len(runs))
	totals := make([]float64, len(runs))
	for i, run := range runs {
		nsPerOp[i] = run.NsPerOp
		totals[i] = float64(run.TotalNs)
	}
	in.res.NsPerOp = results.Summarize(nsPerOp)
	for _, w := range in.res.NsPerOp.Warnings {
		r.warn(w)
	}
	in.res.Metrics = map[string]results.Summary{}
	for name := range runs[0].Metrics {
		xs := make([]float64, 0, len(runs))
		for _, run := range runs {
			if v, ok := run.Metrics[name]; ok {
				xs = append(xs, v)
			}
		}
		if len(xs) == len(runs) {
			in.res.Metrics[name] = results.Summarize(xs)
		}
	}
	if total := results.Summarize(totals); time.Duration(total.Median) < ShortRun {
		r.warn(fmt.Sprintf("%s: a run lasts %v, too short to time precisely (under %v); raise its iterations",
			in.b.Name, time.Duration(total.Median), ShortRun))
	}
}

func (r *runner) warn(msg string) {
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if !r.seen[msg] {
		r.seen[msg] = true
		r.out.Warnings = append(r.out.Warnings, msg)
	}
}

// close closes an op in a goroutine of its own, with a time limit of its
// own: the benchmark's may be spent, or the run cancelled, and resources
// must be released however the benchmark ended.
func (r *runner) close(name string, c io.Closer) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- fmt.Errorf("panic: %v", v)
			}
		}()
		done <- c.Close()
	}()
	limit := time.NewTimer(5 * r.grace)
	defer limit.Stop()
	select {
	case err := <-done:
		return err
	case <-limit.C:
		returned := r.strays.add(name)
		go func() { <-done; returned() }()
		return fmt.Errorf("did not return within %v", 5*r.grace)
	}
}

var errInterrupted = errors.New("interrupted")

// call runs f in a goroutine of its own with what is left of the
// instance's timeout, so that an op that ignores its context cannot hold up
// the suite: past the deadline (or a cancellation) and a grace period, the
// runner stops waiting and moves on. f hands back its result rather than
// setting the runner's state, since an abandoned f may still finish later.
// A panic in f becomes an error.
//
// When f is abandoned and later succeeds, late (if not nil) receives what
// it returned, so that an op prepared too late is still closed.
func call[T any](r *runner, in *instance, f func(ctx context.Context) (T, error), late func(T)) (T, error) {
	var zero T
	if in.budget <= 0 {
		return zero, r.timedOut(in)
	}
	r.checkStrays(in)
	ctx, cancel := context.WithTimeout(r.ctx, in.budget)
	defer cancel()
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1) // buffered: an abandoned call still exits
	start := time.Now()
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- outcome{err: fmt.Errorf("panic: %v", v)}
			}
		}()
		v, err := f(ctx)
		done <- outcome{v, err}
	}()

	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		grace := time.NewTimer(r.grace)
		select {
		case o = <-done:
		case <-grace.C:
			o.err = ctx.Err()
			returned := r.strays.add(in.b.Name)
			go func() {
				o := <-done
				returned()
				if late != nil && o.err == nil {
					late(o.v)
				}
			}()
		}
		grace.Stop()
	}
	in.budget -= time.Since(start)
	switch {
	case r.ctx.Err() != nil:
		return o.v, errInterrupted
	case ctx.Err() != nil && o.err != nil:
		// Whatever the op said, it failed because its time was up.
		return o.v, r.timedOut(in)
	}
	return o.v, o.err
}

// strays are the op calls the runner stopped waiting for that have not
// returned yet. An op that ignores its context keeps a core busy, so what
// is timed beside it is timed on a busier machine.
type strays struct {
	mu      sync.Mutex
	running map[string]int      // benchmark → its abandoned calls still running
	beside  map[string][]string // benchmark → the instances timed while it ran
}

// add records an abandoned call of benchmark name; returned is to be
// called when the call finally returns.
func (s *strays) add(name string) (returned func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == nil {
		s.running = map[string]int{}
	}
	s.running[name]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.running[name]--; s.running[name] == 0 {
			delete(s.running, name)
		}
	}
}

// checkStrays marks in as timed beside every op still running past its
// timeout, in the result and in the warnings at the end of the run.
func (r *runner) checkStrays(in *instance) {
	s := &r.strays
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.running {
		if name == in.b.Name || slices.Contains(in.res.ContaminatedBy, name) {
			continue
		}
		in.res.ContaminatedBy = append(in.res.ContaminatedBy, name)
		slices.Sort(in.res.ContaminatedBy)
		if s.beside == nil {
			s.beside = map[string][]string{}
		}
		s.beside[name] = append(s.beside[name], in.b.Name)
	}
}

// strayWarnings name each op that kept running past its timeout and what
// was timed beside it.
func (r *runner) strayWarnings() {
	const shown = 5
	names := slices.Sorted(maps.Keys(r.strays.beside))
	for _, name := range names {
		beside := r.strays.beside[name]
		list := strings.Join(beside[:min(len(beside), shown)], ", ")
		if len(beside) > shown {
			list += fmt.Sprintf(" and %d more", len(beside)-shown)
		}
		r.warn(fmt.Sprintf("%s: its op kept running after its timeout (it ignores cancellation), so the benchmarks timed beside it are suspect: %s", name, list))
	}
}

func (r *runner) timedOut(in *instance) error {
	timeout := in.b.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return fmt.Errorf("timed out after %v", timeout)
}

// interleaved splits benchmarks into groups to run together: consecutive
// instances of one block with Interleave set, or one benchmark alone.
func interleaved(bs []*spec.Benchmark) [][]*spec.Benchmark {
	var groups [][]*spec.Benchmark
	for i := 0; i < len(bs); {
		j := i + 1
		if bs[i].Interleave {
			for j < len(bs) && bs[j].Interleave && bs[j].Block == bs[i].Block {
				j++
			}
		}
		groups = append(groups, bs[i:j])
		i = j
	}
	return groups
}

// jsonParams gives the parameters as JSON records them: sizes in exact
// bytes, durations in Go syntax.
func jsonParams(v param.Values) map[string]any {
	out := make(map[string]any, len(v))
	for k, x := range v {
		if d, ok := x.(time.Duration); ok {
			out[k] = d.String()
			continue
		}
		out[k] = x
	}
	return out
}

// record is the result of b before any run: what it is, no figures yet.
func record(b *spec.Benchmark) results.Benchmark {
	res := results.Benchmark{Name: b.Name, Benchmark: b.Block, Label: b.Label, Params: jsonParams(b.Params),
		Runs: []results.Run{}}
	if b.Op != nil {
		res.Op = b.Op.Name
	}
	return res
}

func failed(b *spec.Benchmark, err error) results.Benchmark {
	res := record(b)
	res.Error = err.Error()
	return res
}

// tempEnv is the Env of a run without servers: a private temp dir.
type tempEnv struct{ dir string }

func newTempEnv() (*tempEnv, error) {
	dir, err := os.MkdirTemp("", "specrun-")
	if err != nil {
		return nil, fmt.Errorf("create temp dir: %w", err)
	}
	return &tempEnv{dir: dir}, nil
}

func (e *tempEnv) TempDir() string { return e.dir }

func (e *tempEnv) Server(_ context.Context, name string) (ops.Server, error) {
	return ops.Server{}, fmt.Errorf("server %q: this run starts no servers", name)
}

func (e *tempEnv) remove() { os.RemoveAll(e.dir) }

var _ ops.Env = (*tempEnv)(nil)
