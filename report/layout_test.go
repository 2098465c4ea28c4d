package report

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// httpMetrics declares the http op's metrics the sentence reads.
var httpMetrics = metric.Catalog(func(op string) []metric.Metric {
	if op != "http" {
		return nil
	}
	return []metric.Metric{
		{Name: "requests_per_sec", Unit: "requests/s", HigherIsBetter: true},
		{Name: "server_cpu_ns_per_request", Unit: "ns"},
		{Name: "server_max_rss_bytes", Unit: "bytes"},
	}
})

// twoBuilds is one result with build A and B of one page, six load phases
// each: B a third slower, half again the CPU and a third more memory.
func twoBuilds() *results.Result {
	r := &results.Result{Label: "run", Suite: results.Suite{Name: "interpreters", Title: "Two builds"}}
	for _, build := range []string{"A", "B"} {
		b := results.Benchmark{Name: "page/build=" + build, Benchmark: "page", Label: "GET / (build " + build + ")", Op: "http"}
		for i := range 6 {
			d := 1 + float64(i%3-1)/50
			rps, cpu, rss := 600*d, 1.2e6*d, 30e6*d
			if build == "B" {
				rps, cpu, rss = rps*0.66, cpu*1.5, rss*1.33
			}
			b.Runs = append(b.Runs, results.Run{Iterations: 1000, NsPerOp: 1e9 / rps,
				Metrics: map[string]float64{"requests_per_sec": rps, "server_cpu_ns_per_request": cpu, "server_max_rss_bytes": rss}})
		}
		r.Benchmarks = append(r.Benchmarks, b)
	}
	return r
}

// hostResults are three results of each of two hosts, three runs each, of
// the timers write-up's calls.
func hostResults() []*results.Result {
	var rs []*results.Result
	for h, host := range []string{"freebsd", "linux"} {
		for k := range 3 {
			r := &results.Result{Label: fmt.Sprintf("%s-%d", host, k+1), Environment: results.Environment{Hostname: host}}
			for _, call := range []struct {
				name string
				ns   [2]float64
			}{{"null function", [2]float64{1.28, 1.86}}, {"getpid()", [2]float64{51.3, 1.98}}, {"time()", [2]float64{255, 44.8}}} {
				b := results.Benchmark{Name: call.name, Benchmark: call.name, Op: "call"}
				for i := range 3 {
					b.Runs = append(b.Runs, results.Run{Iterations: 1e7, NsPerOp: call.ns[h] * (1 + float64(3*k+i-4)/200)})
				}
				r.Benchmarks = append(r.Benchmarks, b)
			}
			rs = append(rs, r)
		}
	}
	return rs
}

func TestLayoutGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rs     []*results.Result
		layout results.Layout
	}{
		{"compare-build", []*results.Result{twoBuilds()}, results.Layout{Columns: "build", Metric: "requests_per_sec",
			Summary: []string{"requests_per_sec", "server_cpu_ns_per_request", "server_max_rss_bytes"}}},
		{"compare-hosts", hostResults(), results.Layout{Columns: results.ByHost, Per: 1e7, Unit: "s"}},
	} {
		c, err := results.CompareLayout(tc.rs, tc.layout, results.CompareOptions{Metrics: httpMetrics})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			ext string
			rep ComparisonReporter
		}{{".md", CompareMarkdown{}}, {".term", CompareTerminal{}}} {
			var buf bytes.Buffer
			if err := f.rep.Report(&buf, c); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+f.ext, buf.Bytes())
		}
	}
}

func TestChangeWords(t *testing.T) {
	for _, tc := range []struct {
		metric, unit, better string
		estimate             float64
		phrase, word         string
	}{
		{"requests_per_sec", "requests/s", "higher", -0.34, "requests/s", "slower"},
		{"requests_per_sec", "requests/s", "higher", 0.1, "requests/s", "faster"},
		{"server_cpu_ns_per_request", "ns", "lower", 0.52, "server CPU per request", "more CPU"},
		{"server_max_rss_bytes", "bytes", "lower", 0.33, "server peak RSS", "more memory"},
		{"max_rss_bytes", "bytes", "lower", -0.2, "peak RSS", "less memory"},
		{"ns_per_op", "ns", "lower", 0.1, "time", "slower"},
		{"ns_per_op", "ns", "lower", -0.1, "time", "faster"},
		{"failed_requests", "count", "lower", 0.5, "failed requests", "worse"},
		{"custom", "", "", 0.5, "custom", ""},
	} {
		mc := results.MetricChange{Metric: tc.metric, Unit: tc.unit, Better: tc.better, Change: results.Change{Estimate: tc.estimate}}
		if got := metricPhrase(tc.metric); got != tc.phrase {
			t.Errorf("metricPhrase(%s) = %q, want %q", tc.metric, got, tc.phrase)
		}
		if got := changeWord(mc); got != tc.word {
			t.Errorf("changeWord(%s %+v) = %q, want %q", tc.metric, tc.estimate, got, tc.word)
		}
	}
	for _, tc := range []struct {
		f    float64
		want string
	}{{0.33, "+33%"}, {-0.0052, "-0.52%"}, {14, "+1400%"}, {0, "0%"}} {
		if got := signedPercent(tc.f); got != tc.want {
			t.Errorf("signedPercent(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
