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
	"regexp"
	"sort"
	"time"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// OpGrace is how long the runner waits by default, past a timeout or a
// cancellation, for an op to return before it gives up on it.
const OpGrace = 2 * time.Second

// ShortRun is the total time under which a run is too short for the
// clock to time precisely; such benchmarks get a warning.
const ShortRun = 100 * time.Microsecond

// Config adjusts a run without editing the spec. The zero value runs the
// plan as written.
type Config struct {
	Filter *regexp.Regexp // instance names to run; nil runs all
	Scale  float64        // multiplies fixed iteration counts (never below 1) and the min_time of "auto" ones; 0 means 1
	Repeat int            // overrides every benchmark's repeat when > 0
	// Resources lends the ops a temp dir and the spec's servers; nil gives
	// a private temp dir and no servers.
	Resources Resources
	// Observer is told of progress (benchmark k of n, run r of R); nil is silent.
	Observer Observer
	// Grace is how long the runner waits, past a timeout or a cancellation,
	// for an op to return before it gives up on it and moves on; 0 means
	// OpGrace.
	Grace time.Duration
	// Settler decides, at each look of a benchmark that repeats until
	// settled (repeat = "auto"), whether it has run enough; nil settles on
	// the precision of each median alone.
	Settler Settler
	// Together lists sets of instances to run interleaved as one group,
	// such as those one assertion compares under repeat = "auto", so that
	// they keep alternating (A B A B) for as long as they run on.
	Together [][]string
	// Budget bounds the whole run's time for such benchmarks: at a look,
	// one whose runs to the next look would end past it stops; 0 is no bound.
	Budget time.Duration
	// Launcher starts the launches of benchmarks whose runs are spread
	// over fresh processes (launches > 1); nil runs every benchmark in
	// this process, as a launch itself does.
	Launcher Launcher
	// Launches overrides the launches of every benchmark that loads no
	// server when > 0.
	Launches int

	now func() time.Time // the clock runs are timed with; tests replace it
}

