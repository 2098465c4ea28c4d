package results

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// synthetic returns a result whose instance name has one run per ns/op value.
func synthetic(runs map[string][]float64) *Result {
	r := &Result{Schema: Schema}
	for name, nss := range runs {
		b := Benchmark{Name: name, Benchmark: name, Op: "noop", Iterations: 1000}
		for _, ns := range nss {
			b.Runs = append(b.Runs, Run{Iterations: 1000, TotalNs: int64(ns * 1000), NsPerOp: ns})
		}
		r.Benchmarks = append(r.Benchmarks, b)
	}
	return r
}

func ptr(v float64) *float64 { return &v }

// ratio is an expectation on cur[a].ns_per_op / cur[b].ns_per_op.
func ratio(name, a, b string, min, max *float64) Expectation {
	return Expectation{
		Name: name, Min: min, Max: max, Refs: []Ref{{Instance: a, Metric: "ns_per_op"}, {Instance: b, Metric: "ns_per_op"}},
		Value: func(cur, _ Metrics) (float64, error) {
			return cur[a]["ns_per_op"] / cur[b]["ns_per_op"], nil
		},
	}
}

func TestJudgeVerdicts(t *testing.T) {
	cur := synthetic(map[string][]float64{
		"reflect":  {77.1, 77.3, 78.0, 76.9, 77.5},
		"iface":    {1.10, 1.11, 1.09, 1.10, 1.12},
		"noisy":    {90, 100, 110, 95, 105},
		"ten":      {10, 10, 10, 10, 10},
		"single_a": {50},
		"single_b": {2},
	})
	tests := []struct {
		exp     Expectation
		verdict Verdict
		ci      bool   // an interval is reported
		msg     string // the message contains this
	}{
		{ratio("clear_pass", "reflect", "iface", ptr(10), nil), Pass, true, ""},
		{ratio("clear_fail", "reflect", "iface", ptr(100), nil), Fail, true, "it read reflect 77.3 ns/op, iface 1.1 ns/op"},
		{ratio("fail_max", "reflect", "iface", nil, ptr(20)), Fail, true, "it read"},
		{ratio("straddle", "noisy", "ten", ptr(10), nil), Inconclusive, true, "straddles"},
		{ratio("between", "reflect", "iface", ptr(60), ptr(80)), Pass, true, ""},
		{ratio("one_run", "single_a", "single_b", ptr(10), nil), Pass, false, "one run per benchmark: the point value decides"},
		{ratio("one_run_fail", "single_a", "single_b", ptr(30), nil), Fail, false, "the point value decides; it read single_a 50 ns/op"},
		{ratio("missing", "reflect", "nosuch", ptr(1), nil), Error, false, "benchmark nosuch is not in the result"},
	}
	for _, tt := range tests {
		t.Run(tt.exp.Name, func(t *testing.T) {
			a := Judge([]Expectation{tt.exp}, cur, nil)[0]
			if a.Verdict != tt.verdict {
				t.Errorf("verdict = %s (%s), want %s", a.Verdict, a.Message, tt.verdict)
			}
			if got := a.Interval != nil; got != tt.ci {
				t.Errorf("interval reported = %v, want %v", got, tt.ci)
			}
			if in := a.Interval; in != nil && !(in.Low <= *a.Value && *a.Value <= in.High && in.Confidence > 0 && in.Confidence <= 0.95 && in.Kind == Bootstrap) {
				t.Errorf("value %v outside its interval %+v", *a.Value, *in)
			}
			if !strings.Contains(a.Message, tt.msg) {
				t.Errorf("message = %q, want it to contain %q", a.Message, tt.msg)
			}
			if a.Name != tt.exp.Name || a.Min != tt.exp.Min || a.Max != tt.exp.Max {
				t.Errorf("assertion does not carry the expectation's name and bounds: %+v", a)
			}
		})
	}
}

