package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/param"
)

// Report is the report block: the table that run, report and compare lay
// out for the suite, by columns and rows.
type Report struct {
	// Columns is "result", "label", "host" or a matrix parameter.
	Columns string
	// Rows are "benchmark" and matrix parameters; empty for the benchmark
	// and every parameter but Columns.
	Rows []string
	// Metric is the cells' metric; "" for ns_per_op.
	Metric string
	// Per multiplies every figure (1e7: the time of ten million calls);
	// 0 for 1.
	Per float64
	// Unit is the time unit of the cells, one of ReportUnits; "" for each
	// row's own.
	Unit string
	// Summary are the metrics of the sentence under a two-column table.
	Summary []string
	// DeclRange is the block's, for diagnostics about it.
	DeclRange hcl.Range
}

// ReportColumns are the values of a report block's columns besides the
// benchmarks' matrix parameters; RowBenchmark is the row key that stands
// for the benchmark block. ReportUnits are the time units its cells may be
// written in.
var (
	ReportColumns = []string{"result", "label", "host"}
	RowBenchmark  = "benchmark"
	ReportUnits   = []string{"ns", "us", "ms", "s"}
)

var (
	reportColumnsAttr = param.Param{Name: "columns", Type: param.String}
	reportRowsAttr    = param.Param{Name: "rows", Type: param.Strings}
	reportMetricAttr  = param.Param{Name: "metric", Type: param.String}
	reportPerAttr     = param.Param{Name: "per", Type: param.Number}
	reportUnitAttr    = param.Param{Name: "unit", Type: param.String}
	reportSummaryAttr = param.Param{Name: "summary", Type: param.Strings}
)

var reportSchema = &hcl.BodySchema{Attributes: attrSchema([]param.Param{
	reportColumnsAttr, reportRowsAttr, reportMetricAttr, reportPerAttr, reportUnitAttr, reportSummaryAttr})}

// decodeReport decodes the report block, once the benchmarks are known:
// its columns and rows name their matrix parameters, its metrics their
// ops' metrics.
func (l *loader) decodeReport(blocks []*hcl.Block) *Report {
	var rep *Report
	for i, b := range blocks {
		if i > 0 {
			l.errorf(b.DefRange.Ptr(), "Duplicate report block",
				"A spec has at most one report block; the first is at %s.", blocks[0].DefRange.String())
			continue
		}
		content, diags := b.Body.Content(reportSchema)
		l.diags = append(l.diags, diags...)
		attrs := content.Attributes
		ctx := l.ctx(nil)
		rep = &Report{DeclRange: b.DefRange}
		params := l.matrixParams()
		if decodeInto(l, attrs, ctx, reportColumnsAttr, &rep.Columns) {
			known := append(slices.Clone(ReportColumns), params...)
			if !slices.Contains(known, rep.Columns) && !l.anyBroken() {
				l.errorf(attrs["columns"].Expr.Range().Ptr(), "Unknown report columns",
					"The columns %q are neither %s nor a matrix parameter of a benchmark of this spec%s.%s",
					rep.Columns, strings.Join(ReportColumns, ", "), listOf(params), didYouMean(rep.Columns, known))
				rep.Columns = ""
			}
		}
		if rep.Columns == "" {
			rep.Columns = "result"
		}
		if decodeInto(l, attrs, ctx, reportRowsAttr, &rep.Rows) {
			known := append([]string{RowBenchmark}, params...)
			for _, r := range rep.Rows {
				switch {
				case r == rep.Columns:
					l.errorf(attrs["rows"].Expr.Range().Ptr(), "Rows and columns overlap",
						"The parameter %q makes the columns; it cannot make rows as well.", r)
				case !slices.Contains(known, r) && !l.anyBroken():
					l.errorf(attrs["rows"].Expr.Range().Ptr(), "Unknown report row",
						"The row %q is neither %q nor a matrix parameter of a benchmark of this spec%s.%s",
						r, RowBenchmark, listOf(params), didYouMean(r, known))
				}
			}
		}
		metrics := l.reportMetrics()
		if decodeInto(l, attrs, ctx, reportMetricAttr, &rep.Metric) {
			l.checkReportMetric(attrs["metric"], rep.Metric, metrics)
		}
		if decodeInto(l, attrs, ctx, reportSummaryAttr, &rep.Summary) {
			for _, m := range rep.Summary {
				l.checkReportMetric(attrs["summary"], m, metrics)
			}
		}
		if decodeInto(l, attrs, ctx, reportPerAttr, &rep.Per) && !(rep.Per > 0) {
			l.errorf(attrs["per"].Expr.Range().Ptr(), "Invalid per",
				"per multiplies every figure of the table, so it is a positive number (10000000 for the time of 10 M calls), not %v.", rep.Per)
			rep.Per = 0
		}
		if decodeInto(l, attrs, ctx, reportUnitAttr, &rep.Unit) {
			name := rep.Metric
			if name == "" {
				name = metric.NsPerOp
			}
			switch {
			case !slices.Contains(ReportUnits, rep.Unit):
				l.errorf(attrs["unit"].Expr.Range().Ptr(), "Invalid unit",
					"The unit %q is not one of %s.%s", rep.Unit, strings.Join(ReportUnits, ", "), didYouMean(rep.Unit, ReportUnits))
				rep.Unit = ""
			case metrics[name] != "" && metrics[name] != "ns":
				l.errorf(attrs["unit"].Expr.Range().Ptr(), "Unit of a metric that is not a time",
					"unit writes times in one unit, and %s is in %s, not a time. Leave unit out.", name, metrics[name])
				rep.Unit = ""
			}
		}
	}
	return rep
}

// anyBroken says whether a benchmark block had errors: its parameters are
// unknown, so a report block that names one is not reported again.
func (l *loader) anyBroken() bool {
	for _, info := range l.blocks {
		if info != nil && info.broken {
			return true
		}
	}
	return false
}

// matrixParams are the matrix parameters of the spec's benchmarks, in the
// order first met.
func (l *loader) matrixParams() []string {
	var out []string
	for _, b := range l.plan.Benchmarks {
		for _, a := range b.Matrix {
			if !slices.Contains(out, a.Key) {
				out = append(out, a.Key)
			}
		}
	}
	return out
}

// reportMetrics are the metrics a report may show, with their units: the
// standard ones and those of the benchmarks' ops.
func (l *loader) reportMetrics() map[string]string {
	out := map[string]string{}
	for _, m := range metric.Standard {
		out[m.Name] = m.Unit
	}
	for _, b := range l.plan.Benchmarks {
		if b.Op == nil {
			continue
		}
		for _, m := range b.Op.Metrics {
			out[m.Name] = m.Unit
		}
	}
	return out
}

func (l *loader) checkReportMetric(attr *hcl.Attribute, name string, metrics map[string]string) {
	if _, ok := metrics[name]; ok {
		return
	}
	known := make([]string, 0, len(metrics))
	for m := range metrics {
		known = append(known, m)
	}
	slices.Sort(known)
	l.errorf(attr.Expr.Range().Ptr(), "Unknown metric",
		"The metric %q is neither a standard metric nor one of a benchmark's op in this spec.%s", name, didYouMean(name, known))
}

// listOf is ": size, mode" for a non-empty list, else "".
func listOf(names []string) string {
	if len(names) == 0 {
		return " (it has none)"
	}
	return fmt.Sprintf(" (%s)", strings.Join(names, ", "))
}
