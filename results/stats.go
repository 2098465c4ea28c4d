package results

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/perf/benchmath"
)

// Confidence is the level Summarize asks of an interval of the median, and
// the level of the bootstrap interval Judge gives an assertion's value.
const Confidence = 0.95

// Summarize returns the summary of one figure over a benchmark's runs.
//
// The centre and its interval are benchstat's: the median, and the
// distribution-free confidence interval of the median from order
// statistics (benchmath.AssumeNothing), whose actual level is at least 95%.
// That interval needs at least six runs; with fewer, benchmath's bounds are
// infinite, which JSON cannot carry and a reader cannot use, so the
// interval is the runs' range, min..max, at the level that range has (75%
// for three runs, 94% for five), and the summary's warning says so. With
// one run the interval is a point.
func Summarize(values []float64) Summary {
	if len(values) == 0 {
		return Summary{}
	}
	xs := slices.Clone(values) // benchmath sorts in place
	sample := benchmath.NewSample(xs, &benchmath.DefaultThresholds)
	ci := benchmath.AssumeNothing.Summary(sample, Confidence)

	s := Summary{
		Median:   ci.Center,
		Min:      xs[0],
		Max:      xs[len(xs)-1],
		Interval: Interval{Low: ci.Lo, High: ci.Hi, Confidence: ci.Confidence, Kind: MedianCI},
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
	if finite(ci.Lo) && finite(ci.Hi) {
		return s
	}
	s.Interval = rangeInterval(s.Min, s.Max, len(xs))
	s.Warnings = []string{fmt.Sprintf("%d runs give no %v%% confidence interval of the median (need %d); the interval is min..max, a %s interval",
		len(xs), 100*Confidence, MinRunsForInterval(), Percent(s.Interval.Confidence))}
	return s
}

// rangeInterval is the interval min..max of n runs, at the level at which
// it holds the median: all n runs fall on one side of the median with
// probability 2 * 0.5^n. A single run is a point.
func rangeInterval(min, max float64, n int) Interval {
	if n <= 1 {
		return Interval{Low: min, High: max, Confidence: 1, Kind: Point}
	}
	return Interval{Low: min, High: max, Confidence: 1 - 2*math.Pow(0.5, float64(n)), Kind: Range}
}

// Percent writes a confidence level as people say it, rounded down so as
// never to claim more: "95%", "75%", "93%" (for 0.9375).
func Percent(level float64) string {
	return fmt.Sprintf("%.0f%%", math.Floor(100*level+1e-9))
}

// Number writes a figure with four significant digits and no exponent in
// the range people write bounds in, as verdict messages word it; reports
// use it so that a figure reads the same everywhere.
func Number(x float64) string {
	ax := math.Abs(x)
	switch {
	case x == 0:
		return "0"
	case ax >= 1e15 || ax < 1e-6:
		return strconv.FormatFloat(x, 'g', 4, 64)
	case ax >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	decimals := 3 - int(math.Floor(math.Log10(ax)))
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// MinRunsForInterval is the smallest number of runs for which Summarize
// reports a true 95% confidence interval of the median.
func MinRunsForInterval() int { return minRunsForInterval() }

var minRunsForInterval = sync.OnceValue(func() int {
	for n := 2; n <= 50; n++ {
		if _, ok := medianCI(n); ok {
			return n
		}
	}
	return 50
})

// medianCI is the interval Summarize gives n distinct runs 0..n-1.
func medianCI(n int) (Interval, bool) {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	ci := benchmath.AssumeNothing.Summary(benchmath.NewSample(xs, &benchmath.DefaultThresholds), Confidence)
	return Interval{Low: ci.Lo, High: ci.Hi, Confidence: ci.Confidence, Kind: MedianCI}, finite(ci.Lo) && finite(ci.Hi)
}

// medianRuns returns, per metric, the median over the runs that have it.
func medianRuns(runs []map[string]float64) map[string]float64 {
	keys := map[string]bool{}
	for _, r := range runs {
		for k := range r {
			keys[k] = true
		}
	}
	out := make(map[string]float64, len(keys))
	vals := make([]float64, 0, len(runs))
	for k := range keys {
		vals = vals[:0]
		for _, r := range runs {
			if v, ok := r[k]; ok {
				vals = append(vals, v)
			}
		}
		sort.Float64s(vals)
		out[k] = quantileSorted(vals, 0.5)
	}
	return out
}

// quantileSorted interpolates linearly between the order statistics of sorted.
func quantileSorted(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// Median is the median of values (the mean of the middle two for an even
// count), NaN when there are none. values is left as it was.
func Median(values []float64) float64 {
	return quantileSorted(slices.Sorted(slices.Values(values)), 0.5)
}

// RunMedian is the median of one metric over the runs that report it.
func RunMedian(runs []Run, name string) (float64, bool) {
	var vs []float64
	for _, r := range runs {
		if v, ok := r.Metrics[name]; ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	return Median(vs), true
}
