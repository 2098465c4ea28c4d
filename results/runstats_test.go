package results

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/specrun/specrun/metric"
)

// stat is an expectation on f of the named figures of one instance.
func stat(name, instance string, min, max *float64, f func(m map[string]float64) float64, reads ...string) Expectation {
	e := Expectation{Name: name, Min: min, Max: max, Value: func(cur, _ Metrics) (float64, error) {
		return f(cur[instance]), nil
	}}
	for _, r := range reads {
		e.Refs = append(e.Refs, Ref{Instance: instance, Metric: r})
	}
	return e
}

// TestJudgeReadsStats: an assertion reads each stat of a metric over the
// runs in the order they ran, beside the median.
func TestJudgeReadsStats(t *testing.T) {
	cur := synthetic(map[string][]float64{"jit": {229, 400, 410, 405, 412, 408}})
	for _, c := range []struct {
		name string
		want float64
	}{
		{"ns_per_op_first", 229}, {"ns_per_op_last", 408}, {"ns_per_op_min", 229}, {"ns_per_op_max", 412},
		{"ns_per_op_cv", CV([]float64{229, 400, 410, 405, 412, 408})},
		{"ns_per_op_trend", Trend([]float64{229, 400, 410, 405, 412, 408})},
		{"ns_per_op_digits", 0},
		{"ns_per_op", 406.5},
	} {
		name := c.name
		a := Judge([]Expectation{stat(name, "jit", ptr(-1e9), nil, func(m map[string]float64) float64 { return m[name] }, name)}, cur, nil)[0]
		if a.Value == nil || math.Abs(*a.Value-c.want) > 1e-12 {
			t.Errorf("%s: value %v (%s), want %v", name, a.Value, a.Message, c.want)
		}
	}
}

// TestJudgeFixedStatsArePoints: first, last, min, max and digits are the
// runs that were recorded; no resample moves them, so a value that reads
// only them is decided by its point value, and one that reads them beside
// a median has the median's interval alone.
func TestJudgeFixedStatsArePoints(t *testing.T) {
	cur := synthetic(map[string][]float64{"jit": {229, 400, 410, 405, 412, 408, 399, 415}})
	for _, s := range metric.Stats {
		if !s.Fixed() {
			continue
		}
		name := "ns_per_op_" + string(s)
		a := Judge([]Expectation{stat("only "+name, "jit", ptr(-1), nil, func(m map[string]float64) float64 { return m[name] }, name)}, cur, nil)[0]
		if a.Interval != nil || a.Verdict != Pass || !strings.Contains(a.Message, "the point value decides") {
			t.Errorf("%s alone: interval %+v, verdict %s (%s); want the point value to decide", name, a.Interval, a.Verdict, a.Message)
		}
		// first - median has the interval of -median, shifted by first:
		// the same resamples (one seed, one name) give the same medians.
		median := Judge([]Expectation{stat("same", "jit", ptr(-1e9), nil, func(m map[string]float64) float64 { return -m["ns_per_op"] }, "ns_per_op")}, cur, nil)[0]
		both := Judge([]Expectation{stat("same", "jit", ptr(-1e9), nil, func(m map[string]float64) float64 { return m[name] - m["ns_per_op"] }, name, "ns_per_op")}, cur, nil)[0]
		point := StatOf(s, RunValues(&cur.Benchmarks[0], metric.NsPerOp))
		if both.Interval == nil || median.Interval == nil {
			t.Fatalf("%s - median: no interval (%s)", name, both.Message)
		}
		if lo, hi := point+median.Interval.Low, point+median.Interval.High; math.Abs(both.Interval.Low-lo) > 1e-9 || math.Abs(both.Interval.High-hi) > 1e-9 {
			t.Errorf("%s - median: interval [%v, %v], want [%v, %v], the median's shifted by %v", name, both.Interval.Low, both.Interval.High, lo, hi, point)
		}
	}
}

// TestJudgeTrendOfTwoRunsIsAPoint: the line through two runs leaves no
// residuals, so no resample moves their trend; it is decided by its point
// value and says so, rather than claim an interval of no width.
func TestJudgeTrendOfTwoRunsIsAPoint(t *testing.T) {
	cur := synthetic(map[string][]float64{"two": {100, 120}})
	a := Judge([]Expectation{stat("trend", "two", nil, ptr(1), func(m map[string]float64) float64 { return m["ns_per_op_trend"] }, "ns_per_op_trend")}, cur, nil)[0]
	if a.Value == nil || math.Abs(*a.Value-Trend([]float64{100, 120})) > 1e-12 {
		t.Fatalf("value %v (%s), want the trend of the two runs", a.Value, a.Message)
	}
	if a.Interval != nil || a.Verdict != Pass || !strings.Contains(a.Message, "the point value decides") {
		t.Errorf("the trend of two runs: interval %+v, verdict %s (%s); want the point value to decide", a.Interval, a.Verdict, a.Message)
	}
	three := synthetic(map[string][]float64{"three": {100, 120, 110}})
	a = Judge([]Expectation{stat("trend", "three", nil, ptr(1), func(m map[string]float64) float64 { return m["ns_per_op_trend"] }, "ns_per_op_trend")}, three, nil)[0]
	if a.Interval == nil {
		t.Errorf("the trend of three runs has no interval (%s)", a.Message)
	}
}

