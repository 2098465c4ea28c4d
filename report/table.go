package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// A column is one column of the table of a result: its header, whether
// its cells align left (text) or right (figures), and one cell per row.
// The Markdown table and the terminal view lay out the same columns.
type column struct {
	head  string
	left  bool
	cells []string
}

// The columns a table can have besides any metric of the result, by the
// name --columns and the suite's columns attribute give them.
var builtinColumns = []string{"name", "iterations", "total", "time", "±", "interval", "mean", "range", "user", "sys", "throughput", "stable"}

// ColumnHelp describes the column names, for --columns.
const ColumnHelp = "name, iterations, total, time, ± (or interval), mean (± σ), range (min … max), user, sys, throughput, stable (the digits the runs share and their CV), or any metric of the result (requests_per_sec, latency_p99_ns, max_rss_bytes, ...)"

// defaultColumns are the columns of a result whose table does not name
// them: the classic five, then what each kind of benchmark in it is read
// by: a size scan's throughput (a block sweeping three sizes or more); an exec benchmark's mean ± σ, range and
// CPU times, as hyperfine prints them; an http benchmark's requests per
// second, time per request, latency percentiles and failures, as ab and
// wrk do.
func defaultColumns(bs []results.Benchmark) []string {
	keys := []string{"name", "iterations", "total", "time", "±"}
	var exec, http bool
	sizes := map[string]map[float64]bool{} // per block, the sizes of its instances with a throughput
	for i := range bs {
		b := &bs[i]
		switch b.Op {
		case "exec":
			exec = true
		case "http":
			http = true
		default:
			size, ok := b.ParamNumber("size")
			if _, rated := b.Metrics[metric.BytesPerSec]; ok && rated {
				if sizes[b.Benchmark] == nil {
					sizes[b.Benchmark] = map[float64]bool{}
				}
				sizes[b.Benchmark][size] = true
			}
		}
	}
	scan := false
	for _, s := range sizes {
		scan = scan || len(s) >= 3 // as the charts draw a scan: three sizes or more
	}
	if scan {
		keys = append(keys, "throughput")
	}
	if exec {
		keys = append(keys, "mean", "range", "user", "sys")
	}
	if http {
		have := resultMetrics(bs)
		for _, m := range []string{"requests_per_sec", "time_per_request_ms", "latency_p50_ns", "latency_p99_ns", "failed"} {
			if slices.Contains(have, m) { // results of older versions lack some
				keys = append(keys, m)
			}
		}
	}
	return keys
}

// tableColumns builds the columns keys name over bs (the default ones
// when keys is empty). A key that is neither a column nor a metric of any
// benchmark is an error that lists what there is.
func tableColumns(bs []results.Benchmark, keys []string, opt Options) ([]column, error) {
	if len(keys) == 0 {
		keys = defaultColumns(bs)
	}
	cols := make([]column, 0, len(keys))
	for _, key := range keys {
		c, ok := buildColumn(bs, strings.TrimSpace(key), opt)
		if !ok {
			return nil, fmt.Errorf("unknown column %q: want %s; this result's metrics are %s",
				key, strings.Join(builtinColumns, ", "), strings.Join(resultMetrics(bs), ", "))
		}
		cols = append(cols, c)
	}
	return cols, nil
}

// CheckColumns reports the first of keys that names neither a column nor
// a metric of r.
func CheckColumns(r *results.Result, keys []string) error {
	_, err := tableColumns(r.Benchmarks, keys, Options{})
	return err
}

// resultMetrics are the metric names of bs, sorted.
func resultMetrics(bs []results.Benchmark) []string {
	seen := map[string]bool{}
	for _, b := range bs {
		for m := range b.Metrics {
			seen[m] = true
		}
	}
	names := make([]string, 0, len(seen))
	for m := range seen {
		names = append(names, m)
	}
	sort.Strings(names)
	return names
}

func measured(b *results.Benchmark) bool { return b.Error == "" && len(b.Runs) > 0 }

