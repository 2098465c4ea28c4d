package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/specrun/specrun/results"
)

// Markdown renders a result as the classic table: a one-line environment
// header, then `| Name | Iterations | Total time (sec) | Time per (ns) | ± |`,
// one row per benchmark in the result's order (results.ByTime gives the
// classic order), then the assertions with their verdicts, the ab-style
// block of each http benchmark, and the run's warnings.
//
// Numbers read like the classic table. Time per op has one decimal, never
// an exponent ("0.7", "28.9", "361767086.5"); below 1 ns it keeps two
// significant digits ("0.31", "0.7"). Total time is the median run's total in
// seconds, with one decimal from 0.1 s up and two significant digits below,
// so that short runs do not all read "0.0". ± is half the width of the
// median's interval as a percentage of the median: a confidence interval
// of at least 95%, or with fewer runs than that needs min..max, marked with
// its level ("1.2% (75%)"; see Summarize); "—" with one run.
type Markdown struct{}

var _ Reporter = Markdown{}

// Report writes r.
func (Markdown) Report(w io.Writer, r *results.Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\n", header(r))
	fmt.Fprintf(bw, "| Name | Iterations | Total time (sec) | Time per (ns) | ± |\n")
	fmt.Fprintf(bw, "|------|-----------:|-----------------:|--------------:|--:|\n")
	for i := range r.Benchmarks {
		fmt.Fprintf(bw, "| %s |\n", strings.Join(row(&r.Benchmarks[i]), " | "))
	}
	if len(r.Assertions) > 0 {
		fmt.Fprintln(bw)
		WriteAssertions(bw, r.Assertions) // its errors are bw's, reported by the Flush below
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

// header is `**suite** on host (Linux 6.1.0, amd64, CPU, 2 CPUs, go1.26.8), 2026-11-30 06:30 UTC`.
func header(r *results.Result) string {
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
	fmt.Fprintf(&b, "**%s**", escape(r.Suite.Name))
	if r.Label != "" && r.Label != e.Hostname {
		fmt.Fprintf(&b, " [%s]", escape(r.Label))
	}
	if e.Hostname != "" {
		fmt.Fprintf(&b, " on %s", escape(e.Hostname))
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, " (%s)", escape(strings.Join(parts, ", ")))
	}
	if !r.StartedAt.IsZero() {
		fmt.Fprintf(&b, ", %s", r.StartedAt.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if r.Interrupted {
		b.WriteString(", interrupted")
	}
	return b.String()
}

func row(b *results.Benchmark) []string {
	name := escape(b.RowLabel())
	if b.Interrupted {
		name += " (interrupted)"
	}
	if b.Error != "" || len(b.Runs) == 0 {
		why := "error: " + b.Error
		if b.Error == "" {
			why = "no runs"
		}
		return []string{name, iterations(b.Iterations), "—", escape(why), "—"}
	}
	totals := make([]float64, len(b.Runs))
	for i, run := range b.Runs {
		totals[i] = float64(run.TotalNs)
	}
	return []string{name, iterations(b.Iterations), seconds(results.Median(totals) / 1e9), nanoseconds(b.NsPerOp.Median), spread(b)}
}

func iterations(n int64) string {
	if n <= 0 {
		return "—"
	}
	return strconv.FormatInt(n, 10)
}

func spread(b *results.Benchmark) string {
	s := b.NsPerOp
	if len(b.Runs) < 2 || s.Median == 0 {
		return "—"
	}
	return strconv.FormatFloat(100*(s.Interval.High-s.Interval.Low)/2/s.Median, 'f', 1, 64) + "%" + levelNote(s.Interval)
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
	case a.Interval == nil:
		fmt.Fprintf(w, "value %s (no interval: one run)", results.Number(*a.Value))
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
