package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// HTML renders a result as one self-contained page: the environment, the
// classic table, the charts inline as SVG, the assertions with their
// verdicts, the warnings, and per benchmark its runs and their
// distribution. It loads nothing: no fonts, scripts or images from
// elsewhere.
//
// Its tables are the Markdown table's, in units and digits: the same
// columns (TimeUnit, Columns and the suite's settings choose them as they
// do the Markdown's), with min … max added, and each table of runs scaled
// by column the same way.
type HTML struct {
	Chart    ChartOptions
	TimeUnit string   // "", "ns", "us", "ms" or "s"
	Columns  []string // empty for the suite's, or the defaults
	Metrics  metric.Catalog
}

// CompareHTML renders a comparison as one self-contained page: what
// differs between the environments, the table of ratios, the chart, the
// warnings, and per row the runs of every result. Each row's figures are
// in the unit the Markdown comparison writes that row in.
type CompareHTML struct {
	Chart    ChartOptions
	TimeUnit string
}

var (
	_ Reporter           = HTML{}
	_ ComparisonReporter = CompareHTML{}
)

// htmlPage is what the page template reads.
type htmlPage struct {
	Title       string
	Subtitle    string
	EnvHead     []string   // the results' labels, for a comparison
	Environment [][]string // a field's name, then its value in each result
	Notes       []string   // above the table
	Head        []string
	Rows        [][]htmlCell
	Chart       template.HTML
	Assertions  []htmlAssertion
	Blocks      []string // preformatted, such as the http summaries
	Warnings    []string
	Details     []htmlDetail
	Phases      template.HTML // the chart of every block's runs in order
}

type htmlAssertion struct {
	results.Assertion
	Figures string // "value 2.4 [2.35, 2.42] (95% bootstrap), expected >= 2"
}

func htmlAssertions(as []results.Assertion) []htmlAssertion {
	var out []htmlAssertion
	for _, a := range as {
		var buf bytes.Buffer
		writeAssertion(&buf, a)
		text := buf.String()
		if _, after, ok := strings.Cut(text, "  \n  "); ok {
			text = after
		}
		// writeAssertion escapes for Markdown; the template escapes for HTML.
		text = strings.NewReplacer(`\|`, "|", "&amp;", "&", "&lt;", "<").Replace(strings.TrimSpace(text))
		out = append(out, htmlAssertion{Assertion: a, Figures: text})
	}
	return out
}

type htmlCell struct {
	Text  string
	Class string // "num", "good", "bad", "same"
}

type htmlDetail struct {
	Name  string
	Head  []string
	Runs  [][]string
	Strip template.HTML
	// PhaseHead and PhaseRows are the per-phase table, warm-ups first, and
	// Stable how far the runs agree.
	PhaseHead []string
	PhaseRows [][]htmlCell
	Stable    string
}

// Report writes the page.
func (h HTML) Report(w io.Writer, r *results.Result) error {
	// The Markdown header, bold and escapes undone: the template escapes.
	sub := strings.Replace(header(r), "**", "", 2)
	sub = strings.NewReplacer(`\|`, "|", "&amp;", "&", "&lt;", "<").Replace(sub)
	p := htmlPage{Title: suiteTitle(r.Suite), Subtitle: sub, Environment: environment(r.Environment),
		Assertions: htmlAssertions(r.Assertions), Warnings: r.Warnings}
	opt := Options{TimeUnit: timeUnit(h.TimeUnit, r), Metrics: h.Metrics, plain: true}
	cols, err := tableColumns(r.Benchmarks, h.columns(r), opt)
	if err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	for _, c := range cols {
		p.Head = append(p.Head, c.head)
	}
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		var row []htmlCell
		for _, c := range cols {
			cell := htmlCell{Text: c.cells[i]}
			switch {
			case strings.HasPrefix(cell.Text, "error: "):
				cell.Class = "bad"
			case !c.left:
				cell.Class = "num"
			}
			row = append(row, cell)
		}
		p.Rows = append(p.Rows, row)
		if b.Op == "http" {
			var buf bytes.Buffer
			if err := writeHTTPBlock(&buf, b); err == nil {
				var lines []string
				for _, l := range strings.Split(buf.String(), "\n") {
					if !strings.HasPrefix(l, "```") { // the Markdown fence; the page has <pre>
						lines = append(lines, l)
					}
				}
				p.Blocks = append(p.Blocks, strings.ReplaceAll(strings.Join(lines, "\n"), "**", ""))
			}
		}
		d := runDetail(b, opt)
		phaseDetail(b, &d)
		p.Details = append(p.Details, d)
	}
	if note := spreadNote(r.Benchmarks); note != "" {
		p.Notes = append(p.Notes, note)
	}
	if lines := MatrixSummary(r); len(lines) > 0 {
		p.Blocks = append([]string{"Summary\n" + strings.Join(lines, "\n")}, p.Blocks...)
	}
	chart, err := inlineSVG(func(w io.Writer) error { return SVG{Chart: h.Chart}.Report(w, r) })
	if err != nil {
		return err
	}
	p.Chart = chart
	if panels := phasePanels(r, h.Chart); len(panels) > 0 {
		chart, err := inlineSVG(func(w io.Writer) error { return writeFigure(w, &figure{panels: panels}, false) })
		if err != nil {
			return err
		}
		p.Phases = chart
	}
	return writePage(w, &p)
}

