package metric

import "strings"

// Stat is a figure of a metric over a benchmark's runs, in the order they
// ran, beside the median that the metric's own name reads. An assertion
// reads it as METRIC_STAT: requests_per_sec_first, ns_per_op_cv.
type Stat string

// The stats of a metric over its runs.
const (
	First  Stat = "first"  // the first timed run's figure
	Last   Stat = "last"   // the last timed run's figure
	Min    Stat = "min"    // the smallest run's
	Max    Stat = "max"    // the largest run's
	CV     Stat = "cv"     // the coefficient of variation, stddev over mean
	Trend  Stat = "trend"  // the least-squares slope per run, over the mean
	Digits Stat = "digits" // the significant digits stable across the runs
)

// Stats are every Stat, in the order documentation lists them.
var Stats = []Stat{First, Last, Min, Max, CV, Trend, Digits}

// StatDocs say in a few words what each Stat is, for diagnostics and help.
var StatDocs = map[Stat]string{
	First:  "the first run's figure",
	Last:   "the last run's figure",
	Min:    "the smallest run's figure",
	Max:    "the largest run's figure",
	CV:     "the runs' standard deviation over their mean",
	Trend:  "the least-squares slope per run over the mean (0.05: +5% a run)",
	Digits: "how many significant digits all runs share",
}

// SplitStat splits a name such as requests_per_sec_first into its metric
// and its Stat, when it ends in one.
func SplitStat(name string) (string, Stat, bool) {
	for _, s := range Stats {
		if base, ok := strings.CutSuffix(name, "_"+string(s)); ok && base != "" {
			return base, s, true
		}
	}
	return "", "", false
}

// Fixed reports whether a Stat describes the runs that were recorded, one
// run or the extremes, rather than estimating something a resample of the
// runs would vary: first, last, min, max and digits.
func (s Stat) Fixed() bool { return s != CV && s != Trend }
