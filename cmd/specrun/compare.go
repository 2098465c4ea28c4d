package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/param"
	"github.com/specrun/specrun/report"
	"github.com/specrun/specrun/results"
)

// compareCmd puts stored results side by side: one row per benchmark, one
// column per result, ratios to the first with a significance test.
func compareCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", "[flags] A.json B.json [C.json...]",
		"Put stored results side by side: one row per benchmark, one column per result\n(or per label, host or matrix parameter value, with --by), and each later column's\nratio to the first with a Mann-Whitney U test and the change's interval.", stderr)
	metric := fs.String("metric", "ns_per_op", "the metric to compare: ns_per_op, ops_per_sec, bytes_per_sec or an op metric (requests_per_sec, max_rss_bytes, ...)")
	format := fs.String("format", "auto", "output format: "+autoFormat+report.FormatHelp(true))
	alpha := fs.Float64("alpha", 0.05, "significance level of the Mann-Whitney U test")
	svg := fs.String("svg", "", "also draw the comparison as a grouped bar chart to `FILE`; an existing FILE needs --force")
	out := fs.String("o", "", "write the comparison to `FILE` (atomically) instead of stdout; an existing FILE needs --force")
	force := fs.Bool("force", false, "replace the -o, --svg and --export files if they exist")
	exports := exportFlag(fs, report.ComparisonFormats())
	gate := fs.String("fail-on-regression", "", "exit 1 when a later result is significantly worse than the first by more than `PCT` (\"5%\"), in the metric's better direction, and list those benchmarks on stderr")
	var view viewFlags
	view.register(fs, true)
	paths, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(paths) < 1 {
		return usageErrorHelp(fs, "want result files to compare, have none")
	}
	if !(*alpha > 0 && *alpha < 1) {
		return usageError("--alpha is a significance level between 0 and 1, not %v", *alpha)
	}
	threshold := -1.0 // no gate
	if isSet(fs, "fail-on-regression") {
		if threshold, err = param.ParseFraction(*gate); err != nil {
			return usageError("--fail-on-regression: %v", err)
		}
	}
	var target io.Writer = stdout
	if *out != "" {
		target = nil // a file gets md, never colour
	}
	name, opt, err := renderOptions(&view, *format, target)
	if err != nil {
		return err
	}
	rep, err := report.ComparisonFormatWith(name, opt)
	if err != nil {
		return usageError("--format: %v", err)
	}
	if err := checkExports(*exports, *force); err != nil {
		return err
	}
	for _, o := range []struct{ flag, file string }{{"-o " + *out, *out}, {"--svg " + *svg, *svg}} {
		if err := checkSpare(o.flag, o.file, "a result compare reads", paths...); err != nil {
			return err
		}
	}
	if err := checkExportsSpare(*exports, "a result compare reads", paths...); err != nil {
		return err
	}
	var rs []*results.Result
	for _, p := range paths {
		r, err := results.ReadFile(p)
		if err != nil {
			return err
		}
		if r.Label == "" {
			r.Label = strings.TrimSuffix(filepath.Base(p), ".json")
		}
		rs = append(rs, r)
	}
	metricSet := ""
	if isSet(fs, "metric") {
		metricSet = *metric
	}
	lay, err := view.layout.apply(rs[0].Suite.Layout, metricSet)
	if err != nil {
		return err
	}
	if lay == nil {
		lay = &results.Layout{Columns: results.ByResult}
	}
	if !isSet(fs, "by") && !isSet(fs, "columns") && len(rs) > 1 && distinctKeys(rs, lay.Columns) == 1 {
		// The spec's layout pools by host or label, and every file has the
		// same one: two runs of one machine, compared one column each.
		l := *lay
		l.Columns = results.ByResult
		lay = &l
	}
	if lay.Columns == "" || lay.Columns == results.ByResult {
		if len(rs) < 2 {
			return usageErrorHelp(fs, "want at least two result files for one column per result, have %d", len(rs))
		}
	}
	c, err := results.CompareLayout(rs, *lay, results.CompareOptions{Alpha: *alpha, Metrics: opMetrics})
	if err != nil {
		return err
	}
	if err := view.layout.checkUnit(c); err != nil {
		return err
	}
	var regs []results.Regression
	if threshold >= 0 {
		if regs, err = c.Regressions(threshold); err != nil {
			return usageError("--fail-on-regression with --metric %s: %v", *metric, err)
		}
	}
	if err := writeOutput(*out, *force, stdout, func(w io.Writer) error { return rep.Report(w, c) }); err != nil {
		return err
	}
	if *svg != "" {
		if err := writeOutput(*svg, *force, nil, func(w io.Writer) error { return report.CompareSVG{Chart: opt.Chart}.Report(w, c) }); err != nil {
			return err
		}
	}
	fileOpt := opt
	fileOpt.Color = false
	if err := writeExports(*exports, *force, func(format string, w io.Writer) error {
		rep, err := report.ComparisonFormatWith(format, fileOpt)
		if err != nil {
			return err
		}
		return rep.Report(w, c)
	}); err != nil {
		return err
	}
	if threshold < 0 {
		return nil
	}
	return gateRegressions(stderr, c, regs, threshold)
}

// gateRegressions lists the regressions on stderr and exits 1 when there
// are any; it says so as well when there are none, for a CI log.
func gateRegressions(stderr io.Writer, c *results.Comparison, regs []results.Regression, threshold float64) error {
	limit := results.Number(100*threshold) + "%"
	if len(regs) == 0 {
		fmt.Fprintf(stderr, "specrun compare: no benchmark is significantly worse than %s by more than %s (%s, %s is better)\n",
			c.Labels[0], limit, c.Metric, c.Better)
		return nil
	}
	fmt.Fprintf(stderr, "specrun compare: %s significantly worse than %s by more than %s (%s, %s is better):\n",
		plural(len(regs), "benchmark"), c.Labels[0], limit, c.Metric, c.Better)
	for _, r := range regs {
		fmt.Fprintf(stderr, "  %s: %s is %.1f%% worse (%s -> %s, p=%.3g)\n",
			r.Name, r.Label, 100*r.Worse, results.Number(r.Old), results.Number(r.New), r.P)
	}
	return errAsserted
}

// opMetrics is the catalog's declaration of an op's own metrics.
func opMetrics(op string) []metric.Metric {
	if d, ok := ops.Lookup(op); ok {
		return d.Metrics
	}
	return nil
}

// distinctKeys is how many columns pooling rs by host or label gives; 0
// for any other layout.
func distinctKeys(rs []*results.Result, by string) int {
	keys := map[string]bool{}
	for _, r := range rs {
		switch by {
		case results.ByHost:
			keys[r.Environment.Hostname] = true
		case results.ByLabel:
			keys[r.Label] = true
		default:
			return 0
		}
	}
	return len(keys)
}
