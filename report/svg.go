package report

import (
	"io"
	"math"
	"slices"
	"strings"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// SVG renders a result as charts sized for an 800px column: a benchmark
// whose matrix sweeps a number (a size scan) as a line chart of the
// swept value against throughput (sizes) or time per op, and the other
// benchmarks as horizontal bars of the median time per op in the result's
// order, each with its interval as an error bar and its figure at its end.
// The value axis is linear unless the figures span more than a factor of
// 50 (ChartOptions.Axis sets it).
type SVG struct {
	Chart  ChartOptions
	Phases bool // add a line chart of each block's runs in order (see phasePanels)
}

// PNG renders the charts of SVG as a PNG image at twice its pixel size,
// for pasting where SVG is not taken.
type PNG struct {
	Chart  ChartOptions
	Phases bool
}

var (
	_ Reporter = SVG{}
	_ Reporter = PNG{}
)

// Report writes the chart.
func (s SVG) Report(w io.Writer, r *results.Result) error {
	return writeFigure(w, withPhases(resultFigure(r, s.Chart), r, s.Chart, s.Phases), false)
}

// Report writes the chart.
func (s PNG) Report(w io.Writer, r *results.Result) error {
	return writeFigure(w, withPhases(resultFigure(r, s.Chart), r, s.Chart, s.Phases), true)
}

func suiteTitle(s results.Suite) string {
	if s.Title != "" {
		return s.Title
	}
	return s.Name
}

// resultFigure lays out r's charts: one bar chart of the benchmarks that
// are not scans, then one line chart per scan.
func resultFigure(r *results.Result, opt ChartOptions) *figure {
	title := suiteTitle(r.Suite)
	if r.Label != "" {
		title += " — " + r.Label
	}
	f := &figure{title: title}
	insts := make([]instance, len(r.Benchmarks))
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		insts[i] = instance{block: b.Benchmark, name: b.Name, params: b.Params}
	}
	scans := findScans(insts, opt.Kind)
	inScan := map[int]bool{}
	for _, s := range scans {
		for _, i := range s.members {
			inScan[i] = true
		}
	}
	bars := &barPanel{xlabel: "time per op", unit: "ns", axis: opt.Axis, series: []barSeries{{name: r.Label}}}
	for i := range r.Benchmarks {
		if inScan[i] {
			continue
		}
		b := &r.Benchmarks[i]
		bars.rows = append(bars.rows, b.RowLabel())
		bars.series[0].bars = append(bars.series[0].bars, summaryBar(b, metric.NsPerOp))
	}
	if len(bars.rows) > 0 {
		f.panels = append(f.panels, bars)
	}
	for _, s := range scans {
		f.panels = append(f.panels, resultScanPanel(r, s, opt))
	}
	return f
}

// summary returns b's summary of a metric, and whether b has one.
func summary(b *results.Benchmark, name string) (results.Summary, bool) {
	if b.Error != "" || len(b.Runs) == 0 {
		return results.Summary{}, false
	}
	if name == metric.NsPerOp {
		return b.NsPerOp, true
	}
	s, ok := b.Metrics[name]
	return s, ok
}

func summaryBar(b *results.Benchmark, name string) bar {
	s, ok := summary(b, name)
	switch {
	case b.Error != "":
		return noBar("failed")
	case !ok:
		return noBar("no runs")
	}
	br := bar{value: s.Median, low: math.NaN(), high: math.NaN()}
	if len(b.Runs) > 1 {
		br.low, br.high = s.Interval.Low, s.Interval.High
	}
	return br
}

// instance is what finding scans needs of a benchmark instance.
type instance struct {
	block, name string
	params      map[string]any
}

// scan is the instances of one benchmark block that sweep param.
type scan struct {
	block   string
	param   string
	members []int // in the order given
}

