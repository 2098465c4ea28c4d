package results

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/specrun/specrun/metric"
)

// Formats lists the report formats by name, as `--format` takes them.
var Formats = []string{"md", "json", "csv", "svg", "gobench"}

// Format returns the reporter for a format name: md (the classic table),
// json (the result itself), csv, svg (a bar chart) or gobench (the Go
// benchmark format that benchstat reads). metrics declares the ops' own
// metrics, for the formats that say which direction is better.
func Format(name string, metrics metric.Catalog) (Reporter, error) {
	switch name {
	case "md", "markdown":
		return Markdown{}, nil
	case "json":
		return ReporterFunc(Encode), nil
	case "csv":
		return CSV{}, nil
	case "svg":
		return SVG{}, nil
	case "gobench":
		return GoBench{Metrics: metrics}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want one of %s)", name, strings.Join(Formats, ", "))
}

// Extension is the file name extension for a format's output.
func Extension(format string) string {
	switch format {
	case "markdown":
		return ".md"
	case "gobench":
		return ".txt"
	}
	return "." + format
}

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
