package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/specrun/specrun/results"
)

// CSV renders a result as RFC 4180 CSV: a header row, then one row per
// benchmark in the result's order: its name, label and op, one column per
// matrix parameter (named by the parameter, its value as the instance's
// name writes it, empty where an instance lacks it), its ns/op summary
// (low and high are the median's interval, confidence its actual level),
// and the median of every op metric that any benchmark reports in a
// column of its own (but an exec benchmark's B/op and allocs/op, which
// are specrun's own heap use while spawning, not the command's). Numbers
// are written in full precision so the file round-trips.
type CSV struct{}

var _ Reporter = CSV{}

// csvHeader is the fixed part of the CSV header.
var csvHeader = []string{
	"name", "label", "op", "iterations", "runs",
	"median_ns_per_op", "mean_ns_per_op", "min_ns_per_op", "max_ns_per_op",
	"stddev_ns_per_op", "low_ns_per_op", "high_ns_per_op", "confidence_ns_per_op", "error",
}

// Report writes the CSV.
func (CSV) Report(w io.Writer, r *results.Result) error {
	metrics := metricNames(r)
	var header []string
	for _, m := range metrics {
		header = append(header, "median_"+m)
	}
	keys := matrixKeys(r)
	params := paramHeads(keys, append(slices.Clone(csvHeader), header...))
	header = slices.Concat(csvHeader[:3], params, csvHeader[3:], header)
	cw := csv.NewWriter(w)
	cw.Write(printableAll(header))
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		row := []string{b.Name, b.RowLabel(), b.Op}
		axes := matrixAxes(b)
		for _, k := range keys {
			row = append(row, axes[k])
		}
		row = append(row, strconv.FormatInt(b.Iterations, 10), strconv.Itoa(len(b.Runs)))
		if b.Error != "" || len(b.Runs) == 0 {
			row = append(row, "", "", "", "", "", "", "", "")
		} else {
			s := b.NsPerOp
			for _, v := range []float64{s.Median, s.Mean, s.Min, s.Max, s.Stddev, s.Interval.Low, s.Interval.High, s.Interval.Confidence} {
				row = append(row, csvFloat(v))
			}
		}
		row = append(row, b.Error)
		for _, m := range metrics {
			s, ok := b.Metrics[m]
			if !ok || b.Error != "" || specrunHeap(b, m) {
				row = append(row, "")
				continue
			}
			row = append(row, csvFloat(s.Median))
		}
		cw.Write(printableAll(row))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// metricNames returns every op metric name in r, sorted.
func metricNames(r *results.Result) []string {
	seen := map[string]bool{}
	var names []string
	for _, b := range r.Benchmarks {
		for m := range b.Metrics {
			if !seen[m] {
				seen[m] = true
				names = append(names, m)
			}
		}
	}
	sort.Strings(names)
	return names
}

// matrixKeys are the matrix parameters of r's instances, in the order
// they first appear.
func matrixKeys(r *results.Result) []string {
	var keys []string
	for i := range r.Benchmarks {
		for _, kv := range matrixPoint(&r.Benchmarks[i]) {
			if !slices.Contains(keys, kv[0]) {
				keys = append(keys, kv[0])
			}
		}
	}
	return keys
}

// paramHeads are the headers of the matrix parameters' columns: each
// parameter's name, or "matrix_" and the name where a column of taken
// already has it.
func paramHeads(keys, taken []string) []string {
	heads := make([]string, len(keys))
	for i, k := range keys {
		heads[i] = k
		if slices.Contains(taken, k) {
			heads[i] = "matrix_" + k
		}
	}
	return heads
}

// matrixAxes is an instance's matrix point by parameter.
func matrixAxes(b *results.Benchmark) map[string]string {
	axes := map[string]string{}
	for _, kv := range matrixPoint(b) {
		axes[kv[0]] = kv[1]
	}
	return axes
}

// matrixPoint reads an instance's matrix point from its name, the block
// name then "/key=value" per matrix parameter in order ("memcpy/size=16B"),
// the values as the spec wrote them. A "/" inside a value stays in it
// unless what follows reads as another key=.
func matrixPoint(b *results.Benchmark) [][2]string {
	rest, ok := strings.CutPrefix(b.Name, b.Benchmark+"/")
	if !ok || b.Benchmark == "" {
		_, rest, ok = strings.Cut(b.Name, "/")
	}
	if !ok {
		return nil
	}
	var point [][2]string
	for _, part := range strings.Split(rest, "/") {
		key, value, ok := strings.Cut(part, "=")
		if ok && matrixKey.MatchString(key) || len(point) == 0 {
			point = append(point, [2]string{key, value})
			continue
		}
		point[len(point)-1][1] += "/" + part
	}
	return point
}

// matrixKey is what a matrix parameter's name looks like: an HCL identifier.
var matrixKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

func csvFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
