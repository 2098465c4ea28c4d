package results

import "io"

// A Reporter renders a result in one format.
type Reporter interface {
	Report(w io.Writer, r *Result) error
}

// ReporterFunc adapts a function to Reporter.
type ReporterFunc func(w io.Writer, r *Result) error

// Report calls f.
func (f ReporterFunc) Report(w io.Writer, r *Result) error { return f(w, r) }

var _ Reporter = ReporterFunc(nil)
