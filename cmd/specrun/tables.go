package main

import (
	"flag"
	"strings"

	"github.com/specrun/specrun/report"
)

// tableFlags are the flags that say how tables are drawn: --time-unit and
// --columns, over what the suite says.
type tableFlags struct{ timeUnit, columns *string }

func (t *tableFlags) register(fs *flag.FlagSet, columns bool) {
	t.timeUnit = fs.String("time-unit", "auto", "write the tables' times in `UNIT`: auto (each column its own, from its figures), "+
		strings.Join(report.TimeUnits, ", "))
	if columns {
		t.columns = fs.String("columns", "", "the table's columns, comma-separated `NAMES`: "+report.ColumnHelp+
			"; default: the suite's columns, else those of each kind of benchmark")
	}
}

// apply checks the flags and sets them in o.
func (t *tableFlags) apply(o *report.Options) error {
	if err := report.CheckTimeUnit(*t.timeUnit); err != nil {
		return usageError("--time-unit: %v", err)
	}
	o.TimeUnit = *t.timeUnit
	if t.columns != nil && *t.columns != "" {
		for _, c := range strings.Split(*t.columns, ",") {
			if c = strings.TrimSpace(c); c != "" {
				o.Columns = append(o.Columns, c)
			}
		}
	}
	return nil
}
