package results

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Shard is what `run --shard I/N` records: which part of the load it ran
// and when it was told to start.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// StartAt is the --start-at time the shard waited for, if any, and
	// LateNs how long after it the shard's benchmarks began.
	StartAt *time.Time `json:"start_at,omitempty"`
	LateNs  int64      `json:"late_ns,omitempty"`
}

// Source is one of the results a merged result was made of.
type Source struct {
	Index     int       `json:"index"`
	Host      string    `json:"host"`
	Label     string    `json:"label"`
	StartedAt time.Time `json:"started_at"`
}

// MergeShards checks that rs are the N shards of one run (one spec, the
// same variables, every index from 0 to N-1 once) and merges them; see
// Merge. maxSkew bounds how far apart the shards' phases may start
// before the merged result warns.
func MergeShards(rs []*Result, maxSkew time.Duration) (*Result, error) {
	if len(rs) == 0 {
		return nil, errors.New("no shards to merge")
	}
	first := rs[0]
	if first.Shard == nil {
		return nil, fmt.Errorf("result 1 (%s) is no shard: it was not run with --shard", first.Label)
	}
	n := first.Shard.Count
	seen := make(map[int]int, n)
	for i, r := range rs {
		switch {
		case r.Shard == nil:
			return nil, fmt.Errorf("result %d (%s) is no shard: it was not run with --shard", i+1, r.Label)
		case r.Shard.Count != n:
			return nil, fmt.Errorf("result %d is shard %d/%d, result 1 is of %d shards: they are parts of different runs",
				i+1, r.Shard.Index, r.Shard.Count, n)
		case r.Spec.SHA256 != first.Spec.SHA256 || r.Suite.Name != first.Suite.Name:
			return nil, fmt.Errorf("result %d (shard %d) ran another spec than result 1 (sha256 %.12s, not %.12s): shards of different specs do not merge",
				i+1, r.Shard.Index, r.Spec.SHA256, first.Spec.SHA256)
		case !maps.Equal(r.Spec.Vars, first.Spec.Vars):
			return nil, fmt.Errorf("result %d (shard %d) ran with other variables than result 1 (%s, not %s): shards of different variables do not merge",
				i+1, r.Shard.Index, varList(r.Spec.Vars), varList(first.Spec.Vars))
		}
		if j, dup := seen[r.Shard.Index]; dup {
			return nil, fmt.Errorf("results %d and %d are both shard %d/%d", j+1, i+1, r.Shard.Index, n)
		}
		seen[r.Shard.Index] = i
	}
	var missing []string
	for i := range n {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shard %s of %d missing: a merge needs every shard, 0 to %d", strings.Join(missing, ", "), n, n-1)
	}
	sorted := make([]*Result, n)
	for i, r := range rs {
		sorted[r.Shard.Index] = rs[i]
	}
	m, err := Merge(sorted)
	if err != nil {
		return nil, err
	}
	for _, b := range m.Benchmarks {
		if skew := startSkew(sorted, b.Name); skew > maxSkew {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s: the shards' phases started up to %v apart, more than the %v tolerated: "+
				"the load did not overlap fully, and requests/s over the common window is low", b.Name, skew.Round(time.Microsecond), maxSkew))
		}
	}
	return m, nil
}

func varList(vars map[string]string) string {
	if len(vars) == 0 {
		return "none"
	}
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		kv = append(kv, k+"="+vars[k])
	}
	return strings.Join(kv, " ")
}

// startSkew is the largest spread of the shards' start times over the runs
// of benchmark name.
func startSkew(rs []*Result, name string) time.Duration {
	var skew time.Duration
	for k := 0; ; k++ {
		var lo, hi time.Time
		found := false
		for _, r := range rs {
			b := r.benchmark(name)
			if b == nil || k >= len(b.Runs) || b.Runs[k].StartedAt == nil {
				continue
			}
			t := *b.Runs[k].StartedAt
			if !found || t.Before(lo) {
				lo = t
			}
			if !found || t.After(hi) {
				hi = t
			}
			found = true
		}
		if !found {
			return skew
		}
		skew = max(skew, hi.Sub(lo))
	}
}

func (r *Result) benchmark(name string) *Benchmark {
	for i := range r.Benchmarks {
		if r.Benchmarks[i].Name == name {
			return &r.Benchmarks[i]
		}
	}
	return nil
}

