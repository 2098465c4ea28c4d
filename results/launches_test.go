package results

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// twoLevel draws the runs of one simulated benchmark whose true median is
// 100 ns/op: each launch shifts ln(ns/op) by N(0, between), each run by
// N(0, within) more.
func twoLevel(rng *rand.Rand, launches, runs int, between, within float64) []Run {
	var out []Run
	for l := range launches {
		shift := between * rng.NormFloat64()
		for range runs {
			out = append(out, Run{NsPerOp: 100 * math.Exp(shift+within*rng.NormFloat64()), Launch: l + 1})
		}
	}
	return out
}

func flat(runs []Run) []Run {
	out := make([]Run, len(runs))
	for i, r := range runs {
		r.Launch = 0
		out[i] = r
	}
	return out
}

// TestLaunchIntervalCoverage checks, over simulated two-level datasets,
// that the interval over launches holds the true median about as often as
// it claims, and that the flat interval of the same runs, which takes
// them for independent, holds it far less often when launches differ.
func TestLaunchIntervalCoverage(t *testing.T) {
	t.Parallel() // a simulation: pure computation, one core each
	sets := 1000
	if testing.Short() {
		sets = 200
	}
	for _, c := range []struct {
		launches, runs int
		between        float64
	}{
		{5, 4, 0.05},
		{10, 3, 0.05},
	} {
		rng := rand.New(rand.NewPCG(uint64(c.launches), 7))
		var covered, flatCovered int
		var level float64
		for range sets {
			runs := twoLevel(rng, c.launches, c.runs, c.between, 0.01)
			ns, _ := SummarizeRuns(runs)
			if ns.Interval.Kind != LaunchBootstrap {
				t.Fatalf("interval kind %q, want %q", ns.Interval.Kind, LaunchBootstrap)
			}
			level = ns.Interval.Confidence
			if ns.Interval.Low <= 100 && 100 <= ns.Interval.High {
				covered++
			}
			fs, _ := SummarizeRuns(flat(runs))
			if fs.Interval.Low <= 100 && 100 <= fs.Interval.High {
				flatCovered++
			}
		}
		cov, flatCov := float64(covered)/float64(sets), float64(flatCovered)/float64(sets)
		t.Logf("%d launches x %d runs, between 5%%, within 1%%: over launches %.1f%% (claims %s), flat %.1f%%",
			c.launches, c.runs, 100*cov, Percent(level), 100*flatCov)
		if cov < level-0.05 {
			t.Errorf("%d launches: the interval over launches held the median %.1f%% of the time; it claims %s", c.launches, 100*cov, Percent(level))
		}
		if flatCov > 0.8 || flatCov > cov-0.15 {
			t.Errorf("%d launches: the flat interval held the median %.1f%% of the time; want far below 95%% and the interval over launches", c.launches, 100*flatCov)
		}
	}
}

// TestSplitLaunches checks the variance components against data whose
// launches differ by design, and that only launches that differ warn.
func TestSplitLaunches(t *testing.T) {
	// Two launches of two runs: ln values a±d around launch means m±D.
	const d, D = 0.01, 0.1
	runs := []Run{
		{NsPerOp: math.Exp(-D - d), Launch: 1}, {NsPerOp: math.Exp(-D + d), Launch: 1},
		{NsPerOp: math.Exp(D - d), Launch: 2}, {NsPerOp: math.Exp(D + d), Launch: 2},
	}
	s := SplitLaunches("x", runs)
	// MSW = 4d²/2 = 2d², MSB = 4D²/1, n0 = 2: between = (4D² - 2d²)/2.
	wantWithin, wantBetween := math.Sqrt(2*d*d), math.Sqrt((4*D*D-2*d*d)/2)
	if math.Abs(s.Within-wantWithin) > 1e-9 || math.Abs(s.Between-wantBetween) > 1e-9 {
		t.Errorf("within %v, between %v; want %v, %v", s.Within, s.Between, wantWithin, wantBetween)
	}
	if s.Count != 2 || len(s.Runs) != 2 || s.Runs[0] != 2 || math.Abs(s.F-4*D*D/(2*d*d)) > 1e-6 {
		t.Errorf("split %+v", s)
	}
	if SplitLaunches("x", flat(runs)) != nil {
		t.Error("runs of one launch have a split")
	}

	rng := rand.New(rand.NewPCG(3, 3))
	if s := SplitLaunches("same", twoLevel(rng, 5, 6, 0, 0.02)); len(s.Warnings) != 0 || s.ICC > 0.3 {
		t.Errorf("launches that do not differ: ICC %.2f, warnings %q", s.ICC, s.Warnings)
	}
	s = SplitLaunches("moved", twoLevel(rng, 5, 6, 0.1, 0.01))
	if len(s.Warnings) == 0 || !strings.Contains(s.Warnings[0], "moved: the launches disagree") {
		t.Errorf("launches 10%% apart, runs 1%%: warnings %q", s.Warnings)
	}
	if s.P >= DisagreeP || s.ICC < 0.8 {
		t.Errorf("launches 10%% apart: p %v, ICC %v", s.P, s.ICC)
	}

	// One launch far from the others is named.
	runs = twoLevel(rng, 5, 5, 0, 0.01)
	for i := range runs {
		if runs[i].Launch == 3 {
			runs[i].NsPerOp *= 1.3
		}
	}
	s = SplitLaunches("odd", runs)
	if got := strings.Join(s.Warnings, "\n"); !strings.Contains(got, "launch 3's median") || strings.Contains(got, "launch 1's") {
		t.Errorf("launch 3 30%% slower: warnings %q", s.Warnings)
	}
}

