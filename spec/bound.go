package spec

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// evaluate is expr.Value(ctx) for anything a spec writes, held to
// MaxValueBytes. Templates and for expressions, which copy what they
// repeat, are bounded before they run, so that a few lines such as
// "${local.a}${local.a}" nested eight times are a diagnostic, not gigabytes;
// the functions check their own growth (boundedFunctions); the value is
// checked again once computed.
func evaluate(expr hcl.Expression, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	if copies(expr) && bound(expr, ctx) > MaxValueBytes {
		return cty.DynamicVal, tooLargeDiags(expr.Range(), "The value of this expression")
	}
	v, diags := expr.Value(ctx)
	if !diags.HasErrors() && valueSize(v, MaxValueBytes+1) > MaxValueBytes {
		return cty.DynamicVal, append(diags, tooLargeDiags(expr.Range(), "The value of this expression")...)
	}
	return v, diags
}

// copies reports whether expr holds a template or a for expression, the
// only expressions that build values larger than their parts without a
// function call (functions bound themselves). The others need no bound.
func copies(expr hcl.Expression) bool {
	node, ok := expr.(hclsyntax.Node)
	if !ok {
		return false
	}
	found := false
	hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		switch n.(type) {
		case *hclsyntax.TemplateExpr, *hclsyntax.ForExpr:
			found = true
		}
		return nil
	})
	return found
}

func tooLargeDiags(rng hcl.Range, what string) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Value too large",
		Detail:   tooLarge(what) + ".",
		Subject:  rng.Ptr(),
	}}
}

// bound is an upper estimate of the size of expr's value, computed without
// building any copy larger than MaxValueBytes: the parts of a template are
// summed, a for expression is its length times the size of its first
// element, and other expressions are evaluated once the templates, for
// expressions and calls inside them are known to be small. A part that
// cannot be evaluated here (it reads a for expression's variable) counts
// as nothing; the for expression that binds it is bounded with it.
func bound(expr hcl.Expression, ctx *hcl.EvalContext) int {
	const over = MaxValueBytes + 1
	switch e := expr.(type) {
	case *hclsyntax.LiteralValueExpr:
		return valueSize(e.Val, over)
	case *hclsyntax.TemplateWrapExpr:
		return bound(e.Wrapped, ctx)
	case *hclsyntax.TemplateJoinExpr:
		return bound(e.Tuple, ctx)
	case *hclsyntax.TemplateExpr:
		n := 0
		for _, p := range e.Parts {
			if n += bound(p, ctx); n > MaxValueBytes {
				return over
			}
		}
		return n
	case *hclsyntax.TupleConsExpr:
		n := 1
		for _, item := range e.Exprs {
			if n += 1 + bound(item, ctx); n > MaxValueBytes {
				return over
			}
		}
		return n
	case *hclsyntax.ObjectConsExpr:
		n := 1
		for _, item := range e.Items {
			if n += 1 + bound(item.KeyExpr, ctx) + bound(item.ValueExpr, ctx); n > MaxValueBytes {
				return over
			}
		}
		return n
	case *hclsyntax.ConditionalExpr:
		return max(bound(e.TrueResult, ctx), bound(e.FalseResult, ctx), bound(e.Condition, ctx))
	case *hclsyntax.ForExpr:
		return boundFor(e, ctx)
	case *hclsyntax.FunctionCallExpr:
		n := 0
		for _, a := range e.Args {
			if n += bound(a, ctx); n > MaxValueBytes {
				return over
			}
		}
	default:
		// every expression that copies is bounded before this one runs it
		over := false
		hclsyntax.VisitAll(expr.(hclsyntax.Node), func(n hclsyntax.Node) hcl.Diagnostics {
			switch sub := n.(type) {
			case *hclsyntax.TemplateExpr, *hclsyntax.ForExpr, *hclsyntax.FunctionCallExpr:
				if !over && bound(sub.(hcl.Expression), ctx) > MaxValueBytes {
					over = true
				}
			}
			return nil
		})
		if over {
			return MaxValueBytes + 1
		}
	}
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return 0
	}
	return valueSize(v, over)
}

