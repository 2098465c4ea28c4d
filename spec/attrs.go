package spec

import (
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/specrun/specrun/param"
)

// The attributes of suite, benchmark and server blocks are declared as op
// parameters are, and decoded by the same conversion (paramValue), so that
// a mistake reads the same wherever it is made. Attributes whose values
// are not one of param's types (iterations, threshold, matrix) have
// decoders of their own.
var (
	opAttr          = param.Param{Name: "op", Type: param.String, Required: true}
	labelAttr       = param.Param{Name: "label", Type: param.String}
	titleAttr       = param.Param{Name: "title", Type: param.String}
	descriptionAttr = param.Param{Name: "description", Type: param.String}
	interleaveAttr  = param.Param{Name: "interleave", Type: param.Bool}
	everyShardAttr  = param.Param{Name: "every_shard", Type: param.Bool}
	columnsAttr     = param.Param{Name: "columns", Type: param.Strings}
	timeUnitAttr    = param.Param{Name: "time_unit", Type: param.String}

	repeatAttr  = param.Param{Name: "repeat", Type: param.Int, Positive: true, Max: MaxRepeat}
	warmupAttr  = param.Param{Name: "warmup", Type: param.Duration}
	minTimeAttr = param.Param{Name: "min_time", Type: param.Duration, Positive: true}
	timeoutAttr = param.Param{Name: "timeout", Type: param.Duration, Positive: true}

	maxRepeatAttr = param.Param{Name: "max_repeat", Type: param.Int, Positive: true, Max: MaxRepeat}
	maxTimeAttr   = param.Param{Name: "max_time", Type: param.Duration, Positive: true}
	precisionAttr = param.Param{Name: "precision", Type: param.Number}
	launchesAttr  = param.Param{Name: "launches", Type: param.Int, Positive: true, Max: MaxLaunches}

	commandAttr      = param.Param{Name: "command", Type: param.Strings}
	urlAttr          = param.Param{Name: "url", Type: param.String}
	readyAttr        = param.Param{Name: "ready", Type: param.String}
	readyTimeoutAttr = param.Param{Name: "ready_timeout", Type: param.Duration, Positive: true}
	envAttr          = param.Param{Name: "env", Type: param.StringMap}
	dirAttr          = param.Param{Name: "dir", Type: param.String}
	stopSignalAttr   = param.Param{Name: "stop_signal", Type: param.String}
	graceAttr        = param.Param{Name: "grace", Type: param.Duration}
	builtinAttr      = param.Param{Name: "builtin", Type: param.String, Enum: Builtins}
	bodySizeAttr     = param.Param{Name: "body_size", Type: param.Size}
	workAttr         = param.Param{Name: "work", Type: param.Duration}
	versionAttr      = param.Param{Name: "version", Type: param.Strings}
)

// attrSchema is the schema of the attributes ps declares, then of those
// named in others, which have decoders of their own.
func attrSchema(ps []param.Param, others ...string) []hcl.AttributeSchema {
	out := make([]hcl.AttributeSchema, 0, len(ps)+len(others))
	for _, p := range ps {
		out = append(out, hcl.AttributeSchema{Name: p.Name, Required: p.Required})
	}
	for _, name := range others {
		out = append(out, hcl.AttributeSchema{Name: name})
	}
	return out
}

// decodeAttr converts the attribute p names, as paramValue converts an op
// parameter. ok is false when the attribute is unset or null, or when a
// diagnostic was recorded for it, so that callers keep their default.
func (l *loader) decodeAttr(attrs hcl.Attributes, ctx *hcl.EvalContext, p param.Param) (any, bool) {
	attr := attrs[p.Name]
	v, ok := l.value(attr, ctx)
	if !ok {
		return nil, false
	}
	gv, diags := paramValue(p, v, attr.Expr.Range())
	l.diags = append(l.diags, diags...)
	return gv, !diags.HasErrors()
}

// decodeInto stores the attribute p names in dst, whose type is the Go
// type param.Values documents for p.Type, and reports whether it did.
func decodeInto[T any](l *loader, attrs hcl.Attributes, ctx *hcl.EvalContext, p param.Param, dst *T) bool {
	v, ok := l.decodeAttr(attrs, ctx, p)
	if ok {
		*dst = v.(T)
	}
	return ok
}

// decodeName decodes a string that names something in tables and reports
// (a label, a title): one line, without control characters.
func (l *loader) decodeName(attrs hcl.Attributes, ctx *hcl.EvalContext, p param.Param, dst *string) {
	var s string
	if !decodeInto(l, attrs, ctx, p, &s) {
		return
	}
	if r, bad := controlChar(s); bad {
		l.errorf(attrs[p.Name].Expr.Range().Ptr(), "Invalid name",
			"The value of %q holds the control character %U; it names rows and columns in tables and reports, which must stay one line of text.", p.Name, r)
		return
	}
	*dst = s
}

