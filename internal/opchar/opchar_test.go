package opchar

import (
	"testing"
)

// gates is how many simulated gates a test runs: 1000 as the table has,
// fewer under -short.
func gates(t *testing.T, full int) int {
	if testing.Short() {
		return full / 5
	}
	return full
}

func TestUnchangedOpsRarelyFail(t *testing.T) {
	t.Parallel() // a simulation: pure computation, one core each
	g := Gate{Max: 1.05}
	for i, s := range []Scenario{Scenarios()[0], Scenarios()[1]} {
		row := Simulate(s, g, 0, gates(t, []int{1000, 100}[i]), 1)
		if row.FailRate() > 0.05 {
			t.Errorf("%s: %d of %d unchanged gates failed, want at most 5%%", s.Name, row.Fail, row.Gates)
		}
		if row.Pass == 0 {
			t.Errorf("%s: no unchanged gate passed (%+v)", s.Name, row)
		}
	}
}

func TestSlowdownsAreCaught(t *testing.T) {
	t.Parallel() // a simulation: pure computation, one core each
	g := Gate{Max: 1.05}
	s := Scenarios()[0] // CV 1%
	for _, c := range []struct {
		slowdown float64
		atLeast  float64
	}{{0.10, 0.95}, {0.50, 0.99}} {
		row := Simulate(s, g, c.slowdown, gates(t, 100), 2)
		if row.FailRate() < c.atLeast {
			t.Errorf("%s, %+.0f%%: %d of %d gates failed, want at least %.0f%%", s.Name, 100*c.slowdown, row.Fail, row.Gates, 100*c.atLeast)
		}
		if row.MedianRuns != 10 {
			t.Errorf("%s, %+.0f%%: median %d runs, want 10 (the first look decides)", s.Name, 100*c.slowdown, row.MedianRuns)
		}
	}
}

func TestSimulationIsDeterministic(t *testing.T) {
	t.Parallel() // a simulation: pure computation, one core each
	a := Simulate(Scenarios()[3], Gate{Max: 1.05}, 0.1, 20, 7)
	b := Simulate(Scenarios()[3], Gate{Max: 1.05}, 0.1, 20, 7)
	if a != b {
		t.Errorf("two simulations with one seed differ: %+v and %+v", a, b)
	}
}
