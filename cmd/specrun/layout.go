package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/report"
	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// layoutFlags are the flags that lay a table out by columns and rows over
// what the spec's report block says: --by (compare's --columns), --rows,
// --metric, --per, --unit and --summary.
type layoutFlags struct {
	by, rows, metric, unit, summary *string
	per                             *float64
	fs                              *flag.FlagSet
	names                           []string // the flags registered
}

// register adds the flags; metric is false where the command has a
// --metric of its own (compare), and columns adds --columns as --by.
func (l *layoutFlags) register(fs *flag.FlagSet, metric, columns bool) {
	l.fs = fs
	const byHelp = "lay the table out with one column per `KEY`: result, label (results of one label pooled), host (results of one host pooled) or a matrix parameter (its values side by side, as build A and B of one run); over the spec's report block"
	l.by = fs.String("by", "", byHelp)
	if columns {
		fs.Var(stringAlias{l.by}, "columns", "the same as --by `KEY`")
	}
	l.rows = fs.String("rows", "", "with --by, the rows: comma-separated `KEYS` among benchmark and matrix parameters; default the benchmark and every parameter but the columns'")
	if metric {
		l.metric = fs.String("metric", "", "with --by, the cells' `METRIC` (default ns_per_op)")
	}
	l.per = fs.Float64("per", 0, "with --by, multiply every figure by `N`: --per 10000000 gives ns_per_op as the time of 10 M calls")
	l.unit = fs.String("unit", "", "with --by, write times in `UNIT`: "+strings.Join(report.TimeUnits, ", "))
	l.summary = fs.String("summary", "", "with two columns, the comma-separated `METRICS` of the sentence under the table (default the cells' metric)")
	l.names = []string{"by", "rows", "per", "unit", "summary"}
	if metric {
		l.names = append(l.names, "metric")
	}
	if columns {
		l.names = append(l.names, "columns")
	}
}

// stringAlias is a second name of a string flag.
type stringAlias struct{ p *string }

func (a stringAlias) String() string {
	if a.p == nil {
		return ""
	}
	return *a.p
}
func (a stringAlias) Set(s string) error { *a.p = s; return nil }

// set reports whether any layout flag was given.
func (l *layoutFlags) set() bool {
	for _, name := range l.names {
		if isSet(l.fs, name) {
			return true
		}
	}
	return false
}

// apply lays the flags over base (the result's layout, or nil) and
// returns the layout to draw, nil when there is none; metric is compare's
// own --metric, when it was given.
func (l *layoutFlags) apply(base *results.Layout, metric string) (*results.Layout, error) {
	if !l.set() && metric == "" {
		return base, nil
	}
	var out results.Layout
	if base != nil {
		out = *base
	}
	if *l.by != "" {
		out.Columns = *l.by
	}
	if *l.rows != "" {
		out.Rows = splitList(*l.rows)
	}
	if l.metric != nil && *l.metric != "" {
		out.Metric = *l.metric
	}
	if metric != "" {
		out.Metric = metric
	}
	if isSet(l.fs, "per") {
		if !(*l.per > 0) {
			return nil, usageError("--per is a positive number, not %v", *l.per)
		}
		if *l.per < results.MinPer || *l.per > results.MaxPer {
			return nil, usageError("--per %v is out of range: from %v to %v", *l.per, results.MinPer, results.MaxPer)
		}
		out.Per = *l.per
	}
	if *l.unit != "" {
		if err := report.CheckTimeUnit(*l.unit); err != nil || *l.unit == "auto" {
			return nil, usageError("--unit: time unit %q is not one of %s", *l.unit, strings.Join(report.TimeUnits, ", "))
		}
		out.Unit = *l.unit
	}
	if *l.summary != "" {
		out.Summary = splitList(*l.summary)
	}
	if base == nil && out.Columns == "" && l.fs.Name() != "compare" {
		return nil, usageError("--rows, --metric, --per, --unit and --summary lay out a table that --by (or the spec's report block) asks for")
	}
	return &out, nil
}

