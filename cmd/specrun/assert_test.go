package main

import (
	"testing"

	"github.com/specrun/specrun/results"
)

func TestAssertionExit(t *testing.T) {
	as := func(vs ...results.Verdict) []results.Assertion {
		var out []results.Assertion
		for _, v := range vs {
			out = append(out, results.Assertion{Verdict: v})
		}
		return out
	}
	for _, tt := range []struct {
		as     []results.Assertion
		strict bool
		want   int
	}{
		{nil, false, exitOK},
		{as(results.Pass, results.Pass), true, exitOK},
		{as(results.Pass, results.Inconclusive), false, exitOK},
		{as(results.Pass, results.Inconclusive), true, exitAssertion},
		{as(results.Fail), false, exitAssertion},
		{as(results.Pass, results.Error), false, exitAssertion},
	} {
		if got := assertionExit(tt.as, tt.strict); got != tt.want {
			t.Errorf("assertionExit(%v, strict=%v) = %d, want %d", tt.as, tt.strict, got, tt.want)
		}
	}
}