// Merge makes one result of several that ran parts of the same benchmarks
// at the same time (the shards of one run, or the processes of one
// launch), as if one process had done it all. A benchmark that only one
// part ran is taken as it is. Of a benchmark several parts ran, run k is
// the union of every part's run k: counts and bytes are summed, the
// window is from the earliest start to the latest end, rates are over
// that window, latency percentiles come from the parts' histograms added
// together, client CPU is summed, and the server's figures are the first
// part's that has them (they measure the one server all parts loaded).
// A benchmark whose runs have no wall-clock start was run whole by each
// part that has it (a non-http benchmark with every_shard): its runs are
// pooled. Parts must hold the same runs of a benchmark; r[0] gives the spec,
// suite and environment of the merged result.
func Merge(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("nothing to merge")
	}
	first := parts[0]
	m := &Result{Schema: Schema, Suite: first.Suite, Label: first.Label, Spec: first.Spec, Environment: first.Environment,
		StartedAt: first.StartedAt, FinishedAt: first.FinishedAt, Benchmarks: []Benchmark{}, Assertions: []Assertion{}}
	var order []string
	byName := map[string][]*Benchmark{}
	for i, r := range parts {
		if r.StartedAt.Before(m.StartedAt) {
			m.StartedAt = r.StartedAt
		}
		if r.FinishedAt.After(m.FinishedAt) {
			m.FinishedAt = r.FinishedAt
		}
		m.Interrupted = m.Interrupted || r.Interrupted
		index := i
		if r.Shard != nil {
			index = r.Shard.Index
		}
		m.Shards = append(m.Shards, Source{Index: index, Host: r.Environment.Hostname, Label: r.Label, StartedAt: r.StartedAt})
		for _, w := range r.Warnings {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s (part %d): %s", r.Label, index, w))
		}
		for j := range r.Benchmarks {
			b := &r.Benchmarks[j]
			if _, ok := byName[b.Name]; !ok {
				order = append(order, b.Name)
			}
			byName[b.Name] = append(byName[b.Name], b)
		}
	}
	for _, name := range order {
		b, err := mergeBenchmark(byName[name])
		if err != nil {
			return nil, fmt.Errorf("benchmark %s: %w", name, err)
		}
		m.Benchmarks = append(m.Benchmarks, b)
	}
	return m, nil
}

// splitParams are the parameters that sharding divides, summed back.
var splitParams = []string{"concurrency", "requests", "rate"}

func mergeBenchmark(bs []*Benchmark) (Benchmark, error) {
	out := *bs[0]
	if len(bs) == 1 {
		return out, nil
	}
	out.Params = maps.Clone(bs[0].Params)
	for _, p := range splitParams {
		if _, ok := bs[0].Params[p]; !ok {
			continue
		}
		var sum float64
		for _, b := range bs {
			v, _ := b.ParamNumber(p)
			sum += v
		}
		out.Params[p] = sum
	}
	var errs []string
	for _, b := range bs {
		if b.Error != "" {
			errs = append(errs, b.Error)
		}
		out.Interrupted = out.Interrupted || b.Interrupted
		if len(b.Runs) != len(bs[0].Runs) {
			return out, fmt.Errorf("one part has %d runs, another %d: the parts did not run alike", len(bs[0].Runs), len(b.Runs))
		}
	}
	out.Error = strings.Join(errs, "; ")
	if !parted(bs) {
		// Each part ran the whole benchmark (every_shard): its runs are more
		// runs of the same thing, pooled.
		out.Params = bs[0].Params
		out.Runs, out.Warmups = nil, nil
		for _, b := range bs {
			out.Runs = append(out.Runs, b.Runs...)
			out.Warmups = append(out.Warmups, b.Warmups...)
		}
		if len(out.Runs) > 0 {
			out.NsPerOp, out.Metrics = SummarizeRuns(out.Runs)
		}
		return out, nil
	}
	out.Runs = make([]Run, len(bs[0].Runs))
	out.Iterations = 0
	for k := range out.Runs {
		runs := make([]*Run, len(bs))
		for i, b := range bs {
			runs[i] = &b.Runs[k]
		}
		run, err := mergeRun(runs)
		if err != nil {
			return out, fmt.Errorf("run %d: %w", k+1, err)
		}
		out.Runs[k] = run
		out.Iterations = max(out.Iterations, run.Iterations)
	}
	out.NsPerOp, out.Metrics = Summary{}, nil
	if len(out.Runs) > 0 {
		out.NsPerOp, out.Metrics = SummarizeRuns(out.Runs)
	}
	out.Warmups = mergeWarmups(bs)
	return out, nil
}

