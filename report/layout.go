package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// changeText is a change with its interval as percentages, "+33% [+25%,
// +41%]", with the interval's level when it is below the one asked for,
// as it is with few runs: "+33% [+25%, +41%] at 90%". Empty without one.
func changeText(c *results.Comparison, d results.Delta) string {
	ch := d.Change
	if ch == nil {
		return ""
	}
	return intervalText(*ch, c.Alpha)
}

// intervalText is "+33% [+25%, +41%]", with " at 90%" when the level is
// below 1 - alpha, or "+33%" alone from a single run on either side.
func intervalText(ch results.Change, alpha float64) string {
	if ch.Confidence <= 0 {
		return signedPercent(ch.Estimate)
	}
	s := fmt.Sprintf("%s [%s, %s]", signedPercent(ch.Estimate), signedPercent(ch.Low), signedPercent(ch.High))
	if ch.Confidence < 1-alpha-1e-9 {
		s += " at " + results.Percent(ch.Confidence)
	}
	return s
}

// signedPercent is a fraction as a signed percentage with two significant
// digits, "+33%", "-0.52%", "+1400%".
func signedPercent(f float64) string {
	p := 100 * f
	switch {
	case math.IsNaN(p) || math.IsInf(p, 0):
		return "N/A"
	case math.Abs(p) < 0.005:
		return "0%"
	case p > 0:
		return "+" + percent(p)
	}
	return "-" + percent(-p)
}

// metricHeading is what the table compares: the metric, scaled as the
// layout asks, "ns_per_op × 10000000".
func metricHeading(c *results.Comparison) string {
	s := c.Metric
	if c.Layout != nil && c.Layout.Per != 0 && c.Layout.Per != 1 {
		s += " × " + results.Number(c.Layout.Per)
	}
	return s
}

// forcedTimeUnit is the time unit the layout writes its cells in, else
// the one the options force.
func forcedTimeUnit(c *results.Comparison, opt string) string {
	if c.Layout != nil && c.Layout.Unit != "" && (opt == "" || opt == "auto") {
		return c.Layout.Unit
	}
	return opt
}

// tooFewNote says once, when every ratio of the table is one the test
// cannot judge for too few runs, the smallest p the runs allow and how
// many runs would be needed; empty otherwise. Markdown, the terminal and
// HTML print it in place of a column of "?".
func tooFewNote(c *results.Comparison) string {
	untestable, runs := untestableRuns(c)
	if !untestable {
		return ""
	}
	need := runsNeeded(c.Alpha)
	per := "result"
	if c.Layout != nil && c.Layout.Columns != results.ByResult {
		per = "column"
	}
	return fmt.Sprintf("No difference here can be significant: with %s per %s, the smallest p the Mann-Whitney U test can give is %.3f, above α = %v. %d runs per %s would be needed (repeat = %d, or pool more results in a column).",
		plural(runs, "run"), per, minP(runs, runs), c.Alpha, need, per, need)
}

// summarySentences are the sentences under a two-column table, one per
// row: "B vs A, page: requests_per_sec -34% [-38%, -30%] (slower), ...".
func summarySentences(c *results.Comparison) []string {
	var out []string
	for _, line := range c.Summary {
		var parts []string
		for _, mc := range line.Changes {
			s := metricPhrase(mc.Metric) + " " + intervalText(mc.Change, c.Alpha)
			switch {
			case mc.Change.Confidence <= 0:
				if w := changeWord(mc); w != "" && mc.Change.Estimate != 0 {
					s += " (" + w + ", one run each: no interval)"
				}
			case mc.Change.Significant():
				if w := changeWord(mc); w != "" {
					s += " (" + w + ")"
				}
			default:
				s += " (no clear change)"
			}
			parts = append(parts, s)
		}
		head := line.Column + " vs " + line.Baseline
		if len(c.Summary) > 1 || len(c.Rows) > 1 {
			head += ", " + line.Row
		}
		out = append(out, head+": "+strings.Join(parts, ", ")+".")
	}
	return out
}

// metricPhrase is a metric's name as a sentence reads it:
// requests_per_sec is "requests/s", server_cpu_ns_per_request "server CPU
// per request", server_max_rss_bytes "server peak RSS".
func metricPhrase(name string) string {
	if name == metric.NsPerOp {
		return "time"
	}
	s := name
	for _, r := range []struct{ old, new string }{
		{"_per_sec", "/s"}, {"max_rss_bytes", "peak RSS"}, {"_ns_per_", " per "}, {"_per_", " per "},
		{"ns_per_op", "time per op"}, {"cpu", "CPU"}, {"_", " "},
	} {
		s = strings.ReplaceAll(s, r.old, r.new)
	}
	return s
}

// changeWord is the better-direction word of a significant change:
// "slower" or "faster" for times and rates, "more memory" or "less
// memory" for sizes, "more CPU" or "less CPU" for CPU time, else "better"
// or "worse"; empty when no op declares the direction.
func changeWord(mc results.MetricChange) string {
	up := mc.Change.Estimate > 0
	name := mc.Metric
	switch {
	case strings.Contains(name, "cpu"):
		return pick(up, "more CPU", "less CPU")
	case strings.Contains(name, "rss") || mc.Unit == "bytes":
		return pick(up, "more memory", "less memory")
	case name == metric.NsPerOp || mc.Unit == "ns":
		return pick(up, "slower", "faster")
	case strings.HasSuffix(name, "_per_sec") && mc.Better == "higher":
		return pick(up, "faster", "slower")
	case mc.Better == "":
		return ""
	}
	return pick(up == (mc.Better == "higher"), "better", "worse")
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// columnHeads are the columns' headings: their labels, and for a column
// that pools results by label or host how many, "m1 (3 results pooled)".
func columnHeads(c *results.Comparison) []string {
	out := make([]string, len(c.Labels))
	for i, l := range c.Labels {
		out[i] = l
		if c.Layout != nil && (c.Layout.Columns == results.ByHost || c.Layout.Columns == results.ByLabel) &&
			i < len(c.Pooled) && c.Pooled[i] > 1 {
			out[i] = fmt.Sprintf("%s (%d results pooled)", l, c.Pooled[i])
		}
	}
	return out
}

// introSentence is the sentence above a comparison: what it compares and,
// with more than one column, what the ratios are to.
func introSentence(c *results.Comparison) string {
	dir := ""
	if c.Better != "" {
		dir = ", " + c.Better + " is better"
	}
	if len(c.Labels) < 2 {
		return fmt.Sprintf("Comparing %s%s.", metricHeading(c), dir)
	}
	return fmt.Sprintf("Comparing %s%s. Ratios are to %s; ~ means no significant difference (Mann-Whitney U, α = %v).",
		metricHeading(c), dir, c.Labels[0], c.Alpha)
}