// findScans finds the blocks whose instances sweep a numeric parameter
// through three values or more (two for kind "lines"); "bars" finds none.
// When several parameters vary, "size" is swept, else the one with the
// most values.
func findScans(insts []instance, kind string) []scan {
	if kind == "bars" {
		return nil
	}
	least := 3
	if kind == "lines" {
		least = 2
	}
	var order []string
	groups := map[string][]int{}
	for i, in := range insts {
		block := in.block
		if block == "" {
			block, _, _ = strings.Cut(in.name, "/")
		}
		if _, ok := groups[block]; !ok {
			order = append(order, block)
		}
		groups[block] = append(groups[block], i)
	}
	var scans []scan
	for _, block := range order {
		members := groups[block]
		if len(members) < least {
			continue
		}
		best, bestN := "", 0
		for name := range insts[members[0]].params {
			var values []float64
			numeric := true
			for _, i := range members {
				v, ok := paramNumber(insts[i].params, name)
				if !ok {
					numeric = false
					break
				}
				if !slices.Contains(values, v) {
					values = append(values, v)
				}
			}
			n := len(values)
			if !numeric || n < least {
				continue
			}
			if best == "" || name == "size" || (best != "size" && (n > bestN || n == bestN && name < best)) {
				best, bestN = name, n
			}
		}
		if best != "" {
			scans = append(scans, scan{block: block, param: best, members: members})
		}
	}
	return scans
}

// paramNumber reads a numeric parameter, as it is held in memory (int64)
// or after a JSON round trip (float64).
func paramNumber(params map[string]any, name string) (float64, bool) {
	b := results.Benchmark{Params: params}
	return b.ParamNumber(name)
}

// otherParams is an instance name's matrix part without the swept
// parameter: "file_write/size=16MB/atomic=true" -> "atomic=true".
func otherParams(name, param string) string {
	parts := strings.Split(name, "/")
	var out []string
	for _, p := range parts[1:] {
		if !strings.HasPrefix(p, param+"=") {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}

// sweptFormat writes a swept value: sizes in 1024-based units.
func sweptFormat(param string) func(float64) string {
	if param == "size" {
		return func(v float64) string { return humanBytes(v) }
	}
	return results.Number
}

// resultScanPanel draws one scan of r: the metric opt.Y names, or by
// default throughput against size when every instance has it, else time
// per op; one line per value of the other parameters.
func resultScanPanel(r *results.Result, s scan, opt ChartOptions) panel {
	name, unit, ylabel := metric.NsPerOp, "ns", "time per op"
	switch {
	case opt.Y != "" && opt.Y != "auto" && opt.Y != metric.NsPerOp:
		name, unit, ylabel = opt.Y, "", opt.Y
		if m, ok := metric.Find(metric.Standard, opt.Y); ok {
			unit, ylabel = m.Unit, unitName(m.Unit)
		}
		if unit != "" && unit != "ns" && unit != "bytes" && unit != "bytes/s" {
			ylabel = opt.Y + " (" + unit + ")"
		}
	case opt.Y == metric.NsPerOp:
	case s.param == "size":
		has := true
		for _, i := range s.members {
			b := &r.Benchmarks[i]
			if _, ok := b.Metrics[metric.BytesPerSec]; !ok && b.Error == "" && len(b.Runs) > 0 {
				has = false
			}
		}
		if has {
			name, unit, ylabel = metric.BytesPerSec, "bytes/s", "throughput"
		}
	}
	lp := scanLines(s, unit, ylabel, opt)
	index := map[string]int{}
	for _, i := range s.members {
		b := &r.Benchmarks[i]
		key := otherParams(b.Name, s.param)
		li, ok := index[key]
		if !ok {
			li = len(lp.lines)
			index[key] = li
			n := key
			if n == "" {
				n = s.block
			}
			lp.lines = append(lp.lines, lineSeries{name: n, color: li})
			lp.legend = append(lp.legend, legendEntry{name: n, color: seriesColor(li), line: true})
		}
		x, _ := paramNumber(b.Params, s.param)
		lp.lines[li].points = append(lp.lines[li].points, summaryPoint(b, name, x))
	}
	for i := range lp.lines {
		sortPoints(lp.lines[i].points)
	}
	return lp
}

func summaryPoint(b *results.Benchmark, name string, x float64) linePoint {
	pt := linePoint{x: x, y: math.NaN(), low: math.NaN(), high: math.NaN()}
	if s, ok := summary(b, name); ok {
		pt.y = s.Median
		if len(b.Runs) > 1 {
			pt.low, pt.high = s.Interval.Low, s.Interval.High
		}
	}
	return pt
}

func sortPoints(pts []linePoint) {
	slices.SortStableFunc(pts, func(a, b linePoint) int {
		switch {
		case a.x < b.x:
			return -1
		case a.x > b.x:
			return 1
		}
		return 0
	})
}
