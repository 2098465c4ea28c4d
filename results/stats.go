package results

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"golang.org/x/perf/benchmath"
)

// Confidence is the level of every interval a summary reports.
const Confidence = 0.95

// Summarize returns the summary of one figure over a benchmark's runs.
//
// The centre and its interval are benchstat's: the median, and the
// distribution-free confidence interval of the median from order
// statistics (benchmath.AssumeNothing). That interval needs at least six
// runs at 95%; with fewer, benchmath's bounds are infinite, which JSON cannot
// carry and a reader cannot use, so the interval becomes [min, max] (for
// three runs a 75% interval of the median, for five 94%) and the returned
// warning says so. With one run, min = max = the value: a point, not an
// interval.
func Summarize(values []float64) (Summary, error) {
	if len(values) == 0 {
		return Summary{}, nil
	}
	xs := slices.Clone(values) // benchmath sorts in place
	sample := benchmath.NewSample(xs, &benchmath.DefaultThresholds)
	ci := benchmath.AssumeNothing.Summary(sample, Confidence)

	s := Summary{
		Median:   ci.Center,
		Min:      xs[0],
		Max:      xs[len(xs)-1],
		CI95Low:  ci.Lo,
		CI95High: ci.Hi,
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.Stddev = math.Sqrt(ss / float64(len(xs)-1))
	}

	var warning error
	if math.IsInf(s.CI95Low, 0) || math.IsInf(s.CI95High, 0) || math.IsNaN(s.CI95Low) || math.IsNaN(s.CI95High) {
		s.CI95Low, s.CI95High = s.Min, s.Max
		warning = fmt.Errorf("%d runs give no %v%% confidence interval of the median (need %d); the interval shown is min..max",
			len(xs), 100*Confidence, MinRunsForInterval())
	}
	return s, warning
}

// MinRunsForInterval is the smallest number of runs for which Summarize
// reports a true 95% confidence interval of the median.
func MinRunsForInterval() int { return minRunsForInterval() }

var minRunsForInterval = sync.OnceValue(func() int {
	for n := 2; n <= 50; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i)
		}
		ci := benchmath.AssumeNothing.Summary(benchmath.NewSample(xs, &benchmath.DefaultThresholds), Confidence)
		if !math.IsInf(ci.Lo, 0) && !math.IsInf(ci.Hi, 0) {
			return n
		}
	}
	return 50
})
