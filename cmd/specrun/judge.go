package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/runner"
	"github.com/specrun/specrun/spec"
)

// expectations turns the plan's assert blocks into what results.Judge
// evaluates: the bounds, the instances each value reads, and the value as
// the spec's expression over per-instance metrics.
func expectations(plan *spec.Plan) []results.Expectation {
	exps := make([]results.Expectation, 0, len(plan.Asserts))
	for _, a := range plan.Asserts {
		e := results.Expectation{Name: a.Name, Description: a.Description, Min: a.Min, Max: a.Max, Threshold: a.Threshold}
		for _, r := range a.Refs {
			e.Refs = append(e.Refs, results.Ref{Instance: r.Instance, Metric: r.Metric, Baseline: r.Baseline})
		}
		e.Value = func(cur, base results.Metrics) (float64, error) {
			return a.Evaluate(spec.Metrics(cur), spec.Metrics(base))
		}
		exps = append(exps, e)
	}
	return exps
}

// judge gives the verdicts of the plan's assertions on r against base (nil
// when none was given), as run and check judge: a missing
// baseline figure is a skip, or an error with mustBaseline; reading a
// benchmark the run did not include is a skip either way.
func judge(plan *spec.Plan, r, base *results.Result, mustBaseline bool) []results.Assertion {
	as := results.Judge(expectations(plan), r, base)
	if mustBaseline {
		requireBaseline(as)
	}
	skipUnrun(plan, r, as)
	return as
}

// requireBaseline turns every skip (a baseline figure that is missing)
// into an error, for a job that must not pass without its baseline.
func requireBaseline(as []results.Assertion) {
	for i := range as {
		if as[i].Verdict == results.Skip {
			as[i].Verdict = results.Error
			as[i].Message += "; --require-baseline makes this an error"
		}
	}
}

// judged is the exit a judged result calls for: errAsserted when an
// assertion failed or could not be evaluated, or was inconclusive under
// strict; else benchFailed when a benchmark could not run; else nil.
func judged(as []results.Assertion, benchmarks []results.Benchmark, strict bool) error {
	for _, a := range as {
		switch a.Verdict {
		case results.Fail, results.Error:
			return errAsserted
		case results.Inconclusive:
			if strict {
				return errAsserted
			}
		}
	}
	for _, b := range benchmarks {
		if b.Error != "" {
			return benchFailed()
		}
	}
	return nil
}

// settler lets a benchmark with repeat = "auto" stop at a look once every
// assertion that reads it is decided and its median is precise enough.
func settler(plan *spec.Plan, base *results.Result) runner.Settler {
	exps := expectations(plan)
	return runner.SettlerFunc(func(l runner.Look) bool {
		return l.Rule.Settled(exps, &results.Result{Benchmarks: l.Benchmarks}, base, l.Group)
	})
}

// together lists, per assertion, the instances with repeat = "auto" that
// it compares, so that the runner keeps them interleaved while they run on.
func together(plan *spec.Plan) [][]string {
	auto := map[string]bool{}
	for _, b := range plan.Benchmarks {
		auto[b.Name] = b.RepeatAuto
	}
	var sets [][]string
	for _, a := range plan.Asserts {
		var set []string
		for _, r := range a.Refs {
			if !r.Baseline && auto[r.Instance] && !slices.Contains(set, r.Instance) {
				set = append(set, r.Instance)
			}
		}
		if len(set) > 1 {
			sets = append(sets, set)
		}
	}
	return sets
}

// skipUnrun makes a skip of each assertion that reads a benchmark the
// spec declares but the result does not hold, because --filter left it
// out (or an interrupted run never reached it): such a verdict was not
// measured, which is not an error of the spec. as is in plan.Asserts'
// order, as expectations gives them to Judge.
func skipUnrun(plan *spec.Plan, r *results.Result, as []results.Assertion) {
	ran := map[string]bool{}
	for _, b := range r.Benchmarks {
		ran[b.Name], ran[b.Benchmark] = true, true
	}
	declared := map[string]bool{}
	for _, b := range plan.Benchmarks {
		declared[b.Name], declared[b.Block] = true, true
	}
	for i, a := range plan.Asserts {
		if i >= len(as) {
			break
		}
		var missing []string
		for _, ref := range a.Refs {
			if !ref.Baseline && declared[ref.Instance] && !ran[ref.Instance] && !slices.Contains(missing, ref.Instance) {
				missing = append(missing, ref.Instance)
			}
		}
		if len(missing) > 0 {
			as[i].Verdict = results.Skip
			as[i].Value, as[i].Interval = nil, nil
			as[i].Message = fmt.Sprintf("it reads %s, which this run did not include (--filter left it out, or the run stopped before it)", strings.Join(missing, ", "))
		}
	}
}