// boundFor is a for expression's length times the bound of its first
// element's key and value.
func boundFor(e *hclsyntax.ForExpr, ctx *hcl.EvalContext) int {
	if bound(e.CollExpr, ctx) > MaxValueBytes {
		return MaxValueBytes + 1
	}
	coll, diags := e.CollExpr.Value(ctx)
	if diags.HasErrors() || !coll.IsWhollyKnown() || coll.IsNull() || !coll.CanIterateElements() {
		return 0
	}
	n := coll.LengthInt()
	if n == 0 {
		return 1
	}
	it := coll.ElementIterator()
	it.Next()
	k, v := it.Element()
	child := ctx.NewChild()
	child.Variables = map[string]cty.Value{}
	if e.KeyVar != "" {
		child.Variables[e.KeyVar] = k
	}
	child.Variables[e.ValVar] = v
	each := 1 + bound(e.ValExpr, child)
	if e.KeyExpr != nil {
		each += bound(e.KeyExpr, child)
	}
	if each > (MaxValueBytes+1)/n {
		return MaxValueBytes + 1
	}
	return n * each
}

// boundedFunctions wraps each function so that a call whose arguments
// or result are over MaxValueBytes fails, and those that multiply their
// input (join, replace, formatlist, indent) are refused before they run.
func boundedFunctions(fns map[string]function.Function) map[string]function.Function {
	out := make(map[string]function.Function, len(fns))
	for name, f := range fns {
		out[name] = boundedFunction(name, f)
	}
	return out
}

func boundedFunction(name string, f function.Function) function.Function {
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		VarParam:    f.VarParam(),
		Type: func(args []cty.Value) (cty.Type, error) {
			return f.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			n := 0
			for _, a := range args {
				n += valueSize(a, MaxValueBytes+1)
			}
			n += growth(name, args)
			if n > MaxValueBytes {
				return cty.DynamicVal, fmt.Errorf("%s", tooLarge("The result of "+name+"()"))
			}
			v, err := f.Call(args)
			if err == nil && valueSize(v, MaxValueBytes+1) > MaxValueBytes {
				return cty.DynamicVal, fmt.Errorf("%s", tooLarge("The result of "+name+"()"))
			}
			return v, err
		},
	})
}

// growth estimates how much a call adds beyond its arguments, for the
// functions whose output can be many times their input.
func growth(name string, args []cty.Value) int {
	str := func(i int) (string, bool) {
		if i >= len(args) || args[i].IsNull() || !args[i].IsKnown() || args[i].Type() != cty.String {
			return "", false
		}
		return args[i].AsString(), true
	}
	length := func(v cty.Value) int {
		if v.IsNull() || !v.IsKnown() || !v.CanIterateElements() {
			return 0
		}
		return v.LengthInt()
	}
	switch name {
	case "join": // join(sep, lists...)
		sep, _ := str(0)
		n := 0
		for _, l := range args[min(1, len(args)):] {
			n += length(l)
		}
		return saturate(n, len(sep))
	case "replace": // replace(s, substr, replacement)
		s, ok1 := str(0)
		sub, ok2 := str(1)
		repl, ok3 := str(2)
		if !ok1 || !ok2 || !ok3 {
			return 0
		}
		count := len(s) + 1 // a regular expression, or "", may match anywhere
		if len(sub) > 0 && !(len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/') {
			count = strings.Count(s, sub)
		}
		return saturate(count, len(repl))
	case "formatlist": // each list argument's length times the rest
		longest := 1
		for _, a := range args[1:] {
			if a.Type().IsListType() || a.Type().IsTupleType() || a.Type().IsSetType() {
				longest = max(longest, length(a))
			}
		}
		n := 0
		for _, a := range args {
			n += valueSize(a, MaxValueBytes+1)
		}
		return saturate(longest, n)
	case "indent": // indent(spaces, s)
		if len(args) < 2 || args[0].IsNull() || !args[0].IsKnown() {
			return 0
		}
		spaces, acc := args[0].AsBigFloat().Int64()
		s, _ := str(1)
		if acc != big.Exact || spaces < 0 || spaces > MaxValueBytes {
			return MaxValueBytes + 1
		}
		return saturate(strings.Count(s, "\n")+1, int(spaces))
	}
	return 0
}

// saturate is a*b, or MaxValueBytes+1 when that is larger.
func saturate(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (MaxValueBytes+1)/b {
		return MaxValueBytes + 1
	}
	return a * b
}