// timingAttrs are the attributes of Timing, which a suite sets for every
// benchmark and a benchmark block for its own instances. repeat may also
// be "auto" (decodeRepeat).
var timingAttrs = []param.Param{repeatAttr, warmupAttr, minTimeAttr, timeoutAttr, maxRepeatAttr, maxTimeAttr, precisionAttr, launchesAttr}

// decodeTiming decodes the timing attributes of a suite or benchmark block
// over the values t already holds.
func (l *loader) decodeTiming(attrs hcl.Attributes, ctx *hcl.EvalContext, t *Timing) {
	l.decodeRepeat(attrs, ctx, t)
	decodeInto(l, attrs, ctx, warmupAttr, &t.Warmup)
	decodeInto(l, attrs, ctx, minTimeAttr, &t.MinTime)
	decodeInto(l, attrs, ctx, timeoutAttr, &t.Timeout)
	var maxRepeat int64
	if decodeInto(l, attrs, ctx, maxRepeatAttr, &maxRepeat) {
		t.MaxRepeat = int(maxRepeat)
		if t.MaxRepeat < AutoMinRepeat {
			l.errorf(attrs[maxRepeatAttr.Name].Expr.Range().Ptr(), "Invalid count",
				"The value of \"max_repeat\" must be at least %d, the runs repeat = \"auto\" does before its first look; got %d.", AutoMinRepeat, t.MaxRepeat)
			t.MaxRepeat = AutoMinRepeat
		}
	}
	decodeInto(l, attrs, ctx, maxTimeAttr, &t.MaxTime)
	var launches int64
	if decodeInto(l, attrs, ctx, launchesAttr, &launches) {
		t.Launches = int(launches)
	}
	var precision float64
	if decodeInto(l, attrs, ctx, precisionAttr, &precision) {
		if !(precision > 0 && precision < 1) {
			l.errorf(attrs[precisionAttr.Name].Expr.Range().Ptr(), "Invalid precision",
				"The value of \"precision\" is the half-width of the median's interval as a fraction of the median, above 0 and below 1 (0.02 for 2%%); got %s.", strconv.FormatFloat(precision, 'g', -1, 64))
		} else {
			t.Precision = precision
		}
	}
}

// decodeRepeat decodes repeat: "auto", or a count of runs.
func (l *loader) decodeRepeat(attrs hcl.Attributes, ctx *hcl.EvalContext, t *Timing) {
	attr := attrs[repeatAttr.Name]
	v, ok := l.value(attr, ctx)
	if !ok {
		return
	}
	if v.Type() == cty.String {
		if v.AsString() == "auto" {
			t.RepeatAuto = true
			return
		}
		if _, err := convert.Convert(v, cty.Number); err != nil {
			l.errorf(attr.Expr.Range().Ptr(), "Invalid repeat",
				"The value of \"repeat\" must be a whole number from 1 to %d, or \"auto\" to run until the verdicts are settled; got %q.", MaxRepeat, v.AsString())
			return
		}
	}
	var n int64
	if decodeInto(l, attrs, ctx, repeatAttr, &n) {
		t.Repeat, t.RepeatAuto = int(n), false
	}
}

// checkLaunches refuses launches that t cannot spread its runs over: each
// launch does its share of repeat runs, so it needs one at least, and the
// looks of repeat = "auto" are made in one process. Where neither
// attribute is in attrs the enclosing block has been checked already.
func (l *loader) checkLaunches(attrs hcl.Attributes, t Timing) {
	if t.Launches <= 1 {
		return
	}
	subject := attrs[launchesAttr.Name]
	if subject == nil {
		subject = attrs[repeatAttr.Name]
	}
	if subject == nil {
		return
	}
	switch {
	case t.RepeatAuto:
		l.errorf(subject.Expr.Range().Ptr(), "Launches with repeat = \"auto\"",
			"launches = %d spreads a fixed number of runs over fresh processes, and repeat = \"auto\" decides the number of runs as they come in one process; the two do not combine yet. Give repeat a number of runs, or drop launches.", t.Launches)
	case t.Repeat < t.Launches:
		l.errorf(subject.Expr.Range().Ptr(), "Too few runs for the launches",
			"launches = %d spreads the %d runs of repeat over %d fresh processes, and each needs one run at least. Raise repeat to %d or more, or lower launches.", t.Launches, t.Repeat, t.Launches, t.Launches)
	}
}
