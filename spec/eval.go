package spec

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/specrun/specrun/param"
)

// functions are the standard functions every expression sees: go-cty's
// stdlib under Terraform's names, minus those that read the clock, which
// would make a spec's meaning depend on when it loads. The loader adds
// file() (fileFunc).
var functions = boundedFunctions(map[string]function.Function{
	"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
	"log": stdlib.LogFunc, "max": stdlib.MaxFunc, "min": stdlib.MinFunc,
	"pow": stdlib.PowFunc, "signum": stdlib.SignumFunc, "parseint": stdlib.ParseIntFunc,
	"int": stdlib.IntFunc,

	"format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
	"upper": stdlib.UpperFunc, "lower": stdlib.LowerFunc, "title": stdlib.TitleFunc,
	"join": stdlib.JoinFunc, "split": stdlib.SplitFunc, "replace": stdlib.ReplaceFunc,
	"regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc,
	"strlen": stdlib.StrlenFunc, "substr": stdlib.SubstrFunc, "strrev": stdlib.ReverseFunc,
	"trim": stdlib.TrimFunc, "trimspace": stdlib.TrimSpaceFunc,
	"trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
	"chomp": stdlib.ChompFunc, "indent": stdlib.IndentFunc,

	"length": stdlib.LengthFunc, "concat": stdlib.ConcatFunc, "lookup": stdlib.LookupFunc,
	"keys": stdlib.KeysFunc, "values": stdlib.ValuesFunc, "contains": stdlib.ContainsFunc,
	"element": stdlib.ElementFunc, "index": stdlib.IndexFunc, "flatten": stdlib.FlattenFunc,
	"merge": stdlib.MergeFunc, "range": stdlib.RangeFunc, "reverse": stdlib.ReverseListFunc,
	"sort": stdlib.SortFunc, "distinct": stdlib.DistinctFunc, "zipmap": stdlib.ZipmapFunc,
	"slice": stdlib.SliceFunc, "compact": stdlib.CompactFunc, "chunklist": stdlib.ChunklistFunc,
	"coalesce": stdlib.CoalesceFunc, "coalescelist": stdlib.CoalesceListFunc,
	"setunion": stdlib.SetUnionFunc,

	"jsonencode": stdlib.JSONEncodeFunc, "jsondecode": stdlib.JSONDecodeFunc,
	"tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
	"tobool": stdlib.MakeToFunc(cty.Bool),
	"tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
	"tomap":  stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
})

// eval evaluates expr and converts it to ty. ok is false when a diagnostic
// was recorded, or when the value is unknown because of an earlier error
// (a cycle in locals), which is not reported again. A null value is
// returned as is: callers treat it as "not set".
func (l *loader) eval(expr hcl.Expression, ctx *hcl.EvalContext, ty cty.Type, what string) (cty.Value, bool) {
	v, diags := evaluate(expr, ctx)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() || !v.IsWhollyKnown() {
		return cty.NilVal, false
	}
	if v.IsNull() {
		return v, true
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		l.errorf(expr.Range().Ptr(), "Incorrect value type",
			"Inappropriate value for %s: %s.", what, err.Error())
		return cty.NilVal, false
	}
	return cv, true
}

// value evaluates attr as written, without conversion. ok is false when
// attr is unset or null, or when a diagnostic was recorded for it (now, or
// earlier for an unknown value), so that callers decode only usable values.
func (l *loader) value(attr *hcl.Attribute, ctx *hcl.EvalContext) (cty.Value, bool) {
	if attr == nil {
		return cty.NilVal, false
	}
	v, diags := evaluate(attr.Expr, ctx)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() || !v.IsWhollyKnown() || v.IsNull() {
		return cty.NilVal, false
	}
	return v, true
}

// controlChar returns the first control character in s (a newline, an
// escape), which would break or forge lines of a report.
func controlChar(s string) (rune, bool) {
	for _, r := range s {
		if unicode.IsControl(r) {
			return r, true
		}
	}
	return 0, false
}

// durationValue converts a string in Go syntax. A bare number is refused:
// it has no unit, and guessing one would silently change a run.
func durationValue(v cty.Value, positive bool) (time.Duration, error) {
	if v.Type() != cty.String {
		return 0, fmt.Errorf("durations are strings in Go syntax such as \"300ms\" or \"2s\", not %s", typeName(v.Type()))
	}
	d, err := param.ParseDuration(v.AsString())
	if err != nil {
		return 0, err
	}
	if positive && d == 0 {
		return 0, fmt.Errorf("it must be longer than zero")
	}
	return d, nil
}

// wholeNumber returns v as an int64 when it is a whole number in range.
func wholeNumber(v cty.Value) (int64, bool) {
	if v.Type() != cty.Number || v.IsNull() || !v.IsKnown() {
		return 0, false
	}
	bf := v.AsBigFloat()
	if bf.IsInf() || !bf.IsInt() {
		return 0, false
	}
	n, acc := bf.Int64()
	return n, acc == big.Exact
}

// formatNumber writes a number in its shortest form: 1e8 as 100000000,
// 0.5 as 0.5. A number far from 1 is written approximately, from its
// binary exponent: its exact decimal form (1e10000000 has ten million
// digits) would take minutes to build.
func formatNumber(v cty.Value) string {
	if v.Type() != cty.Number || v.IsNull() || !v.IsKnown() {
		return typeName(v.Type())
	}
	bf := v.AsBigFloat()
	if bf.IsInf() {
		return bf.Text('g', 1)
	}
	if exp := bf.MantExp(nil); exp > 100 || exp < -100 {
		return approxNumber(bf)
	}
	if bf.IsInt() {
		if i, acc := bf.Int(nil); acc == big.Exact {
			return i.String()
		}
	}
	return bf.Text('g', -1)
}

// approxNumber writes bf as d.ddddde+N from its mantissa and binary
// exponent, without the exact decimal expansion.
func approxNumber(bf *big.Float) string {
	if bf.IsInf() {
		return bf.Text('g', 1)
	}
	if f, _ := bf.Float64(); f != 0 && !math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', 6, 64)
	}
	mant := new(big.Float)
	exp := bf.MantExp(mant)
	m, _ := mant.Float64()
	l := math.Log10(math.Abs(m)) + float64(exp)*math.Log10(2)
	e := math.Floor(l)
	return fmt.Sprintf("%.6ge%+.0f", math.Copysign(math.Pow(10, l-e), m), e)
}

// numberDigits is about how many digits a number's exact decimal form
// has, from its binary exponent.
func numberDigits(bf *big.Float) int {
	if bf.IsInf() || bf.Sign() == 0 {
		return 1
	}
	exp := bf.MantExp(nil)
	if exp < 0 {
		exp = -exp
	}
	return 1 + int(float64(exp)*math.Log10(2))
}

func typeName(t cty.Type) string {
	switch {
	case t == cty.Number:
		return "a number"
	case t == cty.String:
		return "a string"
	case t == cty.Bool:
		return "a bool"
	case t.IsListType() || t.IsTupleType() || t.IsSetType():
		return "a list"
	case t.IsMapType() || t.IsObjectType():
		return "a map"
	}
	return t.FriendlyName()
}