// mergeWarmups merges the warm-ups of the parts of one load phase by
// phase, as their runs are; parts that warmed up unlike (one part's
// warm-up is not the whole load's) leave the merged result without any.
func mergeWarmups(bs []*Benchmark) []Run {
	var out []Run
	for k := range bs[0].Warmups {
		runs := make([]*Run, len(bs))
		for i, b := range bs {
			if len(b.Warmups) != len(bs[0].Warmups) {
				return nil
			}
			runs[i] = &b.Warmups[k]
		}
		run, err := mergeRun(runs)
		if err != nil {
			return nil
		}
		out = append(out, run)
	}
	return out
}

// parted says whether bs are parts of one load: their runs have a
// wall-clock start (an http phase), which the window of the whole needs.
func parted(bs []*Benchmark) bool {
	for _, b := range bs {
		for _, r := range b.Runs {
			if r.StartedAt != nil {
				return true
			}
		}
	}
	return false
}

// SummarizeRuns summarises ns/op and every metric that all runs have, as
// a Result holds them; runs is not empty. Runs spread over launches get
// LaunchBootstrap intervals.
func SummarizeRuns(runs []Run) (Summary, map[string]Summary) {
	groups := launchGroups(runs)
	ns := make([]float64, len(runs))
	for i, r := range runs {
		ns[i] = r.NsPerOp
	}
	ms := map[string]Summary{}
	for name := range runs[0].Metrics {
		xs := make([]float64, 0, len(runs))
		for _, r := range runs {
			if v, ok := r.Metrics[name]; ok {
				xs = append(xs, v)
			}
		}
		if len(xs) == len(runs) {
			ms[name] = launchSummary(Summarize(xs), xs, groups)
		}
	}
	return launchSummary(Summarize(ns), ns, groups), ms
}

// How the metrics of parts' runs combine; any other is a per-op figure,
// weighted by the parts' iterations.
var (
	summed = map[string]bool{"requests": true, "failed": true, "non_2xx": true, "total_bytes": true, "body_bytes": true}
	// firstOnly are the server's: every part loaded the same server.
	firstOnly   = map[string]bool{"server_cpu_ns": true, "server_max_rss_bytes": true}
	percentiles = map[string]float64{"latency_p50_ns": 50, "latency_p90_ns": 90, "latency_p99_ns": 99, "latency_p999_ns": 99.9}
)

