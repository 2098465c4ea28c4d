package report

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// barPanel is a horizontal bar chart: one row per benchmark, top to bottom
// in the table's order, and in each row one bar per series, each with its
// interval as an error bar and its figure (and a note, such as a ratio and
// its significance) at its end.
type barPanel struct {
	panelHead
	xlabel string
	unit   string // of the values: "ns", "bytes", "bytes/s" or another
	axis   string // ChartOptions.Axis
	rows   []string
	series []barSeries

	wrapped []string // rows, wrapped; set on first use
}

type barSeries struct {
	name string
	bars []bar // one per row
}

// bar is one value; a NaN value draws no bar but the missing text, if any,
// where the bar would start.
type bar struct {
	value, low, high float64
	note             string
	missing          string
}

func noBar(why string) bar {
	return bar{value: math.NaN(), low: math.NaN(), high: math.NaN(), missing: why}
}

// maxDecade bounds a log axis to 1e-300..1e300, where powers of ten and
// their logarithms are still exact enough to place ticks.
const maxDecade = 300

// drawable reports whether a bar of v can be drawn on the scale.
func drawable(v float64, log bool) bool {
	if log {
		return v >= 1e-300 && v <= 1e300
	}
	return v >= -1e300 && v <= 1e300
}

func (b *barPanel) rowLabels() []string {
	if len(b.wrapped) != len(b.rows) {
		b.wrapped = make([]string, len(b.rows))
		for i, r := range b.rows {
			b.wrapped[i] = wrap(r, labelStyle, chartWidth*maxLabelShare, maxLabelLines)
		}
	}
	return b.wrapped
}

func (b *barPanel) rowHeight() vg.Length {
	lines := 1
	for _, l := range b.rowLabels() {
		lines = max(lines, len(labelStyle.Handler.Lines(l)))
	}
	bars := vg.Length(barHeight * max(len(b.series), 1))
	return max(bars, labelStyle.Height(strings.TrimSuffix(strings.Repeat("X\n", lines), "\n"))) + rowGap
}

func (b *barPanel) axisHeight() vg.Length {
	// Tick marks and labels, the title and gonum's paddings, generously:
	// what is left over only widens the gaps between rows.
	return figureStyle.Height("0") + labelStyle.Height(b.xlabel) + 30
}

func (b *barPanel) height() vg.Length {
	return b.panelHead.height() + b.rowHeight()*vg.Length(len(b.rows)) + b.axisHeight()
}

// valueRange is the smallest and largest figure the axis must show,
// interval ends included.
func (b *barPanel) valueRange(log bool) (lo, hi float64) {
	var span axisSpan
	for _, s := range b.series {
		for _, br := range s.bars {
			span.add(log, br.value, br.low, br.high)
		}
	}
	return span.bounds()
}

// axisSpan gathers the smallest and largest figures an axis can draw;
// with nothing drawable its bounds are +Inf and -Inf.
type axisSpan struct {
	lo, hi float64
	some   bool
}

func (a *axisSpan) add(log bool, vs ...float64) {
	for _, v := range vs {
		if !drawable(v, log) {
			continue
		}
		if !a.some {
			a.lo, a.hi, a.some = v, v, true
		}
		a.lo, a.hi = math.Min(a.lo, v), math.Max(a.hi, v)
	}
}

func (a *axisSpan) bounds() (lo, hi float64) {
	if !a.some {
		return math.Inf(1), math.Inf(-1)
	}
	return a.lo, a.hi
}

func (b *barPanel) draw(c draw.Canvas) {
	c = b.panelHead.draw(c)
	lo, hi := b.valueRange(true)
	log := axisScale(b.axis, lo, hi, 50) == "log"
	if !log {
		lo, hi = b.valueRange(false)
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1, 10 // nothing to draw: an empty axis still labels the rows
	}

	p := newPlot()
	title := b.xlabel
	if log {
		title = logScaleNote(b.xlabel)
		p.X.Scale = plot.LogScale{}
		// The shortest bar is at least about a third of a decade long.
		p.X.Min = math.Pow(10, math.Max(math.Floor(math.Log10(lo/3)), -maxDecade))
		p.X.Max = math.Min(hi*1.05, 1e300)
	} else {
		p.X.Min, p.X.Max = math.Min(0, lo), hi*1.04
		if p.X.Max <= p.X.Min {
			p.X.Max = p.X.Min + 1
		}
	}
	ticks := fitTicks{log: log, unit: b.unit, style: p.X.Tick.Label}
	p.X.Tick.Marker = ticks

	names := b.rowLabels()
	rev := make([]string, len(names))
	for i, n := range names {
		rev[len(names)-1-i] = n // row 0 at the top, as in the table
	}
	p.NominalY(rev...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(b.rows))-0.5
	p.Y.Padding = 0

	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	grid.Vertical.Color = gridColor
	p.Add(grid, &hbars{panel: b, log: log})

	// Measure the data area, then label the ticks for its real width.
	c, drawTitle := xTitle(c, title)
	dc := p.DataCanvas(c)
	ticks.length = dc.Max.X - dc.Min.X
	p.X.Tick.Marker = ticks
	drawTitle(p.DataCanvas(c))
	p.Draw(c)
}

