package results

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/specrun/specrun/metric"
)

// The kinds of column a Layout may ask for besides a parameter's values.
const (
	ByResult = "result" // one column per result (the default)
	ByLabel  = "label"  // one column per label, its results' runs pooled
	ByHost   = "host"   // one column per host name, its results' runs pooled
)

// RowBenchmark is the row key that stands for the benchmark block.
const RowBenchmark = "benchmark"

// MinPer and MaxPer bound a layout's Per, as a spec bounds its numbers.
const (
	MinPer = 1e-9
	MaxPer = 1e15
)

// Layout says how a comparison's table is laid out: what makes a column,
// what makes a row and what a cell shows. The zero value is one column per
// result, one row per benchmark instance, ns_per_op as recorded.
type Layout struct {
	// Columns is ByResult, ByLabel, ByHost or the name of a matrix
	// parameter, whose values then head the columns so that the instances
	// of one run sit side by side.
	Columns string `json:"columns,omitempty"`
	// Rows are RowBenchmark and parameter names whose values tell the rows
	// apart; empty for the benchmark and every parameter but Columns.
	Rows []string `json:"rows,omitempty"`
	// Metric is the cells' metric; empty for ns_per_op.
	Metric string `json:"metric,omitempty"`
	// Per multiplies every figure: 1e7 turns ns_per_op into the time of
	// ten million operations. 0 means 1.
	Per float64 `json:"per,omitempty"`
	// Unit is the time unit the cells of a time metric are written in
	// (ns, us, ms, s); empty for each row's own.
	Unit string `json:"unit,omitempty"`
	// Summary are the metrics of the sentence under a two-column table;
	// empty for Metric alone.
	Summary []string `json:"summary,omitempty"`
}

// column is one column of a layout while it is being built.
type column struct {
	key     string
	results map[int]bool // the results it pools
}

