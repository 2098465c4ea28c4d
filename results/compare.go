package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/specrun/specrun/metric"
)

// CompareOptions adjusts Compare. The zero value compares ns_per_op at
// alpha 0.05.
type CompareOptions struct {
	Metric string  // "ns_per_op" by default; any metric of Instances
	Alpha  float64 // significance level of the U-test; 0 means 0.05
	// Metrics declares the ops' own metrics, and so which direction is
	// better and the unit; nil knows only the standard metrics.
	Metrics metric.Catalog
}

// Comparison is several results side by side: one row per benchmark
// instance present in any of them, one column per result, and the change of
// each later column against the first with a Mann-Whitney U test on the
// runs (benchstat's test: benchmath.AssumeNothing).
type Comparison struct {
	Metric string   `json:"metric"`
	Better string   `json:"better"` // "lower", "higher", or "" when no op declares the metric
	Unit   string   `json:"unit,omitempty"`
	Alpha  float64  `json:"alpha"`
	Labels []string `json:"labels"`
	// Title is the first result's suite title, or its name.
	Title string `json:"title,omitempty"`
	// Environments are the results' environments, one per label.
	Environments []Environment `json:"environments,omitempty"`
	// Differences are environment fields that differ between the results
	// in ways that make their figures not comparable like for like.
	Differences []string `json:"environment_differences,omitempty"`
	// Warnings are what the runs themselves recorded (load, VM, governor),
	// each prefixed with the label of the result it came from.
	Warnings []string     `json:"warnings,omitempty"`
	Rows     []CompareRow `json:"rows"`

	// Layout is how the table was laid out; Pooled is how many results
	// each column pools.
	Layout *Layout `json:"layout,omitempty"`
	Pooled []int   `json:"pooled,omitempty"`
	// Summary is, for a two-column layout, the second column's change in
	// each of the layout's summary metrics, row by row.
	Summary []SummaryLine `json:"summary,omitempty"`
}

// CompareRow is one benchmark instance across the results.
type CompareRow struct {
	Name   string         `json:"name"`
	Label  string         `json:"label"`
	Cells  []*CompareCell `json:"cells"`  // one per result; nil when absent there
	Deltas []Delta        `json:"deltas"` // one per result after the first

	// Benchmark and Params are the instance's block and parameters, as
	// the first result that has it records them: charts find scans by them.
	Benchmark string         `json:"benchmark,omitempty"`
	Params    map[string]any `json:"params,omitempty"`
}

// CompareCell is one instance's metric in one result.
type CompareCell struct {
	Median   float64   `json:"median"`
	Interval Interval  `json:"interval"`
	Runs     []float64 `json:"runs"`
	Error    string    `json:"error,omitempty"` // the benchmark failed, or lacks the metric
}

// Delta is one later result against the first, for one instance.
type Delta struct {
	Ratio       *float64 `json:"ratio"` // later / first; nil when it cannot be computed
	P           float64  `json:"p"`
	Significant bool     `json:"significant"`
	Warnings    []string `json:"warnings,omitempty"` // from the test, e.g. too few runs
	// Change is the change with its interval; nil when a ratio of the
	// runs means nothing (a value that is not positive).
	Change *Change `json:"change,omitempty"`
}

// Compare lines up the results, one column per result. Their labels
// head the columns; a label that repeats gets "#2", "#3" so that every
// column is named.
func Compare(rs []*Result, opt CompareOptions) (*Comparison, error) {
	if len(rs) < 2 {
		return nil, fmt.Errorf("need at least two results, have %d", len(rs))
	}
	return CompareLayout(rs, Layout{Columns: ByResult}, opt)
}

// metricCell gathers b's runs of one metric.
func metricCell(b *Benchmark, metric string) *CompareCell {
	if b.Error != "" {
		return &CompareCell{Error: "failed: " + b.Error}
	}
	if len(b.Runs) == 0 {
		return &CompareCell{Error: "no runs"}
	}
	var vals []float64
	for _, run := range instanceRuns(b) {
		if v, ok := run[metric]; ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return &CompareCell{Error: "no " + metric}
	}
	s := Summarize(vals)
	return &CompareCell{Median: s.Median, Interval: s.Interval, Runs: vals}
}

