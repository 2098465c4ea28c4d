package report

import (
	"fmt"
	"io"

	"github.com/specrun/specrun/results"
)

// writeConnectionTimes writes ab's "Connection Times" table, in ms with
// microseconds where ab prints whole ms, when the result recorded it.
func writeConnectionTimes(w io.Writer, m func(string) (float64, bool)) {
	if _, ok := m("total_mean_ns"); !ok {
		return
	}
	fmt.Fprintf(w, "\nConnection Times (ms)\n")
	fmt.Fprintf(w, "            %8s %8s %8s %8s %8s\n", "min", "mean", "[+/-sd]", "median", "max")
	for _, row := range [...]struct{ label, name string }{
		{"Connect:", "connect"}, {"Processing:", "processing"}, {"Waiting:", "waiting"}, {"Total:", "total"},
	} {
		fmt.Fprintf(w, "%-12s", row.label)
		for _, stat := range [...]string{"min", "mean", "sd", "median", "max"} {
			v, _ := m(row.name + "_" + stat + "_ns")
			fmt.Fprintf(w, " %8.3f", v/1e6)
		}
		fmt.Fprintln(w)
	}
}

// writeHTTPBlock writes the ab-style block of an http benchmark instance
// under the Markdown table: ab's own lines and units, each the median over
// the instance's runs (failures also as a total, so that one bad phase is
// not hidden by the median), for server blocks the server's CPU time and
// peak RSS, then ab's Connection Times and the latency percentiles.
func writeHTTPBlock(w io.Writer, b *results.Benchmark) error {
	if len(b.Runs) == 0 {
		note := ""
		if b.Error != "" {
			note = ": " + b.Error
		}
		_, err := fmt.Fprintf(w, "**%s**: no load phase completed%s.\n", escape(b.Name), escape(note))
		return err
	}
	m := func(name string) (float64, bool) { return results.RunMedian(b.Runs, name) }
	get := func(name string) float64 { v, _ := m(name); return v }
	total := func(name string) float64 {
		var t float64
		for _, r := range b.Runs {
			t += r.Metrics[name]
		}
		return t
	}
	runs := "1 run"
	if n := len(b.Runs); n > 1 {
		runs = fmt.Sprintf("median of %d runs", n)
	}
	elapsed := make([]float64, len(b.Runs))
	for i, r := range b.Runs {
		elapsed[i] = float64(r.TotalNs)
	}

	if _, err := fmt.Fprintf(w, "**%s** (ab-style, %s)\n\n```text\n", escape(b.Name), runs); err != nil {
		return err
	}
	// ab's layout: values in one column, the same in every block.
	line := func(label, format string, args ...any) {
		fmt.Fprintf(w, "%-24s"+format+"\n", append([]any{label + ":"}, args...)...)
	}
	counted := func(label, metric string) {
		v, t := get(metric), total(metric)
		if len(b.Runs) > 1 && t != 0 {
			line(label, "%.0f (%.0f over all %d runs)", v, t, len(b.Runs))
		} else {
			line(label, "%.0f", v)
		}
	}
	// The request figures are ab's definitions over the median run, for
	// results that did not record them.
	secs := results.Median(elapsed) / 1e9
	requests, ok := m("requests")
	if !ok {
		iters := make([]float64, len(b.Runs))
		for i, r := range b.Runs {
			iters[i] = float64(r.Iterations)
		}
		requests = results.Median(iters)
	}
	orDerived := func(name string, derived float64) float64 {
		if v, ok := m(name); ok {
			return v
		}
		return derived
	}
	optional := func(label, format, metric string, scale float64) {
		if v, ok := m(metric); ok {
			line(label, format, v*scale)
		}
	}
	conc, hasConc := b.ParamNumber("concurrency")
	if hasConc {
		line("Concurrency Level", "%.0f", conc)
	}
	line("Time taken for tests", "%.3f seconds", secs)
	line("Complete requests", "%.0f", requests)
	if _, ok := m("failed"); ok {
		counted("Failed requests", "failed")
	}
	if _, ok := m("non_2xx"); ok {
		counted("Non-2xx responses", "non_2xx")
	}
	optional("Total transferred", "%.0f bytes", "total_bytes", 1)
	optional("HTML transferred", "%.0f bytes", "body_bytes", 1)
	if requests > 0 && secs > 0 {
		line("Requests per second", "%.2f [#/sec] (mean)", orDerived("requests_per_sec", requests/secs))
		if v, ok := m("time_per_request_ms"); ok || hasConc {
			if !ok {
				v = conc * secs * 1e3 / requests
			}
			line("Time per request", "%.3f [ms] (mean)", v)
		}
		line("Time per request", "%.3f [ms] (mean, across all concurrent requests)", orDerived("time_per_request_all_ms", secs*1e3/requests))
	}
	optional("Transfer rate", "%.2f [Kbytes/sec] received", "transfer_bytes_per_sec", 1.0/1024)
	if cpu, ok := m("server_cpu_ns"); ok {
		if pct, ok := m("server_cpu_percent"); ok {
			line("Server CPU (user+sys)", "%.3f seconds (%.1f [us] per request, %.1f%% CPU)", cpu/1e9, get("server_cpu_ns_per_request")/1e3, pct)
		} else {
			line("Server CPU (user+sys)", "%.3f seconds (%.1f [us] per request)", cpu/1e9, get("server_cpu_ns_per_request")/1e3)
		}
	}
	if n, ok := m("server_threads"); ok {
		line("Server threads", "%.0f (most at once, process group)", n)
	}
	if rss, ok := m("server_max_rss_bytes"); ok {
		if own, ok := m("server_own_max_rss_bytes"); ok {
			line("Server max RSS", "%.1f [MiB] (process group), %.1f [MiB] (main process)", rss/(1<<20), own/(1<<20))
		} else {
			line("Server max RSS", "%.1f [MiB] (process group)", rss/(1<<20))
		}
	}

	writeConnectionTimes(w, m)

	percentiles := false
	for _, q := range []struct{ label, metric, note string }{
		{"50%", "latency_p50_ns", ""},
		{"90%", "latency_p90_ns", ""},
		{"99%", "latency_p99_ns", ""},
		{"99.9%", "latency_p999_ns", ""},
		{"100%", "latency_max_ns", " (longest request)"},
	} {
		if v, ok := m(q.metric); ok {
			if !percentiles {
				fmt.Fprintf(w, "\nPercentage of the requests served within a time (ms)\n")
				percentiles = true
			}
			fmt.Fprintf(w, "  %5s %8.3f%s\n", q.label, v/1e6, q.note)
		}
	}
	_, err := fmt.Fprintf(w, "```\n")
	return err
}
