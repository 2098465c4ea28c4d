package results

import (
	"math"
	"slices"
)

// The defaults of a Sequential rule, as `repeat = "auto"` runs it.
const (
	// DefaultMinRuns is the first look: ten runs give a distribution-free
	// interval of the median at the level of every look (99% for five).
	DefaultMinRuns = 10
	// DefaultMaxRuns is the budget of runs, and the last look.
	DefaultMaxRuns = 50
	// DefaultPrecision is the half-width, relative to the median, that a
	// median's interval must reach before precision alone lets it stop.
	DefaultPrecision = 0.02
	// LookGrowth is the factor between the runs of successive looks.
	LookGrowth = 1.5
)

// Sequential is the rule by which a benchmark keeps adding runs until its
// verdicts are settled ("repeat = auto"). It looks at the runs only at a
// schedule fixed before the first run: Min, then each look LookGrowth
// times the last, and Max. Each look judges at level Level, which spends
// the error rate 1-Confidence evenly over the planned looks (Bonferroni),
// so that the chance that any look, and so the look the run stops at,
// gives a false verdict is at most 1-Confidence whatever the stopping rule.
// The zero value is the default rule.
type Sequential struct {
	Min, Max  int     // runs at the first and the last look; 0 means the default
	Precision float64 // relative half-width of a median's interval that is precise enough; 0 means the default, negative ignores precision
}

func (s Sequential) withDefaults() Sequential {
	if s.Min <= 0 {
		s.Min = DefaultMinRuns
	}
	if s.Max <= 0 {
		s.Max = max(DefaultMaxRuns, s.Min)
	}
	s.Max = max(s.Max, s.Min)
	if s.Precision == 0 {
		s.Precision = DefaultPrecision
	}
	return s
}

// Looks returns the runs after which the rule looks, in increasing order:
// Min, LookGrowth times the last (rounded up) while below Max, then Max.
func (s Sequential) Looks() []int {
	s = s.withDefaults()
	looks := []int{s.Min}
	for {
		next := int(math.Ceil(float64(looks[len(looks)-1]) * LookGrowth))
		if next >= s.Max {
			break
		}
		looks = append(looks, next)
	}
	if looks[len(looks)-1] != s.Max {
		looks = append(looks, s.Max)
	}
	return looks
}

// Level is the confidence of the intervals each look judges with:
// 1 - (1-Confidence)/looks (0.99 for the five looks of the default rule).
func (s Sequential) Level() float64 {
	return lookLevel(len(s.Looks()))
}

// IsLook says whether the rule looks after runs runs.
func (s Sequential) IsLook(runs int) bool {
	return slices.Contains(s.Looks(), runs)
}

// NextLook is the first look after runs runs, or 0 when there is none.
func (s Sequential) NextLook(runs int) int {
	for _, n := range s.Looks() {
		if n > runs {
			return n
		}
	}
	return 0
}

// Settled says, at a look, whether the instances named may stop adding
// runs: every expectation that reads one of them (in cur, not in the
// baseline) has a verdict other than inconclusive at Level, and each
// instance's median is within Precision. cur holds the runs so far of
// these instances and of any that ran before them.
func (s Sequential) Settled(exps []Expectation, cur, base *Result, names []string) bool {
	s = s.withDefaults()
	if s.Precision > 0 {
		for _, name := range names {
			b := findBenchmark(cur, name)
			if b == nil || b.Error != "" {
				continue
			}
			if !precise(b.Runs, s.Precision) {
				return false
			}
		}
	}
	for _, a := range JudgeAt(reading(exps, names), cur, base, s.Level()) {
		if a.Verdict == Inconclusive {
			return false
		}
	}
	return true
}

// precise says whether the interval of the median of runs' time per op is
// within precision of it on either side.
func precise(runs []Run, precision float64) bool {
	ns := make([]float64, len(runs))
	for i, r := range runs {
		ns[i] = r.NsPerOp
	}
	sum := Summarize(ns)
	if sum.Interval.Kind != MedianCI || sum.Median <= 0 {
		return false
	}
	return (sum.Interval.High-sum.Interval.Low)/2 <= precision*sum.Median
}

// reading returns the expectations that read any of the named instances
// of the current result.
func reading(exps []Expectation, names []string) []Expectation {
	var out []Expectation
	for _, e := range exps {
		for _, r := range e.Refs {
			if !r.Baseline && slices.Contains(names, r.Instance) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// lookedAt returns the most looks planned for a benchmark of cur that e
// reads (0 when none ran under a Sequential rule), and the fewest runs of
// one of them.
func lookedAt(e Expectation, cur *Result) (looks, runs int) {
	for _, r := range e.Refs {
		b := findBenchmark(cur, r.Instance)
		if r.Baseline || b == nil {
			continue
		}
		if runs == 0 || len(b.Runs) < runs {
			runs = len(b.Runs)
		}
		looks = max(looks, len(b.Looks))
	}
	return looks, runs
}

// lookLevel is the level of each of looks looks that spend 1-Confidence.
func lookLevel(looks int) float64 {
	return 1 - (1-Confidence)/float64(looks)
}

// bounds writes an assertion's bounds: "bound max 1.05", "bounds min 0.9, max 1.1".
func bounds(lo, hi *float64) string {
	switch {
	case lo != nil && hi != nil:
		return "bounds min " + Number(*lo) + ", max " + Number(*hi)
	case lo != nil:
		return "bound min " + Number(*lo)
	case hi != nil:
		return "bound max " + Number(*hi)
	}
	return "no bounds"
}
