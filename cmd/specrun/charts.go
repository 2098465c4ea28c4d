package main

import (
	"flag"
	"strings"

	"github.com/specrun/specrun/report"
)

// chartFlags are the flags that say how svg and png charts are drawn.
type chartFlags struct{ kind, axis *string }

func (c *chartFlags) register(fs *flag.FlagSet) {
	c.kind = fs.String("chart", "auto", "chart `KIND` for svg and png: "+strings.Join(report.ChartKinds, ", ")+
		" (auto: a matrix that sweeps a number is a line chart, other benchmarks are bars)")
	c.axis = fs.String("axis", "auto", "value axis `SCALE` for svg and png: "+strings.Join(report.AxisScales, ", ")+
		" (auto: log when the figures span more than 50x)")
}

// options checks the flags and returns them as rendering options.
func (c *chartFlags) options() (report.Options, error) {
	o := report.ChartOptions{Kind: *c.kind, Axis: *c.axis}
	if err := o.Check(); err != nil {
		return report.Options{}, usageError("%v", err)
	}
	return report.Options{Metrics: opMetrics, Chart: o}, nil
}
