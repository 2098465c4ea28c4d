package report

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"github.com/specrun/specrun/results"
)

// affine is a 2D transform: x' = a*x + c*y + e, y' = b*x + d*y + f.
type affine struct{ a, b, c, d, e, f float64 }

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

func (m affine) then(n affine) affine { // m applied after n: m∘n
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

// textBox is where one string was drawn, on the page.
type textBox struct {
	text                   string
	minX, minY, maxX, maxY float64
}

func (b textBox) String() string {
	return fmt.Sprintf("%q [%.1f,%.1f]-[%.1f,%.1f]", b.text, b.minX, b.minY, b.maxX, b.maxY)
}

func (b textBox) overlaps(o textBox) bool {
	const slack = 0.25 // points: glyph boxes of neighbouring lines may touch
	return b.minX < o.maxX-slack && o.minX < b.maxX-slack && b.minY < o.maxY-slack && o.minY < b.maxY-slack
}

// recorder is a canvas that keeps the box of every string drawn on it and
// of every coloured fill (bars, swatches), following the transforms the
// drawing code applies.
type recorder struct {
	w, h  vg.Length
	m     affine
	stack []affine
	color color.Color
	texts []textBox
	fills []textBox
}

func newRecorder(w, h vg.Length) *recorder {
	return &recorder{w: w, h: h, m: affine{a: 1, d: 1}}
}

func (r *recorder) Size() (vg.Length, vg.Length)       { return r.w, r.h }
func (r *recorder) SetLineWidth(vg.Length)             {}
func (r *recorder) SetLineDash([]vg.Length, vg.Length) {}
func (r *recorder) SetColor(c color.Color)             { r.color = c }
func (r *recorder) Rotate(rad float64) {
	s, c := math.Sincos(rad)
	r.m = r.m.then(affine{a: c, b: s, c: -s, d: c})
}
func (r *recorder) Translate(pt vg.Point) {
	r.m = r.m.then(affine{a: 1, d: 1, e: pt.X.Points(), f: pt.Y.Points()})
}
func (r *recorder) Scale(x, y float64)                  { r.m = r.m.then(affine{a: x, d: y}) }
func (r *recorder) Push()                               { r.stack = append(r.stack, r.m) }
func (r *recorder) Pop()                                { r.m, r.stack = r.stack[len(r.stack)-1], r.stack[:len(r.stack)-1] }
func (r *recorder) Stroke(vg.Path)                      {}
func (r *recorder) DrawImage(vg.Rectangle, image.Image) {}

func (r *recorder) box(text string, x0, y0, x1, y1 float64) textBox {
	b := textBox{text: text, minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
	for _, p := range [][2]float64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		x, y := r.m.apply(p[0], p[1])
		b.minX, b.maxX = math.Min(b.minX, x), math.Max(b.maxX, x)
		b.minY, b.maxY = math.Min(b.minY, y), math.Max(b.maxY, y)
	}
	return b
}

func (r *recorder) Fill(p vg.Path) {
	if c, ok := r.color.(color.RGBA); !ok || c == (color.RGBA{0xff, 0xff, 0xff, 0xff}) {
		return // the background
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range p {
		if c.Type == vg.MoveComp || c.Type == vg.LineComp {
			x0, x1 = math.Min(x0, c.Pos.X.Points()), math.Max(x1, c.Pos.X.Points())
			y0, y1 = math.Min(y0, c.Pos.Y.Points()), math.Max(y1, c.Pos.Y.Points())
		}
	}
	if !math.IsInf(x0, 0) {
		r.fills = append(r.fills, r.box("fill", x0, y0, x1, y1))
	}
}

func (r *recorder) FillString(f font.Face, pt vg.Point, text string) {
	e := f.Extents()
	x, y := pt.X.Points(), pt.Y.Points()
	r.texts = append(r.texts, r.box(text, x, y-e.Descent.Points(), x+f.Width(text).Points(), y+e.Ascent.Points()))
}

// layout draws f on a recorder and returns it.
func layout(f *figure) *recorder {
	rec := newRecorder(chartWidth, f.height())
	f.draw(rec)
	return rec
}

// checkLayout fails t for any two strings that overlap, a string that
// overlaps a bar, or one that leaves the page.
func checkLayout(t *testing.T, name string, rec *recorder) {
	t.Helper()
	w, h := rec.w.Points(), rec.h.Points()
	for i, a := range rec.texts {
		if a.minX < -0.5 || a.minY < -0.5 || a.maxX > w+0.5 || a.maxY > h+0.5 {
			t.Errorf("%s: %v leaves the %.0fx%.0f page", name, a, w, h)
		}
		for _, b := range rec.texts[i+1:] {
			if a.overlaps(b) {
				t.Errorf("%s: %v overlaps %v", name, a, b)
			}
		}
		for _, f := range rec.fills {
			if a.overlaps(f) {
				t.Errorf("%s: %v overlaps a bar or swatch at %v", name, a, f)
			}
		}
	}
}

// labelledResult returns a result of n benchmarks whose labels are all of the
// given length, with figures from 1 ns to about 10^(n-1) ns or, flat, all
// within a factor of 3.
func labelledResult(n, length int, flat bool) *results.Result {
	r := &results.Result{Schema: results.Schema, Suite: results.Suite{Name: "layout", Title: strings.Repeat("A long suite title ", length/10+1)}, Label: "host"}
	for i := range n {
		ns := math.Pow(10, float64(i))
		if flat {
			ns = 1e6 * (1 + 2*float64(i)/float64(max(n-1, 1)))
		}
		label := fmt.Sprintf("%d %s", i, strings.Repeat("wordy_label/", length/12+1))[:max(length, 2)]
		b := results.Benchmark{Name: fmt.Sprintf("b%d", i), Label: label, Op: "noop", Iterations: 1000}
		for k := range 5 {
			v := ns * (1 + 0.05*float64(k))
			b.Runs = append(b.Runs, results.Run{Iterations: 1000, TotalNs: int64(v * 1000), NsPerOp: v})
		}
		vals := make([]float64, len(b.Runs))
		for k, run := range b.Runs {
			vals[k] = run.NsPerOp
		}
		b.NsPerOp = results.Summarize(vals)
		r.Benchmarks = append(r.Benchmarks, b)
	}
	return r
}

// No text of any chart touches another, a bar, or the page's edge, for
// short to absurd row labels, few to many rows, and figures on one decade
// or on many.
func TestChartTextDoesNotOverlap(t *testing.T) {
	for _, n := range []int{1, 3, 12} {
		for _, length := range []int{3, 20, 45, 120} {
			for _, flat := range []bool{false, true} {
				for _, axis := range []string{"", "linear", "log"} {
					name := fmt.Sprintf("rows=%d/label=%d/flat=%v/axis=%q", n, length, flat, axis)
					r := labelledResult(n, length, flat)
					checkLayout(t, name+"/result", layout(resultFigure(r, ChartOptions{Axis: axis})))
					other := labelledResult(n, length, !flat)
					other.Label = strings.Repeat("other ", length/6+1)
					c, err := results.Compare([]*results.Result{r, other, r}, results.CompareOptions{})
					if err != nil {
						t.Fatal(err)
					}
					checkLayout(t, name+"/compare", layout(compareFigure(c, ChartOptions{Axis: axis})))
				}
			}
		}
	}
	for _, name := range []string{"before", "after"} {
		r := scanResult(t, name)
		checkLayout(t, "scan-"+name, layout(resultFigure(r, ChartOptions{})))
	}
	c, err := results.Compare([]*results.Result{scanResult(t, "before"), scanResult(t, "after")}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, "scan-compare", layout(compareFigure(c, ChartOptions{})))
	checkLayout(t, "tiger", layout(resultFigure(tiger(t), ChartOptions{})))
}

// The recorder sees what is drawn: an overlap is caught.
func TestCheckLayoutCatchesOverlap(t *testing.T) {
	rec := newRecorder(100, 100)
	f := figureStyle.Handler.Cache().Lookup(figureStyle.Font, figureStyle.Font.Size)
	rec.FillString(f, vg.Point{X: 10, Y: 10}, "10 ns")
	rec.FillString(f, vg.Point{X: 20, Y: 10}, "100 ns")
	if !rec.texts[0].overlaps(rec.texts[1]) {
		t.Errorf("%v and %v do not overlap", rec.texts[0], rec.texts[1])
	}
	rec.Push()
	rec.Translate(vg.Point{X: 50, Y: 50})
	rec.Rotate(math.Pi / 2)
	rec.FillString(f, vg.Point{}, "rotated")
	rec.Pop()
	if b := rec.texts[2]; !(b.maxX-b.minX < b.maxY-b.minY) || math.Abs(b.minY-50) > 1 {
		t.Errorf("rotated text box %v is not upright at y=50", b)
	}
}

func scanResult(t *testing.T, name string) *results.Result {
	t.Helper()
	r, err := results.ReadFile("testdata/result-scan-" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The value axis is linear unless the figures span more than 50×, and
// the setting wins.
func TestAxisScale(t *testing.T) {
	for _, tc := range []struct {
		setting string
		lo, hi  float64
		want    string
	}{
		{"", 22.6e6, 58e6, "linear"},
		{"", 1, 50, "linear"},
		{"", 1, 51, "log"},
		{"", 0.7, 359e6, "log"},
		{"log", 22.6e6, 58e6, "log"},
		{"linear", 0.7, 359e6, "linear"},
		{"log", 0, 10, "linear"},
	} {
		if got := axisScale(tc.setting, tc.lo, tc.hi, 50); got != tc.want {
			t.Errorf("axisScale(%q, %v, %v) = %s, want %s", tc.setting, tc.lo, tc.hi, got, tc.want)
		}
	}
}

// Tick labels fit the axis they are on: a short axis labels fewer ticks.
func TestTicksFitTheirAxis(t *testing.T) {
	for _, log := range []bool{false, true} {
		wide := fitTicks{log: log, unit: "ns", style: figureStyle, length: 500}.Ticks(1, 1e8)
		narrow := fitTicks{log: log, unit: "ns", style: figureStyle, length: 120}.Ticks(1, 1e8)
		if len(labelled(narrow)) >= len(labelled(wide)) || len(labelled(narrow)) < 2 {
			t.Errorf("log=%v: %d labels on 120pt, %d on 500pt; want fewer but at least 2 on the short axis",
				log, len(labelled(narrow)), len(labelled(wide)))
		}
	}
	ticks := fitTicks{unit: "ns", style: figureStyle, length: 400}.Ticks(0, 61e6)
	for _, tk := range labelled(ticks) {
		if tk.Value != 0 && !strings.HasSuffix(tk.Label, " ms") {
			t.Errorf("linear tick %v = %q, want one unit (ms) on the axis", tk.Value, tk.Label)
		}
	}
	ticks = fitTicks{unit: "bytes/s", style: figureStyle, length: 200, vertical: true}.Ticks(0, 60*(1<<30))
	for _, tk := range labelled(ticks) {
		if strings.Contains(tk.Label, ".") {
			t.Errorf("throughput tick %q: want round figures of GiB/s", tk.Label)
		}
	}
}

// Bars carry their interval as an error bar; the comparison marks each
// later result with its ratio and significance, as the table does.
func TestCompareChartMarks(t *testing.T) {
	c, err := results.Compare([]*results.Result{tiger(t), leopard(t)}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := (CompareSVG{}).Report(&buf, c); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	for _, want := range []string{
		"Performance Comparisons of Common Operations: leopard vs tiger",
		"(2.00× slower)", "(~ 1.00×)", "(1.33× ?)", "~ no significant difference",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("comparison chart lacks %q", want)
		}
	}
	if i, j := strings.Index(svg, ">tiger<"), strings.Index(svg, ">leopard<"); i < 0 || j < i {
		t.Errorf("legend reads leopard before tiger (or lacks one); want the table's order")
	}
}

// PNG draws the SVG's figure as an image at twice its pixel size.
func TestPNG(t *testing.T) {
	r := tiger(t)
	img, err := png.Decode(bytes.NewReader(render(t, PNG{}, r)))
	if err != nil {
		t.Fatal(err)
	}
	f := resultFigure(r, ChartOptions{})
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 2*800 || math.Abs(float64(h)-f.height().Points()*8/3) > 2 {
		t.Errorf("PNG is %dx%d px, want 1600 wide and %.0f high", w, h, f.height().Points()*8/3)
	}
	// Not blank: the bars' blue is there.
	blue := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 2 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 2 {
			if r, g, b, _ := img.At(x, y).RGBA(); r>>8 == 0x00 && g>>8 == 0x72 && b>>8 == 0xb2 {
				blue++
			}
		}
	}
	if blue < 1000 {
		t.Errorf("%d blue pixels sampled, want the bars", blue)
	}
}

// A size scan is a line chart of throughput against size; compared, one
// line per result; with --chart bars, the classic bars.
func TestScanGolden(t *testing.T) {
	before, after := scanResult(t, "before"), scanResult(t, "after")
	golden(t, "report-scan.svg", render(t, SVG{}, before))
	golden(t, "report-scan-bars.svg", render(t, SVG{Chart: ChartOptions{Kind: "bars"}}, before))
	c, err := results.Compare([]*results.Result{before, after}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := (CompareSVG{}).Report(&buf, c); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare-scan.svg", buf.Bytes())

	f := resultFigure(before, ChartOptions{})
	if len(f.panels) != 2 {
		t.Fatalf("%d panels, want a line chart each for memcpy and alloc", len(f.panels))
	}
	for _, p := range f.panels {
		lp, ok := p.(*linePanel)
		if !ok || lp.xlabel != "size" || lp.yunit != "bytes/s" || len(lp.lines) != 1 || len(lp.lines[0].points) != 5 {
			t.Errorf("panel %+v: want a line of 5 sizes against throughput", p)
		}
	}
	for y, unit := range map[string]string{"ns_per_op": "ns", "ops_per_sec": "ops/s", "auto": "bytes/s"} {
		f := resultFigure(before, ChartOptions{Y: y})
		if lp := f.panels[0].(*linePanel); lp.yunit != unit || math.IsNaN(lp.lines[0].points[0].y) {
			t.Errorf("Y %s: the line plots %s (first point %v), want %s", y, lp.yunit, lp.lines[0].points[0].y, unit)
		}
	}
	if f := resultFigure(before, ChartOptions{Kind: "bars"}); len(f.panels) != 1 || len(f.panels[0].(*barPanel).rows) != 10 {
		t.Errorf("--chart bars: want one bar chart of the 10 instances")
	}
}

// Scans are found by the parameter that varies; two values make a scan
// only when lines are asked for.
func TestFindScans(t *testing.T) {
	inst := func(name string, params map[string]any) instance {
		block, _, _ := strings.Cut(name, "/")
		return instance{block: block, name: name, params: params}
	}
	insts := []instance{
		inst("fw/size=1KB/atomic=false", map[string]any{"size": 1024.0, "atomic": false}),
		inst("fw/size=1KB/atomic=true", map[string]any{"size": 1024.0, "atomic": true}),
		inst("fw/size=1MB/atomic=false", map[string]any{"size": 1048576.0, "atomic": false}),
		inst("fw/size=1MB/atomic=true", map[string]any{"size": 1048576.0, "atomic": true}),
		inst("fw/size=1GB/atomic=false", map[string]any{"size": 1073741824.0, "atomic": false}),
		inst("call", nil),
		inst("pair/n=1", map[string]any{"n": 1.0}),
		inst("pair/n=2", map[string]any{"n": 2.0}),
	}
	got := findScans(insts, "")
	if len(got) != 1 || got[0].block != "fw" || got[0].param != "size" || len(got[0].members) != 5 {
		t.Errorf("findScans = %+v, want fw over size", got)
	}
	if got := findScans(insts, "lines"); len(got) != 2 || got[1].block != "pair" || got[1].param != "n" {
		t.Errorf("findScans(lines) = %+v, want fw and pair", got)
	}
	if got := findScans(insts, "bars"); got != nil {
		t.Errorf("findScans(bars) = %+v, want none", got)
	}
	if got := otherParams("fw/size=1KB/atomic=true", "size"); got != "atomic=true" {
		t.Errorf("otherParams = %q", got)
	}
}

// Long labels wrap at break opportunities, then anywhere, and what does
// not fit in the lines allowed ends in an ellipsis.
func TestWrap(t *testing.T) {
	const width = 120
	for _, tc := range []struct {
		in        string
		lines     int
		ellipsis  bool
		wantFirst string
	}{
		{"16 byte memcpy", 1, false, "16 byte memcpy"},
		{"Object alloc/init, GC release (NSObject alloc/init/release)", 3, false, "Object alloc/init, GC"},
		{strings.Repeat("x", 200), 3, true, ""},
		{strings.Repeat("word ", 60), 3, true, ""},
	} {
		got := wrap(tc.in, labelStyle, width, 3)
		lines := strings.Split(got, "\n")
		if len(lines) != tc.lines || strings.HasSuffix(got, "…") != tc.ellipsis || (tc.wantFirst != "" && lines[0] != tc.wantFirst) {
			t.Errorf("wrap(%q) = %q: want %d lines, ellipsis %v, first %q", tc.in, got, tc.lines, tc.ellipsis, tc.wantFirst)
		}
		for _, l := range lines {
			if w := labelStyle.Width(l); w > width {
				t.Errorf("wrap(%q): line %q is %v wide, over %v", tc.in, l, w, width)
			}
		}
	}
	if got := wrap("a\nb\x1b[2J", labelStyle, width, 3); strings.ContainsAny(got, "\n\x1b") {
		t.Errorf("wrap kept a newline or control character: %q", got)
	}
}