// delta tests new against old.
func delta(old, new *CompareCell, t *benchmath.Thresholds) Delta {
	if old == nil || new == nil || old.Error != "" || new.Error != "" {
		return Delta{P: 1}
	}
	var d Delta
	if old.Median != 0 {
		r := new.Median / old.Median
		if !math.IsNaN(r) && !math.IsInf(r, 0) {
			d.Ratio = &r
		}
	}
	cmp := benchmath.AssumeNothing.Compare(
		benchmath.NewSample(append([]float64(nil), old.Runs...), t),
		benchmath.NewSample(append([]float64(nil), new.Runs...), t))
	d.P = cmp.P
	d.Significant = cmp.P <= cmp.Alpha && len(cmp.Warnings) == 0
	for _, w := range cmp.Warnings {
		d.Warnings = append(d.Warnings, w.Error())
	}
	return d
}

// envDifferences lists the environment fields whose known values differ
// between results; a field that one result did not record is no evidence.
func envDifferences(rs []*Result) []string {
	fields := []struct {
		name string
		get  func(Environment) string
	}{
		{"os", func(e Environment) string { return e.OS }},
		{"arch", func(e Environment) string { return e.Arch }},
		{"cpu_model", func(e Environment) string { return e.CPUModel }},
		{"governor", func(e Environment) string { return e.Governor }},
		{"kernel", func(e Environment) string { return e.Kernel }},
		{"go_version", func(e Environment) string { return e.GoVersion }},
		{"gomaxprocs", func(e Environment) string { return strconv.Itoa(e.GOMAXPROCS) }},
		{"vm", func(e Environment) string { return e.VM }},
	}
	var out []string
	for _, f := range fields {
		var vals []string
		known := map[string]bool{}
		for _, r := range rs {
			v := f.get(r.Environment)
			if v == "" || v == "0" {
				v = "unknown"
			} else {
				known[v] = true
			}
			vals = append(vals, v)
		}
		if len(known) > 1 {
			out = append(out, f.name+" ("+strings.Join(vals, " vs ")+")")
		}
	}
	return out
}

// Regression is a benchmark that a later result made significantly worse
// than the first, by more than a threshold.
type Regression struct {
	Name  string  // the instance, "memcpy/size=16B"
	Label string  // the later result's column
	Old   float64 // median in the first result
	New   float64 // median in the later one
	// Worse is the relative change in the bad direction: 0.12 is 12% worse
	// (slower for ns_per_op, less for bytes_per_sec).
	Worse float64
	P     float64
}

// Regressions lists, row by row, every later column that is significantly
// worse than the first (the U-test at the comparison's alpha) by more than
// threshold, a fraction, in the metric's own better direction. It is an
// error when no op declares that direction.
func (c *Comparison) Regressions(threshold float64) ([]Regression, error) {
	var higher bool
	switch c.Better {
	case "lower":
	case "higher":
		higher = true
	default:
		return nil, fmt.Errorf("no op declares whether a higher or a lower %s is better, so a regression cannot be told from an improvement", c.Metric)
	}
	var out []Regression
	for _, row := range c.Rows {
		for i, d := range row.Deltas {
			if d.Ratio == nil || !d.Significant {
				continue
			}
			worse := *d.Ratio - 1
			if higher {
				worse = 1 - *d.Ratio
			}
			if worse > threshold {
				out = append(out, Regression{Name: row.Name, Label: c.Labels[i+1],
					Old: row.Cells[0].Median, New: row.Cells[i+1].Median, Worse: worse, P: d.P})
			}
		}
	}
	return out, nil
}

// BaselineWarnings says when a baseline was measured in another
// environment than cur in a way that moves figures by itself (another CPU
// model or architecture, Go version or kernel), so that a verdict against
// it may judge the machine rather than the change.
func BaselineWarnings(cur, base *Result) []string {
	if cur == nil || base == nil {
		return nil
	}
	var diffs []string
	for _, d := range envDifferences([]*Result{base, cur}) {
		for _, f := range []string{"cpu_model", "arch", "go_version", "kernel"} {
			if strings.HasPrefix(d, f+" (") {
				diffs = append(diffs, d)
			}
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return []string{"the baseline ran in another environment (baseline vs this run: " + strings.Join(diffs, ", ") +
		"): its verdicts may judge the machine rather than the change; compare two builds in one run instead"}
}
