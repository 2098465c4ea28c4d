package results

import (
	"math"
	"strings"
	"testing"

	"github.com/specrun/specrun/metric"
)

func TestStatOf(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name   string
		in     []float64
		stat   metric.Stat
		want   float64
		approx float64
	}{
		{"first", []float64{229, 410, 412}, metric.First, 229, 0},
		{"last", []float64{229, 410, 412}, metric.Last, 412, 0},
		{"min", []float64{3, 1, 2}, metric.Min, 1, 0},
		{"max", []float64{3, 1, 2}, metric.Max, 3, 0},
		{"no runs", nil, metric.First, nan, 0},
		// sd of 9, 10, 11 is 1 (n-1), over the mean 10
		{"cv", []float64{9, 10, 11}, metric.CV, 0.1, 1e-12},
		{"cv of a negative mean is positive", []float64{-9, -10, -11}, metric.CV, 0.1, 1e-12},
		{"cv of one run", []float64{5}, metric.CV, nan, 0},
		{"cv of a zero mean", []float64{-1, 1}, metric.CV, nan, 0},
		// 100, 110, 120: slope 10 a run over the mean 110
		{"trend of a straight line", []float64{100, 110, 120}, metric.Trend, 10.0 / 110, 1e-12},
		{"trend of a falling line", []float64{120, 110, 100}, metric.Trend, -10.0 / 110, 1e-12},
		{"trend of a flat line", []float64{5, 5, 5, 5}, metric.Trend, 0, 0},
		// least squares through (0,1) (1,3) (2,2) (3,4): slope 0.8, mean 2.5
		{"trend of a noisy line", []float64{1, 3, 2, 4}, metric.Trend, 0.8 / 2.5, 1e-12},
		{"trend of one run", []float64{5}, metric.Trend, nan, 0},
		// 31.2..31.4 spans 0.2: under a unit of the second digit (1), not of the third (0.1)
		{"digits", []float64{31.2, 31.4, 31.3}, metric.Digits, 2, 0},
		{"digits of small figures", []float64{0.0312, 0.0314, 0.0313}, metric.Digits, 2, 0},
		{"digits of a spread of exactly one unit", []float64{31, 32}, metric.Digits, 1, 0},
		{"digits when the first moves", []float64{10, 25}, metric.Digits, 0, 0},
		{"digits of 1.0%", []float64{1000, 1010}, metric.Digits, 2, 0},
		{"digits of identical runs", []float64{7, 7, 7}, metric.Digits, MaxDigits, 0},
		{"digits of one run", []float64{7}, metric.Digits, nan, 0},
		{"digits of a zero median", []float64{-1, 0, 1}, metric.Digits, nan, 0},
	} {
		got := StatOf(c.stat, c.in)
		switch {
		case math.IsNaN(c.want):
			if !math.IsNaN(got) {
				t.Errorf("%s: %s of %v = %v, want NaN", c.name, c.stat, c.in, got)
			}
		case math.Abs(got-c.want) > c.approx:
			t.Errorf("%s: %s of %v = %v, want %v", c.name, c.stat, c.in, got, c.want)
		}
	}
}

func TestSplitStat(t *testing.T) {
	for _, c := range []struct {
		name, metric string
		stat         metric.Stat
		ok           bool
	}{
		{"requests_per_sec_first", "requests_per_sec", metric.First, true},
		{"ns_per_op_cv", "ns_per_op", metric.CV, true},
		{"server_max_rss_bytes_trend", "server_max_rss_bytes", metric.Trend, true},
		{"latency_max_ns", "", "", false},
		{"server_max_rss_bytes", "", "", false},
		{"_first", "", "", false},
	} {
		m, s, ok := metric.SplitStat(c.name)
		if m != c.metric || s != c.stat || ok != c.ok {
			t.Errorf("SplitStat(%q) = %q, %q, %v; want %q, %q, %v", c.name, m, s, ok, c.metric, c.stat, c.ok)
		}
	}
}

// TestWarmupsAreInNoSummary: warm-up runs travel with the result, in
// order and marked, and change no summary, verdict or comparison.
func TestWarmupsAreInNoSummary(t *testing.T) {
	b := Benchmark{Name: "page", Runs: []Run{{Iterations: 10, NsPerOp: 2}, {Iterations: 10, NsPerOp: 3}},
		Warmups: []Run{{Iterations: 1, NsPerOp: 1000}, {Iterations: 5, NsPerOp: 50}}}
	b.NsPerOp, b.Metrics = SummarizeRuns(b.Runs)
	r := &Result{Schema: Schema, Suite: Suite{Name: "s"}, Benchmarks: []Benchmark{b}}
	var buf strings.Builder
	if err := Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"warmups"`) {
		t.Fatalf("the JSON has no warmups:\n%s", buf.String())
	}
	back, err := Decode([]byte(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	got := back.Benchmarks[0]
	var kinds []string
	for _, p := range got.Phases() {
		kinds = append(kinds, map[bool]string{true: "warm-up", false: "run"}[p.Warmup]+" "+string(rune('0'+p.Index)))
	}
	if want := "warm-up 1,warm-up 2,run 1,run 2"; strings.Join(kinds, ",") != want {
		t.Errorf("phases %v, want %s", kinds, want)
	}
	if got.NsPerOp.Max != 3 || Instances(back)["page"][metric.NsPerOp] != 2.5 {
		t.Errorf("a warm-up reached a summary: ns/op %+v, instances %v", got.NsPerOp, Instances(back))
	}
	// A result without warm-ups writes no warmups field at all.
	b.Warmups = nil
	buf.Reset()
	if err := Encode(&buf, &Result{Schema: Schema, Benchmarks: []Benchmark{b}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "warmups") {
		t.Errorf("a result without warm-ups has a warmups field")
	}
	// A warm-up's figures are checked as a run's are.
	b.Warmups = []Run{{Iterations: 1, NsPerOp: 1, Metrics: map[string]float64{"requests_per_sec": math.Inf(1)}}}
	err = Encode(&buf, &Result{Schema: Schema, Suite: Suite{Name: "s"}, Benchmarks: []Benchmark{b}})
	if err == nil || !strings.Contains(err.Error(), "page: warm-up 1: requests_per_sec is +Inf") {
		t.Errorf("Encode of an infinite warm-up figure: err = %v", err)
	}
}
