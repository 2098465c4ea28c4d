// Package spec turns HCL spec files into a validated, fully expanded Plan.
// It owns parsing and diagnostics and never times anything; the op catalog
// is handed to it through Options.
package spec

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/param"
)

// Plan is a spec after decoding, variable evaluation and matrix expansion:
// everything the runner needs, and the files it came from.
//
// A Plan from Load without errors is complete: every default (the
// Default* constants, an op parameter's default) is applied, and every
// value is in range and normalised (a stop signal is one of StopSignals).
// Later stages read its values and apply no defaults of their own.
type Plan struct {
	Suite  Suite
	Paths  []string          // the paths given on the command line
	Files  map[string][]byte // every source file by path, for results and diagnostics
	SHA256 string            // of the files, in path order
	// Vars holds the variables set from outside the spec files (--var,
	// --var-file), each as an HCL literal, so that a result can be judged
	// again (Options.Vars) with the values it ran with.
	Vars       map[string]string
	Benchmarks []*Benchmark // instances in file order, matrices expanded
	Servers    []*Server
	Asserts    []*Assert
	// Report is the report block's layout; nil without one.
	Report *Report

	sources map[string]*hcl.File // Files and var files, parsed, for diagnostic snippets
}

// Suite holds the suite block, with defaults applied.
type Suite struct {
	Name        string // default: file name without .hcl, or the directory's name
	Title       string
	Description string
	Timing      // each benchmark's, unless it sets its own
	// Threshold is every assert's noise floor unless it sets its own.
	Threshold float64
	// Columns are the table columns the reports draw (TableColumns, or
	// metrics of the benchmarks); empty for each kind's defaults.
	Columns []string
	// TimeUnit is the unit of the tables' times, one of TimeUnits; ""
	// and "auto" let each column choose.
	TimeUnit string
}

// Timing is how a benchmark is run: set in the suite block for all, and
// in a benchmark block for one.
type Timing struct {
	Repeat  int           // default DefaultRepeat
	Warmup  time.Duration // default DefaultWarmup
	MinTime time.Duration // per run when iterations = "auto"; default DefaultMinTime
	Timeout time.Duration // per benchmark; default DefaultTimeout
	// RepeatAuto (repeat = "auto") adds runs, from AutoMinRepeat on, while
	// an assertion that reads the benchmark is undecided or its median is
	// less precise than Precision, up to MaxRepeat runs and MaxTime.
	RepeatAuto bool
	MaxRepeat  int           // default DefaultMaxRepeat
	MaxTime    time.Duration // of timed runs per benchmark; default DefaultMaxTime
	Precision  float64       // relative half-width of the median's interval; default DefaultPrecision
	// Launches spreads the Repeat runs over this many fresh specrun
	// processes, each doing its share; default DefaultLaunches. A
	// benchmark that loads servers runs in one.
	Launches int
}

// Benchmark is one instance of a benchmark block: the block itself, or one
// point of its matrix.
type Benchmark struct {
	Name       string // "memcpy/size=16B": block name, then key=value per matrix key in order
	Block      string // "memcpy"
	Label      string // row name in tables
	Op         *ops.Def
	Params     param.Values // defaults applied
	Matrix     []Axis       // this instance's point, in declaration order
	Iterations int64        // per run; 0 means "auto"
	Timing                  // the suite's, unless the block sets its own
	Interleave bool         // run this block's instances round-robin
	// EveryShard runs a benchmark that is not an http phase whole on every
	// shard of `run --shard`, rather than on shard 0 only.
	EveryShard bool
	Servers    []string // the server blocks it loads (Def.Servers), settled here
	DeclRange  hcl.Range
}

// Axis is one matrix key and this instance's value of it, as written in names.
type Axis struct {
	Key, Value string
}

// Server is a server block: a command to start, or specrun's built-in server.
type Server struct {
	Name         string
	Command      []string
	URL          string // base URL of a command server; builtin servers get one at start
	Ready        string // URL polled until it answers
	ReadyTimeout time.Duration
	Env          map[string]string
	Dir          string
	StopSignal   string // one of StopSignals; DefaultStopSignal by default
	Grace        time.Duration
	Builtin      string // "static"
	BodySize     int64  // of a builtin server's page; DefaultBodySize by default
	Work         time.Duration
	// DependsOn names the servers started before this one and stopped
	// after it, in the order the spec lists them.
	DependsOn []string
	// Version is a command whose output, the server's version, goes into
	// the result's environment; nil for none.
	Version   []string
	DeclRange hcl.Range
	dependsOn *hcl.Attribute
}

// Assert is an expected value over this run's and a baseline's metrics.
// The value expression is kept unevaluated so a failing check points at
// its source.
type Assert struct {
	Name        string // NAME, or NAME["KEY"] for one instance of a for_each
	Description string
	Min, Max    *float64
	// Threshold is the noise floor, a fraction: a value past a bound by
	// less than Threshold of the bound is never a failure. 0 means none.
	Threshold float64
	Refs      []Ref // what Value reads, resolved at load time
	DeclRange hcl.Range
	// Key is this instance's for_each key; empty without for_each.
	Key     string
	value   hcl.Expression
	forEach hcl.Expression   // nil without for_each
	ctx     *hcl.EvalContext // var.*, local.*
}

// Ref is one benchmark instance an assertion reads.
type Ref struct {
	Baseline bool   // baseline.X rather than benchmark.X
	Instance string // "memcpy/size=16B"
	Metric   string // "ns_per_op"; empty when the whole object is used
	Range    hcl.Range
}

// Metrics holds one figure per metric name per instance name:
// m["memcpy/size=16B"]["ns_per_op"].
type Metrics map[string]map[string]float64