func mergeRun(runs []*Run) (Run, error) {
	var out Run
	var lo, hi time.Time
	windowed := true
	for _, r := range runs {
		out.Iterations += r.Iterations
		if r.StartedAt == nil {
			windowed = false
			continue
		}
		end := r.StartedAt.Add(time.Duration(r.TotalNs))
		if lo.IsZero() || r.StartedAt.Before(lo) {
			lo = *r.StartedAt
		}
		if end.After(hi) {
			hi = end
		}
	}
	if windowed {
		// The common window: from the first part's start to the last one's end.
		out.TotalNs = hi.Sub(lo).Nanoseconds()
		start := lo
		out.StartedAt = &start
	} else {
		for _, r := range runs {
			out.TotalNs = max(out.TotalNs, r.TotalNs) // parts that ran side by side
		}
	}
	if out.Iterations > 0 {
		out.NsPerOp = float64(out.TotalNs) / float64(out.Iterations)
	}
	out.Metrics = map[string]float64{}
	hists, err := mergeHistograms(runs)
	if err != nil {
		return out, err
	}
	out.Histograms = map[string]string{}
	for name, h := range hists {
		enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return out, fmt.Errorf("encode histogram %s: %w", name, err)
		}
		out.Histograms[name] = string(enc)
	}
	if len(out.Histograms) == 0 {
		out.Histograms = nil
	}
	secs := float64(out.TotalNs) / 1e9
	names := map[string]bool{}
	for _, r := range runs {
		for name := range r.Metrics {
			names[name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		switch {
		case summed[name]:
			for _, r := range runs {
				out.Metrics[name] += r.Metrics[name]
			}
		case firstOnly[name]:
			for _, r := range runs {
				if v, ok := r.Metrics[name]; ok {
					out.Metrics[name] = v
					break
				}
			}
		default:
			var sum, weight float64
			for _, r := range runs {
				if v, ok := r.Metrics[name]; ok {
					sum += v * float64(r.Iterations)
					weight += float64(r.Iterations)
				}
			}
			if weight > 0 {
				out.Metrics[name] = sum / weight
			}
		}
	}
	if h := hists["latency_ns"]; h != nil {
		for name, q := range percentiles {
			out.Metrics[name] = float64(h.ValueAtQuantile(q))
		}
		out.Metrics["latency_max_ns"] = float64(h.Max())
	}
	mergeConnectionTimes(out.Metrics, runs, hists)
	if reqs, ok := out.Metrics["requests"]; ok && secs > 0 {
		per := max(reqs, 1)
		var conns float64 // each part's concurrency is time_per_request over time_per_request_all
		for _, r := range runs {
			if all := r.Metrics["time_per_request_all_ms"]; all > 0 {
				conns += r.Metrics["time_per_request_ms"] / all
			}
		}
		out.Metrics["requests_per_sec"] = reqs / secs
		out.Metrics["transfer_bytes_per_sec"] = out.Metrics["total_bytes"] / secs
		out.Metrics["time_per_request_all_ms"] = secs * 1e3 / per
		out.Metrics["time_per_request_ms"] = math.Round(conns) * secs * 1e3 / per
		if cpu, ok := out.Metrics["server_cpu_ns"]; ok {
			out.Metrics["server_cpu_ns_per_request"] = cpu / per
		}
		var cpu float64
		for _, r := range runs {
			cpu += r.Metrics["client_cpu_ns_per_request"] * max(r.Metrics["requests"], 1)
		}
		out.Metrics["client_cpu_ns_per_request"] = cpu / per
	}
	return out, nil
}

// mergeHistograms adds up the parts' histograms of each name.
func mergeHistograms(runs []*Run) (map[string]*hdrhistogram.Histogram, error) {
	hists := map[string]*hdrhistogram.Histogram{}
	for _, r := range runs {
		for _, name := range slices.Sorted(maps.Keys(r.Histograms)) {
			h, err := DecodeHistogram(r.Histograms[name])
			if err != nil {
				return nil, fmt.Errorf("histogram %s: %w", name, err)
			}
			if sum, ok := hists[name]; ok {
				if dropped := sum.Merge(h); dropped > 0 {
					return nil, fmt.Errorf("histogram %s: %d samples out of range", name, dropped)
				}
			} else {
				hists[name] = h
			}
		}
	}
	return hists, nil
}

// DecodeHistogram reads a histogram as Run.Histograms holds it.
func DecodeHistogram(enc string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(enc))
	if err != nil {
		return nil, fmt.Errorf("not an HdrHistogram in V2 compressed, base64 encoding: %w", err)
	}
	return h, nil
}

// connectionRows are the http op's connection-time rows (ab's).
var connectionRows = []string{"connect", "processing", "waiting", "total"}

// mergeConnectionTimes combines the rows of ab's Connection Times exactly:
// min of the minima, max of the maxima, means weighted by their counts,
// the pooled standard deviation, and the median of the merged histogram.
func mergeConnectionTimes(m map[string]float64, runs []*Run, hists map[string]*hdrhistogram.Histogram) {
	for _, row := range connectionRows {
		if _, ok := runs[0].Metrics[row+"_mean_ns"]; !ok {
			continue
		}
		var n, sum, ss float64
		first := true
		for _, r := range runs {
			k := float64(r.Metrics["requests"] - r.Metrics["failed"])
			if h, err := DecodeHistogram(r.Histograms[row+"_ns"]); err == nil {
				k = float64(h.TotalCount())
			}
			if k <= 0 {
				continue
			}
			mean, sd := r.Metrics[row+"_mean_ns"], r.Metrics[row+"_sd_ns"]
			n += k
			sum += k * mean
			ss += (k-1)*sd*sd + k*mean*mean
			if lo := r.Metrics[row+"_min_ns"]; first || lo < m[row+"_min_ns"] {
				m[row+"_min_ns"] = lo
			}
			m[row+"_max_ns"] = max(m[row+"_max_ns"], r.Metrics[row+"_max_ns"])
			first = false
		}
		if n == 0 {
			continue
		}
		mean := sum / n
		m[row+"_mean_ns"] = mean
		m[row+"_sd_ns"] = 0
		if n > 1 {
			m[row+"_sd_ns"] = math.Sqrt(max(ss-n*mean*mean, 0) / (n - 1))
		}
		if h := hists[row+"_ns"]; h != nil {
			m[row+"_median_ns"] = float64(h.ValueAtQuantile(50))
		}
	}
}
