// Package results is specrun's result contract (the specrun.results/v2
// JSON), its reading and writing, and what is computed from it: summaries
// and their intervals, assertion verdicts, and comparisons. Rendering lives
// in package report, which builds on this one.
package results

import (
	"cmp"
	"slices"
	"time"
)

// Schema is the value of Result.Schema that this version writes. Decode
// also reads SchemaV1 results.
const Schema = "specrun.results/v2"

// Result is one `specrun run`: the spec it ran, where, and what it measured.
type Result struct {
	Schema      string      `json:"schema"`
	Suite       Suite       `json:"suite"`
	Label       string      `json:"label"`
	Spec        Spec        `json:"spec"`
	Environment Environment `json:"environment"`
	StartedAt   time.Time   `json:"started_at"`
	FinishedAt  time.Time   `json:"finished_at"`
	Interrupted bool        `json:"interrupted,omitempty"`
	Warnings    []string    `json:"warnings,omitempty"`
	Benchmarks  []Benchmark `json:"benchmarks"`
	Assertions  []Assertion `json:"assertions"`
	// Shard is set on the result of `run --shard I/N`: the part of the
	// load it ran.
	Shard *Shard `json:"shard,omitempty"`
	// Shards are the results a merged result was made of.
	Shards []Source `json:"shards,omitempty"`
}

// Suite names the suite that ran.
type Suite struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Columns are the table columns the suite asks for (its columns
	// attribute); empty for each kind of benchmark's defaults.
	Columns []string `json:"columns,omitempty"`
	// TimeUnit is the unit the suite's tables write times in (its
	// time_unit attribute): "ns", "us", "ms" or "s"; empty for each
	// column's own.
	TimeUnit string `json:"time_unit,omitempty"`
	// Layout is the table the suite's report block lays out, which run,
	// report and compare print; nil without one.
	Layout *Layout `json:"layout,omitempty"`
}

// Spec is the spec a result came from; it travels with the result so that
// `check` and a rerun elsewhere need nothing else.
type Spec struct {
	Paths  []string          `json:"paths"`
	SHA256 string            `json:"sha256"`
	Files  map[string]string `json:"files"`
	// Vars are the variables the run set from outside the files (--var,
	// --var-file), as HCL literals.
	Vars map[string]string `json:"vars,omitempty"`
}

// Environment describes the machine and build that produced a result.
type Environment struct {
	Hostname       string `json:"hostname"`
	OS             string `json:"os"`
	Kernel         string `json:"kernel"`
	Arch           string `json:"arch"`
	CPUModel       string `json:"cpu_model"`
	CPUCount       int    `json:"cpu_count"`
	MemoryBytes    int64  `json:"memory_bytes"`
	GoVersion      string `json:"go_version"`
	SpecrunVersion string `json:"specrun_version"`
	GOMAXPROCS     int    `json:"gomaxprocs"`
	Governor       string `json:"governor,omitempty"`
	VM             string `json:"vm,omitempty"`
	// Servers is each started server's version, its version command's
	// output, by server name.
	Servers map[string]string `json:"servers,omitempty"`
}

// Benchmark is one benchmark instance's outcome.
type Benchmark struct {
	Name        string             `json:"name"`      // "memcpy/size=16B"
	Benchmark   string             `json:"benchmark"` // the block, "memcpy"
	Label       string             `json:"label"`
	Op          string             `json:"op"`
	Params      map[string]any     `json:"params"`
	Iterations  int64              `json:"iterations"` // per run
	Runs        []Run              `json:"runs"`
	NsPerOp     Summary            `json:"ns_per_op"`
	Metrics     map[string]Summary `json:"metrics,omitempty"`
	Error       string             `json:"error,omitempty"`
	Interrupted bool               `json:"interrupted,omitempty"`
	// Looks are the runs after which a benchmark with repeat = "auto"
	// could stop (a Sequential rule's Looks); its assertions are judged
	// at the level that spends the error rate over them.
	Looks []int `json:"looks,omitempty"`
	// ContaminatedBy names the benchmarks whose ops were still running,
	// past their timeout, while this one was timed: its figures are
	// suspect.
	ContaminatedBy []string `json:"contaminated_by,omitempty"`
	// Warmups are the untimed runs before Runs, in the order they ran (an
	// http op's warm-up phases, the growing runs of a fixed count's
	// warm-up, calibration's runs), so that a report can show how the
	// benchmark warmed up. No summary, verdict or comparison reads them.
	Warmups []Run `json:"warmups,omitempty"`
	// Launches is how the spread of a benchmark whose runs were spread
	// over fresh specrun processes (launches = N) divides between them
	// and their runs; nil for a benchmark run in one process.
	Launches *LaunchSplit `json:"launches,omitempty"`
}

