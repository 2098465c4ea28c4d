package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
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
	if want := "| GET / (build A) | 30.0 MiB | 40.0 MiB | 1.33× ? |"; !strings.Contains(buf.String(), want) {
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