// hbars draws the bars of a barPanel.
type hbars struct {
	panel *barPanel
	log   bool
}

var _ plot.GlyphBoxer = (*hbars)(nil)

// place is the vertical span of series si's bar in row.
func (h *hbars) place(row, si int) (y0, y1 float64) {
	n, k := len(h.panel.rows), float64(len(h.panel.series))
	band := float64(barHeight*len(h.panel.series)) / float64(h.panel.rowHeight())
	mid := float64(n - 1 - row)
	y1 = mid + band/2 - band*float64(si)/k
	return y1 - band/k, y1
}

// label is the text at the end of a bar, the x value it starts after, and
// whether it is a missing mark.
func (h *hbars) label(br bar, axisMin float64) (string, float64, bool) {
	if !drawable(br.value, h.log) {
		return br.missing, axisMin, true
	}
	s, end := formatFigure(h.panel.unit, br.value), math.Max(br.value, axisMin)
	if drawable(br.high, h.log) && br.high > end {
		end = br.high
	}
	if br.note != "" {
		s += " (" + br.note + ")"
	}
	return s, end, false
}

const labelPad = 3

// Plot implements plot.Plotter.
func (h *hbars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	whisker := draw.LineStyle{Color: inkColor, Width: 0.8}
	for si, s := range h.panel.series {
		clr := seriesColor(si)
		for row, br := range s.bars {
			if row >= len(h.panel.rows) {
				break
			}
			y0, y1 := h.place(row, si)
			ym := trY((y0 + y1) / 2)
			if drawable(br.value, h.log) {
				x0, x1 := trX(math.Max(p.X.Min, math.Min(0, br.value))), trX(math.Max(br.value, p.X.Min))
				if !h.log && br.value >= 0 {
					x0 = trX(math.Max(p.X.Min, 0))
				}
				c.FillPolygon(clr, []vg.Point{{X: x0, Y: trY(y0)}, {X: x1, Y: trY(y0)}, {X: x1, Y: trY(y1)}, {X: x0, Y: trY(y1)}})
				if drawable(br.low, h.log) && drawable(br.high, h.log) && br.high > br.low {
					lx, hx := trX(math.Max(br.low, p.X.Min)), trX(br.high)
					cap := (trY(y1) - trY(y0)) / 4
					c.StrokeLine2(whisker, lx, ym, hx, ym)
					c.StrokeLine2(whisker, lx, ym-cap, lx, ym+cap)
					c.StrokeLine2(whisker, hx, ym-cap, hx, ym+cap)
				}
			}
			text, at, missing := h.label(br, p.X.Min)
			if text == "" {
				continue
			}
			sty := figureStyle
			if missing {
				sty = noteStyle
			}
			sty.YAlign = draw.YCenter
			c.FillText(sty, vg.Point{X: trX(at) + labelPad, Y: ym}, text)
		}
	}
}

// GlyphBoxes implements plot.GlyphBoxer: the figures at the bars' ends,
// so that the plot leaves room for them on the right.
func (h *hbars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var boxes []plot.GlyphBox
	for si, s := range h.panel.series {
		for row, br := range s.bars {
			text, at, missing := h.label(br, p.X.Min)
			if text == "" || row >= len(h.panel.rows) {
				continue
			}
			sty := figureStyle
			if missing {
				sty = noteStyle
			}
			y0, y1 := h.place(row, si)
			w, ht := sty.Width(text), sty.Height(text)
			boxes = append(boxes, plot.GlyphBox{
				X: p.X.Norm(at), Y: p.Y.Norm((y0 + y1) / 2),
				Rectangle: vg.Rectangle{Min: vg.Point{X: labelPad, Y: -ht / 2}, Max: vg.Point{X: labelPad + w + 2, Y: ht / 2}},
			})
		}
	}
	return boxes
}
