package runner

import (
	"fmt"
	"time"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/param"
	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// record is the result of b before any run: what it is, no figures yet.
func record(b *spec.Benchmark) results.Benchmark {
	res := results.Benchmark{Name: b.Name, Benchmark: b.Block, Label: b.Label, Params: jsonParams(b.Params),
		Runs: []results.Run{}}
	if b.Op != nil {
		res.Op = b.Op.Name
	}
	return res
}

func failed(b *spec.Benchmark, err error) results.Benchmark {
	res := record(b)
	res.Error = err.Error()
	return res
}

// jsonParams gives the parameters as JSON records them: sizes in exact
// bytes, durations in Go syntax.
func jsonParams(v param.Values) map[string]any {
	out := make(map[string]any, len(v))
	for k, x := range v {
		if d, ok := x.(time.Duration); ok {
			out[k] = d.String()
			continue
		}
		out[k] = x
	}
	return out
}

// timedRun does one of the repeated runs and records it.
func (r *runner) timedRun(in *instance) error {
	t, err := r.measure(in, in.n, true)
	if err != nil {
		return err
	}
	for _, w := range t.sample.Warnings {
		r.warn(in.b.Name + ": " + w)
	}
	run := runOf(in, t)
	run.Metrics[metric.BytesPerOp] = float64(t.bytes) / float64(t.n)
	run.Metrics[metric.AllocsPerOp] = float64(t.allocs) / float64(t.n)
	in.res.Runs = append(in.res.Runs, run)
	return nil
}

// maxWarmups bounds the warm-up runs a benchmark records; a warm-up of
// runs too short for the clock to see can take a thousand.
const maxWarmups = 100

// warmedUp records a warm-up run. Its heap figures are not read (that
// stops the world), so it has the op's metrics and the rates only.
func (r *runner) warmedUp(in *instance, t timing) {
	if len(in.res.Warmups) < maxWarmups && t.n > 0 {
		in.res.Warmups = append(in.res.Warmups, runOf(in, t))
	}
}

// runOf is the record of one run: its time, the rates derived from it and
// what the op observed. A warm-up's warnings are not the result's.
func runOf(in *instance, t timing) results.Run {
	run := results.Run{
		Iterations: t.n,
		TotalNs:    t.elapsed.Nanoseconds(),
		NsPerOp:    float64(t.elapsed.Nanoseconds()) / float64(t.n),
		Metrics:    map[string]float64{},
	}
	metric.Derive(run.Metrics, run.NsPerOp, float64(in.b.Params.Size("size")))
	// The op knows its figures best: an http op's bytes_per_sec is the
	// transfer rate, not size times requests.
	for name, v := range t.sample.Metrics {
		run.Metrics[name] = v
	}
	run.Histograms = t.sample.Histograms
	if !t.sample.Started.IsZero() {
		started := t.sample.Started.UTC()
		run.StartedAt = &started
	}
	return run
}

func (r *runner) summarize(in *instance) {
	runs := in.res.Runs
	if len(runs) == 0 {
		return
	}
	totals := make([]float64, len(runs))
	for i, run := range runs {
		totals[i] = float64(run.TotalNs)
	}
	in.res.NsPerOp, in.res.Metrics = results.SummarizeRuns(runs)
	for _, w := range in.res.NsPerOp.Warnings {
		r.warn(w)
	}
	if total := results.Summarize(totals); time.Duration(total.Median) < ShortRun {
		r.warn(fmt.Sprintf("%s: a run lasts %v, too short to time precisely (under %v); raise its iterations",
			in.b.Name, time.Duration(total.Median), ShortRun))
	}
}
