package report

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/specrun/specrun/results"
)

// tiger is a stored result with five measured benchmarks (one with a
// single run, some with op metrics) and one that failed.
func tiger(t *testing.T) *results.Result {
	t.Helper()
	r, err := results.ReadFile("../results/testdata/result-tiger.json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func render(t *testing.T, rep Reporter, r *results.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.Report(&buf, r); err != nil {
		t.Fatalf("%T.Report: %v", rep, err)
	}
	return buf.Bytes()
}

func TestFormatGolden(t *testing.T) {
	for _, name := range Formats() {
		if name == "png" || name == "hyperfine-json" {
			continue // TestPNG: the pixels are not worth a golden file; TestHyperfineGolden reads exec benchmarks
		}
		t.Run(name, func(t *testing.T) {
			rep, ext, err := Format(name, testMetrics)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "report-tiger"+ext, render(t, rep, results.ByTime(tiger(t))))
		})
	}
	if _, _, err := Format("pdf", nil); err == nil || !strings.Contains(err.Error(), "md, term, json, csv, svg, png, html, gobench, hyperfine-json") {
		t.Errorf("Format(pdf) = %v, want an error listing the formats", err)
	}
	if _, err := ComparisonFormat("gobench"); err == nil || !strings.Contains(err.Error(), "md, term, json, csv, svg, png, html)") {
		t.Errorf("ComparisonFormat(gobench) = %v, want an error listing the comparison formats", err)
	}
}

// Both --format helps come from the one table.
func TestFormatHelp(t *testing.T) {
	for _, tc := range []struct {
		comparison bool
		names      []string
	}{{false, Formats()}, {true, ComparisonFormats()}} {
		help := FormatHelp(tc.comparison)
		for _, name := range tc.names {
			if !strings.Contains(help, name+" (") {
				t.Errorf("FormatHelp(%v) = %q lacks %s", tc.comparison, help, name)
			}
		}
		if strings.Contains(help, "gobench") == tc.comparison {
			t.Errorf("FormatHelp(%v) = %q: gobench has no comparison", tc.comparison, help)
		}
	}
}

