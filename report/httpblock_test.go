package report

import (
	"bytes"
	"testing"

	"github.com/specrun/specrun/results"
)

// httpRun is one load phase of 1000 requests as the http op reports it.
func httpRun(elapsedMs, p50Ms float64, failed float64) results.Run {
	secs := elapsedMs / 1e3
	return results.Run{
		Iterations: 1000,
		TotalNs:    int64(elapsedMs * 1e6),
		NsPerOp:    elapsedMs * 1e6 / 1000,
		Metrics: map[string]float64{
			"requests":                  1000,
			"requests_per_sec":          1000 / secs,
			"time_per_request_ms":       10 * elapsedMs / 1000,
			"time_per_request_all_ms":   elapsedMs / 1000,
			"transfer_bytes_per_sec":    6178000 / secs,
			"total_bytes":               6178000,
			"body_bytes":                6041000,
			"failed":                    failed,
			"non_2xx":                   0,
			"latency_p50_ns":            p50Ms * 1e6,
			"latency_p90_ns":            p50Ms * 1.5e6,
			"latency_p99_ns":            p50Ms * 3e6,
			"latency_p999_ns":           p50Ms * 4e6,
			"latency_max_ns":            p50Ms * 5e6,
			"client_cpu_ns_per_request": 21000,
			"server_cpu_ns":             310e6 + failed*1e3,
			"server_cpu_ns_per_request": 310e3,
			"server_max_rss_bytes":      14.5 * (1 << 20),
		},
	}
}

func TestHTTPBlock(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    results.Benchmark
	}{
		{"httpblock-server.md", results.Benchmark{
			Name: "app/build=A", Op: "http",
			Params: map[string]any{"server": "a", "requests": int64(1000), "concurrency": int64(10)},
			Runs:   []results.Run{httpRun(520, 4.9, 0), httpRun(505, 4.8, 3), httpRun(540, 5.1, 0)},
		}},
		{"httpblock-url.md", results.Benchmark{
			Name: "site", Op: "http",
			Params: map[string]any{"url": "http://127.0.0.1:8080/", "concurrency": 50.0}, // as read back from JSON
			Runs:   []results.Run{withoutServer(httpRun(250, 1.25, 0))},
		}},
		{"httpblock-connection-times.md", results.Benchmark{
			Name: "fresh", Op: "http",
			Params: map[string]any{"url": "http://127.0.0.1:8080/", "concurrency": 10.0, "keepalive": false},
			Runs:   []results.Run{withConnectionTimes(withoutServer(httpRun(250, 1.25, 0)))},
		}},
		{"httpblock-error.md", results.Benchmark{Name: "down", Op: "http", Error: "start server \"a\": not ready after 30s"}},
	} {
		var buf bytes.Buffer
		if err := writeHTTPBlock(&buf, &tc.b); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.name, buf.Bytes())
	}
}

func withoutServer(r results.Run) results.Run {
	for k := range r.Metrics {
		if len(k) > 7 && k[:7] == "server_" {
			delete(r.Metrics, k)
		}
	}
	return r
}

// withConnectionTimes adds ab's Connection Times as the http op records
// them: connect + processing = total, waiting within processing.
func withConnectionTimes(r results.Run) results.Run {
	for row, ms := range map[string][5]float64{
		"connect":    {0.021, 0.048, 0.012, 0.045, 0.310},
		"processing": {0.310, 1.202, 0.155, 1.180, 4.820},
		"waiting":    {0.290, 1.150, 0.151, 1.130, 4.700},
		"total":      {0.335, 1.250, 0.160, 1.225, 5.010},
	} {
		for i, stat := range [...]string{"min", "mean", "sd", "median", "max"} {
			r.Metrics[row+"_"+stat+"_ns"] = ms[i] * 1e6
		}
	}
	return r
}