// checkUnit refuses a --unit for a table whose metric is not a time, as
// the report block's unit is refused with a diagnostic.
func (l *layoutFlags) checkUnit(c *results.Comparison) error {
	if *l.unit == "" || c.Unit == "" || c.Unit == "ns" {
		return nil
	}
	return usageError("--unit writes times in one unit, and %s is in %s, not a time; leave --unit out", c.Metric, c.Unit)
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// layoutReporter prints a result's report and, after it, the result's
// layout table in the same format: Markdown and the terminal only, the
// formats a reader reads a table in; the others are the result itself or
// one figure.
func layoutReporter(rep report.Reporter, format string, opt report.Options) report.Reporter {
	if format != "md" && format != "term" {
		return rep
	}
	return report.ReporterFunc(func(w io.Writer, r *results.Result) error {
		if err := rep.Report(w, r); err != nil {
			return err
		}
		if r.Suite.Layout == nil {
			return nil
		}
		c, err := results.CompareLayout([]*results.Result{r}, *r.Suite.Layout, results.CompareOptions{Metrics: opMetrics})
		if err != nil {
			return fmt.Errorf("lay out the table: %w", err)
		}
		c.Warnings = nil // the report above has them
		crep, err := report.ComparisonFormatWith(format, opt)
		if err != nil {
			return err
		}
		fmt.Fprintln(w)
		return crep.Report(w, c)
	})
}

// planLayout is the spec's report block as a result records it.
func planLayout(r *spec.Report) *results.Layout {
	if r == nil {
		return nil
	}
	return &results.Layout{Columns: r.Columns, Rows: r.Rows, Metric: r.Metric, Per: r.Per, Unit: r.Unit, Summary: r.Summary}
}

// checkLayout refuses, before anything runs, a layout whose columns, rows
// or metrics the spec's benchmarks do not have: the report block's are
// checked as it is decoded, the flags' here.
func checkLayout(plan *spec.Plan, lay *results.Layout) error {
	if lay == nil {
		return nil
	}
	var params []string
	metrics := map[string]bool{}
	units := map[string]string{}
	for _, m := range metric.Standard {
		metrics[m.Name], units[m.Name] = true, m.Unit
	}
	for _, b := range plan.Benchmarks {
		for _, a := range b.Matrix {
			if !slices.Contains(params, a.Key) {
				params = append(params, a.Key)
			}
		}
		if b.Op != nil {
			for _, m := range b.Op.Metrics {
				metrics[m.Name], units[m.Name] = true, m.Unit
			}
		}
	}
	if c := lay.Columns; c != "" && !slices.Contains(spec.ReportColumns, c) && !slices.Contains(params, c) {
		return usageError("--by: %q is neither %s nor a matrix parameter of this spec%s", c, strings.Join(spec.ReportColumns, ", "), paramList(params))
	}
	for _, r := range lay.Rows {
		if r != spec.RowBenchmark && !slices.Contains(params, r) {
			return usageError("--rows: %q is neither %s nor a matrix parameter of this spec%s", r, spec.RowBenchmark, paramList(params))
		}
	}
	if m := lay.Metric; m != "" && !metrics[m] {
		return usageError("--metric: %q is neither a standard metric nor one of this spec's ops", m)
	}
	for _, m := range lay.Summary {
		if !metrics[m] {
			return usageError("--summary: %q is neither a standard metric nor one of this spec's ops", m)
		}
	}
	name := lay.Metric
	if name == "" {
		name = metric.NsPerOp
	}
	if u := units[name]; lay.Unit != "" && u != "" && u != "ns" {
		return usageError("--unit writes times in one unit, and %s is in %s, not a time; leave --unit out", name, u)
	}
	return nil
}

// probeLayout lays the table out over the instances the run will have,
// one figure each, so that what only a layout finds (rows that put two
// instances in one cell, one column per result of a single run) is said
// before anything runs rather than after every benchmark ran.
func probeLayout(plan *spec.Plan, filter *regexp.Regexp, lay *results.Layout) error {
	if lay == nil {
		return nil
	}
	probe := &results.Result{Label: "run"}
	for _, b := range plan.Benchmarks {
		if filter == nil || filter.MatchString(b.Name) {
			probe.Benchmarks = append(probe.Benchmarks, results.Benchmark{Name: b.Name, Benchmark: b.Block, Label: b.Label,
				Runs: []results.Run{{Iterations: 1, NsPerOp: 1}}})
		}
	}
	shape := *lay
	shape.Metric, shape.Summary = "", nil // checkLayout checked them; the probe has ns_per_op alone
	if _, err := results.CompareLayout([]*results.Result{probe}, shape, results.CompareOptions{}); err != nil {
		return usageError("lay out the table: %v", err)
	}
	return nil
}

func paramList(params []string) string {
	if len(params) == 0 {
		return " (it has none)"
	}
	return " (" + strings.Join(params, ", ") + ")"
}
