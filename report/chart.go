package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// ChartOptions say how charts are drawn. The zero value chooses everything
// from the data.
type ChartOptions struct {
	// Kind is "auto" (or ""): a benchmark whose matrix sweeps a number
	// gets a line chart and the others share a bar chart; "bars": every
	// benchmark is a bar; "lines": as auto, also for sweeps of two values.
	Kind string
	// Axis is the value axis' scale: "auto" (or ""), "linear" or "log".
	// auto takes log when the figures span more than a factor of 50.
	Axis string
	// Y is the metric a result's line charts plot: "auto" (or "") takes
	// throughput (bytes_per_sec) for a size scan whose instances have it
	// and time per op otherwise; or a metric's name, such as ns_per_op,
	// ops_per_sec or an op's own. A comparison plots what it compares.
	Y string
}

// ChartKinds and AxisScales are the values ChartOptions take.
var (
	ChartKinds = []string{"auto", "bars", "lines"}
	AxisScales = []string{"auto", "linear", "log"}
)

// Check reports a Kind or Axis that is not one of ChartKinds or AxisScales.
func (o ChartOptions) Check() error {
	if !oneOf(o.Kind, ChartKinds) {
		return fmt.Errorf("unknown chart kind %q (want one of %s)", o.Kind, strings.Join(ChartKinds, ", "))
	}
	if !oneOf(o.Axis, AxisScales) {
		return fmt.Errorf("unknown axis scale %q (want one of %s)", o.Axis, strings.Join(AxisScales, ", "))
	}
	return nil
}

func oneOf(s string, set []string) bool {
	if s == "" {
		return true
	}
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}

// Chart geometry, in points: a 600pt wide SVG is 800px wide.
const (
	chartWidth    = 600
	chartMargin   = 8
	barHeight     = 13 // per bar
	rowGap        = 7  // between rows
	linePanelH    = 250
	maxLabelShare = 0.36 // of the width, for row labels
	maxLabelLines = 3
)

// seriesColors are distinguishable in colour and in grey (Okabe-Ito).
var seriesColors = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // green
	{0xCC, 0x79, 0xA7, 0xff}, // pink
	{0x56, 0xB4, 0xE9, 0xff}, // sky
	{0xD5, 0x5E, 0x00, 0xff}, // vermilion
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

func seriesColor(i int) color.RGBA { return seriesColors[i%len(seriesColors)] }

var (
	inkColor   = color.RGBA{0x20, 0x20, 0x20, 0xff}
	faintColor = color.RGBA{0x70, 0x70, 0x70, 0xff}
	gridColor  = color.RGBA{0xe4, 0xe4, 0xe4, 0xff}
)

// textStyle is the charts' sans text at size points.
func textStyle(size vg.Length, clr color.Color) text.Style {
	f := font.From(plot.DefaultFont, size)
	f.Variant = "Sans"
	return text.Style{Color: clr, Font: f, Handler: linedText{text.Plain{Fonts: font.DefaultCache}}, XAlign: draw.XLeft, YAlign: draw.YBottom}
}

// linedText is gonum's plain text with lines a font's height apart, as its
// measure of a text's height assumes; Plain sets them the font's size
// apart, which lets a descender touch the next line's capitals.
type linedText struct{ text.Plain }