// columns are the columns of the page's table: those h asks for, else
// the suite's, else the defaults with min … max beside ±.
func (h HTML) columns(r *results.Result) []string {
	if keys := (Markdown{Columns: h.Columns}).columns(r); len(keys) > 0 {
		return keys
	}
	keys := defaultColumns(r.Benchmarks)
	if !slices.Contains(keys, "range") {
		i := slices.Index(keys, "±") + 1
		keys = slices.Insert(keys, i, "range")
	}
	return keys
}

// Report writes the page.
func (h CompareHTML) Report(w io.Writer, c *results.Comparison) error {
	p := htmlPage{Title: c.Title, Subtitle: comparisonTitle(c), Warnings: c.Warnings}
	if len(c.Environments) == len(c.Labels) {
		p.EnvHead = append([]string{""}, c.Labels...)
		p.Environment = environment(c.Environments...)
	}
	p.Notes = append(p.Notes, introSentence(c))
	if note := tooFewNote(c); note != "" {
		p.Notes = append(p.Notes, note)
	}
	p.Notes = append(p.Notes, summarySentences(c)...)
	untestable, _ := untestableRuns(c)
	if len(c.Differences) > 0 {
		p.Notes = append(p.Notes, "Environments differ: "+strings.Join(c.Differences, "; ")+". Differences may come from the machines, not only the code.")
	}
	p.Head = append([]string{"Name"}, columnHeads(c)...)
	for _, l := range c.Labels[1:] {
		p.Head = append(p.Head, l+" vs "+c.Labels[0])
	}
	for _, row := range c.Rows {
		cells := []htmlCell{{Text: row.Label}}
		figure := rowFigure(c, row, forcedTimeUnit(c, h.TimeUnit))
		for _, cell := range row.Cells {
			switch {
			case cell != nil && cell.Error != "":
				cells = append(cells, htmlCell{Text: cell.Error, Class: "bad"})
			default:
				cells = append(cells, htmlCell{Text: unescapeMarkdown(cellText(cell, figure)), Class: "num"})
			}
		}
		for _, d := range row.Deltas {
			class := "same"
			if word := deltaMark(c, d); strings.HasSuffix(word, "slower") || strings.HasSuffix(word, "worse") {
				class = "bad"
			} else if strings.HasSuffix(word, "faster") || strings.HasSuffix(word, "better") {
				class = "good"
			}
			cells = append(cells, htmlCell{Text: deltaCell(c, d, untestable), Class: class})
		}
		p.Rows = append(p.Rows, cells)
		det := htmlDetail{Name: row.Label, Head: []string{"Result", "Runs (" + c.Metric + ")"}}
		var all []float64
		for _, cell := range row.Cells {
			if cell != nil {
				all = append(all, cell.Runs...)
			}
		}
		var strips []string
		for i, cell := range row.Cells {
			if cell == nil || cell.Error != "" {
				continue
			}
			figs := make([]string, len(cell.Runs))
			for k, v := range cell.Runs {
				figs[k] = figure(v)
			}
			det.Runs = append(det.Runs, []string{c.Labels[i], strings.Join(figs, ", ")})
			strips = append(strips, stripSVG(cell.Runs, cell.Median, all, i))
		}
		det.Strip = template.HTML(strings.Join(strips, "\n"))
		p.Details = append(p.Details, det)
	}
	chart, err := inlineSVG(func(w io.Writer) error { return CompareSVG{Chart: h.Chart}.Report(w, c) })
	if err != nil {
		return err
	}
	p.Chart = chart
	return writePage(w, &p)
}

