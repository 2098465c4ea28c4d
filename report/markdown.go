package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// Markdown renders a result as the classic table: a one-line environment
// header, then `| Name | Iterations | Total time (sec) | Time per (ns) | ± |`
// and the columns of the kinds of benchmark in it (see defaultColumns), or
// the Columns asked for; one row per benchmark in the result's order
// (results.ByTime gives the classic order); then the assertions with their
// verdicts, the ab-style block of each http benchmark, and the run's
// warnings.
//
// Each column of times has one unit, benchunit's common scale of its
// figures unless TimeUnit forces one, named in its head; figures have
// three significant digits, and every whole digit ("0.710", "28.9",
// "361767087"). Total time is the median run's, in seconds. ± is half the
// width of the median's interval as a percentage of the median, headed
// with the interval's kind and level ("± (95% CI)", "± (min…max, 75%)"),
// or with mixed intervals marked in each row under 95% ("1.2% (75%)");
// "—" with one run. A line under the table says what ± is.
type Markdown struct {
	TimeUnit string   // "", "ns", "us", "ms" or "s"
	Columns  []string // empty for the defaults; else as tableColumns reads them
	Metrics  metric.Catalog
	Phases   bool // add the Phases section (see writePhasesMarkdown)
}

var _ Reporter = Markdown{}