// The CSV is RFC 4180 that encoding/csv reads back to the same figures.
func TestCSVParsesBack(t *testing.T) {
	r := tiger(t)
	rows, err := csv.NewReader(bytes.NewReader(render(t, CSV{}, r))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+len(r.Benchmarks) {
		t.Fatalf("%d rows, want a header and %d", len(rows), len(r.Benchmarks))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"name", "label", "op", "iterations", "runs", "median_ns_per_op", "high_ns_per_op", "confidence_ns_per_op", "error", "median_requests_per_sec"} {
		if _, ok := col[h]; !ok {
			t.Errorf("header %v lacks %q", rows[0], h)
		}
	}
	for i, b := range r.Benchmarks {
		row := rows[i+1]
		if row[col["name"]] != b.Name || row[col["error"]] != b.Error {
			t.Errorf("row %d = %v, want %s", i+1, row, b.Name)
		}
		if b.Error != "" {
			if row[col["median_ns_per_op"]] != "" {
				t.Errorf("failed benchmark %s has a median %q", b.Name, row[col["median_ns_per_op"]])
			}
			continue
		}
		if got, err := strconv.ParseFloat(row[col["median_ns_per_op"]], 64); err != nil || got != b.NsPerOp.Median {
			t.Errorf("%s median = %q, want %v", b.Name, row[col["median_ns_per_op"]], b.NsPerOp.Median)
		}
	}
}

// svgBars counts the filled paths of each series colour in an SVG chart,
// after checking that the document is well-formed XML.
func svgBars(t *testing.T, svg []byte) map[string]int {
	t.Helper()
	bars := map[string]int{}
	colors := map[string]bool{}
	for _, c := range seriesColors {
		colors[fmt.Sprintf("fill:#%02x%02x%02x", c.R, c.G, c.B)] = true
	}
	d := xml.NewDecoder(bytes.NewReader(svg))
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root == "" {
			root = se.Name.Local
		}
		if se.Name.Local != "path" {
			continue
		}
		for _, a := range se.Attr {
			if a.Name.Local != "style" {
				continue
			}
			for _, decl := range strings.Split(a.Value, ";") {
				if decl = strings.ToLower(decl); colors[decl] {
					bars[decl]++
				}
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element is %q, want svg", root)
	}
	return bars
}

func TestSVGOneBarPerBenchmark(t *testing.T) {
	r := tiger(t)
	out := render(t, SVG{}, r)
	measured := 0
	for _, b := range r.Benchmarks {
		if b.Error == "" && len(b.Runs) > 0 {
			measured++
		}
	}
	bars := svgBars(t, out)
	if len(bars) != 1 {
		t.Fatalf("bars by colour = %v, want one colour", bars)
	}
	for _, n := range bars {
		if n != measured {
			t.Errorf("%d bars, want %d (one per measured benchmark)", n, measured)
		}
	}
	for _, b := range r.Benchmarks {
		if !bytes.Contains(out, []byte(b.Label)) {
			t.Errorf("chart lacks the row label %q", b.Label)
		}
	}
	if again := render(t, SVG{}, r); !bytes.Equal(out, again) {
		t.Errorf("two renderings of the same result differ")
	}
}

// benchstat's parser reads the gobench output: one result per run, the
// configuration lines, every metric as a unit, and nothing it rejects.
func TestGoBenchParses(t *testing.T) {
	r := tiger(t)
	out := render(t, GoBench{Metrics: testMetrics}, r)
	br := benchfmt.NewReader(bytes.NewReader(out), "tiger.txt")
	type key struct{ name string }
	got := map[string][]float64{}
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		case *benchfmt.Result:
			name := "Benchmark" + string(rec.Name.Full())
			if _, ok := rec.Value("sec/op"); !ok {
				t.Errorf("%s: no sec/op value in %v", name, rec.Values)
			}
			for _, v := range rec.Values {
				if v.OrigUnit == "ns/op" {
					got[name] = append(got[name], v.OrigValue) // as written, before benchfmt's scaling
				}
			}
			if len(rec.Config) != 1 || rec.GetConfig("pkg") != "specrun/"+r.Suite.Name {
				t.Errorf("%s: configuration %v, want only pkg: the environment splits benchstat's tables", name, rec.Config)
			}
			if name == "BenchmarkMemcpy/size=16B" {
				if _, ok := rec.Value("allocs/op"); !ok {
					t.Errorf("%s: no allocs/op in %v", name, rec.Values)
				}
				if _, ok := rec.Value("B/op"); !ok {
					t.Errorf("%s: no B/op in %v", name, rec.Values)
				}
			}
			if name == "BenchmarkHttpGet" {
				if _, ok := rec.Value("requests/sec"); !ok {
					t.Errorf("%s: no requests/sec in %v", name, rec.Values)
				}
			}
		}
	}
	if err := br.Err(); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"# goarch: amd64", "# label: tiger", "# cpu: " + r.Environment.CPUModel, "# gomaxprocs: 2"} {
		if !bytes.Contains(out, []byte("\n"+line+"\n")) && !bytes.HasPrefix(out, []byte(line+"\n")) {
			t.Errorf("no line %q in\n%s", line, out)
		}
	}
	for _, b := range r.Benchmarks {
		runs := got[GoBenchName(b.Name)]
		if len(runs) != len(b.Runs) {
			t.Errorf("%s: %d results, want one per run (%d)", b.Name, len(runs), len(b.Runs))
			continue
		}
		for i, ns := range runs {
			if ns != b.Runs[i].NsPerOp {
				t.Errorf("%s run %d: %v ns/op, want %v", b.Name, i+1, ns, b.Runs[i].NsPerOp)
			}
		}
	}
}

