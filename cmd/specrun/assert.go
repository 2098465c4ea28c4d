package main

import (
	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// expectations turns the plan's assert blocks into what results.Judge
// evaluates: the bounds, the instances each value reads, and the value as
// the spec's expression over per-instance metrics.
func expectations(plan *spec.Plan) []results.Expectation {
	exps := make([]results.Expectation, 0, len(plan.Asserts))
	for _, a := range plan.Asserts {
		e := results.Expectation{Name: a.Name, Description: a.Description, Min: a.Min, Max: a.Max}
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

// assertionExit is the exit code the verdicts call for: exitAssertion when
// an assertion failed or could not be evaluated, or was inconclusive under
// strict; exitOK otherwise.
func assertionExit(as []results.Assertion, strict bool) int {
	for _, a := range as {
		switch a.Verdict {
		case results.Fail, results.Error:
			return exitAssertion
		case results.Inconclusive:
			if strict {
				return exitAssertion
			}
		}
	}
	return exitOK
}

// resultExit is the exit code of a judged result: assertionExit's, or
// exitBenchError when the verdicts pass but a benchmark could not run.
func resultExit(as []results.Assertion, benchmarks []results.Benchmark, strict bool) int {
	if code := assertionExit(as, strict); code != exitOK {
		return code
	}
	for _, b := range benchmarks {
		if b.Error != "" {
			return exitBenchError
		}
	}
	return exitOK
}