func TestJudgeErrors(t *testing.T) {
	cur := synthetic(map[string][]float64{"a": {10, 11, 12}, "b": {5, 5, 6}})
	cur.Benchmarks = append(cur.Benchmarks, Benchmark{Name: "broken", Op: "exec", Error: "exec: \"nosuch\": executable file not found"})
	cur.Benchmarks[0].Runs[1].Metrics = map[string]float64{"failed": 0}
	for i := range cur.Benchmarks[0].Runs {
		cur.Benchmarks[0].Runs[i].Metrics = map[string]float64{"failed": 0}
	}

	tests := []struct {
		name string
		exp  Expectation
		base *Result
		msg  string
	}{
		{"failed_ref", ratio("x", "a", "broken", ptr(1), nil), nil, "benchmark broken failed: exec: \"nosuch\""},
		{"division_by_zero", Expectation{Name: "x", Max: ptr(1), Refs: []Ref{{Instance: "b"}, {Instance: "a"}},
			Value: func(cur, _ Metrics) (float64, error) {
				return cur["b"]["ns_per_op"] / cur["a"]["failed"], nil
			}}, nil, "+Inf (a division by zero?)"},
		{"nan", Expectation{Name: "x", Max: ptr(1), Refs: []Ref{{Instance: "a"}},
			Value: func(cur, _ Metrics) (float64, error) {
				return cur["a"]["failed"] / cur["a"]["failed"], nil
			}}, nil, "NaN"},
		{"value_error", Expectation{Name: "x", Max: ptr(1), Refs: []Ref{{Instance: "a"}},
			Value: func(cur, _ Metrics) (float64, error) {
				return 0, errors.New("unsupported attribute \"nope\"")
			}}, nil, "unsupported attribute \"nope\""},
		{"no_bounds", ratio("x", "a", "b", nil, nil), nil, "neither min nor max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Judge([]Expectation{tt.exp}, cur, tt.base)[0]
			if a.Verdict != Error {
				t.Errorf("verdict = %s, want error", a.Verdict)
			}
			if !strings.Contains(a.Message, tt.msg) {
				t.Errorf("message = %q, want it to contain %q", a.Message, tt.msg)
			}
		})
	}
}

// A regression against a baseline names the instance that moved.
func TestJudgeBaselineMoved(t *testing.T) {
	base := synthetic(map[string][]float64{"app/build=a": {100, 101, 99, 100}, "other": {5, 5, 5, 5}})
	cur := synthetic(map[string][]float64{"app/build=a": {150, 151, 149, 150}, "other": {5, 5, 5, 5}})
	exp := Expectation{
		Name: "at_most_10pct_slower", Max: ptr(1.1),
		Refs: []Ref{{Instance: "app/build=a"}, {Instance: "other"}, {Instance: "app/build=a", Baseline: true}, {Instance: "other", Baseline: true}},
		Value: func(cur, base Metrics) (float64, error) {
			return (cur["app/build=a"]["ns_per_op"] + cur["other"]["ns_per_op"]) /
				(base["app/build=a"]["ns_per_op"] + base["other"]["ns_per_op"]), nil
		},
	}
	a := Judge([]Expectation{exp}, cur, base)[0]
	if a.Verdict != Fail {
		t.Fatalf("verdict = %s (%s), want fail", a.Verdict, a.Message)
	}
	if want := "app/build=a moved +50.0% against the baseline (100 -> 150 ns/op)"; a.Message != want {
		t.Errorf("message = %q, want %q", a.Message, want)
	}
}

