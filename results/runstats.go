package results

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/specrun/specrun/metric"
)

// statColumn is a METRIC_STAT an expectation reads of an instance
// (requests_per_sec_first): the metric's figures in run order and what a
// resample of them gives.
//
// A resample cannot draw the first or the last run, which are one run in a
// place, nor honestly the extremes or the digits the recorded runs share:
// those are the point value in every resample, and only the other figures
// the value reads vary. The CV is a figure of the runs' distribution,
// which the ordinary bootstrap resamples, each resample's variance times
// n/(n-1) (a resample with replacement has (n-1)/n of the runs' variance
// on average). The trend depends on the order
// of the runs, which resampling would shuffle away: it is resampled by
// residuals, each resample the fitted line plus the residuals drawn with
// replacement (scaled by sqrt(n/(n-2)) for the two the line fitted), as a
// regression on a fixed design is.
type statColumn struct {
	stat   metric.Stat
	values []float64 // the runs' figures, NaN where a run lacks the metric
	point  float64
	fitted []float64 // trend: the line at each run that has the figure
	resid  []float64 // trend: the scaled residuals about it
}

// newStatColumn reads stat of col, one figure per run in run order.
func newStatColumn(stat metric.Stat, col []float64) *statColumn {
	c := &statColumn{stat: stat, values: col}
	present := finiteOnly(col)
	c.point = StatOf(stat, present)
	if stat != metric.Trend || len(present) <= 2 {
		return c // the line through two runs leaves no residuals to draw
	}
	slope, mean := fitLine(present)
	mid := float64(len(present)-1) / 2
	n := float64(len(present))
	scale := math.Sqrt(n / (n - 2))
	for i, v := range present {
		line := mean + slope*(float64(i)-mid)
		c.fitted = append(c.fitted, line)
		c.resid = append(c.resid, (v-line)*scale)
	}
	return c
}

// resample is the stat in one resample whose runs are picked (indices
// into values), pulled towards the point value by shrink as an m-out-of-n
// resample's median is.
func (c *statColumn) resample(picked []int, shrink float64, rng *rand.Rand, buf []float64) float64 {
	switch c.stat {
	case metric.CV:
		buf = buf[:0]
		for _, j := range picked {
			if v := c.values[j]; !math.IsNaN(v) {
				buf = append(buf, v)
			}
		}
		cv := CV(buf) * math.Sqrt(float64(len(buf))/float64(len(buf)-1))
		return c.point + (cv-c.point)*shrink
	case metric.Trend:
		if len(c.fitted) == 0 {
			return c.point
		}
		buf = buf[:0]
		for _, line := range c.fitted {
			buf = append(buf, line+c.resid[rng.IntN(len(c.resid))])
		}
		return Trend(buf)
	}
	return c.point
}

// readStat says whether name, read of an instance with runs, is a stat of
// one of its metrics rather than a metric of its own.
func readStat(name string, runs []map[string]float64) (string, metric.Stat, bool) {
	for _, r := range runs {
		if _, own := r[name]; own {
			return "", "", false
		}
	}
	return metric.SplitStat(name)
}

// withStats returns the medians with, on every instance read, the point
// value of each stat read of it, leaving the caller's maps as they were.
func withStats(instances []judgeInstance, curMed, baseMed Metrics) (Metrics, Metrics) {
	if !slices.ContainsFunc(instances, func(in judgeInstance) bool { return len(in.stats) > 0 }) {
		return curMed, baseMed // the common case: no copy
	}
	clone := func(m Metrics) Metrics {
		if m == nil {
			return nil // no baseline stays no baseline
		}
		return copyOuter(m)
	}
	cur, base := clone(curMed), clone(baseMed)
	for _, in := range instances {
		target := cur
		if in.baseline {
			target = base
		}
		if len(in.stats) == 0 || target == nil {
			continue
		}
		m := make(map[string]float64, len(target[in.name])+len(in.stats))
		for k, v := range target[in.name] {
			m[k] = v
		}
		for name, c := range in.stats {
			m[name] = c.point
		}
		target[in.name] = m
	}
	return cur, base
}

// resampled says whether a resample of in's runs can move what the value
// reads of it: a median, a CV or a trend, but not only single runs.
func (in judgeInstance) resampled() bool {
	for _, name := range in.metrics {
		if c, ok := in.stats[name]; !ok || c.moves() {
			return true
		}
	}
	return false
}

// moves says whether a resample can move the stat: the CV, and the trend
// of more than two runs.
func (c *statColumn) moves() bool {
	if c.stat == metric.Trend {
		return len(c.fitted) > 0
	}
	return !c.stat.Fixed()
}

func finiteOnly(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}
