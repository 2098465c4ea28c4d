package spec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/specrun/specrun/param"
)

// MaxForEach bounds the instances one assert's for_each may give.
const MaxForEach = 4096

// refMark marks a metric in the shape of the benchmark and baseline
// objects, so that the marks on a value say which figures it read.
type refMark struct {
	baseline bool
	instance string
	metric   string
}

// shape is the benchmark (or baseline) object as the plan declares it:
// every block, instance and metric, each metric an unknown number marked
// with what it is. Evaluating a value over it finds the figures the value
// reads without running anything.
func (l *loader) shape(baseline bool) cty.Value {
	blocks := map[string]cty.Value{}
	for name, info := range l.blocks {
		if info.broken {
			blocks[name] = cty.DynamicVal // reported already; reads of it stay unknown
			continue
		}
		metrics := func(instance string) cty.Value {
			obj := make(map[string]cty.Value, len(info.metrics))
			for _, m := range statNames(info.metrics) {
				obj[m] = cty.UnknownVal(cty.Number).Mark(refMark{baseline, instance, m})
			}
			return cty.ObjectVal(obj)
		}
		if !info.matrix {
			blocks[name] = metrics(name)
			continue
		}
		instances := make(map[string]cty.Value, len(info.instances))
		for _, k := range info.instances {
			instances[k] = metrics(name + "/" + k)
		}
		blocks[name] = cty.ObjectVal(instances)
	}
	return cty.ObjectVal(blocks)
}

// checkEach reports a reference to each that is neither each.key nor
// each.value.
func (l *loader) checkEach(t hcl.Traversal) {
	if len(t) >= 2 {
		if step, ok := t[1].(hcl.TraverseAttr); ok && (step.Name == "key" || step.Name == "value") {
			return
		}
	}
	l.errorf(t.SourceRange().Ptr(), "Invalid reference to each",
		"In an assert with for_each, each has two attributes: each.key, the instance's key, and each.value, its element of the for_each map.")
}

// expandForEach makes one Assert per key of the for_each map (or set of
// strings), named NAME["KEY"], each with the references its value makes
// for that key. The keys must be known before anything runs, so a filter
// may test keys but not measured figures.
func (l *loader) expandForEach(a *Assert, attr *hcl.Attribute) []*Assert {
	ctx := a.ctx.NewChild()
	ctx.Variables = map[string]cty.Value{"benchmark": l.shape(false), "baseline": l.shape(true)}
	collection, diags := evaluate(attr.Expr, ctx)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	keys, elems, ok := l.forEachElements(collection, attr)
	if !ok {
		return nil
	}
	order := l.instanceOrder()
	sort.SliceStable(keys, func(i, j int) bool {
		pi, iok := order[keys[i]]
		pj, jok := order[keys[j]]
		if iok && jok {
			return pi < pj
		}
		return iok && !jok
	})
	out := make([]*Assert, 0, len(keys))
	for _, k := range keys {
		each := cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(k), "value": elems[k]})
		vctx := ctx.NewChild()
		vctx.Variables = map[string]cty.Value{"each": each}
		v, diags := evaluate(a.value, vctx)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			return nil
		}
		v, marks := v.UnmarkDeep()
		if v.Type() != cty.DynamicPseudoType && !v.IsNull() {
			if _, err := convert.Convert(v, cty.Number); err != nil {
				l.errorf(a.value.Range().Ptr(), "Incorrect value type",
					"For each.key = %q the value is %s; an assert's value must be a number.", k, typeName(v.Type()))
				return nil
			}
		}
		inst := *a
		inst.Name = fmt.Sprintf("%s[%q]", a.Name, k)
		inst.Key = k
		inst.forEach = attr.Expr
		inst.Refs = marksRefs(marks, attr.Expr.Range())
		out = append(out, &inst)
	}
	return out
}