// withDefaults is cfg with each zero value replaced by what it means, so
// that the runner reads every setting from one place.
func (cfg Config) withDefaults() Config {
	if cfg.Scale <= 0 {
		cfg.Scale = 1
	}
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	if cfg.Grace <= 0 {
		cfg.Grace = OpGrace
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	return cfg
}

// Observer follows a run's progress.
type Observer interface {
	BenchmarkStart(b *spec.Benchmark, index, total int)
	RunDone(b *spec.Benchmark, run, runs int)
	BenchmarkDone(b *spec.Benchmark, err error)
}

// nopObserver is the Observer of a run that nobody follows.
type nopObserver struct{}

func (nopObserver) BenchmarkStart(*spec.Benchmark, int, int) {}
func (nopObserver) RunDone(*spec.Benchmark, int, int)        {}
func (nopObserver) BenchmarkDone(*spec.Benchmark, error)     {}

var _ Observer = nopObserver{}

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
// The plan must be complete, as spec.Load leaves it: every benchmark has a
// repeat, a timeout and, for "auto" iterations, a min_time. Run fills in
// no defaults of its own.
//
// A benchmark's timeout bounds the time spent in its own op calls
// (prepare, warm-up, calibration and runs), so that interleaved instances
// do not spend each other's.
func Run(ctx context.Context, plan *spec.Plan, cfg Config) Outcome {
	cfg = cfg.withDefaults()
	r := &runner{ctx: ctx, cfg: cfg, env: cfg.Resources, start: cfg.now()}
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

	var local, launched []*spec.Benchmark
	for _, b := range selected {
		if cfg.Launcher != nil && LaunchesOf(b, cfg) > 1 {
			launched = append(launched, b)
		} else {
			local = append(local, b)
		}
	}

	index := 0
	groups := linked(interleaved(local), cfg.Together)
	stops := serverStops(groups)
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
	if len(launched) > 0 && ctx.Err() == nil {
		r.runLaunches(launched, len(local), len(selected))
	}
	if len(cfg.Together) > 0 || len(launched) > 0 { // merged groups and launches ran out of order
		order := map[string]int{}
		for i, b := range selected {
			order[b.Name] = i
		}
		sort.SliceStable(r.out.Benchmarks, func(i, j int) bool {
			return order[r.out.Benchmarks[i].Name] < order[r.out.Benchmarks[j].Name]
		})
	}
	r.strayWarnings()
	r.out.Interrupted = ctx.Err() != nil
	return r.out
}

// Resources is what a run lends its ops: its temp dir and its servers
// (a servers.Pool). Each instance gets an ops.Env over it that also names
// the servers the plan says the instance loads.
type Resources interface {
	TempDir() string
	Server(ctx context.Context, name string) (ops.Server, error)
	// StopServer stops a server whose last benchmark has run.
	StopServer(name string) error
}

// instanceEnv is the ops.Env of one instance.
type instanceEnv struct {
	Resources
	servers []string
	ctx     context.Context
}

func (e instanceEnv) Servers() []string        { return e.servers }
func (e instanceEnv) Context() context.Context { return e.ctx }

var _ ops.Env = instanceEnv{}

type runner struct {
	ctx    context.Context
	cfg    Config
	env    Resources
	out    Outcome
	seen   map[string]bool // warnings already in out
	strays strays
	gc     collector
	start  time.Time // of the run, for Config.Budget
}

// instance is one benchmark instance on its way through the harness.
type instance struct {
	b      *spec.Benchmark
	index  int
	total  int
	op     ops.Op
	n      int64         // iterations per timed run
	repeat int           // timed runs
	budget time.Duration // what is left of its timeout
	// bytesPerOp is what an iteration allocated in the last run, to
	// foresee what the next one will.
	bytesPerOp float64
	res        results.Benchmark
	err        error // why it stopped early, when it did
	stopped    bool
	began      bool
	// auto is set under repeat = "auto", and repeat is then rule's Max.
	auto bool
	rule results.Sequential
}

func (r *runner) newInstance(b *spec.Benchmark, index, total int) *instance {
	in := &instance{b: b, index: index, total: total, repeat: b.Repeat, budget: b.Timeout}
	if b.RepeatAuto {
		in.auto = true
		in.rule = Rule(b)
		in.repeat = in.rule.Max
	}
	if r.cfg.Repeat > 0 {
		in.repeat, in.auto = r.cfg.Repeat, false
	}
	in.res = record(b)
	return in
}

// incomplete names the first setting of in that a Plan from spec.Load
// always has and this one lacks.
func incomplete(in *instance) error {
	switch b := in.b; {
	case b.Op == nil || b.Op.New == nil:
		return fmt.Errorf("benchmark %s has no op", b.Name)
	case in.repeat < 1:
		return fmt.Errorf("benchmark %s has repeat %d; the plan must ask for at least 1 run", b.Name, in.repeat)
	case b.Timeout <= 0:
		return fmt.Errorf("benchmark %s has no timeout; the plan must set one", b.Name)
	case b.Iterations <= 0 && b.Op.Iterations == nil && b.MinTime <= 0:
		return fmt.Errorf("benchmark %s calibrates but has no min_time; the plan must set one", b.Name)
	}
	return nil
}

// serverStops maps the index of each group to the servers that no later
// group loads, so that a server stops after its last benchmark rather than
// idling (and costing CPU) through the rest of the suite.
func serverStops(groups [][]*spec.Benchmark) map[int][]string {
	last := map[string]int{}
	for gi, group := range groups {
		for _, b := range group {
			for _, name := range b.Servers {
				last[name] = gi
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

// stopServers stops servers whose last benchmark has run; Resources
// stops whatever is left when the run ends.
func (r *runner) stopServers(names []string) {
	for _, name := range names {
		if err := r.env.StopServer(name); err != nil {
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
		r.cfg.Observer.BenchmarkStart(in.b, in.index, in.total)
		if err := incomplete(in); err != nil {
			r.stop(in, err)
			continue
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
	var wall time.Duration // of the rounds so far
	for round, active := 1, true; active && r.ctx.Err() == nil; round++ {
		active = false
		began := r.cfg.now()
		for _, in := range insts {
			if in.stopped || round > in.repeat || r.ctx.Err() != nil {
				continue
			}
			if err := r.timedRun(in); err != nil {
				r.stop(in, err)
				continue
			}
			r.cfg.Observer.RunDone(in.b, round, in.repeat)
			active = active || round < in.repeat
		}
		wall += r.cfg.now().Sub(began)
		if active && r.enough(insts, round, wall) {
			break
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
	op, err := call(r, in, func(ctx context.Context) (ops.Op, error) {
		op, err := in.b.Op.New(in.b.Params, instanceEnv{r.env, in.b.Servers, ctx})
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

// finish closes the op and summarises the runs.
func (r *runner) finish(in *instance) {
	defer func() { r.cfg.Observer.BenchmarkDone(in.b, in.err) }()
	if c, ok := in.op.(io.Closer); ok {
		if err := r.close(in.b.Name, c); err != nil {
			r.warn(fmt.Sprintf("%s: close: %v", in.b.Name, err))
		}
	}
	in.res.Iterations = in.n
	if in.auto {
		in.res.Looks = in.rule.Looks()
	}
	if errors.Is(in.err, errInterrupted) || (!in.stopped && len(in.res.Runs) < in.repeat) {
		in.res.Interrupted = true
	}
	r.summarize(in)
	r.out.Benchmarks = append(r.out.Benchmarks, in.res)
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

// linked merges the groups that hold instances of one set of together
// into the first of them, keeping plan order within the merged group.
func linked(groups [][]*spec.Benchmark, together [][]string) [][]*spec.Benchmark {
	if len(together) == 0 {
		return groups
	}
	owner := make([]int, len(groups)) // the group each was merged into
	byName := map[string]int{}
	for gi, g := range groups {
		owner[gi] = gi
		for _, b := range g {
			byName[b.Name] = gi
		}
	}
	root := func(gi int) int {
		for owner[gi] != gi {
			gi = owner[gi]
		}
		return gi
	}
	for _, set := range together {
		first := -1
		for _, name := range set {
			gi, ok := byName[name]
			if !ok {
				continue
			}
			gi = root(gi)
			switch {
			case first < 0:
				first = gi
			case gi < first:
				owner[first], first = gi, gi
			case gi > first:
				owner[gi] = first
			}
		}
	}
	var out [][]*spec.Benchmark
	index := map[int]int{}
	for gi, g := range groups {
		r := root(gi)
		if i, ok := index[r]; ok {
			out[i] = append(out[i], g...)
			continue
		}
		index[r] = len(out)
		out = append(out, append([]*spec.Benchmark(nil), g...))
	}
	return out
}
