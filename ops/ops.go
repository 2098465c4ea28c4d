// Package ops is specrun's catalog of built-in operations. Each family of ops
// lives in its own file and registers a Def per op; the harness prepares an
// op with Def.New (untimed) and calls Run, which loops n iterations itself.
package ops

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/param"
)

// Op is a prepared operation. Run performs n iterations of the work and
// returns what it observed; the harness times the call. An Op that holds
// resources (files, processes, connections) also implements io.Closer, and
// the harness closes it on every path out, outside the timed region.
type Op interface {
	Run(ctx context.Context, n int64) (Sample, error)
}

// DurationBound is an Op whose runs last a set time rather than a count of
// iterations (an http load phase with a duration). Warming it up with Run
// would take a whole run, so the harness calls WarmUp instead: the op works
// as a run would, untimed, for about d, and returns what it observed so
// that the warm-up can be shown beside the runs.
type DurationBound interface {
	Op
	WarmUp(ctx context.Context, d time.Duration) (Sample, error)
}

// Sample is what one Run observed beyond its wall time.
type Sample struct {
	// N is the number of iterations done, when the op decides it (an http
	// load phase bounded by duration); zero means the n that was asked.
	N int64
	// Elapsed replaces the harness's timing when the op times itself (an
	// http load phase, an exec run with the shell's start-up subtracted).
	Elapsed time.Duration
	// Metrics are op-specific figures for this run, named as in Def.Metrics.
	Metrics map[string]float64
	// Warnings are what makes this run less trustworthy without making it
	// wrong (an http rate target it fell far short of); the harness records
	// them with the result.
	Warnings []string
	// Histograms are the run's distributions by metric name ("latency_ns"),
	// each in HdrHistogram's own encoding (V2 compressed, base64), so that
	// the runs of several processes merge exactly.
	Histograms map[string]string
	// Started is the wall-clock time the op's own timing began, when it
	// times itself (Elapsed set); zero otherwise.
	Started time.Time
}

// Metric describes one op-specific figure; ops declare theirs beside the
// standard metrics that metric.Standard declares.
type Metric = metric.Metric

// Env is what the harness lends an op while it is prepared and run.
type Env interface {
	// TempDir is a directory owned by this run, removed when the run ends
	// however it ends. Ops make their own directories inside it.
	TempDir() string
	// Server returns a running server block, starting it if needed.
	Server(ctx context.Context, name string) (Server, error)
	// Servers names the server blocks this instance loads, as the plan
	// settled them when it was built (Def.Servers).
	Servers() []string
	// Context ends when the instance's benchmark times out or the run is
	// cancelled; New bounds its own long work with it (an exec setup).
	Context() context.Context
}

// envContext is env's context, or Background where an op is prepared
// without a harness (tests, tools).
func envContext(env Env) context.Context {
	if env == nil || env.Context() == nil {
		return context.Background()
	}
	return env.Context()
}

// ServerURLScheme prefixes the URL that a spec sees for a builtin server
// ("specrun-server://NAME"): its port is chosen when the run starts, so the
// http op resolves the name through Env.Server at run time.
const ServerURLScheme = "specrun-server://"

// ServerOwner tells which server block a URL belongs to: a spec may load a
// command server through its URL (`url = "${server.app.url}/health"`, a
// plain http URL) rather than `server = "app"`, and that benchmark still
// loads the server.
type ServerOwner func(url string) (name string, ok bool)

// Server is a started server block.
type Server struct {
	Name string
	URL  string // base URL, "http://127.0.0.1:PORT"
	PID  int
}

// Def declares an op: its name, what one iteration does, its parameters and
// metrics, and how to prepare it.
type Def struct {
	Name    string // "memcpy", "call.reflect", "file.write"
	Doc     string // what one iteration does, exactly
	Classic string // the row of the classic tables it stands for, if any
	Params  []param.Param
	Metrics []Metric
	// Iterations, when set, fixes the count of a run from the parameters
	// (an http load phase's requests); the spec's iterations then do not apply.
	Iterations func(param.Values) int64
	// Interleave is the default for a matrix of this op: run the instances
	// round-robin, one run each, so drift hits every variant alike.
	Interleave bool
	// Servers, when set, names the server blocks an instance loads. spec
	// calls it when it builds the plan, with owner answering for the
	// spec's own server blocks; the harness hands the answer back to the
	// op (Env.Servers) and stops each server after its last instance.
	Servers func(p param.Values, owner ServerOwner) []string
	// New prepares an instance. It is never timed.
	New func(p param.Values, env Env) (Op, error)
	// Check, when set, refuses parameters that cannot run here, as far as
	// can be told before anything runs (a file.write target that is
	// already a user's file). Each problem is a *ParamError, so that spec
	// can point at the attribute to fix; run time checks again in New.
	Check func(p param.Values) []*ParamError
	// Memory, when set, is what one prepared instance will allocate. The
	// plan refuses an instance that cannot fit in the machine's memory (or
	// under ulimit -v), and New one that does not fit in what is available
	// when it runs, so that a mistyped size is a diagnostic or that
	// benchmark's error, not Go's fatal out-of-memory.
	Memory func(p param.Values) Footprint
}

// Footprint is the memory one op instance allocates: its buffers, plus the
// most that its iterations hold at once.
type Footprint struct {
	Bytes int64
	Param string // the parameter that decides it: "size", "concurrency"
	What  string // how it comes about: "two buffers of size bytes"
}

// ParamError is a parameter value an op refuses. Param names the parameter
// to blame, or is empty when no single one is.
type ParamError struct {
	Param   string // "name"
	Summary string // a short capitalised phrase: "File exists"
	Err     error  // full sentences
}

func (e *ParamError) Error() string {
	if e.Param == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("parameter %q: %v", e.Param, e.Err)
}

func (e *ParamError) Unwrap() error { return e.Err }

// Validate returns the problems with p that show before anything runs:
// those the op's Check finds, and a Memory larger than the machine's. The harness calls New later, which may still
// fail when the machine changed in between.
func (d *Def) Validate(p param.Values) []*ParamError {
	var errs []*ParamError
	if d.Check != nil {
		errs = d.Check(p)
	}
	if err := d.fits(p, machineTotal); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// Param returns the named parameter declaration.
func (d *Def) Param(name string) (param.Param, bool) {
	for _, p := range d.Params {
		if p.Name == name {
			return p, true
		}
	}
	return param.Param{}, false
}

var registry = map[string]*Def{}

// Register adds d to the catalog. It panics on a duplicate name: that is a
// programming mistake found by any test.
func Register(d *Def) {
	if _, dup := registry[d.Name]; dup {
		panic(fmt.Sprintf("ops: %q registered twice", d.Name))
	}
	if d.Memory != nil {
		d.New = checkAvailable(d, d.New)
	}
	registry[d.Name] = d
}

// Lookup returns the op named name.
func Lookup(name string) (*Def, bool) {
	d, ok := registry[name]
	return d, ok
}

// All returns every op, sorted by name.
func All() []*Def {
	defs := make([]*Def, 0, len(registry))
	for _, d := range registry {
		defs = append(defs, d)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	return defs
}

// Func adapts a function to Op.
type Func func(ctx context.Context, n int64) (Sample, error)

// Run calls f.
func (f Func) Run(ctx context.Context, n int64) (Sample, error) { return f(ctx, n) }

var _ Op = Func(nil)

// stateless is the New of an op that prepares nothing: every instance runs f.
func stateless(f Func) func(param.Values, Env) (Op, error) {
	return func(param.Values, Env) (Op, error) { return f, nil }
}
