// Package results holds specrun's result types (the specrun.results/v1 JSON
// contract), their statistics, verdicts, and the reporters that render them.
package results

import "time"

// Schema is the value of Result.Schema that this version reads and writes.
const Schema = "specrun.results/v1"

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
}

// Suite names the suite that ran.
type Suite struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
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
	// ContaminatedBy names the benchmarks whose ops were still running,
	// past their timeout, while this one was timed: its figures are
	// suspect.
	ContaminatedBy []string `json:"contaminated_by,omitempty"`
}

// Run is one timed run of a benchmark.
type Run struct {
	Iterations int64              `json:"iterations"`
	TotalNs    int64              `json:"total_ns"`
	NsPerOp    float64            `json:"ns_per_op"`
	Metrics    map[string]float64 `json:"metrics,omitempty"`
}

// Summary summarises one figure over a benchmark's runs.
type Summary struct {
	Median   float64 `json:"median"`
	Mean     float64 `json:"mean"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	Stddev   float64 `json:"stddev"`
	CI95Low  float64 `json:"ci95_low"`
	CI95High float64 `json:"ci95_high"`
}

// Assertion is an assert block's verdict.
type Assertion struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Value       *float64 `json:"value"`
	CI95Low     *float64 `json:"ci95_low"`
	CI95High    *float64 `json:"ci95_high"`
	Min         *float64 `json:"min"`
	Max         *float64 `json:"max"`
	Verdict     Verdict  `json:"verdict"`
	Message     string   `json:"message,omitempty"`
}

// Verdict is the outcome of an assertion.
type Verdict string

// The verdicts.
const (
	Pass         Verdict = "pass"
	Fail         Verdict = "fail"
	Inconclusive Verdict = "inconclusive"
	Error        Verdict = "error"
)
