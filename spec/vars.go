package spec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

var variableSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "type"}, {Name: "default"}, {Name: "description"},
}}

// variable is a declared variable while its value is being settled.
type variable struct {
	ty    cty.Type
	value cty.Value // NilVal until set
	decl  hcl.Range
	set   bool
	given bool // set by --var or --var-file rather than its default
}

// decodeVariables declares the variables, then applies --var-file values
// and --var values over the defaults, in that order.
func (l *loader) decodeVariables(blocks []*hcl.Block) {
	l.vars = map[string]cty.Value{}
	decls := map[string]*variable{}
	names := map[string]hcl.Range{}
	for _, b := range blocks {
		if !l.checkName(b, "variable", names) {
			continue
		}
		content, diags := b.Body.Content(variableSchema)
		l.diags = append(l.diags, diags...)
		v := &variable{ty: cty.DynamicPseudoType, decl: b.DefRange}
		decls[b.Labels[0]] = v
		if attr := content.Attributes["type"]; attr != nil {
			ty, diags := typeexpr.TypeConstraint(attr.Expr)
			l.diags = append(l.diags, diags...)
			if !diags.HasErrors() {
				v.ty = ty
			}
		}
		var description string
		decodeInto(l, content.Attributes, nil, descriptionAttr, &description)
		if attr := content.Attributes["default"]; attr != nil {
			val, ok := l.eval(attr.Expr, nil, v.ty, fmt.Sprintf("the default of variable %q", b.Labels[0]))
			switch {
			case !ok: // reported; do not also report the value as missing
				v.value, v.set = cty.UnknownVal(v.ty), true
			case !val.IsNull():
				v.value, v.set = val, true
			}
		}
	}

	l.applyVars(l.opts.VarLiterals, "stored with the result", ParseVarLiteral, decls)
	for _, path := range l.opts.VarFiles {
		l.applyVarFile(path, decls)
	}
	l.applyVars(l.opts.Vars, "given with --var", ParseVarValue, decls)

	for _, name := range keys(decls) {
		v := decls[name]
		if !v.set {
			l.errorf(v.decl.Ptr(), "Missing variable value",
				"Variable %q has no default. Set it with --var %s=VALUE or in a --var-file.", name, name)
			v.value = cty.UnknownVal(v.ty)
		}
		l.vars[name] = v.value
		if v.given && v.value.IsWhollyKnown() {
			if l.plan.Vars == nil {
				l.plan.Vars = map[string]string{}
			}
			l.plan.Vars[name] = VarLiteral(v.value)
		}
	}
}

// applyVars sets variables from raw values, each parsed by parse.
func (l *loader) applyVars(raw map[string]string, how string, parse func(string, cty.Type) (cty.Value, hcl.Diagnostics), decls map[string]*variable) {
	for _, name := range keys(raw) {
		v, ok := decls[name]
		if !ok {
			l.errorf(nil, "Undeclared variable", "A value was %s for %q, but the spec declares no variable of that name.%s",
				how, name, didYouMean(name, keys(decls)))
			continue
		}
		val, diags := parse(raw[name], v.ty)
		for _, d := range diags {
			d.Detail = fmt.Sprintf("The value %s for %q: %s", how, name, d.Detail)
		}
		l.diags = append(l.diags, diags...)
		if !diags.HasErrors() {
			v.value, v.set, v.given = val, true, true
		}
	}
}

func infiniteDiag(subject *hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid value for variable",
		Detail:   "The value holds an infinite number; a variable's numbers must be finite, so that the result can store them.",
		Subject:  subject,
	}
}

// applyVarFile sets variables from a file of NAME = VALUE attributes.
func (l *loader) applyVarFile(path string, decls map[string]*variable) {
	src, err := ReadFile(path)
	if err != nil {
		l.errorf(nil, "Unreadable variables file", "The --var-file %q cannot be read: %s.", path, err)
		return
	}
	f, diags := l.parseFile(src, path)
	l.diags = append(l.diags, diags...)
	if f == nil || diags.HasErrors() {
		l.plan.sources[path] = &hcl.File{Bytes: src}
		return
	}
	l.plan.sources[path] = f
	attrs, diags := f.Body.JustAttributes()
	l.diags = append(l.diags, diags...)
	for _, attr := range sortedAttrs(attrs) {
		v, ok := decls[attr.Name]
		if !ok {
			l.errorf(attr.NameRange.Ptr(), "Undeclared variable",
				"The variables file sets %q, but the spec declares no variable of that name.%s", attr.Name, didYouMean(attr.Name, keys(decls)))
			continue
		}
		val, ok := l.eval(attr.Expr, nil, v.ty, fmt.Sprintf("variable %q", attr.Name))
		if ok && infinite(val) {
			l.diags = l.diags.Append(infiniteDiag(attr.Expr.Range().Ptr()))
			continue
		}
		if ok && !val.IsNull() {
			v.value, v.set, v.given = val, true, true
		}
	}
}