func TestGoBenchName(t *testing.T) {
	for in, want := range map[string]string{
		"memcpy/size=16B":                  "BenchmarkMemcpy/size=16B",
		"func_value_call":                  "BenchmarkFuncValueCall",
		"file_write/size=16MB/atomic=true": "BenchmarkFileWrite/size=16MB/atomic=true",
		"exec/cmd=sleep 0":                 "BenchmarkExec/cmd=sleep_0",
		"call.reflect":                     "BenchmarkCallReflect",
	} {
		if got := GoBenchName(in); got != want {
			t.Errorf("GoBenchName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"bytes_per_op":     "B/op",
		"allocs_per_op":    "allocs/op",
		"requests_per_sec": "requests/sec",
		"max_rss_bytes":    "max-rss-B",
		"user_ns":          "user-ns",
	} {
		if got := goBenchUnit(in); got != want {
			t.Errorf("goBenchUnit(%q) = %q, want %q", in, got, want)
		}
	}
}

// synthetic returns a result whose instance name has one run per ns/op value.
func synthetic(runs map[string][]float64) *results.Result {
	r := &results.Result{Schema: results.Schema}
	for name, nss := range runs {
		b := results.Benchmark{Name: name, Benchmark: name, Op: "noop", Iterations: 1000}
		for _, ns := range nss {
			b.Runs = append(b.Runs, results.Run{Iterations: 1000, TotalNs: int64(ns * 1000), NsPerOp: ns})
		}
		r.Benchmarks = append(r.Benchmarks, b)
	}
	return r
}

// Figures at the ends of float64's range still give a finite chart.
func TestSVGExtremeFigures(t *testing.T) {
	r := synthetic(map[string][]float64{"denormal": {5e-324}, "small": {1e-300}, "large": {1e299}, "huge": {1e308}})
	for i := range r.Benchmarks {
		r.Benchmarks[i].NsPerOp.Median = r.Benchmarks[i].Runs[0].NsPerOp
	}
	done := make(chan []byte)
	go func() { done <- render(t, SVG{}, results.ByTime(r)) }()
	select {
	case out := <-done:
		if bars := svgBars(t, out); bars["fill:#0072b2"] != 2 {
			t.Errorf("bars = %v, want 2 (outside 1e-300..1e300 cannot be drawn)", bars)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("rendering extreme figures did not finish")
	}
}

// gobench writes every figure as exactly as the result holds it, so that
// benchstat's U test sees the runs specrun compare sees (rounded runs tie).
func TestGoBenchKeepsEveryDigit(t *testing.T) {
	want := []float64{28.912345678, 28.912345679, 0.0001234567, 1234567.891, 3e-9, 4.5e22}
	var nss []float64
	r := synthetic(map[string][]float64{"a": want})
	out := render(t, GoBench{}, r)
	br := benchfmt.NewReader(bytes.NewReader(out), "digits.txt")
	for br.Scan() {
		if rec, ok := br.Result().(*benchfmt.Result); ok {
			for _, v := range rec.Values {
				if v.OrigUnit == "ns/op" {
					nss = append(nss, v.OrigValue)
				}
			}
		}
	}
	if !slices.Equal(nss, want) {
		t.Errorf("read back %v, want %v:\n%s", nss, want, out)
	}
}

// The CSV has a column per matrix parameter, named by it, with the value
// as the instance's name writes it and empty where an instance lacks it.
func TestCSVMatrixColumns(t *testing.T) {
	r := &results.Result{Schema: results.Schema}
	for _, b := range []struct{ name, block string }{
		{"scan/size=16B/fsync=true", "scan"},
		{"scan/size=1KB/fsync=false", "scan"},
		{"plain", "plain"},
		{"start/cmd=/usr/bin/env true", "start"},
		{"tagged/label=a/b/size=2MB", "tagged"},
	} {
		r.Benchmarks = append(r.Benchmarks, results.Benchmark{Name: b.name, Benchmark: b.block, Op: "noop"})
	}
	rows, err := csv.NewReader(bytes.NewReader(render(t, CSV{}, r))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"name", "label", "op", "size", "fsync", "cmd", "matrix_label", "iterations"}; !slices.Equal(rows[0][:len(want)], want) {
		t.Errorf("header %v, want it to start %v", rows[0], want)
	}
	want := [][]string{
		{"16B", "true", "", ""},
		{"1KB", "false", "", ""},
		{"", "", "", ""},
		{"", "", "/usr/bin/env true", ""},
		{"2MB", "", "", "a/b"},
	}
	for i, w := range want {
		if got := rows[i+1][3:7]; !slices.Equal(got, w) {
			t.Errorf("%s: matrix columns %q, want %q", r.Benchmarks[i].Name, got, w)
		}
	}
}
