package main

import (
	"io"
	"testing"

	"github.com/specrun/specrun/results"
)

func TestJudgedExit(t *testing.T) {
	as := func(vs ...results.Verdict) []results.Assertion {
		var out []results.Assertion
		for _, v := range vs {
			out = append(out, results.Assertion{Verdict: v})
		}
		return out
	}
	broken := []results.Benchmark{{Name: "ok"}, {Name: "broken", Error: "exited with status 1"}}
	for _, tt := range []struct {
		as     []results.Assertion
		bs     []results.Benchmark
		strict bool
		want   int
	}{
		{nil, nil, false, exitOK},
		{as(results.Pass, results.Pass), nil, true, exitOK},
		{as(results.Pass, results.Inconclusive), nil, false, exitOK},
		{as(results.Pass, results.Inconclusive), nil, true, exitAssertion},
		{as(results.Fail), nil, false, exitAssertion},
		{as(results.Pass, results.Error), nil, false, exitAssertion},
		{as(results.Pass), broken, false, exitBenchError},
		{as(results.Fail), broken, false, exitAssertion},
		{as(results.Pass, results.Skip), nil, true, exitOK},
	} {
		if got := exitCode(io.Discard, "run", judged(tt.as, tt.bs, tt.strict)); got != tt.want {
			t.Errorf("judged(%v, %d benchmarks, strict=%v) exits %d, want %d", tt.as, len(tt.bs), tt.strict, got, tt.want)
		}
	}
}

func TestRequireBaseline(t *testing.T) {
	as := []results.Assertion{{Verdict: results.Pass}, {Verdict: results.Skip, Message: "no baseline"}}
	requireBaseline(as)
	if as[0].Verdict != results.Pass || as[1].Verdict != results.Error {
		t.Fatalf("verdicts %s, %s; want pass, error", as[0].Verdict, as[1].Verdict)
	}
	if got := exitCode(io.Discard, "run", judged(as, nil, false)); got != exitAssertion {
		t.Errorf("exit %d, want %d", got, exitAssertion)
	}
}