// CompareLayout lines the results up as l says. A column that pools
// several results (the same label or host) holds all their runs, and
// Pooled says how many results it pools. A layout by a parameter may come
// from a single result; any other needs two columns.
func CompareLayout(rs []*Result, l Layout, opt CompareOptions) (*Comparison, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("no results to compare")
	}
	if l.Metric != "" {
		opt.Metric = l.Metric
	}
	if opt.Metric == "" {
		opt.Metric = metric.NsPerOp
	}
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		return nil, fmt.Errorf("alpha %v is not between 0 and 1", opt.Alpha)
	}
	if l.Columns == "" {
		l.Columns = ByResult
	}
	// A row key or summary metric named twice is the same as once.
	l.Rows, l.Summary = distinct(l.Rows), distinct(l.Summary)
	if l.Per == 0 {
		l.Per = 1
	}
	if !(l.Per > 0) {
		return nil, fmt.Errorf("per %v is not a positive number", l.Per)
	}
	if l.Per < MinPer || l.Per > MaxPer {
		// Beyond these, figures overflow to infinity or underflow to 0.
		return nil, fmt.Errorf("per %v is out of range: a layout multiplies by %v to %v", l.Per, MinPer, MaxPer)
	}
	byParam := l.Columns != ByResult && l.Columns != ByLabel && l.Columns != ByHost
	if byParam && !hasParam(rs, l.Columns) {
		return nil, fmt.Errorf("no benchmark in these results has the parameter %q to make columns of (want %s)",
			l.Columns, keyChoice(rs, ByResult, ByLabel, ByHost))
	}
	for _, row := range l.Rows {
		if row != RowBenchmark && !hasParam(rs, row) {
			return nil, fmt.Errorf("no benchmark in these results has the parameter %q to make rows of (want %s)",
				row, keyChoice(rs, RowBenchmark))
		}
		if row == l.Columns {
			return nil, fmt.Errorf("%q makes the columns; it cannot make rows as well", row)
		}
	}

	c := &Comparison{Metric: opt.Metric, Alpha: opt.Alpha, Differences: envDifferences(rs), Title: rs[0].Suite.Title, Layout: &l}
	if c.Title == "" {
		c.Title = rs[0].Suite.Name
	}
	labels := resultLabels(rs)
	for i, r := range rs {
		c.Environments = append(c.Environments, r.Environment)
		for _, w := range r.Warnings {
			c.Warnings = append(c.Warnings, labels[i]+": "+w)
		}
	}

	// Columns, in the order first met.
	var cols []*column
	colIndex := map[string]int{}
	colOf := func(ri int, b *Benchmark) int {
		var key string
		switch l.Columns {
		case ByResult:
			key = labels[ri]
		case ByLabel:
			key = rs[ri].Label
			if key == "" {
				key = "unlabelled"
			}
		case ByHost:
			key = rs[ri].Environment.Hostname
			if key == "" {
				key = "unknown host"
			}
		default:
			v, ok := paramValue(b, l.Columns)
			if !ok {
				return -1
			}
			key = v
		}
		i, ok := colIndex[key]
		if !ok {
			i = len(cols)
			colIndex[key] = i
			cols = append(cols, &column{key: key, results: map[int]bool{}})
		}
		cols[i].results[ri] = true
		return i
	}

	// Rows, in the order first met; each cell gathers the runs of every
	// instance that falls in it.
	type cellRuns struct {
		vals     []float64
		errs     []string
		failed   []string // the errors with the result and instance they came from
		identity string   // the instance, without the column parameter
		found    bool
	}
	type rowBuild struct {
		labels map[string]bool
		cells  map[int]*cellRuns
	}
	rowIndex := map[string]int{}
	var builds []*rowBuild
	found := false
	for ri, r := range rs {
		for i := range r.Benchmarks {
			b := &r.Benchmarks[i]
			ci := colOf(ri, b)
			if ci < 0 {
				continue // a benchmark without the column parameter
			}
			key, identity, params := rowKey(b, l, byParam)
			idx, ok := rowIndex[key]
			if !ok {
				idx = len(c.Rows)
				rowIndex[key] = idx
				c.Rows = append(c.Rows, CompareRow{Name: key, Label: key, Benchmark: b.Benchmark, Params: params})
				builds = append(builds, &rowBuild{labels: map[string]bool{}, cells: map[int]*cellRuns{}})
				if !byParam && len(l.Rows) == 0 {
					c.Rows[idx].Label = b.RowLabel()
				}
			}
			rb := builds[idx]
			rb.labels[b.RowLabel()] = true
			cell := rb.cells[ci]
			if cell == nil {
				cell = &cellRuns{identity: identity}
				rb.cells[ci] = cell
			} else if cell.identity != identity {
				return nil, fmt.Errorf("rows by %s put %s and %s in one cell: add the parameter that tells them apart to the rows",
					strings.Join(l.Rows, ", "), cell.identity, identity)
			}
			one := metricCell(b, opt.Metric)
			if one.Error != "" {
				cell.errs = append(cell.errs, one.Error)
				cell.failed = append(cell.failed, fmt.Sprintf("%s: %s: %s", labels[ri], b.Name, one.Error))
				continue
			}
			found = true
			for _, v := range one.Runs {
				cell.vals = append(cell.vals, v*l.Per)
			}
			if m, ok := opt.Metrics.Lookup(b.Op, opt.Metric); ok && c.Better == "" {
				c.Better, c.Unit = m.Better(), m.Unit
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("no benchmark in these results has the metric %q", opt.Metric)
	}
	if len(cols) < 2 && !byParam && l.Columns != ByHost && l.Columns != ByLabel {
		return nil, fmt.Errorf("need at least two results, have %d", len(rs))
	}
	for _, col := range cols {
		c.Labels = append(c.Labels, col.key)
		c.Pooled = append(c.Pooled, len(col.results))
	}
	for i := range c.Rows {
		row, rb := &c.Rows[i], builds[i]
		if byParam && len(rb.labels) == 1 {
			for label := range rb.labels {
				row.Label = label // a label that does not name the column parameter
			}
		}
		row.Cells = make([]*CompareCell, len(cols))
		for ci, cr := range rb.cells {
			switch {
			case len(cr.vals) > 0:
				// A failure that pooling would hide is said beside the table.
				c.Warnings = append(c.Warnings, cr.failed...)
				s := Summarize(cr.vals)
				row.Cells[ci] = &CompareCell{Median: s.Median, Interval: s.Interval, Runs: cr.vals}
			case len(cr.errs) > 0:
				row.Cells[ci] = &CompareCell{Error: cr.errs[0]}
			}
		}
	}
	if opt.Metric != metric.NsPerOp {
		// Only some ops report other metrics; rows of the rest would be noise.
		rows := c.Rows[:0]
		for _, row := range c.Rows {
			if slices.ContainsFunc(row.Cells, func(cell *CompareCell) bool { return cell != nil && cell.Error == "" }) {
				rows = append(rows, row)
			}
		}
		c.Rows = rows
	}
	thresholds := &benchmath.Thresholds{CompareAlpha: opt.Alpha}
	for i := range c.Rows {
		row := &c.Rows[i]
		for _, cell := range row.Cells[1:] {
			d := delta(row.Cells[0], cell, thresholds)
			if row.Cells[0] != nil && cell != nil {
				d.Change = ChangeOf(row.Cells[0].Runs, cell.Runs, 1-opt.Alpha)
			}
			row.Deltas = append(row.Deltas, d)
		}
	}
	if len(cols) == 2 && (l.Columns != ByResult || len(l.Summary) > 0) {
		c.Summary = summaryOf(rs, l, opt, c)
	}
	return c, nil
}

// resultLabels are the results' labels, "result N" for one without, and
// "#2", "#3" after a label that repeats, so that every result is named.
func resultLabels(rs []*Result) []string {
	seen := map[string]int{}
	out := make([]string, len(rs))
	for i, r := range rs {
		l := r.Label
		if l == "" {
			l = fmt.Sprintf("result %d", i+1)
		}
		if seen[l]++; seen[l] > 1 {
			l = fmt.Sprintf("%s #%d", l, seen[l])
		}
		out[i] = l
	}
	return out
}

// rowKey is the row an instance falls in: its block and parameters as the
// layout's rows name them, "memcpy/size=16B"; identity is the instance
// without the column parameter, which must be the same for everything in
// one cell; params are the row's parameters, for the charts.
func rowKey(b *Benchmark, l Layout, byParam bool) (key, identity string, params map[string]any) {
	pairs := instanceParams(b)
	var id []string
	params = map[string]any{}
	for _, p := range pairs {
		if byParam && p[0] == l.Columns {
			continue
		}
		id = append(id, p[0]+"="+p[1])
		params[p[0]] = rowParam(b, p)
	}
	identity = strings.Join(append([]string{b.Benchmark}, id...), "/")
	if len(l.Rows) == 0 {
		if !byParam {
			return b.Name, identity, b.Params
		}
		return identity, identity, params
	}
	var parts []string
	params = map[string]any{}
	for _, r := range l.Rows {
		if r == RowBenchmark {
			parts = append(parts, b.Benchmark)
			continue
		}
		for _, p := range pairs {
			if p[0] == r {
				parts = append(parts, p[0]+"="+p[1])
				params[r] = rowParam(b, p)
			}
		}
	}
	return strings.Join(parts, "/"), identity, params
}

// instanceParams are an instance's matrix parameters as its name spells
// them, in the matrix's order: "memcpy/size=16B/atomic=true" gives
// size=16B, atomic=true. The name holds every matrix key, also those no op
// parameter reads (build = "A"), which Params lacks. An instance whose name
// does not spell them (a foreach instance, a value holding "/") gives its
// Params in sorted order as the values print.
func instanceParams(b *Benchmark) [][2]string {
	var out [][2]string
	if rest, ok := strings.CutPrefix(b.Name, b.Benchmark+"/"); ok {
		for _, seg := range strings.Split(rest, "/") {
			k, v, ok := strings.Cut(seg, "=")
			if !ok || k == "" {
				out = nil
				break
			}
			out = append(out, [2]string{k, v})
		}
		if out != nil {
			return out
		}
	}
	keys := make([]string, 0, len(b.Params))
	for k := range b.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, [2]string{k, fmt.Sprint(b.Params[k])})
	}
	return out
}

