package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// Launcher runs part of the plan in a fresh process (a launch), so that a
// benchmark's runs see several processes' layouts of memory, code and
// scheduling rather than one's. The runner decides what each launch runs;
// the Launcher only starts the process and hands back what it measured.
type Launcher interface {
	Launch(ctx context.Context, l Launch) (Outcome, error)
}

// Launch is one launch's part of the plan.
type Launch struct {
	Index, Count int // this launch, 1 to Count
	// Runs holds the timed runs each instance does in this launch, by
	// instance name: its share of its repeat. The launch runs them as the
	// plan would, interleaved where the plan interleaves.
	Runs map[string]int
}

// LaunchFunc adapts a function to a Launcher.
type LaunchFunc func(ctx context.Context, l Launch) (Outcome, error)

// Launch calls f.
func (f LaunchFunc) Launch(ctx context.Context, l Launch) (Outcome, error) { return f(ctx, l) }

var _ Launcher = LaunchFunc(nil)

// LaunchesOf is the number of launches b's runs are spread over under cfg:
// --launches overrides the spec for a benchmark that loads no server.
func LaunchesOf(b *spec.Benchmark, cfg Config) int {
	n := b.Launches
	if cfg.Launches > 0 && len(b.Servers) == 0 {
		n = cfg.Launches
	}
	return max(n, 1)
}

// repeatOf is the number of timed runs b does under cfg, 0 for "auto".
func repeatOf(b *spec.Benchmark, cfg Config) int {
	switch {
	case cfg.Repeat > 0:
		return cfg.Repeat
	case b.RepeatAuto:
		return 0
	}
	return b.Repeat
}

// CheckLaunches refuses launches that a selected benchmark cannot spread
// its runs over: each launch needs one run at least, and repeat = "auto"
// decides its runs in one process.
func CheckLaunches(plan *spec.Plan, cfg Config) error {
	for _, b := range plan.Benchmarks {
		if cfg.Filter != nil && !cfg.Filter.MatchString(b.Name) {
			continue
		}
		n := LaunchesOf(b, cfg)
		if n <= 1 {
			continue
		}
		switch repeat := repeatOf(b, cfg); {
		case repeat == 0:
			return fmt.Errorf("%s: %d launches spread a fixed number of runs, and it has repeat = \"auto\"; give --repeat", b.Name, n)
		case repeat < n:
			return fmt.Errorf("%s: %d launches need %d runs at least, one each, and it has %d", b.Name, n, n, repeat)
		}
	}
	return nil
}

// shareOf is part i (from 0) of n of total: the parts add up to total and
// differ by one at most.
func shareOf(total, i, n int) int {
	return total*(i+1)/n - total*i/n
}

// runLaunches spreads the runs of bs over fresh processes: launch k runs
// its share of every benchmark that has k launches or more, and the
// parts each launch measured are merged into one benchmark per instance.
// Launches run one after the other, never side by side. The Observer
// hears of each benchmark's runs as each launch ends: bs are benchmarks
// before+1 onwards of total.
func (r *runner) runLaunches(bs []*spec.Benchmark, before, total int) {
	count := 0
	done := map[string]int{} // runs so far
	for i, b := range bs {
		count = max(count, LaunchesOf(b, r.cfg))
		r.cfg.Observer.BenchmarkStart(b, before+i+1, total)
	}
	parts := make(map[string][]results.Benchmark, len(bs))
	for k := 1; k <= count && r.ctx.Err() == nil; k++ {
		l := Launch{Index: k, Count: count, Runs: map[string]int{}}
		var in []*spec.Benchmark
		for _, b := range bs {
			if n := LaunchesOf(b, r.cfg); k <= n {
				l.Runs[b.Name] = shareOf(repeatOf(b, r.cfg), k-1, n)
				in = append(in, b)
			}
		}
		out, err := r.cfg.Launcher.Launch(r.ctx, l)
		// A launch's summaries of its share are replaced by the merged
		// one, and so are their warnings.
		summary := map[string]bool{}
		for _, b := range out.Benchmarks {
			for _, w := range b.NsPerOp.Warnings {
				summary[w] = true
			}
		}
		for _, w := range out.Warnings {
			if !summary[w] {
				r.warn(fmt.Sprintf("launch %d: %s", k, w))
			}
		}
		got := map[string]results.Benchmark{}
		for _, b := range out.Benchmarks {
			got[b.Name] = b
		}
		for _, b := range in {
			part, ok := got[b.Name]
			switch {
			case ok:
			case err != nil:
				part = failed(b, err) // MergeLaunches names the launch
			default:
				part = record(b)
				part.Interrupted = true // the launch stopped before it
			}
			parts[b.Name] = append(parts[b.Name], part)
			done[b.Name] += len(part.Runs)
			r.cfg.Observer.RunDone(b, done[b.Name], repeatOf(b, r.cfg))
		}
	}
	for _, b := range bs {
		ps := parts[b.Name]
		if len(ps) == 0 {
			r.cfg.Observer.BenchmarkDone(b, nil)
			continue // interrupted before its first launch, as a benchmark never started
		}
		m := results.MergeLaunches(ps)
		if len(ps) < LaunchesOf(b, r.cfg) {
			m.Interrupted = true
		}
		var err error
		if m.Error != "" {
			err = errors.New(m.Error)
		}
		r.cfg.Observer.BenchmarkDone(b, err)
		if m.Launches != nil {
			for _, w := range m.Launches.Warnings {
				r.warn(w)
			}
		}
		for _, w := range m.NsPerOp.Warnings {
			r.warn(b.Name + ": " + w)
		}
		r.out.Benchmarks = append(r.out.Benchmarks, m)
	}
}

// LaunchPlan is the part of plan that launch l runs: the instances it
// names, in plan order, each with its share of runs and no launches of
// its own. plan is left as it was.
func LaunchPlan(plan *spec.Plan, l Launch) *spec.Plan {
	part := *plan
	part.Benchmarks = nil
	for _, b := range plan.Benchmarks {
		runs, ok := l.Runs[b.Name]
		if !ok {
			continue
		}
		c := *b
		c.Repeat, c.RepeatAuto, c.Launches = runs, false, 1
		part.Benchmarks = append(part.Benchmarks, &c)
	}
	return &part
}
