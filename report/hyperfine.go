package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"

	"github.com/specrun/specrun/results"
)

// Hyperfine renders a result's exec benchmarks in the schema of
// hyperfine's --export-json, so that hyperfine's scripts (plot_whisker.py,
// plot_parametrized.py, advanced_statistics.py, ...) read them: per
// benchmark its command, mean, stddev, median, min and max of the wall
// time, user and system CPU time, the times and exit codes of its runs,
// and its matrix point as parameters, every time in seconds.
//
// hyperfine times one execution per run; a specrun run may time several
// (iterations), and then its time is their mean, as in every other
// format: times, median, min and max are of the runs, while stddev is of
// the executions themselves (pooled from each run's mean and spread), as
// hyperfine's σ is. Benchmarks of other ops, and failed ones, are left
// out, and Notes says so; a result with no exec benchmark is an error.
type Hyperfine struct {
	// Notes receives what the export leaves out; nil discards it.
	Notes io.Writer
}

var _ Reporter = Hyperfine{}

// hyperfineExport is the document hyperfine --export-json writes.
type hyperfineExport struct {
	Results []hyperfineResult `json:"results"`
}

// hyperfineResult is one command's entry, field for field as hyperfine
// names them.
type hyperfineResult struct {
	Command    string            `json:"command"`
	Mean       float64           `json:"mean"`
	Stddev     *float64          `json:"stddev"` // null with one execution
	Median     float64           `json:"median"`
	User       float64           `json:"user"`
	System     float64           `json:"system"`
	Min        float64           `json:"min"`
	Max        float64           `json:"max"`
	Times      []float64         `json:"times"`
	ExitCodes  []int             `json:"exit_codes"`
	Parameters map[string]string `json:"parameters,omitempty"`
}

// Report writes the JSON document.
func (h Hyperfine) Report(w io.Writer, r *results.Result) error {
	doc := hyperfineExport{Results: []hyperfineResult{}}
	var other, failed []string
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		switch {
		case b.Op != "exec":
			other = append(other, b.Name)
		case !measured(b):
			failed = append(failed, b.Name)
		default:
			doc.Results = append(doc.Results, hyperfineEntry(b))
		}
	}
	if len(doc.Results) == 0 {
		return errors.New("hyperfine-json: the result has no measured exec benchmark; hyperfine's schema holds commands")
	}
	if h.Notes != nil {
		if len(other) > 0 {
			fmt.Fprintf(h.Notes, "hyperfine-json: left out what is not an exec benchmark: %s\n", printable(strings.Join(other, ", ")))
		}
		if len(failed) > 0 {
			fmt.Fprintf(h.Notes, "hyperfine-json: left out the exec benchmarks without runs: %s\n", printable(strings.Join(failed, ", ")))
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write hyperfine json: %w", err)
	}
	return nil
}

// hyperfineEntry is a measured exec benchmark as hyperfine exports a command.
func hyperfineEntry(b *results.Benchmark) hyperfineResult {
	const perSec = 1e9
	s := b.NsPerOp
	e := hyperfineResult{
		Command: hyperfineCommand(b),
		Mean:    s.Mean / perSec, Median: s.Median / perSec, Min: s.Min / perSec, Max: s.Max / perSec,
		User:   b.Metrics["user_ns"].Mean / perSec,
		System: b.Metrics["sys_ns"].Mean / perSec,
	}
	for _, run := range b.Runs {
		e.Times = append(e.Times, run.NsPerOp/perSec)
		e.ExitCodes = append(e.ExitCodes, int(run.Metrics["exit_code"]))
	}
	if sd, ok := executionStddev(b); ok {
		sd /= perSec
		e.Stddev = &sd
	}
	if point := matrixPoint(b); len(point) > 0 {
		e.Parameters = map[string]string{}
		for _, kv := range point {
			e.Parameters[kv[0]] = kv[1]
		}
	}
	return e
}

// executionStddev is the standard deviation of the wall time of every
// execution of b's runs, pooled from each run's mean and the spread of its
// executions (the exec op's wall_stddev_ns); without that spread, the
// runs' own. False with fewer than two executions.
func executionStddev(b *results.Benchmark) (float64, bool) {
	var n, sum float64
	for _, run := range b.Runs {
		if _, ok := run.Metrics["wall_stddev_ns"]; !ok {
			return b.NsPerOp.Stddev, len(b.Runs) > 1
		}
		n += float64(run.Iterations)
		sum += float64(run.Iterations) * run.NsPerOp
	}
	if n < 2 {
		return 0, false
	}
	mean := sum / n
	var squares float64
	for _, run := range b.Runs {
		k, sd, d := float64(run.Iterations), run.Metrics["wall_stddev_ns"], run.NsPerOp-mean
		squares += (k-1)*sd*sd + k*d*d
	}
	return math.Sqrt(squares / (n - 1)), true
}

// hyperfineCommand is what hyperfine's command field holds: the name a
// benchmark was given (hyperfine's --command-name), else the command line.
func hyperfineCommand(b *results.Benchmark) string {
	if b.Label != "" && b.Label != b.Name {
		return b.Label
	}
	if sh, ok := b.Params["shell"].(string); ok && sh != "" {
		return sh
	}
	var argv []string
	switch c := b.Params["command"].(type) {
	case []string:
		argv = c
	case []any: // after a JSON round trip
		for _, a := range c {
			argv = append(argv, fmt.Sprint(a))
		}
	}
	if len(argv) == 0 {
		return b.Name
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " ")
}

// shellWord is an argument a shell reads as it is.
var shellWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote writes an argument as a shell would need it.
func shellQuote(s string) string {
	if shellWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
