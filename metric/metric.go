// Package metric declares the figures specrun records: each metric's name,
// unit and which direction is better, as golang.org/x/perf's benchunit and
// benchfmt declare them for Go benchmarks. The standard metrics, which the
// runner records for every op, are declared here once; ops declare their
// own beside them. It depends on the standard library only.
package metric

// Metric describes one figure.
type Metric struct {
	Name           string
	Unit           string // "ns", "bytes", "requests/s", "count"
	Doc            string
	HigherIsBetter bool
	// Neutral marks a figure that describes a run rather than grades it
	// (bytes received, threads, an exit status): neither direction is
	// better, so no comparison calls its change a regression.
	Neutral bool
	// Needs names the op parameter the metric is computed from, if any: a
	// standard metric that only ops with that parameter record.
	Needs string
}

// Better is "higher" or "lower", as benchfmt writes it in a Unit line, or
// "" for a neutral metric.
func (m Metric) Better() string {
	if m.Neutral {
		return ""
	}
	if m.HigherIsBetter {
		return "higher"
	}
	return "lower"
}

// The names of the standard metrics.
const (
	NsPerOp     = "ns_per_op"
	OpsPerSec   = "ops_per_sec"
	BytesPerSec = "bytes_per_sec"
	BytesPerOp  = "bytes_per_op"
	AllocsPerOp = "allocs_per_op"
)

// Standard are the metrics the runner records for every op, beside the
// op's own; asserts and comparisons may read any of them.
var Standard = []Metric{
	{Name: NsPerOp, Unit: "ns", Doc: "wall time of a run over its iterations"},
	{Name: OpsPerSec, Unit: "ops/s", Doc: "iterations per second", HigherIsBetter: true},
	{Name: BytesPerSec, Unit: "bytes/s", Doc: "size times iterations per second", HigherIsBetter: true, Needs: "size"},
	{Name: BytesPerOp, Unit: "bytes", Doc: "heap bytes allocated per iteration"},
	{Name: AllocsPerOp, Unit: "count", Doc: "heap allocations per iteration"},
}

// Find returns the metric named name in ms.
func Find(ms []Metric, name string) (Metric, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Catalog returns the metrics an op declares beside the standard ones; nil
// when the op is unknown. A nil Catalog knows only the standard metrics.
type Catalog func(op string) []Metric

// Lookup returns the declaration of a metric of op: the op's own, which
// wins as its figure does, or a standard one.
func (c Catalog) Lookup(op, name string) (Metric, bool) {
	if c != nil {
		if m, ok := Find(c(op), name); ok {
			return m, true
		}
	}
	return Find(Standard, name)
}

// Derive sets the standard rates of one run in m, computed from its time
// per op: ops_per_sec, and bytes_per_sec when each iteration moves size
// bytes (size > 0). A run that took no time has no rate. The runner calls it
// for every run it records; nothing else computes these figures.
func Derive(m map[string]float64, nsPerOp, size float64) {
	if nsPerOp <= 0 {
		return
	}
	m[OpsPerSec] = 1e9 / nsPerOp
	if size > 0 {
		m[BytesPerSec] = size * 1e9 / nsPerOp
	}
}
