package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/specrun/specrun/results"
)

// Terminal renders a result for a person at a terminal: the columns of
// the Markdown table (see Markdown), aligned, the ± note, the assertions
// with their verdicts, a summary of each matrix in hyperfine's words
// ("gzip/level=1 ran 2.43 ± 0.06 times faster than gzip/level=9"), the
// ab-style blocks, and the warnings once, at the end. With Color the
// verdicts and warnings are coloured. User text is printable (no
// terminal control sequence gets through) but not Markdown-escaped.
type Terminal struct {
	Options
}

var _ Reporter = Terminal{}

// ANSI colours of the terminal view.
const (
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// paint wraps s in an ANSI colour when colour is on.
func (o Options) paint(code, s string) string {
	if !o.Color || s == "" {
		return s
	}
	return code + s + ansiReset
}

// Report writes r.
func (t Terminal) Report(w io.Writer, r *results.Result) error {
	opt := t.Options
	opt.plain = true
	opt.TimeUnit = timeUnit(opt.TimeUnit, r)
	keys := opt.Columns
	if len(keys) == 0 {
		keys = r.Suite.Columns
	}
	cols, err := tableColumns(r.Benchmarks, keys, opt)
	if err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\n", headerWith(r, oneLine, func(s string) string { return opt.paint(ansiBold, s) }))
	writeAligned(bw, cols, len(r.Benchmarks), opt)
	if note := spreadNote(r.Benchmarks); note != "" {
		fmt.Fprintf(bw, "\n%s\n", opt.paint(ansiDim, note))
	}
	if opt.Phases {
		writePhasesTerminal(bw, r, opt)
	}
	if len(r.Assertions) > 0 {
		fmt.Fprintf(bw, "\n%s\n", opt.paint(ansiBold, "Assertions"))
		for _, a := range r.Assertions {
			writeTermAssertion(bw, a, opt)
		}
	}
	if lines := MatrixSummary(r); len(lines) > 0 {
		fmt.Fprintf(bw, "\n%s\n", opt.paint(ansiBold, "Summary"))
		for _, l := range lines {
			fmt.Fprintf(bw, "  %s\n", oneLine(l))
		}
	}
	if lines := LaunchSummary(r); len(lines) > 0 {
		fmt.Fprintf(bw, "\n%s\n", opt.paint(ansiBold, "Launches"))
		for _, l := range lines {
			fmt.Fprintf(bw, "  %s\n", oneLine(l))
		}
	}
	for i := range r.Benchmarks {
		if r.Benchmarks[i].Op != "http" {
			continue
		}
		var buf bytes.Buffer
		if err := writeHTTPBlock(&buf, &r.Benchmarks[i]); err != nil {
			return fmt.Errorf("write table: %w", err)
		}
		fmt.Fprintln(bw)
		for _, l := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
			if strings.HasPrefix(l, "```") || l == "" {
				continue // the Markdown fence
			}
			if strings.HasPrefix(l, "**") { // its head: "**name** (ab-style, 1 run)"
				l = opt.paint(ansiBold, strings.Replace(strings.TrimPrefix(l, "**"), "**", "", 1))
			}
			fmt.Fprintln(bw, unescapeMarkdown(l))
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(bw, "\n%s\n", opt.paint(ansiYellow, "Warnings"))
		for _, warning := range r.Warnings {
			fmt.Fprintf(bw, "  - %s\n", oneLine(warning))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// unescapeMarkdown undoes escape for a block written for Markdown.
func unescapeMarkdown(s string) string {
	return strings.NewReplacer(`\|`, "|", "&lt;", "<", "&amp;", "&").Replace(s)
}

// writeAligned writes the columns padded to their widths: text to the
// left, figures to the right, two spaces apart, the head in bold.
func writeAligned(w io.Writer, cols []column, rows int, opt Options) {
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = utf8.RuneCountInString(c.head)
		for _, cell := range c.cells {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	line := func(cell func(i int) string, paint string) {
		var b strings.Builder
		for i, c := range cols {
			s := cell(i)
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(s))
			if i > 0 {
				b.WriteString("  ")
			}
			if c.left {
				s += pad
			} else {
				s = pad + s
			}
			b.WriteString(s)
		}
		fmt.Fprintln(w, opt.paint(paint, strings.TrimRight(b.String(), " ")))
	}
	line(func(i int) string { return cols[i].head }, ansiBold)
	for r := range rows {
		line(func(i int) string { return cols[i].cells[r] }, "")
	}
}

// verdictColor is the colour of a verdict.
func verdictColor(v results.Verdict) string {
	switch v {
	case results.Pass:
		return ansiGreen
	case results.Inconclusive:
		return ansiYellow
	case results.Skip:
		return ansiDim // nothing was judged: neither a pass nor a failure
	}
	return ansiRed
}

func writeTermAssertion(w io.Writer, a results.Assertion, opt Options) {
	verdict := fmt.Sprintf("%-12s", a.Verdict)
	fmt.Fprintf(w, "  %s %s", opt.paint(verdictColor(a.Verdict), verdict), oneLine(a.Name))
	if a.Description != "" {
		fmt.Fprintf(w, ": %s", oneLine(a.Description))
	}
	fmt.Fprintf(w, "\n  %s ", strings.Repeat(" ", len(verdict)))
	var md bytes.Buffer
	writeAssertion(&md, a) // the figures, as the Markdown writes them
	_, figures, _ := strings.Cut(md.String(), "  \n  ")
	fmt.Fprint(w, unescapeMarkdown(figures))
}

// MatrixSummary says, for each benchmark block with several instances
// that do the same work (no size among the parameters that vary), how
// many times faster its fastest instance ran than each other, as
// hyperfine does: the ratio of the mean times per op, ± its standard
// deviation propagated from the two means' ("gzip/level=1 ran 2.43 ±
// 0.06 times faster than gzip/level=9"). A ratio that cannot be computed
// is "N/A".
func MatrixSummary(r *results.Result) []string {
	var out []string
	var order []string
	blocks := map[string][]*results.Benchmark{}
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		if !strings.Contains(b.Name, "/") {
			continue // not a matrix instance
		}
		if _, ok := blocks[b.Benchmark]; !ok {
			order = append(order, b.Benchmark)
		}
		blocks[b.Benchmark] = append(blocks[b.Benchmark], b)
	}
	for _, name := range order {
		bs := blocks[name]
		if len(bs) < 2 || varies(bs, "size") {
			continue
		}
		var fastest *results.Benchmark
		for _, b := range bs {
			if measured(b) && b.NsPerOp.Mean > 0 && (fastest == nil || b.NsPerOp.Mean < fastest.NsPerOp.Mean) {
				fastest = b
			}
		}
		if fastest == nil {
			continue
		}
		out = append(out, fastest.RowLabel()+" ran")
		for _, b := range bs {
			if b == fastest {
				continue
			}
			out = append(out, "  "+ratioText(fastest, b)+" than "+b.RowLabel())
		}
	}
	return out
}

// ratioText is "2.43 ± 0.06 times faster" of b over fastest, or "N/A".
func ratioText(fastest, b *results.Benchmark) string {
	if !measured(b) || fastest.NsPerOp.Mean <= 0 {
		return "N/A times faster"
	}
	a, s := fastest.NsPerOp, b.NsPerOp
	ratio := s.Mean / a.Mean
	sd := ratio * math.Sqrt(math.Pow(a.Stddev/a.Mean, 2)+math.Pow(s.Stddev/s.Mean, 2))
	return strconv.FormatFloat(ratio, 'f', 2, 64) + " ± " + strconv.FormatFloat(sd, 'f', 2, 64) + " times faster"
}

// varies reports whether the parameter differs between the instances.
func varies(bs []*results.Benchmark, param string) bool {
	first := fmt.Sprint(bs[0].Params[param])
	for _, b := range bs[1:] {
		if fmt.Sprint(b.Params[param]) != first {
			return true
		}
	}
	return false
}

// CompareTerminal renders a comparison for a terminal: the Markdown
// comparison's columns aligned, significant changes coloured by whether
// they are for the better, and the warnings at the end.
type CompareTerminal struct {
	Options
}

var _ ComparisonReporter = CompareTerminal{}

// Report writes the comparison.
func (t CompareTerminal) Report(w io.Writer, c *results.Comparison) error {
	opt := t.Options
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\n", opt.paint(ansiBold, oneLine(introSentence(c))))
	if len(c.Differences) > 0 {
		fmt.Fprintf(bw, "%s %s. Differences below may come from the machines, not only the code.\n\n",
			opt.paint(ansiYellow, "Environments differ:"), oneLine(strings.Join(c.Differences, "; ")))
	}
	cols := []column{{head: "Name", left: true}}
	for _, l := range columnHeads(c) {
		cols = append(cols, column{head: oneLine(l)})
	}
	for _, l := range c.Labels[1:] {
		cols = append(cols, column{head: oneLine(l + " vs " + c.Labels[0]), left: true})
	}
	var tooFew []string
	seen := map[string]bool{}
	untestable, _ := untestableRuns(c)
	for _, row := range c.Rows {
		cols[0].cells = append(cols[0].cells, oneLine(row.Label))
		unit := rowFigure(c, row, forcedTimeUnit(c, opt.TimeUnit))
		for i, cell := range row.Cells {
			cols[1+i].cells = append(cols[1+i].cells, unescapeMarkdown(cellText(cell, unit)))
		}
		for i, d := range row.Deltas {
			cols[1+len(c.Labels)+i].cells = append(cols[1+len(c.Labels)+i].cells, deltaCell(c, d, untestable))
			if untestable {
				continue
			}
			for _, w := range d.Warnings {
				if !seen[w] {
					seen[w] = true
					tooFew = append(tooFew, w)
				}
			}
		}
	}
	var table bytes.Buffer
	writeAligned(&table, cols, len(c.Rows), Options{})
	for i, l := range strings.Split(strings.TrimRight(table.String(), "\n"), "\n") {
		switch {
		case i == 0:
			l = opt.paint(ansiBold, l)
		case opt.Color:
			l = colorDeltas(l)
		}
		fmt.Fprintln(bw, l)
	}
	if note := tooFewNote(c); note != "" {
		fmt.Fprintf(bw, "\n%s\n", oneLine(note))
	} else if len(tooFew) > 0 {
		fmt.Fprintf(bw, "\n? too few runs for a significance test: %s.\n", strings.Join(tooFew, "; "))
	}
	if ss := summarySentences(c); len(ss) > 0 {
		fmt.Fprintln(bw)
		for _, s := range ss {
			fmt.Fprintf(bw, "%s\n", opt.paint(ansiBold, oneLine(s)))
		}
	}
	if len(c.Warnings) > 0 {
		fmt.Fprintf(bw, "\n%s\n", opt.paint(ansiYellow, "Warnings recorded by the runs"))
		for _, w := range c.Warnings {
			fmt.Fprintf(bw, "  - %s\n", oneLine(w))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	return nil
}

// colorDeltas colours the verdict words of a comparison row: green for
// the better, red for the worse.
func colorDeltas(l string) string {
	for word, code := range map[string]string{" faster ": ansiGreen, " better ": ansiGreen, " slower ": ansiRed, " worse ": ansiRed} {
		l = strings.ReplaceAll(l, word, code+word+ansiReset)
	}
	return l
}
