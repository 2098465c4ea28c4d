package results

import (
	"math"
	"slices"

	"github.com/specrun/specrun/metric"
)

// MaxDigits is the most significant digits StableDigits gives: runs that
// agree beyond it agree as far as a float64 can tell.
const MaxDigits = 15

// Phase is one run of a benchmark as the per-phase views list it: a
// warm-up or a timed run, numbered from 1 within its kind.
type Phase struct {
	Index  int
	Warmup bool
	Run    *Run
}

// Phases are b's warm-up runs, then its timed runs, in the order they ran.
func (b *Benchmark) Phases() []Phase {
	out := make([]Phase, 0, len(b.Warmups)+len(b.Runs))
	for i := range b.Warmups {
		out = append(out, Phase{Index: i + 1, Warmup: true, Run: &b.Warmups[i]})
	}
	for i := range b.Runs {
		out = append(out, Phase{Index: i + 1, Run: &b.Runs[i]})
	}
	return out
}

// Figure is a run's value of a metric: its ns/op, a metric it recorded,
// or the rate derived from its ns/op when it recorded none.
func (r *Run) Figure(name string) (float64, bool) {
	if name == metric.NsPerOp {
		return r.NsPerOp, true
	}
	if v, ok := r.Metrics[name]; ok {
		return v, true
	}
	if name == metric.OpsPerSec && r.NsPerOp > 0 {
		return 1e9 / r.NsPerOp, true
	}
	return 0, false
}

// RunValues are a metric's figures over b's timed runs in the order they
// ran, leaving out runs that lack it.
func RunValues(b *Benchmark, name string) []float64 {
	var vs []float64
	for i := range b.Runs {
		if v, ok := b.Runs[i].Figure(name); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// StatOf computes a Stat of values in run order; NaN where it is not
// defined (no runs; CV, trend and digits of fewer than two, or of runs
// whose mean is zero).
func StatOf(s metric.Stat, values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	switch s {
	case metric.First:
		return values[0]
	case metric.Last:
		return values[len(values)-1]
	case metric.Min:
		return slices.Min(values)
	case metric.Max:
		return slices.Max(values)
	case metric.CV:
		return CV(values)
	case metric.Trend:
		return Trend(values)
	case metric.Digits:
		return StableDigits(values)
	}
	return math.NaN()
}

// CV is the coefficient of variation of values: their sample standard
// deviation (n-1) over the absolute value of their mean; NaN for fewer
// than two values or a zero mean.
func CV(values []float64) float64 {
	n := float64(len(values))
	if n < 2 {
		return math.NaN()
	}
	var sum float64
	for _, v := range values {
		sum += v
	}
	mean := sum / n
	if mean == 0 {
		return math.NaN()
	}
	var ss float64
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss/(n-1)) / math.Abs(mean)
}

// Trend is the least-squares slope of values against their run index
// (0, 1, 2, ...) over the absolute value of their mean, which is the
// fitted line's value at the middle run: 0.05 is a figure that grows 5%
// of its mean per run. NaN for fewer than two values or a zero mean.
func Trend(values []float64) float64 {
	slope, mean := fitLine(values)
	if len(values) < 2 || mean == 0 {
		return math.NaN()
	}
	return slope / math.Abs(mean)
}

// fitLine is the least-squares line through (i, values[i]): its slope
// and the mean of values, through which it passes at the middle index.
func fitLine(values []float64) (slope, mean float64) {
	n := float64(len(values))
	if n == 0 {
		return 0, 0
	}
	mid := (n - 1) / 2
	var sum float64
	for _, v := range values {
		sum += v
	}
	mean = sum / n
	var sxy, sxx float64
	for i, v := range values {
		dx := float64(i) - mid
		sxy += dx * (v - mean)
		sxx += dx * dx
	}
	if sxx == 0 {
		return 0, mean
	}
	return sxy / sxx, mean
}

// StableDigits is how many significant digits of values are stable across
// them: the largest d for which the runs' range, max - min, is less than
// one unit of the d-th significant digit of their median (runs of 31.2,
// 31.4 and 31.3 span 0.2, under a unit of the second digit, 1, but not of
// the third, 0.1: two digits). 0 when even the first digit moves;
// MaxDigits when every run is the same; NaN for fewer than two values or
// a median of zero.
func StableDigits(values []float64) float64 {
	if len(values) < 2 {
		return math.NaN()
	}
	med := math.Abs(Median(values))
	if med == 0 || !finite(med) {
		return math.NaN()
	}
	spread := slices.Max(values) - slices.Min(values)
	lead := math.Floor(math.Log10(med)) // the exponent of the first digit
	d := 0
	for d < MaxDigits && spread < math.Pow(10, lead-float64(d)) {
		d++
	}
	return float64(d)
}
