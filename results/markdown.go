package results

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Markdown renders a result as the classic table: a one-line environment
// header, then `| Name | Iterations | Total time (sec) | Time per (ns) | ± |`,
// then the assertions with their verdicts, the ab-style block of each http
// benchmark, and the run's warnings.
//
// Numbers read like the classic table. Time per op has one decimal, never
// an exponent ("0.7", "28.9", "361767086.5"); below 1 ns it keeps two
// significant digits ("0.31", "0.7"). Total time is the median run's total in
// seconds, with one decimal from 0.1 s up and two significant digits below,
// so that short runs do not all read "0.0". ± is half the width of the
// median's interval as a percentage of the median: a confidence interval
// of at least 95%, or with fewer runs than that needs min..max, marked with
// its level ("1.2% (75%)"; see Summarize); "—" with one run.
type Markdown struct {
	// Sort orders the rows: "time" (the default) by median time per op,
	// failed benchmarks last; "spec" keeps the spec's order.
	Sort string
}

var _ Reporter = Markdown{}

// Report writes r.
func (m Markdown) Report(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\n", header(r))
	fmt.Fprintf(bw, "| Name | Iterations | Total time (sec) | Time per (ns) | ± |\n")
	fmt.Fprintf(bw, "|------|-----------:|-----------------:|--------------:|--:|\n")
	rows := r
	if m.Sort != "spec" {
		rows = ByTime(r)
	}
	for i := range rows.Benchmarks {
		fmt.Fprintf(bw, "| %s |\n", strings.Join(row(&rows.Benchmarks[i]), " | "))
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
			fmt.Fprintf(bw, "- %s\n", warning)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write markdown: %w", err)
	}
	return nil
}

// header is `**suite** on host (Linux 6.1.0, amd64, CPU, 2 CPUs, go1.26.8), 2026-11-30 06:30 UTC`.
func header(r *Result) string {
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

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

func row(b *Benchmark) []string {
	name := escape(rowLabel(b))
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
	slices.Sort(totals)
	return []string{name, iterations(b.Iterations), seconds(median(totals) / 1e9), nanoseconds(b.NsPerOp.Median), spread(b)}
}

func iterations(n int64) string {
	if n <= 0 {
		return "—"
	}
	return strconv.FormatInt(n, 10)
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// seconds formats a total time: "10.7", "0.4", and below 0.1 s two
// significant digits, "0.012".
func seconds(s float64) string {
	if s >= 0.1 || s == 0 {
		return strconv.FormatFloat(s, 'f', 1, 64)
	}
	return significant(s, 2)
}

// nanoseconds formats a time per op: "28.9", "361767086.5", "0.31".
func nanoseconds(ns float64) string {
	if math.Abs(ns) >= 1 || ns == 0 {
		return strconv.FormatFloat(ns, 'f', 1, 64)
	}
	return significant(ns, 2)
}

// significant formats x, |x| < 1, rounded to digits significant digits,
// without trailing zeros or an exponent: "0.7", "0.31".
func significant(x float64, digits int) string {
	if x == 0 {
		return "0"
	}
	decimals := max(digits-1-int(math.Floor(math.Log10(math.Abs(x)))), 0)
	rounded, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', decimals, 64), 64)
	return strconv.FormatFloat(rounded, 'f', -1, 64)
}

func spread(b *Benchmark) string {
	s := b.NsPerOp
	if len(b.Runs) < 2 || s.Median == 0 {
		return "—"
	}
	return strconv.FormatFloat(100*(s.Interval.High-s.Interval.Low)/2/s.Median, 'f', 1, 64) + "%" + levelNote(s.Interval)
}

// levelNote marks an interval below the 95% that a reader assumes of ±:
// " (75%)" for three runs' min..max.
func levelNote(in Interval) string {
	if in.Confidence >= Confidence || in.Kind == Point {
		return ""
	}
	return " (" + Percent(in.Confidence) + ")"
}

func writeAssertion(w io.Writer, a Assertion) {
	fmt.Fprintf(w, "- **%s** %s", a.Verdict, escape(a.Name))
	if a.Description != "" {
		fmt.Fprintf(w, ": %s", escape(a.Description))
	}
	fmt.Fprintf(w, "  \n  ")
	switch {
	case a.Value == nil:
		fmt.Fprintf(w, "no value")
	case a.Interval == nil:
		fmt.Fprintf(w, "value %s (no interval: one run)", number(*a.Value))
	default:
		fmt.Fprintf(w, "value %s [%s, %s] (%s %s)", number(*a.Value), number(a.Interval.Low), number(a.Interval.High),
			Percent(a.Interval.Confidence), a.Interval.Kind)
	}
	switch {
	case a.Min != nil && a.Max != nil:
		fmt.Fprintf(w, ", expected in [%s, %s]", number(*a.Min), number(*a.Max))
	case a.Min != nil:
		fmt.Fprintf(w, ", expected >= %s", number(*a.Min))
	case a.Max != nil:
		fmt.Fprintf(w, ", expected <= %s", number(*a.Max))
	}
	if a.Message != "" {
		fmt.Fprintf(w, "; %s", escape(a.Message))
	}
	fmt.Fprintln(w)
}

// number formats an assertion's figure with four significant digits and
// no exponent in the range people write bounds in.
func number(x float64) string {
	ax := math.Abs(x)
	switch {
	case x == 0:
		return "0"
	case ax >= 1e15 || ax < 1e-6:
		return strconv.FormatFloat(x, 'g', 4, 64)
	case ax >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	decimals := 3 - int(math.Floor(math.Log10(ax)))
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// escape keeps user text from breaking a table row or starting markup.
func escape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", "").Replace(s)
}
