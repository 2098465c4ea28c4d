package results

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSummarize(t *testing.T) {
	approx := cmpopts.EquateApprox(0, 1e-9)
	for _, c := range []struct {
		name    string
		in      []float64
		want    Summary
		warning string
	}{
		{"empty", nil, Summary{}, ""},
		{"one run is a point", []float64{5}, Summary{Median: 5, Mean: 5, Min: 5, Max: 5,
			Interval: Interval{Low: 5, High: 5, Confidence: 1, Kind: Point}}, "1 runs give no 95% confidence interval of the median (need 6); the interval is min..max, a 100% interval"},
		// Three runs all fall on one side of the median with probability 2/8.
		{"three runs fall back to min..max at 75%", []float64{3, 1, 2},
			Summary{Median: 2, Mean: 2, Min: 1, Max: 3, Stddev: 1, Interval: Interval{Low: 1, High: 3, Confidence: 0.75, Kind: Range}},
			"3 runs give no 95% confidence interval of the median (need 6); the interval is min..max, a 75% interval"},
		{"five runs: min..max at 93.75%", []float64{3, 1, 2, 5, 4},
			Summary{Median: 3, Mean: 3, Min: 1, Max: 5, Stddev: math.Sqrt(2.5), Interval: Interval{Low: 1, High: 5, Confidence: 0.9375, Kind: Range}},
			"5 runs give no 95% confidence interval of the median (need 6); the interval is min..max, a 93% interval"},
		// For six runs the 95% interval of the median is the 1st to 6th order
		// statistic, which holds the median with probability 1 - 2/64.
		{"six runs", []float64{6, 5, 4, 3, 2, 1},
			Summary{Median: 3.5, Mean: 3.5, Min: 1, Max: 6, Stddev: math.Sqrt(3.5), Interval: Interval{Low: 1, High: 6, Confidence: 1 - 2.0/64, Kind: MedianCI}}, ""},
		// For ten runs it narrows to the 2nd to 9th: 1 - 2*11/1024.
		{"ten runs", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1},
			Summary{Median: 5.5, Mean: 5.5, Min: 1, Max: 10, Stddev: math.Sqrt(55.0 / 6), Interval: Interval{Low: 2, High: 9, Confidence: 1 - 22.0/1024, Kind: MedianCI}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := append([]float64(nil), c.in...)
			got := Summarize(in)
			if c.warning != "" {
				c.want.Warnings = []string{c.warning}
			}
			if diff := cmp.Diff(c.want, got, approx); diff != "" {
				t.Errorf("Summarize(%v) (-want +got):\n%s", c.in, diff)
			}
			if !cmp.Equal(in, c.in) {
				t.Errorf("Summarize reordered its input: %v", in)
			}
		})
	}
	if n := MinRunsForInterval(); n != 6 {
		t.Errorf("MinRunsForInterval() = %d, want 6", n)
	}
}