// Draw implements text.Handler.
func (h linedText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if txt == "" {
		return
	}
	face := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	ext := face.Extents()
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin, cos := math.Sincos(sty.Rotation)
	pt.X, pt.Y = pt.Y*vg.Length(sin)+pt.X*vg.Length(cos), pt.Y*vg.Length(cos)-pt.X*vg.Length(sin)
	top := pt.Y + sty.Height(txt)*vg.Length(sty.YAlign) + sty.Height(txt)
	for i, line := range h.Lines(txt) {
		x := pt.X + vg.Length(sty.XAlign)*face.Width(line)
		c.FillString(face, vg.Point{X: x, Y: top - ext.Ascent - vg.Length(i)*ext.Height}, line)
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}

var (
	titleStyle  = textStyle(13, inkColor)
	headStyle   = textStyle(11, inkColor)
	labelStyle  = textStyle(10, inkColor)
	figureStyle = textStyle(9, inkColor)
	noteStyle   = textStyle(9, faintColor)
)

// A panel is one chart of a figure: a bar chart or a line chart, drawn in
// the full width, with its own heading and legend.
type panel interface {
	// height is what the panel needs of the page.
	height() vg.Length
	draw(c draw.Canvas)
}

// figure is what one SVG or PNG holds: a title, then its panels one above
// the other.
type figure struct {
	title  string
	panels []panel
}

func (f *figure) titleLines() string { return wrap(f.title, titleStyle, chartWidth-2*chartMargin, 3) }

func (f *figure) height() vg.Length {
	h := vg.Length(2 * chartMargin)
	if f.title != "" {
		h += titleStyle.Height(f.titleLines()) + 8
	}
	for _, p := range f.panels {
		h += p.height()
	}
	return h
}

// draw draws the figure on a canvas of chartWidth by f.height().
func (f *figure) draw(vc vg.CanvasSizer) {
	c := draw.New(vc)
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, chartMargin, -chartMargin, chartMargin, -chartMargin)
	top := c.Max.Y
	if f.title != "" {
		lines := f.titleLines()
		sty := titleStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: c.Center().X, Y: top}, lines)
		top -= titleStyle.Height(lines) + 8
	}
	for _, p := range f.panels {
		h := p.height()
		pc := c
		pc.Max.Y, pc.Min.Y = top, top-h
		p.draw(pc)
		top -= h
	}
}

// writeFigure renders f as SVG, or as PNG at twice the SVG's pixel size.
func writeFigure(w io.Writer, f *figure, png bool) error {
	if len(f.panels) == 0 {
		return fmt.Errorf("draw chart: no benchmarks to draw")
	}
	h := f.height()
	if png {
		canvas := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(chartWidth, h), vgimg.UseDPI(192))}
		f.draw(canvas)
		if _, err := canvas.WriteTo(w); err != nil {
			return fmt.Errorf("write png: %w", err)
		}
		return nil
	}
	canvas := vgsvg.New(chartWidth, h)
	f.draw(canvas)
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	// The layout is measured with Liberation Sans; Arial and Helvetica have
	// its metrics, so a viewer without it still fits every label.
	out := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

// panelHead is a panel's heading and legend, drawn across its top; legend
// entries flow left to right and wrap to further lines.
type panelHead struct {
	title  string
	legend []legendEntry
}

type legendEntry struct {
	name  string
	color color.Color
	line  bool // a line with a dot, not a square
}

const (
	swatchSize = 9
	legendGap  = 14
)

func (h panelHead) titleText() string { return wrap(h.title, headStyle, chartWidth-2*chartMargin, 2) }

