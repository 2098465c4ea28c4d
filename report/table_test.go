package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/specrun/specrun/results"
)

// kindsResult holds one benchmark of each kind the default columns tell
// apart: exec commands, a size scan and an http load.
func kindsResult() []*results.Result {
	bench := func(name, block, op string, params map[string]any, metrics map[string][]float64, nsPerOp ...float64) results.Benchmark {
		b := results.Benchmark{Name: name, Benchmark: block, Op: op, Params: params, Iterations: 1, NsPerOp: results.Summarize(nsPerOp),
			Metrics: map[string]results.Summary{}}
		for i, x := range nsPerOp {
			run := results.Run{Iterations: 1, TotalNs: int64(x), NsPerOp: x, Metrics: map[string]float64{}}
			for m, vs := range metrics {
				run.Metrics[m] = vs[i]
			}
			b.Runs = append(b.Runs, run)
		}
		for m, vs := range metrics {
			b.Metrics[m] = results.Summarize(vs)
		}
		return b
	}
	one := func(name string, bs ...results.Benchmark) *results.Result {
		r := goldenResult()
		r.Suite = results.Suite{Name: name}
		r.Assertions, r.Warnings, r.Benchmarks = nil, nil, bs
		return r
	}
	exec := one("commands",
		bench("gzip/level=1", "gzip", "exec", map[string]any{"level": float64(1)},
			map[string][]float64{"user_ns": {1.1e9, 1.2e9, 1.15e9}, "sys_ns": {2e7, 2.2e7, 2.1e7}}, 1.79e9, 1.75e9, 1.83e9),
		bench("gzip/level=9", "gzip", "exec", map[string]any{"level": float64(9)},
			map[string][]float64{"user_ns": {4.1e9, 4.2e9, 4.0e9}, "sys_ns": {2e7, 2.4e7, 2.1e7}}, 4.3e9, 4.4e9, 4.35e9),
	)
	scan := one("scan")
	for i, size := range []float64{16, 1 << 20, 16 << 20} {
		ns := []float64{3 + size/10, 3.1 + size/10, 2.9 + size/10}
		rate := make([]float64, 3)
		for j := range ns {
			rate[j] = size * 1e9 / ns[j]
		}
		scan.Benchmarks = append(scan.Benchmarks, bench([]string{"memcpy/size=16B", "memcpy/size=1MB", "memcpy/size=16MB"}[i], "memcpy", "memcpy",
			map[string]any{"size": size}, map[string][]float64{"bytes_per_sec": rate}, ns...))
	}
	http := one("load", bench("api", "api", "http", map[string]any{},
		map[string][]float64{"requests_per_sec": {2427.2, 2500, 2390}, "time_per_request_ms": {4.12, 4.0, 4.18},
			"latency_p50_ns": {3.9e6, 3.8e6, 4e6}, "latency_p99_ns": {1.2e7, 1.1e7, 1.3e7}, "failed": {0, 0, 2}}, 4.12e8, 4.0e8, 4.18e8))
	return []*results.Result{exec, scan, http}
}

func TestMarkdownKindsGolden(t *testing.T) {
	var all bytes.Buffer
	for i, want := range []string{
		"| Name | Iterations | Total time (sec) | Time per (sec) | ± (min…max, 75%) | Mean ± σ (sec) | Min … Max (sec) | User (sec) | System (ms) |",
		"| Name | Iterations | Total time (ns) | Time per (ns) | ± (min…max, 75%) | Throughput (GiB/s) |",
		"| Name | Iterations | Total time (ms) | Time per (ms) | ± (min…max, 75%) | Requests/s | Time per request (ms) | p50 (ms) | p99 (ms) | Failed |",
	} {
		var buf bytes.Buffer
		if err := (Markdown{Metrics: testMetrics}).Report(&buf, kindsResult()[i]); err != nil {
			t.Fatal(err)
		}
		if head := strings.Split(buf.String(), "\n")[2]; head != want {
			t.Errorf("head\n%s\nwant\n%s", head, want)
		}
		all.Write(buf.Bytes())
	}
	golden(t, "markdown-kinds.md", all.Bytes())
}

func TestMarkdownColumns(t *testing.T) {
	r := kindsResult()[0]
	r.Suite.Columns = []string{"name", "time", "user_ns"}
	var buf bytes.Buffer
	if err := (Markdown{Metrics: testMetrics, TimeUnit: "ms"}).Report(&buf, r); err != nil {
		t.Fatal(err)
	}
	if want := "| Name | Time per (ms) | user_ns (ms) |\n|------|--------------:|-------------:|\n| gzip/level=1 | 1790 | 1150 |\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("suite columns: want %q in\n%s", want, buf.String())
	}
	buf.Reset()
	if err := (Markdown{Columns: []string{"name", "range"}}).Report(&buf, r); err != nil {
		t.Fatal(err)
	}
	if want := "| Name | Min … Max (sec) |\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("flag columns win: want %q in\n%s", want, buf.String())
	}
	if err := (Markdown{Columns: []string{"name", "nosuch"}}).Report(&buf, r); err == nil || !strings.Contains(err.Error(), `unknown column "nosuch"`) {
		t.Errorf("unknown column: %v", err)
	}
}

// An exec benchmark's B/op and allocs/op are specrun's own spawning, not
// the command's: gobench leaves them out, and keeps them for in-process ops.
func TestGoBenchDropsExecHeap(t *testing.T) {
	r := kindsResult()[0]
	r.Benchmarks = append(r.Benchmarks, goldenResult().Benchmarks[2]) // 16 byte memcpy, in process
	for i := range r.Benchmarks {
		for j := range r.Benchmarks[i].Runs {
			r.Benchmarks[i].Runs[j].Metrics["bytes_per_op"] = 11064
			r.Benchmarks[i].Runs[j].Metrics["allocs_per_op"] = 40
		}
	}
	var buf bytes.Buffer
	if err := (GoBench{}).Report(&buf, r); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(buf.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "BenchmarkGzip/") && strings.Contains(l, "B/op"):
			t.Errorf("exec line has specrun's heap: %s", l)
		case strings.HasPrefix(l, "BenchmarkGzip/") && !strings.Contains(l, "user-ns"):
			t.Errorf("exec line lost its own metrics: %s", l)
		case strings.HasPrefix(l, "BenchmarkMemcpy/") && !strings.Contains(l, "11064 B/op"):
			t.Errorf("in-process line lost B/op: %s", l)
		}
	}
}

// CSV and the HTML page's runs leave out an exec benchmark's B/op and
// allocs/op, which are specrun's heap use while spawning, not the command's.
func TestCSVAndHTMLDropExecHeap(t *testing.T) {
	r := commands(t)
	rows, err := csv.NewReader(bytes.NewReader(render(t, CSV{}, r))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for i, b := range r.Benchmarks {
		for _, m := range []string{"median_bytes_per_op", "median_allocs_per_op"} {
			got := rows[i+1][col[m]]
			if (b.Op == "exec") != (got == "") {
				t.Errorf("%s (%s): %s = %q", b.Name, b.Op, m, got)
			}
		}
	}
	page := string(render(t, HTML{}, r))
	runs := page[strings.Index(page, "<h2>Runs</h2>"):]
	for _, section := range strings.Split(runs, "<details>")[1:] {
		exec := !strings.Contains(section, "<summary>copy")
		if heap := strings.Contains(section, "bytes_per_op") || strings.Contains(section, "allocs_per_op"); heap == exec {
			t.Errorf("runs of %s: heap columns %v, want them for the memcpy only", section[:strings.Index(section, "</summary>")], heap)
		}
	}
}