// environment is one row per field that any of es knows: its name, then
// its value in each.
func environment(es ...results.Environment) [][]string {
	fields := []struct {
		name string
		get  func(results.Environment) string
	}{
		{"Host", func(e results.Environment) string { return e.Hostname }},
		{"OS", func(e results.Environment) string { return strings.TrimSpace(e.OS + " " + e.Kernel) }},
		{"Arch", func(e results.Environment) string { return e.Arch }},
		{"CPU", func(e results.Environment) string { return e.CPUModel }},
		{"CPUs", func(e results.Environment) string { return strconv.Itoa(e.CPUCount) }},
		{"Memory", func(e results.Environment) string {
			if e.MemoryBytes <= 0 {
				return ""
			}
			return humanBytes(float64(e.MemoryBytes))
		}},
		{"GOMAXPROCS", func(e results.Environment) string { return strconv.Itoa(e.GOMAXPROCS) }},
		{"Go", func(e results.Environment) string { return e.GoVersion }},
		{"specrun", func(e results.Environment) string { return e.SpecrunVersion }},
		{"Governor", func(e results.Environment) string { return e.Governor }},
		{"VM", func(e results.Environment) string { return e.VM }},
		{"Servers", func(e results.Environment) string {
			var vs []string
			for _, name := range slices.Sorted(maps.Keys(e.Servers)) {
				vs = append(vs, name+": "+e.Servers[name])
			}
			return strings.Join(vs, "; ")
		}},
	}
	var out [][]string
	for _, f := range fields {
		row, known := []string{f.name}, false
		for _, e := range es {
			v := f.get(e)
			if v == "0" {
				v = ""
			}
			known = known || v != ""
			row = append(row, v)
		}
		if known {
			out = append(out, row)
		}
	}
	return out
}

// runDetail is a benchmark's runs and a strip of their distribution,
// each column of the table of runs in one unit, as the result's table
// scales its columns.
func runDetail(b *results.Benchmark, opt Options) htmlDetail {
	d := htmlDetail{Name: b.RowLabel() + " (" + b.Name + ")", Head: []string{"Run", "Iterations"}}
	var names []string
	for _, run := range b.Runs {
		for k := range run.Metrics {
			if !slices.Contains(names, k) && !specrunHeap(b, k) {
				names = append(names, k)
			}
		}
	}
	slices.Sort(names)
	// Each run as a benchmark of its own, so that the table's columns scale them.
	runs := make([]results.Benchmark, len(b.Runs))
	var vals []float64
	for i, run := range b.Runs {
		one := results.Benchmark{Name: b.Name, Op: b.Op, Iterations: run.Iterations, Runs: []results.Run{run},
			NsPerOp: results.Summary{Median: run.NsPerOp}, Metrics: map[string]results.Summary{}}
		for k, v := range run.Metrics {
			one.Metrics[k] = results.Summary{Median: v}
		}
		runs[i] = one
		vals = append(vals, run.NsPerOp)
	}
	cols, err := tableColumns(runs, append([]string{"total", "time"}, names...), opt)
	if err != nil {
		cols = nil // cannot happen: every name is a metric of the runs
	}
	for _, c := range cols {
		d.Head = append(d.Head, c.head)
	}
	for i, run := range b.Runs {
		row := []string{strconv.Itoa(i + 1), strconv.FormatInt(run.Iterations, 10)}
		for _, c := range cols {
			row = append(row, c.cells[i])
		}
		d.Runs = append(d.Runs, row)
	}
	if len(vals) > 0 {
		d.Strip = template.HTML(stripSVG(vals, b.NsPerOp.Median, vals, 0))
	}
	return d
}

