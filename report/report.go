// Package report renders specrun results and comparisons: the classic
// Markdown table, CSV, SVG charts, the Go benchmark format and the result's
// own JSON. It reads the contract that package results defines and
// computes; nothing in results depends on it.
package report

import (
	"io"

	"github.com/specrun/specrun/results"
)

// A Reporter renders a result in one format. Reporters keep the result's
// order of benchmarks; a caller that wants them by time sorts first
// (results.ByTime).
type Reporter interface {
	Report(w io.Writer, r *results.Result) error
}

// ReporterFunc adapts a function to Reporter.
type ReporterFunc func(w io.Writer, r *results.Result) error

// Report calls f.
func (f ReporterFunc) Report(w io.Writer, r *results.Result) error { return f(w, r) }

var _ Reporter = ReporterFunc(nil)

// A ComparisonReporter renders a comparison in one format.
type ComparisonReporter interface {
	Report(w io.Writer, c *results.Comparison) error
}