// paramValue is the value of an instance's parameter as its name spells
// it, and whether it has the parameter.
func paramValue(b *Benchmark, name string) (string, bool) {
	for _, p := range instanceParams(b) {
		if p[0] == name {
			return p[1], true
		}
	}
	return "", false
}

// keyChoice lists the keys a layout may name: fixed ones, then the
// results' parameters, "result, label, host or a parameter: size, mode".
func keyChoice(rs []*Result, fixed ...string) string {
	params := paramNames(rs)
	if len(params) == 0 {
		return strings.Join(fixed, ", ") + "; these results have no matrix parameters"
	}
	return strings.Join(fixed, ", ") + " or a parameter: " + strings.Join(params, ", ")
}

func hasParam(rs []*Result, name string) bool {
	return slices.Contains(paramNames(rs), name)
}

// paramNames are the parameters of any benchmark of rs, sorted.
func paramNames(rs []*Result) []string {
	var out []string
	for _, r := range rs {
		for i := range r.Benchmarks {
			for _, p := range instanceParams(&r.Benchmarks[i]) {
				if !slices.Contains(out, p[0]) {
					out = append(out, p[0])
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// rowParam is a parameter's value for the charts: as the op received it
// when it is one of the op's, else as the name spells it.
func rowParam(b *Benchmark, p [2]string) any {
	if v, ok := b.Params[p[0]]; ok {
		return v
	}
	return p[1]
}

// summaryOf is the change of the second column against the first in each
// of the layout's summary metrics, row by row.
func summaryOf(rs []*Result, l Layout, opt CompareOptions, c *Comparison) []SummaryLine {
	metrics := l.Summary
	if len(metrics) == 0 {
		metrics = []string{c.Metric}
	}
	var out []SummaryLine
	rowIndex := map[string]int{}
	for _, name := range metrics {
		mc := c
		if name != c.Metric {
			ml := l
			ml.Metric, ml.Summary, ml.Per = name, nil, 1
			var err error
			if mc, err = CompareLayout(rs, ml, opt); err != nil || len(mc.Labels) != 2 {
				continue // a metric no benchmark has is left out of the sentence
			}
		}
		for _, row := range mc.Rows {
			if len(row.Deltas) == 0 || row.Deltas[0].Change == nil {
				continue
			}
			i, ok := rowIndex[row.Name]
			if !ok {
				i = len(out)
				rowIndex[row.Name] = i
				out = append(out, SummaryLine{Row: row.Label, Column: c.Labels[1], Baseline: c.Labels[0]})
			}
			out[i].Changes = append(out[i].Changes, MetricChange{Metric: name, Better: mc.Better, Unit: mc.Unit, Change: *row.Deltas[0].Change})
		}
	}
	return out
}

// SummaryLine is the sentence under a two-column table for one row: the
// second column's change against the first in each summary metric.
type SummaryLine struct {
	Row      string         `json:"row"`
	Column   string         `json:"column"`
	Baseline string         `json:"baseline"`
	Changes  []MetricChange `json:"changes"`
}

// MetricChange is one metric's change in a SummaryLine.
type MetricChange struct {
	Metric string `json:"metric"`
	Better string `json:"better,omitempty"`
	Unit   string `json:"unit,omitempty"`
	Change Change `json:"change"`
}

// distinct is names without repeats, in the order first met; a new slice,
// so that the caller's is left as it was.
func distinct(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
