package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// The per-phase view lists every run of a benchmark in the order it ran
// (for http, each run is one load phase), its warm-up runs first and
// marked, so that what a median hides shows: a JIT's cold first phase, or
// memory that grows phase by phase.

// phaseMetric is the figure a benchmark's phases are read by: requests
// per second for an http load, else time per op.
func phaseMetric(b *results.Benchmark) string {
	if b.Op == "http" {
		for i := range b.Runs {
			if _, ok := b.Runs[i].Metrics["requests_per_sec"]; ok {
				return "requests_per_sec"
			}
		}
	}
	return metric.NsPerOp
}

// phaseFigureName is how a line of text names a phase metric.
func phaseFigureName(name string) string {
	switch name {
	case metric.NsPerOp:
		return "time per op"
	case "requests_per_sec":
		return "requests/s"
	}
	return name
}

// phaseLabel is a phase's name in tables: "warm-up 2", or its run's number.
func phaseLabel(p results.Phase) string {
	if p.Warmup {
		return "warm-up " + strconv.Itoa(p.Index)
	}
	return strconv.Itoa(p.Index)
}

// phaseRows are b's phases as rows of a table: each a benchmark of one
// run, so that the columns of the classic table lay them out.
func phaseRows(b *results.Benchmark) []results.Benchmark {
	phases := b.Phases()
	rows := make([]results.Benchmark, len(phases))
	for i, p := range phases {
		label := phaseLabel(p)
		rows[i] = results.Benchmark{Name: label, Label: label, Benchmark: b.Benchmark, Op: b.Op, Params: b.Params,
			Iterations: p.Run.Iterations, Runs: []results.Run{*p.Run}}
		rows[i].NsPerOp, rows[i].Metrics = results.SummarizeRuns(rows[i].Runs)
	}
	return rows
}

// phaseColumns are the columns of b's per-phase table: the phase, its
// iterations, then for an http load its requests/s and latency p50 and
// p99, else its time per op; then the server's CPU per request and peak
// RSS, or the process's peak RSS, when the runs recorded them.
func phaseColumns(b *results.Benchmark, rows []results.Benchmark, opt Options) []column {
	if opt.Metrics == nil {
		opt.Metrics = phaseUnits
	}
	has := func(name string) bool {
		return slices.ContainsFunc(rows, func(r results.Benchmark) bool { _, ok := r.Metrics[name]; return ok })
	}
	name, _ := buildColumn(rows, "name", opt)
	name.head = "Phase"
	iters, _ := buildColumn(rows, "iterations", opt)
	cols := []column{name, iters}
	if phaseMetric(b) == metric.NsPerOp {
		c, _ := buildColumn(rows, "time", opt)
		cols = append(cols, c)
	}
	for _, m := range []struct{ name, head string }{
		{"requests_per_sec", ""}, {"latency_p50_ns", ""}, {"latency_p99_ns", ""},
		{"server_cpu_ns_per_request", "Server CPU/request"}, {"server_max_rss_bytes", "Server RSS"},
		{"max_rss_bytes", "Max RSS"},
	} {
		if has(m.name) && (m.name != "requests_per_sec" || b.Op == "http") {
			cols = append(cols, metricColumn(rows, m.name, m.head, opt, nil))
		}
	}
	return cols
}

// phaseUnits declare the units of the per-phase table's figures whose
// names do not say them, for a result rendered without the ops' catalog.
var phaseUnits = metric.Catalog(func(string) []metric.Metric {
	return []metric.Metric{{Name: "server_cpu_ns_per_request", Unit: "ns"}}
})

// stableLine says how far b's runs agree: "null function: time per op
// stable to 2 digits over 3 runs (CV 0.4%)"; "" with fewer than two runs.
func stableLine(b *results.Benchmark) string {
	if !measured(b) {
		return ""
	}
	name := phaseMetric(b)
	vs := results.RunValues(b, name)
	if len(vs) < 2 {
		return ""
	}
	d, cv := results.StableDigits(vs), results.CV(vs)
	var stable string
	switch {
	case math.IsNaN(d):
		stable = "of no stable digit (a median of zero)"
	case d >= results.MaxDigits:
		stable = "the same"
	case d == 0:
		stable = "not stable to one digit"
	default:
		stable = "stable to " + plural(int(d), "digit")
	}
	line := fmt.Sprintf("%s: %s %s over %d runs", b.RowLabel(), phaseFigureName(name), stable, len(vs))
	if !math.IsNaN(cv) {
		line += " (CV " + percent(100*cv) + ")"
	}
	return line
}

// stableCell is the stable column's cell: "2 digits, CV 0.4%".
func stableCell(b *results.Benchmark) string {
	vs := results.RunValues(b, phaseMetric(b))
	if !measured(b) || len(vs) < 2 {
		return "—"
	}
	d, cv := results.StableDigits(vs), results.CV(vs)
	cell := "—"
	if !math.IsNaN(d) {
		cell = plural(int(d), "digit")
	}
	if !math.IsNaN(cv) {
		cell += ", CV " + percent(100*cv)
	}
	return cell
}

// writePhasesMarkdown writes the Phases section: per benchmark with a
// run, its head, its per-phase table and how far its runs agree.
func writePhasesMarkdown(w io.Writer, r *results.Result, opt Options) {
	fmt.Fprintf(w, "\n## Phases\n")
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		rows := phaseRows(b)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n**%s** (%s)\n\n", opt.text(b.RowLabel()), opt.text(b.Name))
		writeMarkdownTable(w, phaseColumns(b, rows, opt), len(rows))
		if line := stableLine(b); line != "" {
			fmt.Fprintf(w, "\n%s\n", opt.text(line))
		}
	}
}