// forEachElements reads a for_each value: a map or object (its keys and
// elements), or a set, list or tuple of distinct strings (each element is
// its own key and value).
func (l *loader) forEachElements(v cty.Value, attr *hcl.Attribute) ([]string, map[string]cty.Value, bool) {
	rng := attr.Expr.Range().Ptr()
	const kinds = "for_each takes a map, such as benchmark, benchmark.NAME (the instances of a matrix block) or a for expression over them, or a set of strings"
	v, topMarks := v.Unmark() // a function's result carries its arguments' marks on the whole
	switch {
	case v.IsNull():
		l.errorf(rng, "Invalid for_each argument", "The for_each value is null. %s.", kinds)
		return nil, nil, false
	case !v.IsKnown() || !v.Type().IsCollectionType() && !v.Type().IsObjectType() && !v.Type().IsTupleType():
		if !v.IsKnown() {
			l.errorf(rng, "Invalid for_each argument",
				"The keys of for_each must be known before anything runs, and these depend on measured figures (or on a benchmark with errors). A filter can test each benchmark's key, not its metrics.")
		} else {
			l.errorf(rng, "Invalid for_each argument", "The for_each value is %s. %s.", typeName(v.Type()), kinds)
		}
		return nil, nil, false
	}
	if n := v.LengthInt(); n > MaxForEach {
		l.errorf(rng, "Too many for_each instances", "The for_each value has %d elements; an assert may have at most %d.", n, MaxForEach)
		return nil, nil, false
	}
	byKey := v.Type().IsMapType() || v.Type().IsObjectType()
	elems := map[string]cty.Value{}
	var keys []string
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		var key string
		if byKey {
			key = k.AsString()
		} else {
			s, err := convert.Convert(e, cty.String)
			if err != nil || !s.IsKnown() || s.IsNull() || s.IsMarked() {
				l.errorf(rng, "Invalid for_each argument", "A list or set given to for_each must hold known strings; element %d is %s.", len(keys), typeName(e.Type()))
				return nil, nil, false
			}
			key, e = s.AsString(), s
			if _, dup := elems[key]; dup {
				l.errorf(rng, "Invalid for_each argument", "The key %q appears twice in the for_each value; each key names one verdict.", key)
				return nil, nil, false
			}
		}
		if r, bad := controlChar(key); bad {
			l.errorf(rng, "Invalid for_each argument", "The key %q holds the control character %U; it names a verdict, which must stay one line of text.", key, r)
			return nil, nil, false
		}
		elems[key] = e.WithMarks(topMarks)
		keys = append(keys, key)
	}
	return keys, elems, true
}

// instanceOrder places block names, instance keys and instance names in
// the plan's order, so that for_each verdicts come in the order of the
// benchmarks they read rather than alphabetically.
func (l *loader) instanceOrder() map[string]int {
	order := map[string]int{}
	for i, b := range l.plan.Benchmarks {
		for _, k := range []string{b.Name, b.Block, strings.TrimPrefix(b.Name, b.Block+"/")} {
			if _, seen := order[k]; !seen {
				order[k] = i
			}
		}
	}
	return order
}

// marksRefs turns the marks on a value into the references it makes, in a
// stable order.
func marksRefs(marks cty.ValueMarks, rng hcl.Range) []Ref {
	var refs []Ref
	for m := range marks {
		if r, ok := m.(refMark); ok {
			refs = append(refs, Ref{Baseline: r.baseline, Instance: r.instance, Metric: r.metric, Range: rng})
		}
	}
	sort.Slice(refs, func(i, j int) bool {
		a, b := refs[i], refs[j]
		if a.Baseline != b.Baseline {
			return !a.Baseline
		}
		if a.Instance != b.Instance {
			return a.Instance < b.Instance
		}
		return a.Metric < b.Metric
	})
	return refs
}

// thresholdAttr decodes a noise floor: a fraction such as 0.05, or a
// percentage written as a string, "5%".
func (l *loader) thresholdAttr(attr *hcl.Attribute, ctx *hcl.EvalContext, dst *float64) {
	v, ok := l.value(attr, ctx)
	if !ok {
		return
	}
	var f float64
	var err error
	switch v.Type() {
	case cty.String:
		f, err = param.ParseFraction(v.AsString())
	case cty.Number:
		f, _ = v.AsBigFloat().Float64()
		err = param.CheckFraction(f)
	default:
		err = fmt.Errorf("it is %s; write a fraction such as 0.05 or a percentage such as \"5%%\"", typeName(v.Type()))
	}
	if err != nil {
		l.errorf(attr.Expr.Range().Ptr(), "Invalid threshold", "The value of %q is not a noise threshold: %v.", attr.Name, err)
		return
	}
	*dst = f
}

// readable lists the names a value can read: "benchmark.NAME, var.NAME
// and each.key".
func readable(roots []string) string {
	parts := make([]string, len(roots))
	for i, r := range roots {
		parts[i] = r + ".NAME"
		if r == "each" {
			parts[i] = "each.key, each.value"
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// eachValue is this instance's each object, from the for_each expression
// evaluated over the measured figures.
func (a *Assert) eachValue(ctx *hcl.EvalContext) (cty.Value, error) {
	v, diags := evaluate(a.forEach, ctx)
	if diags.HasErrors() {
		return cty.NilVal, fmt.Errorf("evaluate the for_each of assert %q: %w", a.Name, diags)
	}
	v, _ = v.UnmarkDeep()
	var elem cty.Value
	switch {
	case !v.IsWhollyKnown() || v.IsNull():
		return cty.NilVal, fmt.Errorf("evaluate the for_each of assert %q: it is null", a.Name)
	case v.Type().IsObjectType():
		if !v.Type().HasAttribute(a.Key) {
			return cty.NilVal, fmt.Errorf("evaluate assert %q: the for_each map has no key %q in this result", a.Name, a.Key)
		}
		elem = v.GetAttr(a.Key)
	case v.Type().IsMapType():
		k := cty.StringVal(a.Key)
		if !v.HasIndex(k).True() {
			return cty.NilVal, fmt.Errorf("evaluate assert %q: the for_each map has no key %q in this result", a.Name, a.Key)
		}
		elem = v.Index(k)
	default:
		elem = cty.StringVal(a.Key)
	}
	return cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(a.Key), "value": elem}), nil
}