// TestMergeLaunches checks that the parts' runs are tagged with their
// launch and summarised over launches.
func TestMergeLaunches(t *testing.T) {
	part := func(ns ...float64) Benchmark {
		b := Benchmark{Name: "x", Iterations: 10}
		for _, v := range ns {
			b.Runs = append(b.Runs, Run{NsPerOp: v, Iterations: 10})
		}
		return b
	}
	bad := part(5)
	bad.Error = "boom"
	m := MergeLaunches([]Benchmark{part(1, 2), part(3, 4), bad})
	var launches []int
	for _, r := range m.Runs {
		launches = append(launches, r.Launch)
	}
	if want := []int{1, 1, 2, 2, 3}; !slices.Equal(launches, want) {
		t.Errorf("launches of runs %v, want %v", launches, want)
	}
	if m.Error != "launch 3: boom" || m.Launches == nil || m.Launches.Count != 3 || m.NsPerOp.Interval.Kind != LaunchBootstrap {
		t.Errorf("merged: error %q, launches %+v, interval %+v", m.Error, m.Launches, m.NsPerOp.Interval)
	}
	if m.NsPerOp.Interval.Confidence != 0.75 {
		t.Errorf("three launches claim %v; want 0.75, the level of their range", m.NsPerOp.Interval.Confidence)
	}
}

// TestStoredBaselineWidened simulates gates of an unchanged op against a
// stored baseline, where every specrun process shifts the op's time (a
// between-process spread of 5%, runs within one spread 1%). The baseline
// ran in one process; the gated run over ten launches. Without
// widening, the baseline's own shift, which its runs cannot show, fails
// the gate often; widened by the spread the launches measured, it fails
// at most at the 2.5% a one-sided bound allows.
func TestStoredBaselineWidened(t *testing.T) {
	t.Parallel() // a simulation: pure computation, one core each
	gates := 250
	if testing.Short() {
		gates = 80
	}
	max := 1.03
	exp := Expectation{Name: "no_slower", Max: &max,
		Refs: []Ref{{Instance: "x"}, {Instance: "x", Baseline: true}},
		Value: func(cur, base Metrics) (float64, error) {
			return cur["x"]["ns_per_op"] / base["x"]["ns_per_op"], nil
		}}
	rng := rand.New(rand.NewPCG(16, 7))
	var failWide, failNarrow int
	for range gates {
		base := &Result{Benchmarks: []Benchmark{{Name: "x", Runs: flat(twoLevel(rng, 1, 10, 0.05, 0.01))}}}
		runs := twoLevel(rng, 10, 3, 0.05, 0.01)
		cur := &Result{Benchmarks: []Benchmark{{Name: "x", Runs: runs, Launches: SplitLaunches("x", runs)}}}
		a := Judge([]Expectation{exp}, cur, base)[0]
		if a.Verdict == Fail {
			failWide++
		}
		if !strings.Contains(a.Message+string(a.Verdict), "widened") && a.Verdict != Pass {
			t.Fatalf("verdict %s without a word of widening: %s", a.Verdict, a.Message)
		}
		cur.Benchmarks[0].Launches = nil // as if the launches' spread were unknown
		if Judge([]Expectation{exp}, cur, base)[0].Verdict == Fail {
			failNarrow++
		}
	}
	wide, narrow := float64(failWide)/float64(gates), float64(failNarrow)/float64(gates)
	t.Logf("unchanged op, 5%% between processes: false failures %.1f%% widened, %.1f%% not", 100*wide, 100*narrow)
	if wide > 0.025+2*math.Sqrt(0.025*0.975/float64(gates)) {
		t.Errorf("widened: %.1f%% of unchanged gates failed; want at most 2.5%%", 100*wide)
	}
	if narrow < 3*wide || narrow < 0.05 {
		t.Errorf("not widened: %.1f%% failed, widened %.1f%%; want far more without widening", 100*narrow, 100*wide)
	}
}

// TestJudgeResamplesLaunches checks that an assertion over runs spread
// across launches gets an interval that resamples the launches: wider
// than the flat one of the same runs when the launches differ (by 10% here), at the
// level that five launches can claim.
func TestJudgeResamplesLaunches(t *testing.T) {
	max := 1000.0
	exp := Expectation{Name: "x_time", Max: &max, Refs: []Ref{{Instance: "x"}},
		Value: func(cur, _ Metrics) (float64, error) { return cur["x"]["ns_per_op"], nil }}
	runs := twoLevel(rand.New(rand.NewPCG(5, 5)), 5, 4, 0.1, 0.01)
	launched := Judge([]Expectation{exp}, &Result{Benchmarks: []Benchmark{{Name: "x", Runs: runs}}}, nil)[0]
	plain := Judge([]Expectation{exp}, &Result{Benchmarks: []Benchmark{{Name: "x", Runs: flat(runs)}}}, nil)[0]
	if launched.Interval == nil || plain.Interval == nil {
		t.Fatalf("intervals %v, %v", launched.Interval, plain.Interval)
	}
	wide, narrow := launched.Interval.High-launched.Interval.Low, plain.Interval.High-plain.Interval.Low
	if wide < 1.25*narrow {
		t.Errorf("over launches [%v, %v], flat [%v, %v]: want the launches' wider", launched.Interval.Low, launched.Interval.High, plain.Interval.Low, plain.Interval.High)
	}
	if launched.Interval.Confidence != 0.9375 || plain.Interval.Confidence != Confidence {
		t.Errorf("levels %v and %v; want 0.9375 for five launches, %v flat", launched.Interval.Confidence, plain.Interval.Confidence, Confidence)
	}
}
