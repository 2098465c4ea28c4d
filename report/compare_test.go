package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// testMetrics declares op metrics as the op catalog does for the http op.
var testMetrics = metric.Catalog(func(op string) []metric.Metric {
	if op != "http" {
		return nil
	}
	return []metric.Metric{
		{Name: "requests_per_sec", Unit: "requests/s", HigherIsBetter: true},
		{Name: "failed_requests", Unit: "count"},
		{Name: "max_rss_bytes", Unit: "bytes"},
	}
})

func leopard(t *testing.T) *results.Result {
	t.Helper()
	r, err := results.ReadFile("../results/testdata/result-leopard.json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCompareGolden(t *testing.T) {
	c, err := results.Compare([]*results.Result{tiger(t), leopard(t)}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		ext   string
		write func(*bytes.Buffer) error
	}{
		{".md", func(b *bytes.Buffer) error { return CompareMarkdown{}.Report(b, c) }},
		{".csv", func(b *bytes.Buffer) error { return CompareCSV{}.Report(b, c) }},
		{".json", func(b *bytes.Buffer) error { return CompareJSON{}.Report(b, c) }},
		{".svg", func(b *bytes.Buffer) error { return CompareSVG{}.Report(b, c) }},
		{".html", func(b *bytes.Buffer) error { return CompareHTML{}.Report(b, c) }},
	} {
		var buf bytes.Buffer
		if err := f.write(&buf); err != nil {
			t.Fatalf("write %s: %v", f.ext, err)
		}
		golden(t, "compare-tiger-leopard"+f.ext, buf.Bytes())
	}

	c, err = results.Compare([]*results.Result{tiger(t), leopard(t)}, results.CompareOptions{Metric: "requests_per_sec", Metrics: testMetrics})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := (CompareMarkdown{}).Report(&buf, c); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare-requests.md", buf.Bytes())

	c, err = results.Compare([]*results.Result{tiger(t), leopard(t)}, results.CompareOptions{Metric: "max_rss_bytes", Metrics: testMetrics})
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := (CompareMarkdown{}).Report(&buf, c); err != nil {
		t.Fatal(err)
	}
	if want := "| GET / (build A) | 30.0 MiB | 40.0 MiB | 1.33× (+33%) |"; !strings.Contains(buf.String(), want) {
		t.Errorf("max_rss_bytes comparison lacks %q:\n%s", want, buf.String())
	}
}

func TestCompareMarkdown(t *testing.T) {
	c, err := results.Compare([]*results.Result{tiger(t), leopard(t)}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	CompareMarkdown{}.Report(&md, c)
	for _, want := range []string{"Environments differ", "- leopard: other processes kept 1.72 CPUs busy", "N/A", "| — |", "2.00× slower", "~ ", "?"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "| 0.00×") {
		t.Errorf("a ratio that cannot be computed printed as 0:\n%s", md.String())
	}
}

func TestCompareFormatsParse(t *testing.T) {
	c, err := results.Compare([]*results.Result{tiger(t), leopard(t), leopard(t)}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := (CompareCSV{}).Report(&b, c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 1+len(c.Rows) {
		t.Fatalf("CSV: %d records, err %v", len(recs), err)
	}
	b.Reset()
	if err := (CompareJSON{}).Report(&b, c); err != nil {
		t.Fatal(err)
	}
	var back results.Comparison
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back.Rows) != len(c.Rows) {
		t.Fatalf("JSON does not read back: %v", err)
	}
	b.Reset()
	if err := (CompareSVG{}).Report(&b, c); err != nil {
		t.Fatal(err)
	}
	bars := svgBars(t, b.Bytes())
	if len(bars) != 3 {
		t.Errorf("SVG has bars in %d colours, want one per result: %v", len(bars), bars)
	}
}

// A ratio below 1 that is faster reads as people say it, and a small
// spread keeps its digits.
func TestCompareWording(t *testing.T) {
	c := &results.Comparison{Metric: "ns_per_op", Better: "lower", Unit: "ns"}
	for _, d := range []struct {
		ratio float64
		want  string
	}{{0.34, "2.94× faster (p=0.002)"}, {2.5, "2.50× slower (p=0.002)"}} {
		r := d.ratio
		if got := deltaText(c, results.Delta{Ratio: &r, P: 0.002, Significant: true}); got != d.want {
			t.Errorf("ratio %v reads %q, want %q", r, got, d.want)
		}
	}
	cell := &results.CompareCell{Median: 1000, Runs: []float64{995, 1000, 1000, 1000, 1000, 1004.7},
		Interval: results.Interval{Low: 995, High: 1004.4, Confidence: 0.96, Kind: results.MedianCI}}
	if got := cellText(cell, rowFigure(c, results.CompareRow{Cells: []*results.CompareCell{cell}}, "")); got != "1.00 µs ±0.47%" {
		t.Errorf("cell reads %q, want 1.00 µs ±0.47%%", got)
	}
}

// With three runs a result no row can be significant: the table says so
// once, with the runs that would be needed, instead of a column of "?".
func TestCompareTooFewRunsSaidOnce(t *testing.T) {
	if got := runsNeeded(0.05); got != 4 {
		t.Errorf("runs needed at α = 0.05: %d, want 4 (2/C(8,4) = 0.029)", got)
	}
	if got := minP(3, 3); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("smallest p with 3 and 3 runs: %v, want 0.1", got)
	}
	cell := func(v float64) *results.CompareCell {
		return &results.CompareCell{Median: v, Runs: []float64{v - 1, v, v + 1}}
	}
	r1, r2 := 0.5, 1.5
	warn := []string{"need >= 4 samples to detect a difference at alpha level 0.05"}
	c := &results.Comparison{Metric: "ns_per_op", Better: "lower", Unit: "ns", Alpha: 0.05, Labels: []string{"A", "B"},
		Rows: []results.CompareRow{
			{Label: "x", Cells: []*results.CompareCell{cell(100), cell(50)}, Deltas: []results.Delta{{Ratio: &r1, P: 0.1, Warnings: warn}}},
			{Label: "y", Cells: []*results.CompareCell{cell(100), cell(150)}, Deltas: []results.Delta{{Ratio: &r2, P: 0.1, Warnings: warn}}},
		}}
	want := "with 3 runs per result, the smallest p the Mann-Whitney U test can give is 0.100, above α = 0.05. 4 runs per result would be needed"
	for _, rep := range []ComparisonReporter{CompareMarkdown{}, CompareTerminal{}, CompareHTML{}} {
		var buf bytes.Buffer
		if err := rep.Report(&buf, c); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Contains(out, "×?") || strings.Contains(out, "× ?") {
			t.Errorf("%T: a column of ? where no row can be tested:\n%s", rep, out)
		}
		if strings.Count(out, want) != 1 {
			t.Errorf("%T: the table does not say once %q:\n%s", rep, want, out)
		}
	}
	var buf bytes.Buffer
	// One testable row: the others keep their "?".
	c.Rows[0].Deltas[0].Warnings = nil
	buf.Reset()
	CompareMarkdown{}.Report(&buf, c)
	if !strings.Contains(buf.String(), "1.50× ?") || strings.Contains(buf.String(), "would be needed") {
		t.Errorf("with one testable row the untestable one keeps its ?:\n%s", buf.String())
	}
}
