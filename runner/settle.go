package runner

import (
	"fmt"
	"time"

	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// Settler decides whether a group of benchmarks that repeat until settled
// has run enough. The runner asks it only at the looks of the group's
// rule, so that the rule's error rate holds whatever it answers.
type Settler interface {
	Settled(l Look) bool
}

// Look is what a Settler decides on.
type Look struct {
	Rule  results.Sequential
	Group []string // the instances that run on together, interleaved
	// Benchmarks holds every benchmark measured so far, with its runs:
	// those that ran before the group, then the group's own.
	Benchmarks []results.Benchmark
}

// SettlerFunc adapts a function to a Settler.
type SettlerFunc func(Look) bool

// Settled calls f.
func (f SettlerFunc) Settled(l Look) bool { return f(l) }

var _ Settler = SettlerFunc(nil)

// Precise is the Settler of a run without assertions: a group has run
// enough when every median is within the rule's precision.
var Precise = SettlerFunc(func(l Look) bool {
	return l.Rule.Settled(nil, &results.Result{Benchmarks: l.Benchmarks}, nil, l.Group)
})

// Rule is the sequential rule of a benchmark with repeat = "auto".
func Rule(b *spec.Benchmark) results.Sequential {
	return results.Sequential{Min: spec.AutoMinRepeat, Max: b.MaxRepeat, Precision: b.Precision}
}

// enough says, after round runs of each instance of a group, whether the
// group stops: at a look of its rule, when the Settler says it has run
// enough, or when the runs to the next look would pass the benchmark's
// max_time or the run's Budget. The instances that stop get their repeat
// cut to the runs they did, so that none reads as interrupted.
func (r *runner) enough(insts []*instance, round int, wall time.Duration) bool {
	var auto []*instance
	for _, in := range insts {
		if in.auto && !in.stopped {
			auto = append(auto, in)
		}
	}
	if len(auto) == 0 || len(auto) < countActive(insts) || !auto[0].rule.IsLook(round) {
		return false
	}
	rule := auto[0].rule
	look := Look{Rule: rule, Benchmarks: append([]results.Benchmark(nil), r.out.Benchmarks...)}
	for _, in := range auto {
		look.Group = append(look.Group, in.b.Name)
		look.Benchmarks = append(look.Benchmarks, in.res)
	}
	settler := r.cfg.Settler
	if settler == nil {
		settler = Precise
	}
	stop := settler.Settled(look)
	if next := rule.NextLook(round); !stop && next > 0 {
		more := time.Duration(next - round)
		for _, in := range auto {
			var timed time.Duration
			for _, run := range in.res.Runs {
				timed += time.Duration(run.TotalNs)
			}
			if timed+timed/time.Duration(round)*more > in.b.MaxTime {
				r.warn(fmt.Sprintf("%s: stopped after %d runs: going on to %d would pass max_time %v", in.b.Name, round, next, in.b.MaxTime))
				stop = true
			}
		}
		if r.cfg.Budget > 0 && r.cfg.now().Sub(r.start)+wall/time.Duration(round)*more > r.cfg.Budget {
			r.warn(fmt.Sprintf("%s: stopped after %d runs: going on to %d would pass --budget %v", auto[0].b.Block, round, next, r.cfg.Budget))
			stop = true
		}
	}
	if stop {
		for _, in := range auto {
			in.repeat = round
		}
	}
	return stop
}

// countActive counts the instances of a group that still run.
func countActive(insts []*instance) int {
	n := 0
	for _, in := range insts {
		if !in.stopped {
			n++
		}
	}
	return n
}