// stripSVG draws runs as dots on a line from the smallest to the largest
// of scale, with the median as a bar: the distribution at a glance.
func stripSVG(runs []float64, median float64, scale []float64, color int) string {
	const w, h, pad = 480.0, 22.0, 8.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range scale {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 0) {
		return ""
	}
	x := func(v float64) float64 {
		if hi == lo {
			return w / 2
		}
		return pad + (w-2*pad)*(v-lo)/(hi-lo)
	}
	c := seriesColor(color)
	fill := fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="strip" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img">`, w, h, w, h)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ccc"/>`, pad, h/2, w-pad, h/2)
	for _, v := range runs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s" fill-opacity="0.7"/>`, x(v), h/2, fill)
		}
	}
	if !math.IsNaN(median) && !math.IsInf(median, 0) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="3" x2="%.1f" y2="%.1f" stroke="#202020" stroke-width="2"/>`, x(median), x(median), h-3)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// inlineSVG renders a chart for a page: the SVG element without its XML
// prolog.
func inlineSVG(render func(io.Writer) error) (template.HTML, error) {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return "", err
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s), nil // gonum's vgsvg escapes every text it writes
}

// clean writes every control character from a result as its visible
// escape, as the other formats do.
func (p *htmlPage) clean() {
	p.Title, p.Subtitle = oneLine(p.Title), oneLine(p.Subtitle)
	each := func(ss []string) {
		for i := range ss {
			ss[i] = printable(ss[i])
		}
	}
	each(p.Notes)
	each(p.Head)
	each(p.Blocks)
	each(p.Warnings)
	each(p.EnvHead)
	for _, row := range p.Environment {
		each(row)
	}
	for _, row := range p.Rows {
		for i := range row {
			row[i].Text = printable(row[i].Text)
		}
	}
	for i := range p.Assertions {
		a := &p.Assertions[i]
		a.Name, a.Description, a.Figures = printable(a.Name), printable(a.Description), printable(a.Figures)
	}
	for i := range p.Details {
		d := &p.Details[i]
		d.Name, d.Stable = printable(d.Name), printable(d.Stable)
		each(d.Head)
		for _, r := range d.Runs {
			each(r)
		}
		each(d.PhaseHead)
		for _, row := range d.PhaseRows {
			for i := range row {
				row[i].Text = printable(row[i].Text)
			}
		}
	}
}

func writePage(w io.Writer, p *htmlPage) error {
	p.clean()
	if err := pageTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	return nil
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: 'Liberation Sans', Arial, Helvetica, sans-serif; color: #202020; margin: 2em auto; max-width: 60em; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: 0.25em 0.75em; border-bottom: 1px solid #e4e4e4; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.good { color: #00734d; } .bad { color: #b23c00; } .same { color: #555; }
.pass, .fail, .error, .inconclusive, .skip { font-weight: bold; }
.pass { color: #00734d; } .fail { color: #b23c00; } .error { color: #b23c00; } .inconclusive { color: #8a6d00; } .skip { color: #555; font-style: italic; }
.chart svg { max-width: 100%; height: auto; }
pre { background: #f6f6f6; padding: 0.75em; overflow-x: auto; }
details { margin: 0.5em 0; } summary { cursor: pointer; }
.note { color: #555; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>{{.Subtitle}}</p>
{{if .Environment}}<h2>Environment</h2>
<table>{{if .EnvHead}}<thead><tr>{{range .EnvHead}}<th>{{.}}</th>{{end}}</tr></thead>{{end}}
{{range .Environment}}<tr>{{range $i, $v := .}}{{if eq $i 0}}<th>{{$v}}</th>{{else}}<td>{{$v}}</td>{{end}}{{end}}</tr>
{{end}}</table>{{end}}
<h2>Results</h2>
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}<table>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td class="{{.Class}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<div class="chart">{{.Chart}}</div>
{{if .Assertions}}<h2>Assertions</h2>
<ul>{{range .Assertions}}<li><span class="{{.Verdict}}">{{.Verdict}}</span> {{.Name}}{{if .Description}}: {{.Description}}{{end}}<br><span class="note">{{.Figures}}</span></li>
{{end}}</ul>{{end}}
{{range .Blocks}}<pre>{{.}}</pre>
{{end}}{{if .Warnings}}<h2>Warnings</h2>
<ul>{{range .Warnings}}<li>{{.}}</li>
{{end}}</ul>{{end}}
{{if .Phases}}<h2>Phases</h2>
<details><summary>Each block's runs in the order they ran, one line per instance</summary>
<div class="chart">{{.Phases}}</div>
</details>
{{end}}<h2>Runs</h2>
{{range .Details}}<details><summary>{{.Name}}</summary>
{{.Strip}}
{{if .PhaseRows}}<table class="phases"><thead><tr>{{range .PhaseHead}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .PhaseRows}}<tr>{{range .}}<td class="{{.Class}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{end}}{{if .Stable}}<p class="note">{{.Stable}}</p>
{{end}}<table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Runs}}<tr>{{range .}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>
</details>
{{end}}</body>
</html>
`))
