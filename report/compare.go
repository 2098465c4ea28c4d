package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// CompareMarkdown renders a comparison as a Markdown table, with what the
// table compares and any environment differences above it, and the tests'
// warnings below. Each row has one unit, chosen from its figures as
// benchstat chooses it (TimeUnit forces one for times), so that a row
// reads across without a change of unit.
type CompareMarkdown struct {
	TimeUnit string
}

var _ ComparisonReporter = CompareMarkdown{}

// Report writes the table.
func (m CompareMarkdown) Report(w io.Writer, c *results.Comparison) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\n", escape(introSentence(c)))
	if len(c.Differences) > 0 {
		fmt.Fprintf(bw, "**Environments differ:** %s. Differences below may come from the machines, not only the code.\n\n",
			escape(strings.Join(c.Differences, "; ")))
	}
	if len(c.Warnings) > 0 {
		fmt.Fprintf(bw, "Warnings recorded by the runs:\n\n")
		for _, w := range c.Warnings {
			fmt.Fprintf(bw, "- %s\n", escape(w))
		}
		fmt.Fprintln(bw)
	}
	header := append([]string{"Name"}, columnHeads(c)...)
	align := []string{"------"}
	for range c.Labels {
		align = append(align, "-----:")
	}
	for _, l := range c.Labels[1:] {
		header = append(header, l+" vs "+c.Labels[0])
		align = append(align, "------")
	}
	fmt.Fprintf(bw, "| %s |\n|%s|\n", strings.Join(escapeAll(header), " | "), strings.Join(align, "|"))
	warnings := map[string]bool{}
	var warningOrder []string
	untestable, _ := untestableRuns(c)
	for _, row := range c.Rows {
		cells := []string{escape(row.Label)}
		unit := rowFigure(c, row, forcedTimeUnit(c, m.TimeUnit))
		for _, cell := range row.Cells {
			cells = append(cells, cellText(cell, unit))
		}
		for _, d := range row.Deltas {
			cells = append(cells, deltaCell(c, d, untestable))
			if untestable {
				continue
			}
			for _, w := range d.Warnings {
				if !warnings[w] {
					warnings[w] = true
					warningOrder = append(warningOrder, w)
				}
			}
		}
		fmt.Fprintf(bw, "| %s |\n", strings.Join(cells, " | "))
	}
	if note := tooFewNote(c); note != "" {
		fmt.Fprintf(bw, "\n%s\n", escape(note))
	} else if len(warningOrder) > 0 {
		fmt.Fprintf(bw, "\n? too few runs for a significance test: %s.\n", strings.Join(warningOrder, "; "))
	}
	if ss := summarySentences(c); len(ss) > 0 {
		fmt.Fprintln(bw)
		for _, s := range ss {
			fmt.Fprintf(bw, "%s\n", escape(s))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	return nil
}

// cellText is "28.9 ns ±1.2%", "—" when the result lacks the instance, or
// why there is no figure.
func cellText(cell *results.CompareCell, figure func(float64) string) string {
	switch {
	case cell == nil:
		return "—"
	case cell.Error != "":
		if strings.HasPrefix(cell.Error, "failed") {
			return "failed"
		}
		return escape(cell.Error)
	}
	s := figure(cell.Median)
	if len(cell.Runs) > 1 && cell.Median != 0 {
		s += " ±" + percent(100*(cell.Interval.High-cell.Interval.Low)/2/math.Abs(cell.Median)) + levelNote(cell.Interval)
	}
	return s
}

// rowFigure renders the figures of a row in one unit: a time unit or a
// binary one from the row's figures, or as they are.
func rowFigure(c *results.Comparison, row results.CompareRow, forced string) func(float64) string {
	var vs []float64
	for _, cell := range row.Cells {
		if cell != nil && cell.Error == "" {
			vs = append(vs, cell.Median)
		}
	}
	switch c.Unit {
	case "ns":
		u := scaleTimes(vs, forced)
		name := u.name
		if name == "sec" {
			name = "s"
		}
		return func(v float64) string { return digits3(v/u.ns) + " " + name }
	case "bytes", "bytes/s":
		b := scaleBytes(vs)
		suffix := strings.TrimPrefix(c.Unit, "bytes")
		return func(v float64) string { return digits3(v/b.factor) + " " + b.name + suffix }
	}
	return func(v float64) string { return digits3(v) }
}

// untestableRuns reports whether every ratio of the table is one the test
// could not judge because the runs are too few, as with three runs a
// result, and the fewest runs of a compared result: the table then says so
// once rather than in a column of "?".
func untestableRuns(c *results.Comparison) (bool, int) {
	runs, deltas := 0, 0
	for _, row := range c.Rows {
		for _, d := range row.Deltas {
			if d.Ratio == nil {
				continue
			}
			if len(d.Warnings) == 0 {
				return false, 0
			}
			deltas++
		}
		for _, cell := range row.Cells {
			if cell != nil && cell.Error == "" && (runs == 0 || len(cell.Runs) < runs) {
				runs = len(cell.Runs)
			}
		}
	}
	if deltas == 0 || runs == 0 || minP(runs, runs) <= c.Alpha {
		return false, 0
	}
	return true, runs
}

// minP is the smallest two-sided p-value of the Mann-Whitney U test on
// samples of n and m values without ties: 2 / C(n+m, n).
func minP(n, m int) float64 {
	c := 1.0
	for i := 1; i <= n; i++ {
		c = c * float64(m+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// runsNeeded is the fewest runs per result at which the test can give a
// p-value of at most alpha.
func runsNeeded(alpha float64) int {
	n := 1
	for minP(n, n) > alpha && n < 100 {
		n++
	}
	return n
}

// deltaCell is deltaText with the change's interval, "3.01× slower
// (+201% [+199%, +204%], p=0.008)"; when no ratio of the table can be
// tested (untestable) it is the ratio and the interval alone, "1.33×
// (+33% [+25%, +41%] at 90%)".
func deltaCell(c *results.Comparison, d results.Delta, untestable bool) string {
	ch := changeText(c, d)
	if untestable || d.Ratio == nil {
		s := ratioAlone(d)
		if ch != "" && d.Ratio != nil {
			s += " (" + ch + ")"
		}
		return s
	}
	s := deltaText(c, d)
	if ch == "" {
		return s
	}
	if i := strings.LastIndex(s, " (p="); i >= 0 {
		return s[:i] + " (" + ch + ", " + s[i+2:]
	}
	return s + " (" + ch + ")"
}

// ratioAlone is a ratio alone, "1.33×", or "N/A".
func ratioAlone(d results.Delta) string {
	if d.Ratio == nil {
		return "N/A"
	}
	return strconv.FormatFloat(*d.Ratio, 'f', 2, 64) + "×"
}

// deltaText is "1.33× slower (p=0.008 n=5)", "~ 1.02× (p=0.421 n=5)",
// "1.02× ? (n=1)" when the runs are too few for a test, or "N/A".
func deltaText(c *results.Comparison, d results.Delta) string {
	if d.Ratio == nil {
		return "N/A"
	}
	r := *d.Ratio
	s := strconv.FormatFloat(r, 'f', 2, 64) + "×"
	switch {
	case len(d.Warnings) > 0:
		return s + " ?"
	case !d.Significant:
		return fmt.Sprintf("~ %s (p=%.3f)", s, d.P)
	}
	word := direction(c, r)
	if word == "faster" && r > 0 {
		// "0.34× slower" is "2.94× faster", as hyperfine says it.
		s = strconv.FormatFloat(1/r, 'f', 2, 64) + "×"
	}
	if word != "" {
		s += " " + word
	}
	return fmt.Sprintf("%s (p=%.3f)", s, d.P)
}

// direction says whether a significant ratio is for the better.
func direction(c *results.Comparison, r float64) string {
	if r == 1 || c.Better == "" {
		return ""
	}
	up := r > 1
	if c.Metric == metric.NsPerOp {
		if up {
			return "slower"
		}
		return "faster"
	}
	if up == (c.Better == "higher") {
		return "better"
	}
	return "worse"
}

// CompareCSV renders a comparison as RFC 4180 CSV: per result a median and
// a run count, per later result its ratio (empty when it cannot be
// computed), p-value and whether the change is significant.
type CompareCSV struct{}

var _ ComparisonReporter = CompareCSV{}

// Report writes the CSV.
func (CompareCSV) Report(w io.Writer, c *results.Comparison) error {
	cw := csv.NewWriter(w)
	header := []string{"name", "label"}
	for _, l := range c.Labels {
		header = append(header, l+" median "+c.Metric, l+" runs")
	}
	for _, l := range c.Labels[1:] {
		header = append(header, l+" ratio", l+" p", l+" significant")
	}
	cw.Write(printableAll(header))
	for _, row := range c.Rows {
		rec := []string{row.Name, row.Label}
		for _, cell := range row.Cells {
			if cell == nil || cell.Error != "" {
				rec = append(rec, "", "0")
				continue
			}
			rec = append(rec, csvFloat(cell.Median), strconv.Itoa(len(cell.Runs)))
		}
		for _, d := range row.Deltas {
			ratio := ""
			if d.Ratio != nil {
				ratio = csvFloat(*d.Ratio)
			}
			rec = append(rec, ratio, csvFloat(d.P), strconv.FormatBool(d.Significant))
		}
		cw.Write(printableAll(rec))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write comparison csv: %w", err)
	}
	return nil
}

// CompareJSON renders a comparison as indented JSON.
type CompareJSON struct{}

var _ ComparisonReporter = CompareJSON{}

// Report writes the JSON.
func (CompareJSON) Report(w io.Writer, c *results.Comparison) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encode comparison: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
