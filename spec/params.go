package spec

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/specrun/specrun/param"
)

// paramValue converts v, the value of the expression at rng, to the Go
// type that param.Values documents for p.Type, and checks it against p.
func paramValue(p param.Param, v cty.Value, rng hcl.Range) (any, hcl.Diagnostics) {
	gv, perr := convertParam(p, v)
	if perr != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: perr.summary, Detail: perr.detail, Subject: rng.Ptr()}}
	}
	return gv, nil
}

// paramError is the summary and detail of a value p cannot take.
type paramError struct {
	summary, detail string
}

func badParam(p param.Param, format string, args ...any) *paramError {
	return &paramError{"Invalid parameter value", fmt.Sprintf("Parameter %q (%s): %s.", p.Name, p.Type, fmt.Sprintf(format, args...))}
}

func convertParam(p param.Param, v cty.Value) (any, *paramError) {
	to := func(ty cty.Type) (cty.Value, *paramError) {
		cv, err := convert.Convert(v, ty)
		if err != nil {
			return cty.NilVal, badParam(p, "%s is required, got %s", typeName(ty), typeName(v.Type()))
		}
		return cv, nil
	}
	switch p.Type {
	case param.Number:
		cv, err := to(cty.Number)
		if err != nil {
			return nil, err
		}
		f, _ := cv.AsBigFloat().Float64()
		if p.Positive && f <= 0 {
			return nil, badParam(p, "it must be greater than zero, got %s", formatNumber(cv))
		}
		if a := math.Abs(f); a > MaxParamNumber || a != 0 && a < MinParamNumber || cv.AsBigFloat().Sign() != 0 && f == 0 {
			return nil, badParam(p, "%s is out of range; numbers are zero or between %g and %g in magnitude", formatNumber(cv), MinParamNumber, MaxParamNumber)
		}
		return f, nil
	case param.Int:
		cv, err := to(cty.Number)
		if err != nil {
			return nil, err
		}
		n, ok := wholeNumber(cv)
		if p.Max != 0 && (!ok || n < minInt(p) || n > p.Max) {
			return nil, badParam(p, "it must be a whole number from %d to %d, got %s", minInt(p), p.Max, formatNumber(cv))
		}
		if !ok {
			return nil, badParam(p, "it must be a whole number, got %s", formatNumber(cv))
		}
		if p.Positive && n <= 0 {
			return nil, badParam(p, "it must be greater than zero, got %d", n)
		}
		if n > MaxParamNumber || n < -MaxParamNumber {
			return nil, badParam(p, "%d is out of range; whole numbers are at most %g in magnitude", n, MaxParamNumber)
		}
		return n, nil
	case param.String:
		cv, err := to(cty.String)
		if err != nil {
			return nil, err
		}
		s := cv.AsString()
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, s) {
			return nil, &paramError{"Value not allowed", fmt.Sprintf("Parameter %q takes one of %s; got %q.%s",
				p.Name, strings.Join(quoteAll(p.Enum), ", "), s, didYouMean(s, p.Enum))}
		}
		return s, nil
	case param.Bool:
		cv, err := to(cty.Bool)
		if err != nil {
			return nil, err
		}
		return cv.True(), nil
	case param.Size:
		var n int64
		var serr error
		switch v.Type() {
		case cty.Number:
			f, _ := v.AsBigFloat().Float64()
			n, serr = param.SizeFromFloat(f)
		case cty.String:
			n, serr = param.ParseSize(v.AsString())
		default:
			serr = fmt.Errorf("a size is a string such as \"16KB\" or a number of bytes, not %s", typeName(v.Type()))
		}
		if serr == nil && p.Positive && n == 0 {
			serr = fmt.Errorf("size must be greater than zero")
		}
		if serr != nil {
			return nil, &paramError{"Invalid size", fmt.Sprintf("Parameter %q: %s.", p.Name, serr)}
		}
		return n, nil
	case param.Duration:
		d, err := durationValue(v, p.Positive)
		if err != nil {
			return nil, &paramError{"Invalid duration", fmt.Sprintf("Parameter %q: %s.", p.Name, err)}
		}
		return d, nil
	case param.Strings:
		cv, err := to(cty.List(cty.String))
		if err != nil {
			return nil, err
		}
		out := []string{}
		for it := cv.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.IsNull() {
				return nil, badParam(p, "list elements cannot be null")
			}
			out = append(out, e.AsString())
		}
		return out, nil
	case param.StringMap:
		cv, err := to(cty.Map(cty.String))
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		for it := cv.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if e.IsNull() {
				return nil, badParam(p, "map values cannot be null")
			}
			out[k.AsString()] = e.AsString()
		}
		return out, nil
	}
	return nil, badParam(p, "type %s is not supported", p.Type)
}

// minInt is the smallest value an Int parameter with a Max may take.
func minInt(p param.Param) int64 {
	if p.Positive {
		return 1
	}
	return -MaxParamNumber
}
