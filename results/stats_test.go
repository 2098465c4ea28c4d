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
		warning bool
	}{
		{"empty", nil, Summary{}, false},
		{"one run is a point", []float64{5}, Summary{Median: 5, Mean: 5, Min: 5, Max: 5, CI95Low: 5, CI95High: 5}, true},
		{"three runs fall back to min..max", []float64{3, 1, 2},
			Summary{Median: 2, Mean: 2, Min: 1, Max: 3, Stddev: 1, CI95Low: 1, CI95High: 3}, true},
		// For six runs the 95% interval of the median is the 1st to 6th order statistic.
		{"six runs", []float64{6, 5, 4, 3, 2, 1},
			Summary{Median: 3.5, Mean: 3.5, Min: 1, Max: 6, Stddev: math.Sqrt(3.5), CI95Low: 1, CI95High: 6}, false},
		// For ten runs it narrows to the 2nd to 9th.
		{"ten runs", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1},
			Summary{Median: 5.5, Mean: 5.5, Min: 1, Max: 10, Stddev: math.Sqrt(55.0 / 6), CI95Low: 2, CI95High: 9}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := append([]float64(nil), c.in...)
			got, warning := Summarize(in)
			if diff := cmp.Diff(c.want, got, approx); diff != "" {
				t.Errorf("Summarize(%v) (-want +got):\n%s", c.in, diff)
			}
			if (warning != nil) != c.warning {
				t.Errorf("Summarize(%v) warning = %v, want one: %v", c.in, warning, c.warning)
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