// ParseVarValue turns the VALUE of a --var NAME=VALUE into a value of type
// ty. A string variable takes VALUE literally; any other VALUE is parsed as
// an HCL expression (a number, a list, a map) and falls back to the plain
// string when it does not parse, as Terraform does.
func ParseVarValue(raw string, ty cty.Type) (cty.Value, hcl.Diagnostics) {
	raw = strings.ToValidUTF8(raw, "\uFFFD")
	val := cty.StringVal(raw)
	if ty != cty.String {
		if diags := checkExprNesting([]byte(raw), "<value>"); diags.HasErrors() {
			diags[0].Subject = nil // the value has no file to show
			return cty.NilVal, diags
		}
		expr, diags := hclsyntax.ParseExpression([]byte(raw), "<value>", hcl.InitialPos)
		if !diags.HasErrors() {
			if v, diags := evaluate(expr, nil); !diags.HasErrors() && v.IsWhollyKnown() {
				val = v
			}
		}
	}
	if infinite(val) {
		return cty.NilVal, hcl.Diagnostics{infiniteDiag(nil)}
	}
	cv := val
	if ty != cty.DynamicPseudoType {
		var err error
		if cv, err = convert.Convert(val, ty); err != nil {
			return cty.NilVal, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid value for variable",
				Detail:   fmt.Sprintf("%q is not %s: %s.", raw, ty.FriendlyName(), err),
			}}
		}
	}
	// the plain text converted ("1e10000" to a number) is held to the
	// limits an expression is
	if valueSize(cv, MaxValueBytes+1) > MaxValueBytes {
		diags := tooLargeDiags(hcl.Range{}, "The value")
		diags[0].Subject = nil // the value has no file to show
		return cty.NilVal, diags
	}
	return cv, nil
}

// local is one local value with the locals it reads.
type local struct {
	attr *hcl.Attribute
	deps []string
}

// decodeLocals evaluates locals in dependency order; a cycle is reported
// once, on each local in it, and those locals stay unknown.
func (l *loader) decodeLocals(blocks []*hcl.Block) {
	l.locals = map[string]cty.Value{}
	all := map[string]*local{}
	var order []string
	for _, b := range blocks {
		attrs, diags := b.Body.JustAttributes()
		l.diags = append(l.diags, diags...)
		for _, attr := range sortedAttrs(attrs) {
			if prev, dup := all[attr.Name]; dup {
				l.errorf(attr.NameRange.Ptr(), "Duplicate local value",
					"A local value named %q is already defined at %s. Local value names must be unique across all files of a spec.",
					attr.Name, prev.attr.NameRange.String())
				continue
			}
			lv := &local{attr: attr}
			for _, t := range attr.Expr.Variables() {
				if t.RootName() == "local" && len(t) > 1 {
					if step, ok := t[1].(hcl.TraverseAttr); ok {
						lv.deps = append(lv.deps, step.Name)
					}
				}
			}
			all[attr.Name] = lv
			order = append(order, attr.Name)
		}
	}

	const (
		visiting = iota + 1 // the zero state is "not visited yet"
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(name string)
	visit = func(name string) {
		lv, ok := all[name]
		if !ok || state[name] == done {
			return
		}
		if state[name] == visiting {
			i := len(stack) - 1
			for i > 0 && stack[i] != name {
				i--
			}
			cycle := append(append([]string{}, stack[i:]...), name)
			for _, n := range stack[i:] {
				l.errorf(all[n].attr.Expr.Range().Ptr(), "Cycle in local values",
					"Local values cannot refer to themselves, directly or through others: %s.", "local."+strings.Join(cycle, " -> local."))
				l.locals[n] = cty.DynamicVal
				state[n] = done
			}
			return
		}
		state[name] = visiting
		stack = append(stack, name)
		for _, dep := range lv.deps {
			visit(dep)
		}
		stack = stack[:len(stack)-1]
		if state[name] == done { // part of a cycle found below
			return
		}
		state[name] = done
		v, diags := evaluate(lv.attr.Expr, l.ctx(nil))
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			v = cty.DynamicVal
		}
		l.locals[name] = v
	}
	for _, name := range order {
		visit(name)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
