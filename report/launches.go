package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/specrun/specrun/results"
)

// LaunchSummary is one line per benchmark whose runs were spread over
// launches: how its spread of time per op divides between launches and
// runs ("a: 5 launches x 4 runs; between launches 4.1%, within one 1.2%,
// ICC 0.92, p = 0.001: the launches disagree").
func LaunchSummary(r *results.Result) []string {
	var lines []string
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		s := b.Launches
		if s == nil {
			continue
		}
		line := fmt.Sprintf("%s: %d launches x %s runs; between launches %s, within one %s, ICC %.2f",
			b.RowLabel(), s.Count, runCounts(s.Runs), relative(s.Between), relative(s.Within), s.ICC)
		switch {
		case s.F == 0:
			line += " (one run a launch: the spread within one is unknown)"
		case s.P < results.DisagreeP:
			line += fmt.Sprintf(", p = %.3f: the launches disagree", s.P)
		default:
			line += fmt.Sprintf(", p = %.2f", s.P)
		}
		lines = append(lines, line)
	}
	return lines
}

// runCounts is "4" when every launch did 4 runs, else "3-4".
func runCounts(runs []int) string {
	lo, hi := runs[0], runs[0]
	for _, n := range runs {
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// relative writes the standard deviation of a logarithm as the relative
// spread it is close to, two significant digits: "4.1%".
func relative(sd float64) string {
	return strings.TrimSuffix(significant(100*(math.Exp(sd)-1), 2), ".") + "%"
}