// A failure is explained in the metric the assertion reads, not in ns/op.
func TestJudgeExplainsInTheAssertionsMetric(t *testing.T) {
	withMetric := func(r *Result, name string, vs ...float64) *Result {
		for i, v := range vs {
			r.Benchmarks[0].Runs[i].Metrics = map[string]float64{name: v}
		}
		return r
	}
	base := withMetric(synthetic(map[string][]float64{"api": {100, 100, 100, 100}}), "requests_per_sec", 1000, 1010, 990, 1000)
	cur := withMetric(synthetic(map[string][]float64{"api": {100, 100, 100, 100}}), "requests_per_sec", 700, 705, 695, 700)
	failing := withMetric(synthetic(map[string][]float64{"api": {100, 100, 100, 100}}), "failed", 3, 3, 3, 3)
	for _, tt := range []struct {
		name      string
		exp       Expectation
		cur, base *Result
		want      string
	}{
		{"rate_against_baseline", Expectation{
			Name: "throughput_kept", Min: ptr(0.9),
			Refs: []Ref{{Instance: "api", Metric: "requests_per_sec"}, {Instance: "api", Metric: "requests_per_sec", Baseline: true}},
			Value: func(cur, base Metrics) (float64, error) {
				return cur["api"]["requests_per_sec"] / base["api"]["requests_per_sec"], nil
			},
		}, cur, base, "api moved -30.0% against the baseline (1000 -> 700 requests_per_sec)"},
		{"count_without_baseline", Expectation{
			Name: "no_failures", Max: ptr(0),
			Refs:  []Ref{{Instance: "api", Metric: "failed"}},
			Value: func(cur, _ Metrics) (float64, error) { return cur["api"]["failed"], nil },
		}, failing, nil, "it read api 3 failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := Judge([]Expectation{tt.exp}, tt.cur, tt.base)[0]
			if a.Verdict != Fail || a.Message != tt.want {
				t.Errorf("verdict %s, message %q; want fail, %q", a.Verdict, a.Message, tt.want)
			}
		})
	}
}

// The same data gives the same interval; the seed comes from the name.
func TestJudgeDeterministic(t *testing.T) {
	cur := synthetic(map[string][]float64{"a": {90, 100, 110, 95, 105, 97}, "b": {10, 11, 9, 10, 10.5, 9.5}})
	exps := []Expectation{ratio("r1", "a", "b", ptr(9), nil), ratio("r2", "a", "b", ptr(9), nil)}
	first := Judge(exps, cur, nil)
	for range 3 {
		if diff := cmp.Diff(first, Judge(exps, cur, nil)); diff != "" {
			t.Fatalf("Judge differs between calls (-first +again):\n%s", diff)
		}
	}
	if *first[0].Interval == *first[1].Interval {
		t.Errorf("two names gave the identical interval %+v; the seed should differ", *first[0].Interval)
	}
	// The interval is a real one: inside the range of possible medians.
	if lo, hi := first[0].Interval.Low, first[0].Interval.High; !(lo >= 90.0/11 && hi <= 110/9.0 && lo < hi) {
		t.Errorf("interval [%v, %v] is not within the resampled range", lo, hi)
	}
}

func TestInstances(t *testing.T) {
	r := synthetic(map[string][]float64{"memcpy/size=1KB": {100, 200, 300}})
	r.Benchmarks[0].Params = map[string]any{"size": float64(1024)}
	r.Benchmarks[0].Runs[0].Metrics = map[string]float64{"allocs_per_op": 1}
	r.Benchmarks[0].Runs[1].Metrics = map[string]float64{"allocs_per_op": 3}
	r.Benchmarks = append(r.Benchmarks, Benchmark{Name: "broken", Error: "boom"})
	got := Instances(r)
	want := Metrics{
		"memcpy/size=1KB": {"ns_per_op": 200, "ops_per_sec": 5e6, "bytes_per_sec": 1024 * 5e6, "allocs_per_op": 2},
	}
	approx := cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)) })
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("Instances (-want +got):\n%s", diff)
	}
}

// A value that divides by a figure some runs report as zero cannot be
// given an interval: too many resamples are infinite.
func TestJudgeUnstableDivisor(t *testing.T) {
	cur := synthetic(map[string][]float64{"a": {10, 10, 10, 10, 10}})
	for i, x := range []float64{0, 0, 5, 5, 5} {
		cur.Benchmarks[0].Runs[i].Metrics = map[string]float64{"failed": x}
	}
	exp := Expectation{Name: "per_failure", Max: ptr(10), Refs: []Ref{{Instance: "a"}},
		Value: func(cur, _ Metrics) (float64, error) {
			return cur["a"]["ns_per_op"] / cur["a"]["failed"], nil
		}}
	a := Judge([]Expectation{exp}, cur, nil)[0]
	if a.Verdict != Error || !strings.Contains(a.Message, "not finite in") {
		t.Errorf("verdict %s (%s), want error: not finite in some resamples", a.Verdict, a.Message)
	}
}

