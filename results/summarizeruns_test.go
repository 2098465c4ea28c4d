package results

import "testing"

// TestSummarizeRuns checks that ns/op and the metrics every run has are
// summarised, and that a metric one run lacks is left out rather than
// summarised over fewer runs.
func TestSummarizeRuns(t *testing.T) {
	runs := []Run{
		{NsPerOp: 10, Metrics: map[string]float64{"requests": 100, "failed": 1}},
		{NsPerOp: 30, Metrics: map[string]float64{"requests": 300}},
		{NsPerOp: 20, Metrics: map[string]float64{"requests": 200, "failed": 3}},
	}
	ns, ms := SummarizeRuns(runs)
	if ns.Median != 20 || ns.Min != 10 || ns.Max != 30 {
		t.Errorf("ns/op: median %v, min %v, max %v; want 20, 10, 30", ns.Median, ns.Min, ns.Max)
	}
	if got := ms["requests"]; got.Median != 200 || got.Min != 100 || got.Max != 300 {
		t.Errorf("requests: median %v, min %v, max %v; want 200, 100, 300", got.Median, got.Min, got.Max)
	}
	if _, ok := ms["failed"]; ok {
		t.Errorf("failed is summarised though one run lacks it: %+v", ms["failed"])
	}
}