// writePhasesTerminal is writePhasesMarkdown for a terminal: aligned
// tables under each benchmark's name.
func writePhasesTerminal(w io.Writer, r *results.Result, opt Options) {
	fmt.Fprintf(w, "\n%s\n", opt.paint(ansiBold, "Phases"))
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		rows := phaseRows(b)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s)\n", opt.paint(ansiBold, oneLine(b.RowLabel())), oneLine(b.Name))
		writeAligned(w, phaseColumns(b, rows, opt), len(rows), opt)
		if line := stableLine(b); line != "" {
			fmt.Fprintf(w, "%s\n", opt.paint(ansiDim, oneLine(line)))
		}
	}
}

// withPhases adds r's phase panels to f when phases is set.
func withPhases(f *figure, r *results.Result, opt ChartOptions, phases bool) *figure {
	if phases {
		f.panels = append(f.panels, phasePanels(r, opt)...)
	}
	return f
}

// phasePanels are line charts of each block's runs in the order they ran,
// one line per instance: the figure its phases are read by (requests/s
// for http, else time per op, or the metric opt.Y names), then the peak
// RSS when the runs recorded one. Warm-up runs come first, hollow, on
// x = w1, w2, ...; timed runs are 1, 2, .... Under Axis auto the y axis is
// log only when the timed runs span more than 50x.
func phasePanels(r *results.Result, opt ChartOptions) []panel {
	var blocks []string
	members := map[string][]*results.Benchmark{}
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		if len(b.Runs)+len(b.Warmups) == 0 {
			continue
		}
		if _, ok := members[b.Benchmark]; !ok {
			blocks = append(blocks, b.Benchmark)
		}
		members[b.Benchmark] = append(members[b.Benchmark], b)
	}
	var out []panel
	for _, block := range blocks {
		bs := members[block]
		name := phaseMetric(bs[0])
		if opt.Y != "" && opt.Y != "auto" {
			name = opt.Y
		}
		unit, ylabel := "", phaseFigureName(name)
		switch name {
		case metric.NsPerOp:
			unit = "ns"
		case "requests_per_sec":
		default:
			if m, ok := metric.Find(metric.Standard, name); ok {
				unit = m.Unit
			}
		}
		out = append(out, phasePanel(block+": "+ylabel+" by phase", ylabel, unit, name, bs, opt))
		for _, rss := range []struct{ name, label string }{{"server_max_rss_bytes", "server peak RSS"}, {"max_rss_bytes", "peak RSS"}} {
			if slices.ContainsFunc(bs, func(b *results.Benchmark) bool { _, ok := b.Metrics[rss.name]; return ok }) {
				out = append(out, phasePanel(block+": "+rss.label+" by phase", rss.label, "bytes", rss.name, bs, opt))
				break
			}
		}
	}
	return out
}

// phasePanel is one line chart of metric name over the phases of bs.
func phasePanel(title, ylabel, unit, name string, bs []*results.Benchmark, opt ChartOptions) *linePanel {
	warm := 0 // the most warm-ups of an instance: w1..wN on the axis
	for _, b := range bs {
		warm = max(warm, len(b.Warmups))
	}
	if warm > 0 {
		title += " (hollow: warm-up)"
	}
	lp := &linePanel{
		panelHead: panelHead{title: title},
		xlabel:    "phase",
		ylabel:    ylabel,
		yunit:     unit,
		axis:      opt.Axis,
		xlinear:   true,
		xformat: func(x float64) string {
			if x <= 0 {
				return "w" + strconv.Itoa(int(math.Round(x))+warm)
			}
			return strconv.Itoa(int(math.Round(x)))
		},
	}
	// The timed runs choose the scale: a warm-up run of one request or one
	// iteration would otherwise make it log and flatten the phases.
	var lo, hi float64
	for _, b := range bs {
		for _, v := range results.RunValues(b, name) {
			if lo == 0 || v < lo {
				lo = v
			}
			hi = max(hi, v)
		}
	}
	lp.axis = axisScale(opt.Axis, lo, hi, 50)
	for i, b := range bs {
		s := lineSeries{name: b.RowLabel(), color: i}
		for _, p := range b.Phases() {
			x := float64(p.Index)
			if p.Warmup {
				x = float64(p.Index - len(b.Warmups)) // the last warm-up at 0, just before run 1
			}
			pt := linePoint{x: x, y: math.NaN(), low: math.NaN(), high: math.NaN(), hollow: p.Warmup}
			if v, ok := p.Run.Figure(name); ok {
				pt.y = v
			}
			s.points = append(s.points, pt)
		}
		lp.lines = append(lp.lines, s)
		lp.legend = append(lp.legend, legendEntry{name: s.name, color: seriesColor(i), line: true})
	}
	return lp
}

// phaseDetail adds b's per-phase table and how far its runs agree to its
// detail on the HTML page.
func phaseDetail(b *results.Benchmark, d *htmlDetail) {
	rows := phaseRows(b)
	if len(rows) == 0 {
		return
	}
	cols := phaseColumns(b, rows, Options{plain: true})
	for _, c := range cols {
		d.PhaseHead = append(d.PhaseHead, c.head)
	}
	for i := range rows {
		row := make([]htmlCell, len(cols))
		for j, c := range cols {
			row[j] = htmlCell{Text: c.cells[i], Class: "num"}
			if c.left {
				row[j].Class = ""
			}
		}
		d.PhaseRows = append(d.PhaseRows, row)
	}
	d.Stable = stableLine(b)
}