func buildColumn(bs []results.Benchmark, key string, opt Options) (column, bool) {
	each := func(f func(b *results.Benchmark) string) []string {
		cells := make([]string, len(bs))
		for i := range bs {
			cells[i] = f(&bs[i])
		}
		return cells
	}
	switch key {
	case "name":
		return column{head: "Name", left: true, cells: each(func(b *results.Benchmark) string {
			name := opt.text(b.RowLabel())
			if b.Interrupted {
				name += " (interrupted)"
			}
			return name
		})}, true
	case "iterations":
		return column{head: "Iterations", cells: each(func(b *results.Benchmark) string { return iterations(b.Iterations) })}, true
	case "total":
		// Seconds in the classic table (times forced into ns), as the
		// write-up heads it; else the unit the totals choose.
		total := func(b *results.Benchmark) float64 {
			totals := make([]float64, len(b.Runs))
			for i, run := range b.Runs {
				totals[i] = float64(run.TotalNs)
			}
			return results.Median(totals)
		}
		unit := timeScales[3]
		if forced, ok := forcedTime(opt.TimeUnit); !ok {
			unit = scaleTimes(summaries(bs, func(b *results.Benchmark) []float64 { return []float64{total(b)} }), "")
		} else if forced.ns != 1 {
			unit = forced
		}
		return column{head: "Total time (" + unit.name + ")", cells: each(func(b *results.Benchmark) string {
			if !measured(b) {
				return "—"
			}
			return digits3(total(b) / unit.ns)
		})}, true
	case "time":
		unit := medianScale(bs, opt)
		_, forced := forcedTime(opt.TimeUnit)
		return column{head: "Time per (" + unit.name + ")", cells: each(func(b *results.Benchmark) string {
			switch {
			case b.Error != "":
				return opt.text("error: " + b.Error)
			case len(b.Runs) == 0:
				return "no runs"
			case forced && unit.ns == 1:
				return nanoseconds(b.NsPerOp.Median) // the classic table's own figures
			}
			return digits3(b.NsPerOp.Median / unit.ns)
		})}, true
	case "±", "interval":
		return column{head: spreadHead(bs), cells: each(func(b *results.Benchmark) string { return spreadIn(b, bs) })}, true
	case "mean":
		unit := medianScale(bs, opt)
		return column{head: "Mean ± σ (" + unit.name + ")", cells: each(func(b *results.Benchmark) string {
			if !measured(b) {
				return "—"
			}
			if len(b.Runs) < 2 {
				return digits3(b.NsPerOp.Mean / unit.ns)
			}
			return digits3(b.NsPerOp.Mean/unit.ns) + " ± " + digits3(b.NsPerOp.Stddev/unit.ns)
		})}, true
	case "range":
		unit := medianScale(bs, opt)
		return column{head: "Min … Max (" + unit.name + ")", cells: each(func(b *results.Benchmark) string {
			if !measured(b) {
				return "—"
			}
			return digits3(b.NsPerOp.Min/unit.ns) + " … " + digits3(b.NsPerOp.Max/unit.ns)
		})}, true
	case "user":
		c := metricColumn(bs, "user_ns", "User", opt, func(s results.Summary) float64 { return s.Mean })
		return c, true
	case "sys":
		return metricColumn(bs, "sys_ns", "System", opt, func(s results.Summary) float64 { return s.Mean }), true
	case "throughput":
		return metricColumn(bs, metric.BytesPerSec, "Throughput", opt, nil), true
	case "stable":
		return column{head: "Stable", cells: each(stableCell)}, true
	}
	if !slices.Contains(resultMetrics(bs), key) {
		return column{}, false
	}
	return metricColumn(bs, key, "", opt, nil), true
}

// medianScale is the unit of the columns of time per op (time, mean ± σ,
// min … max): the one the medians choose, so that a row reads across in
// one unit.
func medianScale(bs []results.Benchmark, opt Options) timeScale {
	return scaleTimes(summaries(bs, func(b *results.Benchmark) []float64 { return []float64{b.NsPerOp.Median} }), opt.TimeUnit)
}

// metricHeads are the headers of the metrics the default columns show.
var metricHeads = map[string]string{
	"requests_per_sec":    "Requests/s",
	"time_per_request_ms": "Time per request",
	"latency_p50_ns":      "p50",
	"latency_p90_ns":      "p90",
	"latency_p99_ns":      "p99",
	"latency_p999_ns":     "p99.9",
	"failed":              "Failed",
}

// metricColumn is a column of one metric's median (or of what pick takes
// from its summary), scaled as its unit is: times in one time unit, sizes
// and byte rates in one binary unit, other figures as they are. A row
// without the metric reads "—".
func metricColumn(bs []results.Benchmark, name, head string, opt Options, pick func(results.Summary) float64) column {
	if pick == nil {
		pick = func(s results.Summary) float64 { return s.Median }
	}
	if head == "" {
		head = metricHeads[name]
	}
	if head == "" {
		head = name
	}
	unit := metricUnit(bs, name, opt.Metrics)
	values := summaries(bs, func(b *results.Benchmark) []float64 {
		if s, ok := b.Metrics[name]; ok && measured(b) {
			return []float64{pick(s)}
		}
		return nil
	})
	var scale func(float64) float64
	switch unit {
	case "ns", "ms":
		perNs := 1.0
		if unit == "ms" {
			perNs = 1e6
		}
		for i := range values {
			values[i] *= perNs
		}
		t := scaleTimes(values, opt.TimeUnit)
		head += " (" + t.name + ")"
		scale = func(v float64) float64 { return v * perNs / t.ns }
	case "bytes", "bytes/s":
		b := scaleBytes(values)
		suffix := ""
		if unit == "bytes/s" {
			suffix = "/s"
		}
		head += " (" + b.name + suffix + ")"
		scale = func(v float64) float64 { return v / b.factor }
	default:
		scale = func(v float64) float64 { return v }
	}
	cells := make([]string, len(bs))
	for i := range bs {
		b := &bs[i]
		s, ok := b.Metrics[name]
		if !ok || !measured(b) {
			cells[i] = "—"
			continue
		}
		cells[i] = digits3(scale(pick(s)))
	}
	return column{head: head, cells: cells}
}

