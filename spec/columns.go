package spec

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// TableColumns are the columns a suite's columns attribute may name
// besides the metrics of its benchmarks' ops; package report renders them
// (its tests check that the two lists agree).
var TableColumns = []string{"name", "iterations", "total", "time", "±", "interval", "mean", "range", "user", "sys", "throughput", "stable"}

// TimeUnits are the values of a suite's time_unit attribute.
var TimeUnits = []string{"auto", "ns", "us", "ms", "s"}

// decodeReportAttrs decodes the suite's columns and time_unit, which say
// how its tables are drawn. The column names are checked once every
// benchmark is decoded (checkColumns), since they may name op metrics.
func (l *loader) decodeReportAttrs(attrs hcl.Attributes, ctx *hcl.EvalContext, s *Suite) {
	var unit string
	if decodeInto(l, attrs, ctx, timeUnitAttr, &unit) {
		if !slices.Contains(TimeUnits, unit) {
			l.errorf(attrs[timeUnitAttr.Name].Expr.Range().Ptr(), "Invalid time unit",
				"The time_unit %q is not one of %s.%s", unit, strings.Join(TimeUnits, ", "), didYouMean(unit, TimeUnits))
		} else {
			s.TimeUnit = unit
		}
	}
	if !decodeInto(l, attrs, ctx, columnsAttr, &s.Columns) {
		return
	}
	attr := attrs[columnsAttr.Name]
	if len(s.Columns) == 0 {
		l.errorf(attr.Expr.Range().Ptr(), "No columns", "The columns list is empty; leave it out for the defaults of each kind of benchmark.")
		return
	}
	l.columnsAttr = attr
}

// checkColumns reports a column name that is neither a table column nor
// a metric of any benchmark of the spec.
func (l *loader) checkColumns() {
	if l.columnsAttr == nil {
		return
	}
	known := slices.Clone(TableColumns)
	for _, info := range l.blocks {
		for _, m := range info.metrics {
			if !slices.Contains(known, m) {
				known = append(known, m)
			}
		}
	}
	for _, c := range l.plan.Suite.Columns {
		if !slices.Contains(known, c) {
			l.errorf(l.columnsAttr.Expr.Range().Ptr(), "Unknown column",
				"The column %q is neither a table column (%s) nor a metric of a benchmark of this spec.%s",
				c, strings.Join(TableColumns, ", "), didYouMean(c, known))
		}
	}
}