// A result with 20,000 runs per instance is judged with a bounded number of
// draws, and its interval still has the width a median of that many runs has.
func TestBootstrapScalesWithRuns(t *testing.T) {
	const n = 20000
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(mean, sd float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = mean + sd*rng.NormFloat64()
		}
		return xs
	}
	cur := synthetic(map[string][]float64{"a": gen(100, 10), "b": gen(50, 5)})
	exp := Expectation{Name: "a_over_b", Min: ptr(1.9), Max: ptr(2.1),
		Refs: []Ref{{Instance: "a", Metric: "ns_per_op"}, {Instance: "b", Metric: "ns_per_op"}},
		Value: func(cur, _ Metrics) (float64, error) {
			return cur["a"]["ns_per_op"] / cur["b"]["ns_per_op"], nil
		}}
	refs, err := resolveRefs(exp.Refs, cur, nil)
	if err != nil {
		t.Fatal(err)
	}
	med := Instances(cur)
	b := bootstrap(exp, refs.instances, med, nil, Confidence)
	if limit := Resamples * 2 * MaxResampledRuns; b.draws > limit {
		t.Errorf("bootstrap drew %d runs, want at most %d", b.draws, limit)
	}
	// The median of n normal runs has a standard error of about
	// 1.2533*sd/sqrt(n); the ratio's relative errors add in quadrature.
	v := med["a"]["ns_per_op"] / med["b"]["ns_per_op"]
	se := v * math.Sqrt2 * 1.2533 * 0.1 / math.Sqrt(n)
	if width, want := b.hi-b.lo, 2*1.96*se; width < 0.7*want || width > 1.4*want {
		t.Errorf("interval [%v, %v] is %v wide, want about %v", b.lo, b.hi, width, want)
	}
	if !(b.lo < v && v < b.hi) {
		t.Errorf("interval [%v, %v] does not hold the value %v", b.lo, b.hi, v)
	}

	// Up to MaxResampledRuns runs, every run is drawn in every resample.
	small := synthetic(map[string][]float64{"a": {1, 2, 3, 4, 5}, "b": {1, 1, 2}})
	refs, _ = resolveRefs(exp.Refs, small, nil)
	if b := bootstrap(exp, refs.instances, Instances(small), nil, Confidence); b.draws != Resamples*8 {
		t.Errorf("bootstrap of 5 and 3 runs drew %d, want %d", b.draws, Resamples*8)
	}
}

// A bootstrap of three runs resamples medians among those three values:
// its interval is their range and claims the range's 75%, never 95%.
func TestJudgeBootstrapLevel(t *testing.T) {
	for _, tc := range []struct {
		runs []float64
		want float64
	}{
		{[]float64{10, 11, 12}, 0.75},
		{[]float64{10, 11, 12, 13, 14}, 0.9375},
		{[]float64{10, 11, 12, 13, 14, 15}, 0.95},
		{[]float64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, 0.95},
	} {
		cur := synthetic(map[string][]float64{"a": tc.runs})
		exp := Expectation{Name: "a_small", Max: ptr(100), Refs: []Ref{{Instance: "a", Metric: "ns_per_op"}},
			Value: func(cur, _ Metrics) (float64, error) { return cur["a"]["ns_per_op"], nil }}
		a := Judge([]Expectation{exp}, cur, nil)[0]
		if a.Interval == nil || a.Interval.Confidence != tc.want {
			t.Errorf("%d runs: interval %+v, want confidence %v", len(tc.runs), a.Interval, tc.want)
		}
		if len(tc.runs) == 3 && (a.Interval.Low != 10 || a.Interval.High != 12) {
			t.Errorf("3 runs: interval %+v, want their range [10, 12]", *a.Interval)
		}
	}
}

