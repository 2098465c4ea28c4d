package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/specrun/specrun/results"
)

// CSV renders a result as RFC 4180 CSV: a header row, then one row per
// benchmark in the result's order with its ns/op summary (low and high are
// the median's interval, confidence its actual level), and the median of
// every op metric that any benchmark reports in a column of its own.
// Numbers are written in full precision so the file round-trips.
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
	header := append([]string(nil), csvHeader...)
	for _, m := range metrics {
		header = append(header, "median_"+m)
	}
	cw := csv.NewWriter(w)
	cw.Write(printableAll(header))
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		row := []string{b.Name, b.RowLabel(), b.Op, strconv.FormatInt(b.Iterations, 10), strconv.Itoa(len(b.Runs))}
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
			if !ok || b.Error != "" {
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

func csvFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