// metricUnit is the unit a metric is declared with, or failing a
// declaration the one its name ends in.
func metricUnit(bs []results.Benchmark, name string, cat metric.Catalog) string {
	for i := range bs {
		if _, ok := bs[i].Metrics[name]; ok {
			if m, ok := cat.Lookup(bs[i].Op, name); ok {
				return m.Unit
			}
		}
	}
	switch {
	case strings.HasSuffix(name, "_ns"):
		return "ns"
	case strings.HasSuffix(name, "_ms"):
		return "ms"
	case strings.HasSuffix(name, "bytes_per_sec"):
		return "bytes/s"
	case strings.HasSuffix(name, "_bytes") || strings.HasPrefix(name, "bytes_"):
		return "bytes"
	}
	return ""
}

// summaries collects the figures of a column over the measured rows.
func summaries(bs []results.Benchmark, get func(*results.Benchmark) []float64) []float64 {
	var vs []float64
	for i := range bs {
		if measured(&bs[i]) {
			vs = append(vs, get(&bs[i])...)
		}
	}
	return vs
}

// spreadHead labels ± with what it is, when every row's interval is of
// one kind and level: "± (95% CI)" for the confidence interval of the
// median, "± (min…max, 75%)" for the range of a few runs, "± (over
// launches, 93%)" for runs spread over launches. Mixed rows say their own
// level beside the figure.
func spreadHead(bs []results.Benchmark) string {
	kind, level, ok := commonInterval(bs)
	switch {
	case !ok:
		return "±"
	case kind == results.MedianCI:
		return "± (95% CI)"
	case kind == results.Range:
		return "± (min…max, " + results.Percent(level) + ")"
	case kind == results.LaunchBootstrap:
		return "± (over launches, " + results.Percent(level) + ")"
	}
	return "±"
}

// commonInterval is the kind and level of every measured row's interval
// of two runs or more, if they all have the same.
func commonInterval(bs []results.Benchmark) (results.IntervalKind, float64, bool) {
	var kind results.IntervalKind
	var level float64
	for i := range bs {
		b := &bs[i]
		if !measured(b) || len(b.Runs) < 2 {
			continue
		}
		in := b.NsPerOp.Interval
		l := in.Confidence
		if in.Kind == results.MedianCI {
			l = results.Confidence // every median CI is at least 95%, as its head says
		}
		if kind == "" {
			kind, level = in.Kind, l
			continue
		}
		if in.Kind != kind || math.Abs(l-level) > 1e-9 {
			return "", 0, false
		}
	}
	return kind, level, kind != ""
}

// spread is half the width of the median's interval as a percentage of
// the median, with its level when it is under 95% ("1.2% (75%)"); "—"
// with one run.
func spread(b *results.Benchmark) string {
	s := b.NsPerOp
	if !measured(b) || len(b.Runs) < 2 || s.Median == 0 {
		return "—"
	}
	return percent(100*(s.Interval.High-s.Interval.Low)/2/math.Abs(s.Median)) + levelNote(s.Interval)
}

// spreadIn is spread in a table of bs, whose head says the level when
// every row has the same (see spreadHead).
func spreadIn(b *results.Benchmark, bs []results.Benchmark) string {
	if _, _, ok := commonInterval(bs); ok && spread(b) != "—" {
		s := b.NsPerOp
		return percent(100 * (s.Interval.High - s.Interval.Low) / 2 / math.Abs(s.Median))
	}
	return spread(b)
}

// spreadNote explains the ± column under a table.
func spreadNote(bs []results.Benchmark) string {
	if !hasSpread(bs) {
		return ""
	}
	note := fmt.Sprintf("± is half the width of the median's interval, as a percentage of the median: its %s confidence interval from %d runs up, else min…max, at the level in brackets.",
		results.Percent(results.Confidence), results.MinRunsForInterval())
	for i := range bs {
		if bs[i].NsPerOp.Interval.Kind == results.LaunchBootstrap {
			return note + " Runs spread over launches resample the launches, then the runs, at the level L launches can claim."
		}
	}
	return note
}

func hasSpread(bs []results.Benchmark) bool {
	for i := range bs {
		if measured(&bs[i]) && len(bs[i].Runs) > 1 {
			return true
		}
	}
	return false
}

func iterations(n int64) string {
	if n <= 0 {
		return "—"
	}
	return strconv.FormatInt(n, 10)
}