// TestJudgeSkips: a baseline figure that is not there (no --baseline, or
// an instance the baseline lacks) is a skip, not an error.
func TestJudgeSkips(t *testing.T) {
	cur := synthetic(map[string][]float64{"a": {10, 11, 12}, "b": {5, 5, 6}})
	base := synthetic(map[string][]float64{"a": {10, 10, 10}})
	failedBase := synthetic(map[string][]float64{"a": {10, 10, 10}})
	failedBase.Benchmarks = append(failedBase.Benchmarks, Benchmark{Name: "b", Op: "exec", Error: "exit status 1"})
	toBase := func(inst string) Expectation {
		return Expectation{Name: "x", Max: ptr(1.3), Refs: []Ref{{Instance: inst}, {Instance: inst, Baseline: true}},
			Value: func(cur, base Metrics) (float64, error) { return cur[inst]["ns_per_op"] / base[inst]["ns_per_op"], nil }}
	}
	for _, tt := range []struct {
		name string
		exp  Expectation
		base *Result
		want Verdict
		msg  string
	}{
		{"no_baseline_given", toBase("a"), nil, Skip, "no baseline was given"},
		{"baseline_lacks_instance", toBase("b"), base, Skip, "the baseline has no b"},
		{"baseline_instance_failed", toBase("b"), failedBase, Error, "baseline b failed"},
		{"baseline_has_it", toBase("a"), base, Pass, ""},
		{"current_lacks_instance", toBase("c"), base, Error, "benchmark c is not in the result"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := Judge([]Expectation{tt.exp}, cur, tt.base)[0]
			if a.Verdict != tt.want || !strings.Contains(a.Message, tt.msg) {
				t.Errorf("verdict %s (%q), want %s with %q", a.Verdict, a.Message, tt.want, tt.msg)
			}
		})
	}
}

// TestJudgeThreshold: a value past its bound by less than the noise
// threshold is never a failure, and the message says the threshold applied.
func TestJudgeThreshold(t *testing.T) {
	base := synthetic(map[string][]float64{"a": {100, 100, 100, 100, 100, 100, 100, 100}})
	runs := func(center float64) *Result {
		return synthetic(map[string][]float64{"a": {center - 0.4, center - 0.3, center - 0.2, center - 0.1, center, center + 0.1, center + 0.2, center + 0.3}})
	}
	exp := func(min, max *float64, threshold float64) Expectation {
		return Expectation{Name: "x", Min: min, Max: max, Threshold: threshold, Refs: []Ref{{Instance: "a"}, {Instance: "a", Baseline: true}},
			Value: func(cur, base Metrics) (float64, error) { return cur["a"]["ns_per_op"] / base["a"]["ns_per_op"], nil }}
	}
	for _, tt := range []struct {
		name   string
		center float64
		exp    Expectation
		want   Verdict
		noise  bool
	}{
		{"fail_without_threshold", 103, exp(nil, ptr(1), 0), Fail, false},
		{"within_threshold", 103, exp(nil, ptr(1), 0.05), Pass, true},
		{"past_threshold", 107, exp(nil, ptr(1), 0.05), Fail, false},
		{"faster_within_min_threshold", 97, exp(ptr(1), nil, 0.05), Pass, true},
		{"faster_past_min_threshold", 90, exp(ptr(1), nil, 0.05), Fail, false},
		{"straddles_threshold", 100.1, exp(nil, ptr(1), 0.001), Inconclusive, false},
		{"straddles_within", 100, exp(nil, ptr(1), 0.05), Pass, true},
		{"inside_bounds", 99, exp(nil, ptr(1), 0.05), Pass, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := Judge([]Expectation{tt.exp}, runs(tt.center), base)[0]
			noise := strings.Contains(a.Message, "noise threshold")
			if a.Verdict != tt.want || noise != tt.noise {
				t.Errorf("verdict %s (%q), want %s, noise message %v", a.Verdict, a.Message, tt.want, tt.noise)
			}
		})
	}
	// One run: the point value meets the threshold the same way.
	one := synthetic(map[string][]float64{"a": {103}})
	if a := Judge([]Expectation{exp(nil, ptr(1), 0.05)}, one, base)[0]; a.Verdict != Pass || !strings.Contains(a.Message, "noise threshold") {
		t.Errorf("one run: verdict %s (%q), want pass within the noise threshold", a.Verdict, a.Message)
	}
}