// Report writes r.
func (m Markdown) Report(w io.Writer, r *results.Result) error {
	cols, err := tableColumns(r.Benchmarks, m.columns(r), Options{TimeUnit: timeUnit(m.TimeUnit, r), Metrics: m.Metrics})
	if err != nil {
		return fmt.Errorf("write markdown: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\n", header(r))
	writeMarkdownTable(bw, cols, len(r.Benchmarks))
	if note := spreadNote(r.Benchmarks); note != "" && slices.ContainsFunc(cols, func(c column) bool { return strings.HasPrefix(c.head, "±") }) {
		fmt.Fprintf(bw, "\n%s\n", note)
	}
	if m.Phases {
		writePhasesMarkdown(bw, r, Options{TimeUnit: timeUnit(m.TimeUnit, r), Metrics: m.Metrics})
	}
	if len(r.Assertions) > 0 {
		fmt.Fprintln(bw)
		WriteAssertions(bw, r.Assertions) // its errors are bw's, reported by the Flush below
	}
	if lines := MatrixSummary(r); len(lines) > 0 {
		fmt.Fprintf(bw, "\nSummary:\n\n")
		for _, l := range lines {
			if rest, ok := strings.CutPrefix(l, "  "); ok {
				fmt.Fprintf(bw, "  - %s\n", escape(rest))
			} else {
				fmt.Fprintf(bw, "- %s\n", escape(l))
			}
		}
	}
	if lines := LaunchSummary(r); len(lines) > 0 {
		fmt.Fprintf(bw, "\nLaunches (the spread of time per op between fresh processes and between runs of one):\n\n")
		for _, l := range lines {
			fmt.Fprintf(bw, "- %s\n", escape(l))
		}
	}
	for i := range r.Benchmarks {
		if r.Benchmarks[i].Op == "http" {
			fmt.Fprintln(bw)
			if err := writeHTTPBlock(bw, &r.Benchmarks[i]); err != nil {
				return fmt.Errorf("write markdown: %w", err)
			}
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(bw, "\nWarnings:\n\n")
		for _, warning := range r.Warnings {
			fmt.Fprintf(bw, "- %s\n", escape(warning))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write markdown: %w", err)
	}
	return nil
}

// columns are the columns m asks for, else the suite's.
func (m Markdown) columns(r *results.Result) []string {
	if len(m.Columns) > 0 {
		return m.Columns
	}
	return r.Suite.Columns
}

// timeUnit is the unit a command forces, else the suite's.
func timeUnit(forced string, r *results.Result) string {
	if forced != "" && forced != "auto" {
		return forced
	}
	return r.Suite.TimeUnit
}

// writeMarkdownTable writes the head, the alignment row (as wide as each
// head, so that the classic table reads as it always has) and the rows.
func writeMarkdownTable(w io.Writer, cols []column, rows int) {
	heads := make([]string, len(cols))
	aligns := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
		n := utf8.RuneCountInString(c.head) + 2
		if c.left {
			aligns[i] = strings.Repeat("-", n)
		} else {
			aligns[i] = strings.Repeat("-", n-1) + ":"
		}
	}
	fmt.Fprintf(w, "| %s |\n|%s|\n", strings.Join(heads, " | "), strings.Join(aligns, "|"))
	for i := range rows {
		cells := make([]string, len(cols))
		for j, c := range cols {
			cells[j] = c.cells[i]
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// header is `**suite** on host (Linux 6.1.0, amd64, CPU, 2 CPUs, go1.26.8), 2026-11-30 06:30 UTC`.
func header(r *results.Result) string {
	return headerWith(r, escape, func(s string) string { return "**" + s + "**" })
}

// headerWith is header with user text through esc and the suite's name
// through bold.
func headerWith(r *results.Result, esc, bold func(string) string) string {
	e := r.Environment
	var parts []string
	osName := e.OS
	if osName != "" {
		osName = strings.ToUpper(osName[:1]) + osName[1:]
	}
	for _, p := range []string{strings.TrimSpace(osName + " " + e.Kernel), e.Arch, e.CPUModel} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if e.CPUCount > 0 {
		parts = append(parts, plural(e.CPUCount, "CPU"))
	}
	if e.GoVersion != "" {
		parts = append(parts, e.GoVersion)
	}
	var b strings.Builder
	b.WriteString(bold(esc(r.Suite.Name)))
	if r.Label != "" && r.Label != e.Hostname {
		fmt.Fprintf(&b, " [%s]", esc(r.Label))
	}
	if e.Hostname != "" {
		fmt.Fprintf(&b, " on %s", esc(e.Hostname))
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, " (%s)", esc(strings.Join(parts, ", ")))
	}
	if !r.StartedAt.IsZero() {
		fmt.Fprintf(&b, ", %s", r.StartedAt.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if r.Interrupted {
		b.WriteString(", interrupted")
	}
	return b.String()
}

// WriteAssertions writes the assertions section of the Markdown report:
// value, interval and its level, bounds, verdict and the reason beside
// anything that did not pass. check prints it alone.
func WriteAssertions(w io.Writer, as []results.Assertion) error {
	if len(as) == 0 {
		return nil
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## Assertions\n\n")
	for _, a := range as {
		writeAssertion(bw, a)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write assertions: %w", err)
	}
	return nil
}

func writeAssertion(w io.Writer, a results.Assertion) {
	fmt.Fprintf(w, "- **%s** %s", a.Verdict, escape(a.Name))
	if a.Description != "" {
		fmt.Fprintf(w, ": %s", escape(a.Description))
	}
	fmt.Fprintf(w, "  \n  ")
	switch {
	case a.Value == nil:
		fmt.Fprintf(w, "no value")
	case a.Interval == nil && a.Message == "":
		fmt.Fprintf(w, "value %s (no interval: one run)", results.Number(*a.Value))
	case a.Interval == nil: // the message says why
		fmt.Fprintf(w, "value %s (no interval)", results.Number(*a.Value))
	default:
		fmt.Fprintf(w, "value %s [%s, %s] (%s %s)", results.Number(*a.Value), results.Number(a.Interval.Low), results.Number(a.Interval.High),
			results.Percent(a.Interval.Confidence), a.Interval.Kind)
	}
	switch {
	case a.Min != nil && a.Max != nil:
		fmt.Fprintf(w, ", expected in [%s, %s]", results.Number(*a.Min), results.Number(*a.Max))
	case a.Min != nil:
		fmt.Fprintf(w, ", expected >= %s", results.Number(*a.Min))
	case a.Max != nil:
		fmt.Fprintf(w, ", expected <= %s", results.Number(*a.Max))
	}
	if a.Message != "" {
		fmt.Fprintf(w, "; %s", escape(a.Message))
	}
	fmt.Fprintln(w)
}
