package results

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// part is one process's run of an http phase over samples (ns), started
// at start and lasting d.
func part(t *testing.T, samples []int64, start time.Time, d time.Duration) Run {
	t.Helper()
	h := hdrhistogram.New(1, int64(time.Hour), 3)
	var sum, ss float64
	lo, hi := samples[0], samples[0]
	for _, v := range samples {
		h.RecordValue(v)
		sum += float64(v)
		lo, hi = min(lo, v), max(hi, v)
	}
	n := float64(len(samples))
	mean := sum / n
	for _, v := range samples {
		ss += (float64(v) - mean) * (float64(v) - mean)
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return Run{Iterations: int64(n), TotalNs: d.Nanoseconds(), StartedAt: &start,
		Histograms: map[string]string{"latency_ns": string(enc), "total_ns": string(enc)},
		Metrics: map[string]float64{"requests": n, "total_bytes": 100 * n, "client_cpu_ns_per_request": 1000,
			"total_mean_ns": mean, "total_sd_ns": math.Sqrt(ss / (n - 1)), "total_min_ns": float64(lo), "total_max_ns": float64(hi),
			"total_median_ns": float64(h.ValueAtQuantile(50)), "server_cpu_ns": 5e6}}
}

func TestMergeIsExact(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := []int64{100, 200, 300, 400, 5000}
	b := []int64{150, 250, 90000, 350}
	shard := func(i int, run Run) *Result {
		return &Result{Suite: Suite{Name: "s"}, Label: "g", Shard: &Shard{Index: i, Count: 2},
			Spec:       Spec{SHA256: "x"},
			Benchmarks: []Benchmark{{Name: "get", Op: "http", Params: map[string]any{"concurrency": float64(i + 1)}, Runs: []Run{run}}}}
	}
	m, err := MergeShards([]*Result{shard(1, part(t, b, t0.Add(time.Second), 2*time.Second)), shard(0, part(t, a, t0, 2*time.Second))}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	run := m.Benchmarks[0].Runs[0]
	all := append(append([]int64{}, a...), b...)
	whole := part(t, all, t0, 3*time.Second)
	for _, name := range []string{"requests", "total_bytes", "total_mean_ns", "total_sd_ns", "total_min_ns", "total_max_ns", "total_median_ns", "client_cpu_ns_per_request"} {
		if got, want := run.Metrics[name], whole.Metrics[name]; math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s = %v, want %v as of all samples", name, got, want)
		}
	}
	if got := run.Metrics["requests_per_sec"]; got != 9.0/3 {
		t.Errorf("requests_per_sec = %v, want 9 requests over the 3 s common window", got)
	}
	if got := run.Metrics["server_cpu_ns"]; got != 5e6 {
		t.Errorf("server_cpu_ns = %v, want one server's", got)
	}
	if c, _ := m.Benchmarks[0].ParamNumber("concurrency"); c != 3 {
		t.Errorf("concurrency = %v, want the shards' 1+2", c)
	}
	if len(m.Warnings) != 0 {
		t.Errorf("warnings %v", m.Warnings)
	}
	m, err = MergeShards([]*Result{shard(1, part(t, b, t0.Add(time.Second), 2*time.Second)), shard(0, part(t, a, t0, 2*time.Second))}, 100*time.Millisecond)
	if err != nil || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "started up to 1s apart") {
		t.Errorf("a 1 s skew over a 100ms bound: %v, warnings %q", err, m.Warnings)
	}
}

func TestMergeShardsRefuses(t *testing.T) {
	r := func(i, n int, sha string, vars map[string]string) *Result {
		return &Result{Suite: Suite{Name: "s"}, Shard: &Shard{Index: i, Count: n}, Spec: Spec{SHA256: sha, Vars: vars}, Benchmarks: []Benchmark{}}
	}
	for _, c := range []struct {
		rs   []*Result
		want string
	}{
		{[]*Result{r(0, 2, "a", nil)}, "shard 1 of 2 missing"},
		{[]*Result{r(0, 2, "a", nil), r(1, 3, "a", nil)}, "of 2 shards"},
		{[]*Result{r(0, 2, "a", nil), r(1, 2, "b", nil)}, "different specs"},
		{[]*Result{r(0, 2, "a", nil), r(1, 2, "a", map[string]string{"x": "1"})}, "different variables"},
		{[]*Result{r(0, 2, "a", nil), r(0, 2, "a", nil)}, "both shard 0/2"},
		{[]*Result{r(0, 1, "a", nil), {Suite: Suite{Name: "s"}}}, "is no shard"},
	} {
		if _, err := MergeShards(c.rs, time.Second); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d results: %v, want %q", len(c.rs), err, c.want)
		}
	}
}

// TestMergeWarmups: the parts' warm-up phases merge phase by phase as
// their runs do, and parts that warmed up unlike leave none.
func TestMergeWarmups(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	shard := func(i int, warmups ...Run) *Result {
		return &Result{Suite: Suite{Name: "s"}, Shard: &Shard{Index: i, Count: 2}, Spec: Spec{SHA256: "x"},
			Benchmarks: []Benchmark{{Name: "get", Op: "http", Params: map[string]any{"concurrency": float64(1)},
				Runs: []Run{part(t, []int64{100, 200}, t0.Add(time.Minute), time.Second)}, Warmups: warmups}}}
	}
	w := func(samples ...int64) Run { return part(t, samples, t0, time.Second) }
	m, err := MergeShards([]*Result{shard(0, w(10, 20)), shard(1, w(30, 40, 50))}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if ws := m.Benchmarks[0].Warmups; len(ws) != 1 || ws[0].Iterations != 5 || ws[0].Metrics["requests"] != 5 {
		t.Errorf("merged warm-ups %+v, want one phase of the parts' 5 requests", ws)
	}
	if got := m.Benchmarks[0].NsPerOp.Median; got != float64(time.Second)/4 {
		t.Errorf("merged ns/op %v: a warm-up reached the summary", got)
	}
	m, err = MergeShards([]*Result{shard(0, w(10), w(20)), shard(1, w(30))}, time.Hour)
	if err != nil || m.Benchmarks[0].Warmups != nil {
		t.Errorf("parts with 2 and 1 warm-ups: %v, merged warm-ups %+v, want none", err, m.Benchmarks[0].Warmups)
	}
}
