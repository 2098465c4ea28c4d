// Package opchar measures the operating characteristics of repeat = "auto"
// by simulation: how often a gate against a stored baseline fails an
// unchanged op, how often it catches a slowdown, and how many runs it
// takes. The op is a distribution of per-run times and the clock is the
// sum of those times, so that a simulation is exact and repeatable.
package opchar

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/specrun/specrun/results"
)

// Op draws the time per op of run i (from 0) of one process.
type Op func(rng *rand.Rand, i int) float64

// Scenario is a named op.
type Scenario struct {
	Name string
	Op   Op
}

// median is every scenario's median time per op, in ns.
const median = 100

// LogNormal is an op whose runs are log-normal with median 100 ns and the
// given coefficient of variation.
func LogNormal(cv float64) Op {
	sigma := math.Sqrt(math.Log(1 + cv*cv))
	return func(rng *rand.Rand, _ int) float64 {
		return median * math.Exp(sigma*rng.NormFloat64())
	}
}

// Scenarios are the ops the table is made of: log-normal with CV 1%, 5%
// and 20%; bimodal, as ns-scale ops are on a VM (a run lands in the slow
// mode, 1.9 times the fast one, three times in ten); and a slow drift of
// 0.2% a run on top of CV 1%, as a machine warming up.
func Scenarios() []Scenario {
	fast, drift := LogNormal(0.02), LogNormal(0.01)
	return []Scenario{
		{"log-normal, CV 1%", LogNormal(0.01)},
		{"log-normal, CV 5%", LogNormal(0.05)},
		{"log-normal, CV 20%", LogNormal(0.20)},
		{"bimodal 1x / 1.9x (70/30), CV 2% each", func(rng *rand.Rand, i int) float64 {
			x := fast(rng, i)
			if rng.Float64() < 0.3 {
				x *= 1.9
			}
			return x
		}},
		{"drift +0.2% a run, CV 1%", func(rng *rand.Rand, i int) float64 {
			return drift(rng, i) * (1 + 0.002*float64(i))
		}},
	}
}

// Gate is one simulated CI gate: a baseline run of the op, then a run of
// the op slowed down by Slowdown (0.1 for 10%), both with repeat = "auto"
// under Rule, judged by the assertion value = benchmark.x.ns_per_op /
// baseline.x.ns_per_op with max = Max and threshold = Threshold.
type Gate struct {
	Rule      results.Sequential
	MinTime   time.Duration // of a run; default 500ms
	MaxTime   time.Duration // of a benchmark's runs; default 30s
	Max       float64
	Threshold float64
	Slowdown  float64
}

// Outcome is one gate's verdict and the runs the current run took.
type Outcome struct {
	Verdict results.Verdict
	Runs    int
}

// Run simulates one gate of op with rng.
func (g Gate) Run(op Op, rng *rand.Rand) Outcome {
	g = g.withDefaults()
	base := g.measure(op, 1, rng, nil, nil)
	exp := results.Expectation{
		Name: "gate", Max: &g.Max, Threshold: g.Threshold,
		Refs: []results.Ref{{Instance: "x", Metric: "ns_per_op"}, {Instance: "x", Metric: "ns_per_op", Baseline: true}},
		Value: func(cur, base results.Metrics) (float64, error) {
			return cur["x"]["ns_per_op"] / base["x"]["ns_per_op"], nil
		},
	}
	exps := []results.Expectation{exp}
	cur := g.measure(op, 1+g.Slowdown, rng, exps, base)
	a := results.Judge(exps, cur, base)[0]
	return Outcome{Verdict: a.Verdict, Runs: len(cur.Benchmarks[0].Runs)}
}

func (g Gate) withDefaults() Gate {
	if g.MinTime <= 0 {
		g.MinTime = 500 * time.Millisecond
	}
	if g.MaxTime <= 0 {
		g.MaxTime = 30 * time.Second
	}
	return g
}

// measure does what the runner does for one benchmark with repeat =
// "auto": runs of MinTime at the op's median (the calibrated count), a
// look at each of the rule's looks, a stop when settled or when going on
// to the next look would pass MaxTime.
func (g Gate) measure(op Op, factor float64, rng *rand.Rand, exps []results.Expectation, base *results.Result) *results.Result {
	g = g.withDefaults()
	iterations := int64(g.MinTime) / median
	b := results.Benchmark{Name: "x", Benchmark: "x", Op: "sim", Iterations: iterations, Looks: g.Rule.Looks()}
	r := &results.Result{Schema: results.Schema, Benchmarks: []results.Benchmark{b}}
	var timed time.Duration // the fake clock
	looks := g.Rule.Looks()
	for i := 0; i < looks[len(looks)-1]; i++ {
		ns := op(rng, i) * factor
		total := int64(ns * float64(iterations))
		timed += time.Duration(total)
		rb := &r.Benchmarks[0]
		rb.Runs = append(rb.Runs, results.Run{Iterations: iterations, TotalNs: total, NsPerOp: ns})
		n := i + 1
		if !g.Rule.IsLook(n) {
			continue
		}
		if g.Rule.Settled(exps, r, base, []string{"x"}) {
			break
		}
		if next := g.Rule.NextLook(n); next > 0 && timed+timed/time.Duration(n)*time.Duration(next-n) > g.MaxTime {
			break
		}
	}
	return r
}

// Row is one line of the table: a scenario at one slowdown.
type Row struct {
	Scenario string
	Slowdown float64
	Gates    int
	Fail     int
	Pass     int
	// Runs of the current run: the median and the 95th percentile.
	MedianRuns, P95Runs int
}

// FailRate is the fraction of gates that failed.
func (r Row) FailRate() float64 { return float64(r.Fail) / float64(r.Gates) }

// Simulate runs gates gates of s at each slowdown, seeded by seed.
func Simulate(s Scenario, g Gate, slowdown float64, gates int, seed uint64) Row {
	rng := rand.New(rand.NewPCG(seed, uint64(math.Float64bits(slowdown))))
	g.Slowdown = slowdown
	row := Row{Scenario: s.Name, Slowdown: slowdown, Gates: gates}
	runs := make([]int, 0, gates)
	for range gates {
		o := g.Run(s.Op, rng)
		switch o.Verdict {
		case results.Fail:
			row.Fail++
		case results.Pass:
			row.Pass++
		}
		runs = append(runs, o.Runs)
	}
	slices.Sort(runs)
	row.MedianRuns = runs[len(runs)/2]
	row.P95Runs = runs[min(len(runs)-1, int(math.Ceil(0.95*float64(len(runs))))-1)]
	return row
}

// String writes the row as a Markdown table row.
func (r Row) String() string {
	return fmt.Sprintf("| %s | %+.0f%% | %d | %.1f%% | %.1f%% | %d | %d |",
		r.Scenario, 100*r.Slowdown, r.Gates, 100*r.FailRate(), 100*float64(r.Pass)/float64(r.Gates), r.MedianRuns, r.P95Runs)
}
