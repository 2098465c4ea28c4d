package report

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/specrun/specrun/results"
)

// FuzzReport decodes two arbitrary results, judges an assertion that reads
// both (the second as the baseline), compares them, and renders each in every
// format and the comparison in every comparison format: odd but valid results
// (no runs, zero or huge figures, missing metrics, empty labels) give output
// or an error, never a panic, and a judged result still encodes.
func FuzzReport(f *testing.F) {
	var seeds [][]byte
	for _, name := range []string{"../results/testdata/result-tiger.json", "../results/testdata/result-leopard.json"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	seeds = append(seeds,
		[]byte(`{"schema":"specrun.results/v1","suite":{"name":"s"},"benchmarks":[{"name":"a","runs":[{"ns_per_op":0}]}]}`),
		[]byte(`{"schema":"specrun.results/v2","suite":{"name":"s"},"benchmarks":[{"name":"a","runs":[{"ns_per_op":1,"metrics":{"failed":0}},{"ns_per_op":2}]}]}`),
		[]byte(`{"schema":"specrun.results/v2","suite":{"name":"s"},"benchmarks":[{"name":"a","benchmark":"a","op":"http","warmups":[{"iterations":1,"ns_per_op":5,"metrics":{"requests_per_sec":3}}],`+
			`"runs":[{"iterations":2,"ns_per_op":1,"metrics":{"requests_per_sec":9,"server_max_rss_bytes":100}},{"ns_per_op":2,"metrics":{"requests_per_sec":0}}]}]}`))
	// The charts are slow to draw: a few pairs, not every one.
	for _, pair := range [][2]int{{0, 1}, {1, 0}, {2, 0}, {0, 3}, {2, 3}, {3, 3}, {4, 4}, {4, 0}} {
		f.Add(seeds[pair[0]], seeds[pair[1]])
	}
	f.Fuzz(func(t *testing.T, dataA, dataB []byte) {
		a, err := results.Decode(dataA)
		if err != nil {
			return
		}
		b, err := results.Decode(dataB)
		if err != nil {
			return
		}
		a.Assertions = results.Judge(expectations(a, b), a, b)
		if err := results.Encode(io.Discard, a); err != nil {
			t.Fatalf("a judged result does not encode: %v", err)
		}
		for _, r := range []*results.Result{a, b} {
			for _, name := range Formats() {
				rep, _, _ := Format(name, testMetrics)
				rep.Report(io.Discard, r)
			}
		}
		(Markdown{}).Report(io.Discard, results.ByTime(a))
		phases := Options{Phases: true, Metrics: testMetrics, Columns: []string{"name", "stable"}}
		for _, rep := range []Reporter{Markdown{Phases: true, Columns: phases.Columns}, Terminal{Options: phases}, SVG{Phases: true}} {
			rep.Report(io.Discard, a)
		}
		WriteAssertions(io.Discard, a.Assertions)
		for _, metric := range []string{"", "ops_per_sec", "requests_per_sec"} {
			c, err := results.Compare([]*results.Result{a, b}, results.CompareOptions{Metric: metric, Metrics: testMetrics})
			if err != nil {
				continue
			}
			for _, name := range ComparisonFormats() {
				rep, _ := ComparisonFormat(name)
				var out bytes.Buffer
				rep.Report(&out, c)
			}
		}
	})
}

// expectations reads the first benchmark of cur against the first of base,
// in ns_per_op and in a metric few runs have: the shapes a spec's asserts take.
func expectations(cur, base *results.Result) []results.Expectation {
	if len(cur.Benchmarks) == 0 || len(base.Benchmarks) == 0 {
		return nil
	}
	x, y := cur.Benchmarks[0].Name, base.Benchmarks[0].Name
	max, min := 1.1, 0.0
	return []results.Expectation{
		{Name: "ratio", Max: &max,
			Refs: []results.Ref{{Instance: x, Metric: "ns_per_op"}, {Instance: y, Metric: "ns_per_op", Baseline: true}},
			Value: func(cur, base results.Metrics) (float64, error) {
				return cur[x]["ns_per_op"] / base[y]["ns_per_op"], nil
			}},
		{Name: "stats", Min: &min,
			Refs: []results.Ref{{Instance: x, Metric: "ns_per_op_first"}, {Instance: x, Metric: "requests_per_sec_trend"},
				{Instance: x, Metric: "ns_per_op_cv"}, {Instance: x, Metric: "ns_per_op_digits"}},
			Value: func(cur, _ results.Metrics) (float64, error) {
				m := cur[x]
				return m["ns_per_op_first"] + m["requests_per_sec_trend"] + m["ns_per_op_cv"] + m["ns_per_op_digits"], nil
			}},
		{Name: "failed", Min: &min,
			Refs: []results.Ref{{Instance: x, Metric: "failed"}, {Instance: x}},
			Value: func(cur, _ results.Metrics) (float64, error) {
				return cur[x]["failed"] + cur[x]["ns_per_op"], nil
			}},
	}
}
