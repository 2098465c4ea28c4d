package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/specrun/specrun/internal/atomicfile"
)

// Encode writes r as indented JSON. It refuses NaN and infinite figures by
// name, since JSON cannot carry them and a result with holes would mislead.
func Encode(w io.Writer, r *Result) error {
	if err := checkFigures(r); err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	data = append(data, '\n')
	_, err = w.Write(data)
	return err
}

// WriteFile writes r to path atomically: a reader sees the old file, no
// file, or the whole new one, never a part. Unless overwrite is set, an
// existing file at path is an error wrapping fs.ErrExist and is left as it
// was.
func WriteFile(path string, r *Result, overwrite bool) error {
	var buf bytes.Buffer
	if err := Encode(&buf, r); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, buf.Bytes(), atomicfile.Options{Overwrite: overwrite})
}

// ReadFile reads a result written by WriteFile. Every error names the file.
func ReadFile(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	r, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("read result %s: %w", path, err)
	}
	return r, nil
}

// Decode parses a result. It refuses anything that is not a complete
// specrun.results/v2 or v1 document: bad or truncated JSON, another schema,
// or a result missing the fields every reader relies on. A v1 result comes
// back upgraded to v2.
func Decode(data []byte) (*Result, error) {
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, describeJSONError(data, err)
	}
	switch {
	case head.Schema == nil:
		return nil, fmt.Errorf("not a specrun result: no \"schema\" field")
	case *head.Schema != Schema && *head.Schema != SchemaV1:
		return nil, fmt.Errorf("unknown schema %q: this specrun reads %q and %q", *head.Schema, Schema, SchemaV1)
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, describeJSONError(data, err)
	}
	if *head.Schema == SchemaV1 {
		if err := upgradeV1(data, &r); err != nil {
			return nil, err
		}
	}
	if err := checkComplete(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

// describeJSONError turns encoding/json's errors into what went wrong and
// where, in words a user of a results file understands.
func describeJSONError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected end of JSON input"):
		return fmt.Errorf("truncated JSON (%d bytes): %w", len(data), err)
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Errorf("invalid JSON at line %d, column %d: %w", line, col, err)
	case errors.As(err, &typ):
		return fmt.Errorf("wrong type for %q: %w", typ.Field, err)
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

// position is the line and column of the byte a json.SyntaxError's
// offset (the count of bytes read, the bad one included) points at.
func position(data []byte, offset int64) (line, col int) {
	at := min(max(offset-1, 0), int64(len(data)))
	before := data[:at]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(at) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// checkComplete reports the first field that a result must have.
func checkComplete(r *Result) error {
	if r.Suite.Name == "" {
		return fmt.Errorf("missing field \"suite.name\"")
	}
	if r.Benchmarks == nil {
		return fmt.Errorf("missing field \"benchmarks\"")
	}
	for i, b := range r.Benchmarks {
		if b.Name == "" {
			return fmt.Errorf("missing field \"benchmarks[%d].name\"", i)
		}
	}
	return checkFigures(r)
}

// checkFigures names the first figure of r that is NaN or infinite.
func checkFigures(r *Result) error {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	summary := func(where string, s Summary) error {
		for _, f := range []struct {
			name string
			v    float64
		}{{"median", s.Median}, {"mean", s.Mean}, {"min", s.Min}, {"max", s.Max}, {"stddev", s.Stddev},
			{"interval.low", s.Interval.Low}, {"interval.high", s.Interval.High}, {"interval.confidence", s.Interval.Confidence}} {
			if bad(f.v) {
				return fmt.Errorf("%s.%s is %v", where, f.name, f.v)
			}
		}
		return nil
	}
	for _, b := range r.Benchmarks {
		if err := summary(fmt.Sprintf("benchmark %s: ns_per_op", b.Name), b.NsPerOp); err != nil {
			return err
		}
		for name, s := range b.Metrics {
			if err := summary(fmt.Sprintf("benchmark %s: %s", b.Name, name), s); err != nil {
				return err
			}
		}
		for i, run := range b.Runs {
			if bad(run.NsPerOp) {
				return fmt.Errorf("benchmark %s: run %d: ns_per_op is %v", b.Name, i+1, run.NsPerOp)
			}
			for name, v := range run.Metrics {
				if bad(v) {
					return fmt.Errorf("benchmark %s: run %d: %s is %v", b.Name, i+1, name, v)
				}
			}
		}
		for i, run := range b.Warmups {
			if bad(run.NsPerOp) {
				return fmt.Errorf("benchmark %s: warm-up %d: ns_per_op is %v", b.Name, i+1, run.NsPerOp)
			}
			for name, v := range run.Metrics {
				if bad(v) {
					return fmt.Errorf("benchmark %s: warm-up %d: %s is %v", b.Name, i+1, name, v)
				}
			}
		}
	}
	for _, a := range r.Assertions {
		figures := []struct {
			name string
			v    *float64
		}{{"value", a.Value}, {"min", a.Min}, {"max", a.Max}}
		if in := a.Interval; in != nil {
			figures = append(figures, []struct {
				name string
				v    *float64
			}{{"interval.low", &in.Low}, {"interval.high", &in.High}, {"interval.confidence", &in.Confidence}}...)
		}
		for _, f := range figures {
			if f.v != nil && bad(*f.v) {
				return fmt.Errorf("assertion %s: %s is %v", a.Name, f.name, *f.v)
			}
		}
	}
	return nil
}