// coverage judges trials fake results of n runs drawn by draw and returns
// how often the 95% interval of the stat holds truth, and the median
// interval width over truth.
func coverage(t *testing.T, name string, trials, n int, draw func(rng *rand.Rand, i int) float64, truth float64) (float64, float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	held := 0
	var widths []float64
	for trial := range trials {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = draw(rng, i)
		}
		cur := synthetic(map[string][]float64{"x": vals})
		e := stat(name+string(rune('a'+trial%26))+string(rune('a'+trial/26)), "x", ptr(-1e9), nil,
			func(m map[string]float64) float64 { return m[name] }, name)
		a := Judge([]Expectation{e}, cur, nil)[0]
		if a.Interval == nil {
			t.Fatalf("%s: no interval: %s", name, a.Message)
		}
		if a.Interval.Low <= truth && truth <= a.Interval.High {
			held++
		}
		widths = append(widths, (a.Interval.High-a.Interval.Low)/truth)
	}
	return float64(held) / float64(trials), Median(widths)
}

// TestJudgeStatIntervalsHoldTheTruth: over fake runs of known spread and
// trend, the 95% intervals of the CV (an ordinary bootstrap of the runs)
// and of the trend (a bootstrap of the residuals about the fitted line)
// hold the true value about as often as they claim. A percentile bootstrap
// of the spread of 20 runs falls short of 95% (the CV's holds it about 88%
// of the time, the trend's about 94%); far below that is a broken interval.
func TestJudgeStatIntervalsHoldTheTruth(t *testing.T) {
	const trials, n = 300, 20
	cv, cvWidth := coverage(t, "ns_per_op_cv", trials, n, func(rng *rand.Rand, _ int) float64 { return 100 + 5*rng.NormFloat64() }, 0.05)
	// 100 + 2 per run, noise of sd 3: the line's mean is 100 + 2*(n-1)/2.
	trend, trendWidth := coverage(t, "ns_per_op_trend", trials, n, func(rng *rand.Rand, i int) float64 {
		return 100 + 2*float64(i) + 3*rng.NormFloat64()
	}, 2/(100+2*float64(n-1)/2))
	t.Logf("coverage: cv %.3f (width %.2f of the truth), trend %.3f (width %.2f)", cv, cvWidth, trend, trendWidth)
	if cv < 0.82 || cv > 0.995 {
		t.Errorf("the CV's 95%% interval held the true CV in %.1f%% of %d trials", 100*cv, trials)
	}
	if trend < 0.88 || trend > 0.995 {
		t.Errorf("the trend's 95%% interval held the true trend in %.1f%% of %d trials", 100*trend, trials)
	}
	if cvWidth <= 0 || trendWidth <= 0 {
		t.Errorf("degenerate intervals: widths %v, %v", cvWidth, trendWidth)
	}
}

// TestJudgeTrendKeepsTheOrder: the trend's interval comes from the runs
// in their order; the same figures shuffled have no trend to speak of.
func TestJudgeTrendKeepsTheOrder(t *testing.T) {
	rising := []float64{100, 103, 101, 106, 108, 107, 111, 113, 112, 116}
	shuffled := []float64{107, 100, 113, 103, 116, 101, 111, 106, 112, 108}
	judgeTrend := func(vals []float64) Assertion {
		e := stat("grows", "x", ptr(0), nil, func(m map[string]float64) float64 { return m["ns_per_op_trend"] }, "ns_per_op_trend")
		return Judge([]Expectation{e}, synthetic(map[string][]float64{"x": vals}), nil)[0]
	}
	if a := judgeTrend(rising); a.Verdict != Pass {
		t.Errorf("rising runs: %s, value %v %+v; want a trend above 0", a.Verdict, *a.Value, a.Interval)
	}
	if a := judgeTrend(shuffled); a.Verdict == Pass {
		t.Errorf("shuffled runs: %s, value %v %+v; want no sure trend", a.Verdict, *a.Value, a.Interval)
	}
}

// TestJudgeWholeInstanceReadsStats: a value that reads a whole instance
// (an expression over every instance of a block) may read its stats too.
func TestJudgeWholeInstanceReadsStats(t *testing.T) {
	cur := synthetic(map[string][]float64{"jit": {229, 400, 410}})
	e := Expectation{Name: "whole", Min: ptr(0), Refs: []Ref{{Instance: "jit"}},
		Value: func(cur, _ Metrics) (float64, error) {
			return cur["jit"]["ns_per_op_first"] / cur["jit"]["ns_per_op"], nil
		}}
	a := Judge([]Expectation{e}, cur, nil)[0]
	if a.Value == nil || math.Abs(*a.Value-229.0/400) > 1e-12 {
		t.Errorf("value %v (%s %s), want 229/400", a.Value, a.Verdict, a.Message)
	}
}