// legendRows lays the legend out: each row is a list of entries with their
// x offsets.
func (h panelHead) legendRows() [][]legendPlace {
	var rows [][]legendPlace
	var row []legendPlace
	x := vg.Length(0)
	width := vg.Length(chartWidth - 2*chartMargin)
	for _, e := range h.legend {
		name := abbreviate(e.name, labelStyle, width-swatchSize-4)
		w := swatchSize + 4 + labelStyle.Width(name)
		if x > 0 && x+w > width {
			rows = append(rows, row)
			row, x = nil, 0
		}
		row = append(row, legendPlace{entry: e, name: name, x: x})
		x += w + legendGap
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return rows
}

type legendPlace struct {
	entry legendEntry
	name  string
	x     vg.Length
}

func (h panelHead) lineHeight() vg.Length { return labelStyle.Height("Xg") + 4 }

func (h panelHead) height() vg.Length {
	var y vg.Length
	if h.title != "" {
		y += headStyle.Height(h.titleText()) + 6
	}
	if n := len(h.legendRows()); n > 0 && len(h.legend) > 1 {
		y += vg.Length(n)*h.lineHeight() + 4
	}
	return y
}

// draw draws the head across the top of c and returns what is left below.
func (h panelHead) draw(c draw.Canvas) draw.Canvas {
	top := c.Max.Y
	if h.title != "" {
		t := h.titleText()
		sty := headStyle
		sty.YAlign = draw.YTop
		c.FillText(sty, vg.Point{X: c.Min.X, Y: top}, t)
		top -= headStyle.Height(t) + 6
	}
	if len(h.legend) > 1 {
		for _, row := range h.legendRows() {
			mid := top - h.lineHeight()/2
			for _, p := range row {
				x := c.Min.X + p.x
				drawSwatch(c, p.entry, x, mid)
				sty := labelStyle
				sty.YAlign = draw.YCenter
				c.FillText(sty, vg.Point{X: x + swatchSize + 4, Y: mid}, p.name)
			}
			top -= h.lineHeight()
		}
		top -= 4
	}
	c.Max.Y = top
	return c
}

func drawSwatch(c draw.Canvas, e legendEntry, x, mid vg.Length) {
	if e.line {
		c.StrokeLine2(draw.LineStyle{Color: e.color, Width: 2}, x, mid, x+swatchSize, mid)
		c.DrawGlyph(draw.GlyphStyle{Color: e.color, Radius: 2.5, Shape: draw.CircleGlyph{}}, vg.Point{X: x + swatchSize/2, Y: mid})
		return
	}
	c.FillPolygon(e.color, []vg.Point{{X: x, Y: mid - swatchSize/2}, {X: x + swatchSize, Y: mid - swatchSize/2},
		{X: x + swatchSize, Y: mid + swatchSize/2}, {X: x, Y: mid + swatchSize/2}})
}

// newPlot is a gonum plot in the charts' style: sans text, light grid
// lines drawn by the caller's plotters, no title or legend of its own.
func newPlot() *plot.Plot {
	p := plot.New()
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = labelStyle
		a.Tick.Label = textStyle(9, inkColor)
		a.Color = faintColor
		a.Tick.Color = faintColor
		a.Label.Padding = 4
	}
	p.X.Label.TextStyle.XAlign = draw.XCenter
	p.Y.Label.TextStyle.XAlign = draw.XCenter
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
	p.Y.Tick.Label.XAlign, p.Y.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.BackgroundColor = nil
	return p
}

// wrap breaks s into at most maxLines lines no wider than width, at spaces
// or after '/', '_', '-' and ',' where it can and anywhere where it must;
// what does not fit ends in "…".
//
// Every text from a result reaches a chart through wrap or abbreviate,
// which keep it on one line and its control characters visible.
func wrap(s string, sty text.Style, width vg.Length, maxLines int) string {
	s = strings.Join(strings.Fields(oneLine(s)), " ")
	if sty.Width(s) <= width {
		return s
	}
	var lines []string
	rest := s
	for len(rest) > 0 && len(lines) < maxLines {
		if len(lines) == maxLines-1 {
			lines = append(lines, abbreviate(rest, sty, width))
			break
		}
		cut := breakAt(rest, sty, width)
		lines = append(lines, strings.TrimRight(rest[:cut], " "))
		rest = strings.TrimLeft(rest[cut:], " ")
	}
	return strings.Join(lines, "\n")
}

// breakAt is the length of the longest prefix of s that fits width and
// ends at a break opportunity, or of the longest prefix that fits.
func breakAt(s string, sty text.Style, width vg.Length) int {
	// Widths grow with the prefix: search for the longest that fits.
	ends := runeEnds(s)
	fit := func(end int) bool { return sty.Width(strings.TrimRight(s[:end], " ")) <= width }
	lo, hi := 0, len(ends) // ends[:lo] fit, ends[hi:] do not
	for lo < hi {
		mid := (lo + hi) / 2
		if fit(ends[mid]) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return ends[0] // not even one rune fits: take it anyway
	}
	lastFit := ends[lo-1]
	if lastFit == len(s) {
		return lastFit
	}
	for i := lastFit; i > 0; i-- {
		if c := s[i-1]; c == ' ' || c == '/' || c == '_' || c == '-' || c == ',' {
			return i
		}
	}
	return lastFit
}

