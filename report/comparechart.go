package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// CompareSVG draws a comparison as the table reads it: grouped horizontal
// bars, one group per row and one colour per result in the columns'
// order, each later result's bar marked with its ratio to the first and
// whether it is significant ("1.52× slower", "~ 1.01×", "1.3× ?"). A scan
// is a line chart with one line per result.
type CompareSVG struct{ Chart ChartOptions }

// ComparePNG draws CompareSVG's chart as a PNG image.
type ComparePNG struct{ Chart ChartOptions }

var (
	_ ComparisonReporter = CompareSVG{}
	_ ComparisonReporter = ComparePNG{}
)

// Report draws the chart.
func (s CompareSVG) Report(w io.Writer, c *results.Comparison) error {
	return writeFigure(w, compareFigure(c, s.Chart), false)
}

// Report draws the chart.
func (s ComparePNG) Report(w io.Writer, c *results.Comparison) error {
	return writeFigure(w, compareFigure(c, s.Chart), true)
}

// comparisonTitle reads as the table's ratio columns do: "leopard vs
// tiger", "B, C vs A".
func comparisonTitle(c *results.Comparison) string {
	if len(c.Labels) < 2 {
		return strings.Join(c.Labels, "")
	}
	return strings.Join(c.Labels[1:], ", ") + " vs " + c.Labels[0]
}

func compareFigure(c *results.Comparison, opt ChartOptions) *figure {
	f := &figure{title: comparisonTitle(c)}
	if c.Title != "" {
		f.title = c.Title + ": " + f.title
	}
	insts := make([]instance, len(c.Rows))
	for i, row := range c.Rows {
		insts[i] = instance{block: row.Benchmark, name: row.Name, params: row.Params}
	}
	scans := findScans(insts, opt.Kind)
	inScan := map[int]bool{}
	for _, s := range scans {
		for _, i := range s.members {
			inScan[i] = true
		}
	}
	unit, label := c.Unit, c.Metric
	if c.Metric == metric.NsPerOp {
		unit, label = "ns", "time per op"
		if c.Layout != nil && c.Layout.Per > 1 {
			label = "time of " + results.Number(c.Layout.Per) + " ops"
		}
	} else if c.Unit != "" {
		label = metricHeading(c) + " (" + c.Unit + ")"
	}
	bars := &barPanel{xlabel: label, unit: unit, axis: opt.Axis}
	for _, l := range columnHeads(c) {
		bars.series = append(bars.series, barSeries{name: l})
		bars.legend = append(bars.legend, legendEntry{name: l, color: seriesColor(len(bars.legend))})
	}
	marks := map[string]bool{}
	untestable, runs := untestableRuns(c)
	for ri, row := range c.Rows {
		if inScan[ri] {
			continue
		}
		bars.rows = append(bars.rows, row.Label)
		for i, cell := range row.Cells {
			br := cellBar(cell)
			if i > 0 && drawable(br.value, false) {
				br.note = deltaMark(c, row.Deltas[i-1])
				if untestable {
					br.note = ratioAlone(row.Deltas[i-1])
				}
				for _, m := range []string{"~", "?"} {
					marks[m] = marks[m] || strings.Contains(br.note, m)
				}
			}
			bars.series[i].bars = append(bars.series[i].bars, br)
		}
	}
	var key []string
	if marks["~"] {
		key = append(key, "~ no significant difference")
	}
	if marks["?"] {
		key = append(key, "? too few runs to test")
	}
	if untestable {
		key = append(key, fmt.Sprintf("no ratio can be significant with %s a column; %d would be needed", plural(runs, "run"), runsNeeded(c.Alpha)))
	}
	if len(key) > 0 {
		bars.xlabel += fmt.Sprintf("\n%s (Mann-Whitney U, α = %v)", strings.Join(key, ", "), c.Alpha)
	}
	if len(bars.rows) > 0 {
		f.panels = append(f.panels, bars)
	}
	for _, s := range scans {
		f.panels = append(f.panels, compareScanPanel(c, s, unit, label, opt))
	}
	return f
}

func cellBar(cell *results.CompareCell) bar {
	switch {
	case cell == nil:
		return noBar("—")
	case cell.Error != "":
		if strings.HasPrefix(cell.Error, "failed") {
			return noBar("failed")
		}
		return noBar("—")
	}
	br := bar{value: cell.Median, low: math.NaN(), high: math.NaN()}
	if len(cell.Runs) > 1 {
		br.low, br.high = cell.Interval.Low, cell.Interval.High
	}
	return br
}

// deltaMark is a later result's ratio as the table writes it, shorter:
// "1.52× slower", "~ 1.01×", "1.33× ?", "N/A".
func deltaMark(c *results.Comparison, d results.Delta) string {
	if d.Ratio == nil {
		return "N/A"
	}
	s := strconv.FormatFloat(*d.Ratio, 'f', 2, 64) + "×"
	switch {
	case len(d.Warnings) > 0:
		return s + " ?"
	case !d.Significant:
		return "~ " + s
	}
	if word := direction(c, *d.Ratio); word != "" {
		s += " " + word
	}
	return s
}

// compareScanPanel draws one scan across the results: one line per result
// (and per value of the other parameters).
func compareScanPanel(c *results.Comparison, s scan, unit, ylabel string, opt ChartOptions) panel {
	lp := scanLines(s, unit, ylabel, opt)
	index := map[string]int{}
	hollow := false
	for _, ri := range s.members {
		row := c.Rows[ri]
		x, _ := paramNumber(row.Params, s.param)
		other := otherParams(row.Name, s.param)
		for i, cell := range row.Cells {
			name := c.Labels[i]
			if other != "" {
				name += " " + other
			}
			li, ok := index[name]
			if !ok {
				li = len(lp.lines)
				index[name] = li
				lp.lines = append(lp.lines, lineSeries{name: name, color: li})
				lp.legend = append(lp.legend, legendEntry{name: name, color: seriesColor(li), line: true})
			}
			br := cellBar(cell)
			pt := linePoint{x: x, y: br.value, low: br.low, high: br.high}
			if i > 0 && drawable(br.value, false) {
				d := row.Deltas[i-1]
				pt.hollow = d.Ratio == nil || !d.Significant || len(d.Warnings) > 0
				hollow = hollow || pt.hollow
			}
			lp.lines[li].points = append(lp.lines[li].points, pt)
		}
	}
	if hollow {
		lp.xlabel += fmt.Sprintf("\nhollow: not significantly different from %s (Mann-Whitney U, α = %v)", c.Labels[0], c.Alpha)
	}
	for i := range lp.lines {
		sortPoints(lp.lines[i].points)
	}
	return lp
}
