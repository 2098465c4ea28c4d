package report

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// linePanel is a line chart of a parameter scan: x is the swept
// parameter, y a figure per instance with its interval as an error bar,
// one line per series (another parameter's value, or a result).
type linePanel struct {
	panelHead
	xlabel, ylabel string
	xformat        func(float64) string // a swept value: "64 B", "16"
	yunit          string
	axis           string // ChartOptions.Axis, for y
	lines          []lineSeries
	// xlinear keeps x linear however far it spans: run numbers, not sizes.
	xlinear bool
}

// scanLines starts the line panel of a scan: x is its swept parameter,
// y the figure in unit; the lines are the caller's.
func scanLines(s scan, unit, ylabel string, opt ChartOptions) *linePanel {
	return &linePanel{
		panelHead: panelHead{title: s.block},
		xlabel:    s.param,
		ylabel:    ylabel,
		xformat:   sweptFormat(s.param),
		yunit:     unit,
		axis:      opt.Axis,
	}
}

type lineSeries struct {
	name   string
	color  int // index into seriesColors
	points []linePoint
}

// linePoint is one instance; a NaN y leaves a gap in the line. A hollow
// point marks a figure not significantly different from the first
// result's.
type linePoint struct {
	x, y, low, high float64
	hollow          bool
}

func (l *linePanel) height() vg.Length { return l.panelHead.height() + linePanelH }

func (l *linePanel) xs() []float64 {
	var xs []float64
	for _, s := range l.lines {
		for _, pt := range s.points {
			if !slices.Contains(xs, pt.x) {
				xs = append(xs, pt.x)
			}
		}
	}
	slices.Sort(xs)
	return xs
}

func (l *linePanel) yRange(log bool) (lo, hi float64) {
	var span axisSpan
	for _, s := range l.lines {
		for _, pt := range s.points {
			span.add(log, pt.y, pt.low, pt.high)
		}
	}
	return span.bounds()
}

func (l *linePanel) draw(c draw.Canvas) {
	c = l.panelHead.draw(c)
	p := newPlot()
	xlabel, ylabel := l.xlabel, l.ylabel

	xs := l.xs()
	xlog := !l.xlinear && len(xs) > 1 && xs[0] > 0 && xs[len(xs)-1]/xs[0] >= 10
	if xlog {
		xlabel = logScaleNote(l.xlabel)
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = xs[0]/1.3, xs[len(xs)-1]*1.3
	} else if len(xs) > 0 {
		pad := math.Max((xs[len(xs)-1]-xs[0])*0.05, math.Abs(xs[0])*0.05+1e-9)
		p.X.Min, p.X.Max = xs[0]-pad, xs[len(xs)-1]+pad
	}
	xt := fitTicks{log: xlog, style: p.X.Tick.Label, at: xs, format: l.xformat}

	lo, hi := l.yRange(true)
	ylog := axisScale(l.axis, lo, hi, 50) == "log"
	if !ylog {
		lo, hi = l.yRange(false)
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1, 10
	}
	if ylog {
		ylabel = logScaleNote(l.ylabel)
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
	} else {
		p.Y.Min, p.Y.Max = math.Min(0, lo), hi*1.08
		if p.Y.Max <= p.Y.Min {
			p.Y.Max = p.Y.Min + 1
		}
	}
	yt := fitTicks{log: ylog, unit: l.yunit, style: p.Y.Tick.Label, vertical: true}
	p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt

	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = gridColor, gridColor
	p.Add(grid, &linePlot{panel: l, xlog: xlog, ylog: ylog})

	// gonum centres a y title on the arithmetic middle of the range, far
	// up a log axis, and pads the plot for it: it is drawn here instead.
	sty := p.Y.Label.TextStyle
	sty.Rotation, sty.XAlign, sty.YAlign = math.Pi/2, draw.XCenter, draw.YTop
	c.Min.X += sty.Height(ylabel) + 4
	c, drawTitle := xTitle(c, xlabel)
	dc := p.DataCanvas(c)
	c.FillText(sty, vg.Point{X: c.Min.X - sty.Height(ylabel) - 4, Y: (dc.Min.Y + dc.Max.Y) / 2}, ylabel)
	xt.length, yt.length = dc.Max.X-dc.Min.X, dc.Max.Y-dc.Min.Y
	p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
	drawTitle(p.DataCanvas(c))
	p.Draw(c)
}

// linePlot draws a linePanel's lines, points and error bars.
type linePlot struct {
	panel      *linePanel
	xlog, ylog bool
}

// Plot implements plot.Plotter.
func (lp *linePlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, s := range lp.panel.lines {
		clr := seriesColor(s.color)
		style := draw.LineStyle{Color: clr, Width: 1.8}
		whisker := draw.LineStyle{Color: clr, Width: 0.9}
		var run []vg.Point
		flush := func() {
			if len(run) > 1 {
				c.StrokeLines(style, c.ClipLinesXY(run)...)
			}
			run = run[:0]
		}
		for _, pt := range s.points {
			if !drawable(pt.y, lp.ylog) || !drawable(pt.x, lp.xlog) {
				flush()
				continue
			}
			run = append(run, vg.Point{X: trX(pt.x), Y: trY(pt.y)})
		}
		flush()
		for _, pt := range s.points {
			if !drawable(pt.y, lp.ylog) || !drawable(pt.x, lp.xlog) {
				continue
			}
			x := trX(pt.x)
			if drawable(pt.low, lp.ylog) && drawable(pt.high, lp.ylog) && pt.high > pt.low {
				lo, hi := trY(math.Max(pt.low, p.Y.Min)), trY(math.Min(pt.high, p.Y.Max))
				c.StrokeLine2(whisker, x, lo, x, hi)
				c.StrokeLine2(whisker, x-3, lo, x+3, lo)
				c.StrokeLine2(whisker, x-3, hi, x+3, hi)
			}
			at := vg.Point{X: x, Y: trY(pt.y)}
			if pt.hollow {
				c.DrawGlyph(draw.GlyphStyle{Color: color.White, Radius: 3, Shape: draw.CircleGlyph{}}, at)
				c.DrawGlyph(draw.GlyphStyle{Color: clr, Radius: 3, Shape: draw.RingGlyph{}}, at)
				continue
			}
			c.DrawGlyph(draw.GlyphStyle{Color: clr, Radius: 2.6, Shape: draw.CircleGlyph{}}, at)
		}
	}
}
