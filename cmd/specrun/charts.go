package main

import (
	"flag"
	"strings"

	"github.com/specrun/specrun/report"
)

// chartFlags are the flags that say how svg and png charts are drawn.
type chartFlags struct{ kind, axis, y *string }

func (c *chartFlags) register(fs *flag.FlagSet) {
	c.kind = fs.String("chart", "auto", "chart `KIND` for svg and png: "+strings.Join(report.ChartKinds, ", ")+
		" (auto: a matrix that sweeps a number is a line chart, other benchmarks are bars)")
	c.axis = fs.String("axis", "auto", "value axis `SCALE` for svg and png: "+strings.Join(report.AxisScales, ", ")+
		" (auto: log when the figures span more than 50x)")
	c.y = fs.String("chart-y", "auto", "the `METRIC` a scan's line chart plots: auto (throughput for a size scan, else time per op),\nns_per_op, ops_per_sec, bytes_per_sec or an op's own; compare plots its --metric")
}

// options checks the flags and returns them as rendering options.
func (c *chartFlags) options() (report.Options, error) {
	o := report.ChartOptions{Kind: *c.kind, Axis: *c.axis, Y: *c.y}
	if err := o.Check(); err != nil {
		return report.Options{}, usageError("%v", err)
	}
	return report.Options{Metrics: opMetrics, Chart: o}, nil
}
