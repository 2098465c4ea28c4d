package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/specrun/specrun/results"
)

// SVG renders a result as a horizontal bar chart of the median time per op
// on a log scale, one labelled row per benchmark in the result's order, the
// figure written at the end of each bar. It is sized for an 800px column.
type SVG struct{}

var _ Reporter = SVG{}

// Report writes the chart.
func (SVG) Report(w io.Writer, r *results.Result) error {
	rows := make([]string, len(r.Benchmarks))
	values := make([]float64, len(r.Benchmarks))
	for i, b := range r.Benchmarks {
		rows[i] = b.RowLabel()
		values[i] = math.NaN()
		if b.Error != "" {
			rows[i] += " (failed)"
		} else if len(b.Runs) > 0 {
			values[i] = b.NsPerOp.Median
		}
	}
	title := r.Suite.Title
	if title == "" {
		title = r.Suite.Name
	}
	if r.Label != "" {
		title += " — " + r.Label
	}
	return writeBarChart(w, chart{
		Title:  title,
		XLabel: "time per op (log scale)",
		Rows:   rows,
		Series: []chartSeries{{Name: r.Label, Values: values}},
		Format: humanNs,
	})
}

// chart is a horizontal bar chart with one group of bars per row and one
// bar per series in each group.
type chart struct {
	Title  string
	XLabel string
	Rows   []string
	Series []chartSeries
	Format func(float64) string // the figure at the end of a bar, and tick labels
}

// chartSeries is one result's values, one per row; NaN (or a value a log
// scale cannot show) leaves the row without a bar.
type chartSeries struct {
	Name   string
	Values []float64
}

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

// Chart geometry, in points (an 600pt wide SVG is 800px wide).
const (
	chartWidth  = 600
	barHeight   = 13 // per bar
	rowGap      = 7  // between rows
	chartChrome = 95 // title, axis, legend
)

// writeBarChart draws c as SVG to w.
func writeBarChart(w io.Writer, c chart) error {
	if len(c.Rows) == 0 {
		return fmt.Errorf("draw chart: no benchmarks to draw")
	}
	// XML cannot carry most control characters, and a label is one line.
	c.Title = oneLine(c.Title)
	c.Rows = slices.Clone(c.Rows)
	for i := range c.Rows {
		c.Rows[i] = oneLine(c.Rows[i])
	}
	c.Series = slices.Clone(c.Series)
	for i := range c.Series {
		c.Series[i].Name = oneLine(c.Series[i].Name)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, v := range s.Values {
			if drawable(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1, 10 // nothing to draw: an empty axis still labels the rows
	}

	p := plot.New()
	// Sans text reads better at blog width than the serif default.
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.X.Tick.Label.Font,
		&p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant = "Sans"
	}
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.X.Scale = plot.LogScale{}
	// Whole decades, with the shortest bar at least about a third of a decade
	// long so it can be seen, and room right of the longest for its figure.
	loE := math.Max(math.Floor(math.Log10(lo/3)), -maxDecade)
	hiE := math.Min(math.Ceil(math.Log10(hi*8)), maxDecade)
	p.X.Min, p.X.Max = math.Pow(10, loE), math.Pow(10, hiE)
	p.X.Tick.Marker = decadeTicks{format: c.Format}

	// Row 0 is drawn at the top, as in the table.
	names := make([]string, len(c.Rows))
	for i, r := range c.Rows {
		names[len(c.Rows)-1-i] = r
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(c.Rows))-0.5

	bars := &hbars{chart: c}
	p.Add(bars)
	if len(c.Series) > 1 {
		p.Legend.Top = true
		for i, s := range c.Series {
			p.Legend.Add(s.Name, swatch{seriesColors[i%len(seriesColors)]})
		}
	}

	rowHeight := vg.Length(barHeight*len(c.Series) + rowGap)
	height := rowHeight*vg.Length(len(c.Rows)) + chartChrome
	canvas := vgsvg.New(chartWidth, height)
	// A margin keeps the longest row label and the last figure off the edge.
	p.Draw(draw.Crop(draw.New(canvas), 6, -6, 4, -4))
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

// maxDecade bounds the axis to 1e-300..1e300, where powers of ten and
// their logarithms are still exact enough to place ticks.
const maxDecade = 300

// drawable reports whether v can be a bar on the log scale.
func drawable(v float64) bool { return v >= 1e-300 && v <= 1e300 }

// hbars draws the bars: each from the left edge of the axis to its value,
// the bars of a row stacked in series order, each labelled with its figure.
type hbars struct{ chart chart }

// Plot implements plot.Plotter.
func (h *hbars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	k := float64(len(h.chart.Series))
	band := float64(barHeight*len(h.chart.Series)) / float64(barHeight*len(h.chart.Series)+rowGap)
	label := p.X.Tick.Label
	label.XAlign, label.YAlign = draw.XLeft, draw.YCenter
	n := len(h.chart.Rows)
	for si, s := range h.chart.Series {
		clr := seriesColors[si%len(seriesColors)]
		for row, v := range s.Values {
			if row >= n || !drawable(v) {
				continue
			}
			mid := float64(n - 1 - row)
			y1 := mid + band/2 - band*float64(si)/k
			y0 := y1 - band/k
			x0, x1 := trX(p.X.Min), trX(v)
			c.FillPolygon(clr, []vg.Point{{X: x0, Y: trY(y0)}, {X: x1, Y: trY(y0)}, {X: x1, Y: trY(y1)}, {X: x0, Y: trY(y1)}})
			c.FillText(label, vg.Point{X: x1 + 3, Y: trY((y0 + y1) / 2)}, h.chart.Format(v))
		}
	}
}

// swatch is a legend entry: a filled square of the series' colour.
type swatch struct{ color color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.color, []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	})
}

// decadeTicks labels every power of ten and marks the steps between.
type decadeTicks struct{ format func(float64) string }

// Ticks implements plot.Ticker.
func (t decadeTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || math.IsInf(max, 0) || min > max {
		return nil
	}
	first, last := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	// Over a dozen decades, label every few so the labels do not collide
	// and leave out the minor ticks.
	step := math.Max(1, math.Ceil((last-first)/12))
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		d := math.Pow(10, e)
		if d >= min && d <= max {
			tick := plot.Tick{Value: d}
			if math.Mod(e-first, step) == 0 {
				tick.Label = t.format(d)
			}
			ticks = append(ticks, tick)
		}
		for m := 2.0; m < 10 && step == 1; m++ {
			if v := m * d; v >= min && v <= max {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}