// runeEnds are the byte offsets at which each rune of s ends.
func runeEnds(s string) []int {
	var ends []int
	for i, r := range s {
		ends = append(ends, i+utf8.RuneLen(r))
	}
	return ends
}

// abbreviate shortens s with "…" until it fits width.
func abbreviate(s string, sty text.Style, width vg.Length) string {
	s = oneLine(s)
	if sty.Width(s) <= width {
		return s
	}
	ends := runeEnds(s)
	cut := func(n int) string { return strings.TrimRight(s[:ends[n-1]], " ") + "…" }
	lo, hi := 1, len(ends) // cut(lo-1) fits (or lo is 1), cut(hi) does not
	for lo < hi {
		mid := (lo + hi) / 2
		if sty.Width(cut(mid)) <= width {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo-1 < 1 {
		return "…"
	}
	return cut(lo - 1)
}

// valueScale is how a unit's figures are written: a divisor and the
// suffix that goes with it.
type valueScale struct {
	div    float64
	suffix string
}

// scaleFor picks the unit prefix for figures of unit around ref: time in
// ns..s, sizes and rates of bytes in 1024-based units, other figures with
// SI prefixes (the unit itself stays in the axis title).
func scaleFor(unit string, ref float64) valueScale {
	ref = math.Abs(ref)
	pick := func(steps []valueScale) valueScale {
		for _, s := range steps {
			if ref >= s.div {
				return s
			}
		}
		return steps[len(steps)-1]
	}
	switch unit {
	case "ns":
		return pick([]valueScale{{1e9, " s"}, {1e6, " ms"}, {1e3, " µs"}, {1, " ns"}})
	case "bytes", "bytes/s":
		per := ""
		if unit == "bytes/s" {
			per = "/s"
		}
		var steps []valueScale
		for i, u := range []string{"TiB", "GiB", "MiB", "KiB", "B"} {
			steps = append(steps, valueScale{math.Pow(1024, float64(4-i)), " " + u + per})
		}
		return pick(steps)
	}
	return pick([]valueScale{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}})
}

// formatFigure writes v in unit with three significant digits: "28.9 ns",
// "123 µs", "1.5 GiB/s", "62.9k".
func formatFigure(unit string, v float64) string {
	s := scaleFor(unit, v)
	return trimZeros(fmt.Sprintf("%.3g", v/s.div)) + s.suffix
}

// formatTick writes a tick value in a scale chosen for the whole axis:
// "0", "20 ms", "2.5 ms".
func formatTick(s valueScale, v float64) string {
	if v == 0 {
		return "0"
	}
	x := v / s.div
	return strconv.FormatFloat(roundTo(x, 6), 'f', -1, 64) + s.suffix
}

// roundTo rounds x to digits significant digits, dropping the float noise
// of tick arithmetic (0.30000000000000004).
func roundTo(x float64, digits int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	return f
}

// unitName is how an axis title names a metric's unit.
func unitName(unit string) string {
	switch unit {
	case "ns":
		return "time"
	case "bytes":
		return "size"
	case "bytes/s":
		return "throughput"
	}
	return unit
}

// logScaleNote adds "(log scale)" to the first line of an axis title.
func logScaleNote(title string) string {
	first, rest, more := strings.Cut(title, "\n")
	if more {
		rest = "\n" + rest
	}
	return first + " (log scale)" + rest
}

// xTitle reserves room for an x axis title under c and returns the
// canvas left for the plot and a function that draws the title centred
// under the plot's data area (kept on the page). gonum centres it on the
// arithmetic middle of the range, which on a log axis is far from the
// middle, and pads the plot for it: the panels draw their own.
func xTitle(c draw.Canvas, title string) (draw.Canvas, func(dc draw.Canvas)) {
	sty := labelStyle
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
	h := sty.Height(title) + 4
	bottom := c.Min.Y
	c.Min.Y += h
	page := c
	return c, func(dc draw.Canvas) {
		w := sty.Width(title)
		x := (dc.Min.X + dc.Max.X) / 2
		x = max(min(x, page.Max.X-w/2), page.Min.X+w/2)
		page.FillText(sty, vg.Point{X: x, Y: bottom}, title)
	}
}