// RowLabel is the name a benchmark's row gets in tables and charts: its
// label, or its name when it has none.
func (b *Benchmark) RowLabel() string {
	if b.Label != "" {
		return b.Label
	}
	return b.Name
}

// ParamNumber returns a numeric parameter, as it is held in memory (int64)
// or after a JSON round trip (float64).
func (b *Benchmark) ParamNumber(name string) (float64, bool) {
	switch x := b.Params[name].(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

// Run is one timed run of a benchmark.
type Run struct {
	Iterations int64              `json:"iterations"`
	TotalNs    int64              `json:"total_ns"`
	NsPerOp    float64            `json:"ns_per_op"`
	Metrics    map[string]float64 `json:"metrics,omitempty"`
	// Histograms are the run's distributions by metric name ("latency_ns"
	// of an http phase), in HdrHistogram's own encoding: V2 compressed and
	// base64, as hdrhistogram.Histogram.Encode writes it. Merging shards
	// adds them, so a merged percentile is exact.
	Histograms map[string]string `json:"histograms,omitempty"`
	// StartedAt is the wall-clock start of a run that timed itself (an
	// http phase); with TotalNs it gives the run's window.
	StartedAt *time.Time `json:"started_at,omitempty"`
	// Launch is the launch (1 to N) that did the run, when the benchmark's
	// runs were spread over N fresh specrun processes; 0 otherwise.
	Launch int `json:"launch,omitempty"`
}

// Summary summarises one figure over a benchmark's runs.
type Summary struct {
	Median   float64  `json:"median"`
	Mean     float64  `json:"mean"`
	Min      float64  `json:"min"`
	Max      float64  `json:"max"`
	Stddev   float64  `json:"stddev"`
	Interval Interval `json:"interval"`
	// Warnings are what limits the summary, such as too few runs for a
	// 95% interval.
	Warnings []string `json:"warnings,omitempty"`
}

// Interval is a range of values and how surely it holds what it estimates:
// the median of a benchmark's figure, or an assertion's value.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Confidence is the interval's actual level: at least 0.95 for a
	// MedianCI, 1 - 2*0.5^n for the Range of n runs (0.75 for three), 1 for
	// a Point; for a Bootstrap the nominal 0.95, or with fewer than six runs
	// of an instance the value reads, the level of that instance's range;
	// under repeat = "auto" the level of each look, 1 - 0.05/looks.
	Confidence float64      `json:"confidence"`
	Kind       IntervalKind `json:"kind"`
}

// IntervalKind says how an interval was made.
type IntervalKind string

// The kinds of interval.
const (
	// MedianCI is the distribution-free confidence interval of the median
	// from order statistics, as benchstat gives it: six runs or more.
	MedianCI IntervalKind = "median_ci"
	// Range is min..max, for fewer runs than a 95% MedianCI needs.
	Range IntervalKind = "range"
	// Point is a single run's value.
	Point IntervalKind = "point"
	// Bootstrap is the 2.5th to 97.5th percentile of an assertion's value
	// over resampled runs (over resampled launches, then runs, when the
	// runs were spread over launches).
	Bootstrap IntervalKind = "bootstrap"
)

// Assertion is an assert block's verdict.
type Assertion struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Value       *float64 `json:"value"`
	// Interval is the value's bootstrap interval; nil when the point value
	// decided (one run per benchmark).
	Interval *Interval `json:"interval"`
	Min      *float64  `json:"min"`
	Max      *float64  `json:"max"`
	Verdict  Verdict   `json:"verdict"`
	Message  string    `json:"message,omitempty"`
}

// Verdict is the outcome of an assertion.
type Verdict string

// The verdicts.
const (
	Pass         Verdict = "pass"
	Fail         Verdict = "fail"
	Inconclusive Verdict = "inconclusive"
	Error        Verdict = "error"
	// Skip is an assertion that reads a baseline figure when no baseline
	// was given, or one the baseline lacks: there is nothing to judge.
	Skip Verdict = "skip"
)

// ByTime returns a copy of r whose benchmarks are ordered by median time
// per op, as the classic table is; failed and unmeasured ones go last in
// their original order.
func ByTime(r *Result) *Result {
	sorted := *r
	sorted.Benchmarks = slices.Clone(r.Benchmarks)
	measured := func(b *Benchmark) bool { return b.Error == "" && len(b.Runs) > 0 }
	slices.SortStableFunc(sorted.Benchmarks, func(a, b Benchmark) int {
		switch ma, mb := measured(&a), measured(&b); {
		case ma != mb:
			if ma {
				return -1
			}
			return 1
		case !ma:
			return 0
		}
		return cmp.Compare(a.NsPerOp.Median, b.NsPerOp.Median)
	})
	return &sorted
}
