package spec

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/specrun/specrun/metric"
)

var assertSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "description"}, {Name: "value", Required: true}, {Name: "min"}, {Name: "max"},
	{Name: "threshold"}, {Name: "for_each"},
}}

// decodeAssertBlock decodes an assert block, keeping its value expression
// to be evaluated against results: one Assert, or with for_each one per key.
func (l *loader) decodeAssertBlock(b *hcl.Block) ([]*Assert, hcl.Diagnostics) {
	d := l.fresh()
	content, diags := b.Body.Content(assertSchema)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil, d.diags
	}
	attrs := content.Attributes
	ctx := d.ctx(nil)
	a := &Assert{Name: b.Labels[0], DeclRange: b.DefRange, value: attrs["value"].Expr, ctx: ctx, Threshold: l.plan.Suite.Threshold}
	decodeInto(d, attrs, ctx, descriptionAttr, &a.Description)
	d.thresholdAttr(attrs["threshold"], ctx, &a.Threshold)
	a.Min = d.boundAttr(attrs["min"], ctx)
	a.Max = d.boundAttr(attrs["max"], ctx)
	if attrs["min"] == nil && attrs["max"] == nil {
		d.errorf(b.DefRange.Ptr(), "Missing bound",
			"Assert %q needs \"min\", \"max\" or both: the value is checked against them.", a.Name)
	}
	if a.Min != nil && a.Max != nil && *a.Min > *a.Max {
		d.errorf(attrs["max"].Expr.Range().Ptr(), "Impossible bounds",
			"The max of assert %q (%g) is below its min (%g), so it could never pass.", a.Name, *a.Max, *a.Min)
	}
	forEach := attrs["for_each"]
	d.resolveRefs(a, forEach != nil)
	if d.diags.HasErrors() {
		return nil, d.diags
	}
	if forEach != nil {
		as := d.expandForEach(a, forEach)
		if d.diags.HasErrors() {
			return nil, d.diags
		}
		return as, d.diags
	}
	return []*Assert{a}, d.diags
}

func (l *loader) boundAttr(attr *hcl.Attribute, ctx *hcl.EvalContext) *float64 {
	if attr == nil {
		return nil
	}
	v, ok := l.eval(attr.Expr, ctx, cty.Number, fmt.Sprintf("%q", attr.Name))
	if !ok || v.IsNull() {
		return nil
	}
	f, _ := v.AsBigFloat().Float64()
	if math.IsInf(f, 0) {
		l.errorf(attr.Expr.Range().Ptr(), "Invalid bound", "The value of %q is out of range.", attr.Name)
		return nil
	}
	return &f
}

// resolveRefs checks every benchmark.* and baseline.* reference of the
// value against the plan's blocks and instances, and records them. With
// for_each the value may also read each.key and each.value, and index
// benchmark and baseline by an expression (baseline[each.key]); the
// references of each instance are then found by expandForEach.
func (l *loader) resolveRefs(a *Assert, forEach bool) {
	for _, t := range a.value.Variables() {
		root := t.RootName()
		switch root {
		case "var", "local", "path":
			continue
		case "benchmark", "baseline":
		case "each":
			if !forEach {
				l.errorf(t.SourceRange().Ptr(), "Reference to \"each\" in context without for_each",
					"each.key and each.value are set only in an assert that has a for_each argument.")
				continue
			}
			l.checkEach(t)
			continue
		default:
			roots := []string{"benchmark", "baseline", "var", "local", "path"}
			if forEach {
				roots = append(roots, "each")
			}
			l.errorf(t.SourceRange().Ptr(), "Unknown variable",
				"An assert's value can read %s; there is no %q.%s",
				readable(roots), root, didYouMean(root, roots))
			continue
		}
		if len(t) < 2 && forEach {
			continue // indexed by an expression: resolved per instance
		}
		if len(t) < 2 {
			l.errorf(t.SourceRange().Ptr(), "Incomplete reference",
				"Name a benchmark and a metric, such as %s.NAME.ns_per_op. To check every benchmark, give the assert a for_each, such as for_each = benchmark, and read baseline[each.key].", root)
			continue
		}
		block, ok := stepName(t[1])
		if !ok {
			l.errorf(t.SourceRange().Ptr(), "Invalid reference", "After %s, name a benchmark: %s.NAME.", root, root)
			continue
		}
		info, ok := l.blocks[block]
		if !ok {
			l.errorf(t.SourceRange().Ptr(), "Unknown benchmark", "There is no benchmark named %q.%s", block, didYouMean(block, keys(l.blocks)))
			continue
		}
		if info.broken {
			continue
		}
		rest := t[2:]
		var instances []string
		if !info.matrix {
			instances = []string{block}
		} else {
			if len(rest) == 0 {
				// the whole map of instances, as in max(values(benchmark.x)...)
				for _, k := range info.instances {
					a.Refs = append(a.Refs, Ref{Baseline: root == "baseline", Instance: block + "/" + k, Range: t.SourceRange()})
				}
				continue
			}
			idx, ok := rest[0].(hcl.TraverseIndex)
			if !ok || !idx.Key.IsKnown() || idx.Key.IsNull() || idx.Key.Type() != cty.String {
				example := "size=16B"
				if len(info.instances) > 0 {
					example = info.instances[0]
				}
				l.errorf(t.SourceRange().Ptr(), "Missing matrix instance",
					"Benchmark %q has a matrix; pick one instance by its key, such as %s.%s[%q].", block, root, block, example)
				continue
			}
			key := idx.Key.AsString()
			if !slices.Contains(info.instances, key) {
				l.errorf(idx.SrcRange.Ptr(), "Unknown benchmark instance",
					"Benchmark %q has no instance %q.%s Its instances are %s.",
					block, key, didYouMean(key, info.instances), listSome(info.instances, 6))
				continue
			}
			instances = []string{block + "/" + key}
			rest = rest[1:]
		}
		metric := ""
		if len(rest) > 0 {
			step, ok := rest[0].(hcl.TraverseAttr)
			if !ok {
				l.errorf(t.SourceRange().Ptr(), "Invalid reference", "After the benchmark, name a metric, such as .ns_per_op.")
				continue
			}
			metric = step.Name
			if !recorded(info.metrics, metric) {
				l.errorf(step.SrcRange.Ptr(), "Unknown metric",
					"Benchmark %q records no metric %q.%s It records %s; each of them also reads over the runs with a suffix: %s.",
					block, metric, didYouMean(metric, statNames(info.metrics)), strings.Join(info.metrics, ", "), statSuffixes())
				continue
			}
		}
		for _, inst := range instances {
			a.Refs = append(a.Refs, Ref{Baseline: root == "baseline", Instance: inst, Metric: metric, Range: t.SourceRange()})
		}
	}
}

// stepName reads a block name written as .NAME or ["NAME"].
func stepName(step hcl.Traverser) (string, bool) {
	switch s := step.(type) {
	case hcl.TraverseAttr:
		return s.Name, true
	case hcl.TraverseIndex:
		if s.Key.IsKnown() && !s.Key.IsNull() && s.Key.Type() == cty.String {
			return s.Key.AsString(), true
		}
	}
	return "", false
}

func listSome(items []string, n int) string {
	q := quoteAll(items)
	if len(q) > n {
		return strings.Join(q[:n], ", ") + fmt.Sprintf(" and %d more", len(q)-n)
	}
	return strings.Join(q, ", ")
}

// Evaluate computes the assertion's value from this run's metrics and a
// baseline's (nil when there is none). Each instance is an object of its
// metrics; the instances of a matrix block form an object keyed "key=v".
// A missing instance or metric, or a value that is not a finite number, is
// an error that names it.
func (a *Assert) Evaluate(cur, base Metrics) (float64, error) {
	if a.value == nil {
		return 0, fmt.Errorf("evaluate assert %q: it has no value", a.Name)
	}
	for _, r := range a.Refs {
		m, src := cur, "benchmark"
		if r.Baseline {
			m, src = base, "baseline"
			if base == nil {
				return 0, fmt.Errorf("evaluate assert %q: it reads baseline %q, but no baseline was given", a.Name, r.Instance)
			}
		}
		inst, ok := m[r.Instance]
		if !ok {
			return 0, fmt.Errorf("evaluate assert %q: %s has no result for %q", a.Name, src, r.Instance)
		}
		if r.Metric == "" {
			continue
		}
		v, ok := inst[r.Metric]
		switch {
		case !ok:
			return 0, fmt.Errorf("evaluate assert %q: %s %q has no metric %q", a.Name, src, r.Instance, r.Metric)
		case math.IsNaN(v) && undefinedStat(r.Metric):
			return 0, fmt.Errorf("evaluate assert %q: %s %q has no %s: a CV, trend or digits needs two runs or more (and a CV or trend a mean that is not 0)",
				a.Name, src, r.Instance, r.Metric)
		case math.IsNaN(v) || math.IsInf(v, 0):
			return 0, fmt.Errorf("evaluate assert %q: %s %q has metric %q = %v, not a finite number", a.Name, src, r.Instance, r.Metric, v)
		}
	}
	ctx := a.ctx.NewChild()
	ctx.Variables = map[string]cty.Value{
		"benchmark": metricsObject(cur),
		"baseline":  metricsObject(base),
	}
	if a.forEach != nil {
		each, err := a.eachValue(ctx)
		if err != nil {
			return 0, err
		}
		ctx = ctx.NewChild()
		ctx.Variables = map[string]cty.Value{"each": each}
	}
	v, diags := evaluate(a.value, ctx)
	if diags.HasErrors() {
		return 0, fmt.Errorf("evaluate assert %q: %w", a.Name, diags)
	}
	if !v.IsWhollyKnown() || v.IsNull() {
		return 0, fmt.Errorf("evaluate assert %q: the value is null", a.Name)
	}
	nv, err := convert.Convert(v, cty.Number)
	if err != nil {
		return 0, fmt.Errorf("evaluate assert %q: the value is %s, not a number", a.Name, typeName(v.Type()))
	}
	f, _ := nv.AsBigFloat().Float64()
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("evaluate assert %q: the value is not a finite number", a.Name)
	}
	return f, nil
}

// metricsObject builds the benchmark (or baseline) object: block name to
// its metrics, or for a matrix block, instance key to its metrics.
// Non-finite figures are left out, since cty cannot hold NaN.
func metricsObject(m Metrics) cty.Value {
	plain := map[string]cty.Value{}
	keyed := map[string]map[string]cty.Value{}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		obj := map[string]cty.Value{}
		for metric, v := range m[name] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				obj[metric] = cty.NumberFloatVal(v)
			}
		}
		block, key, matrix := strings.Cut(name, "/")
		if !matrix {
			plain[block] = cty.ObjectVal(obj)
			continue
		}
		if keyed[block] == nil {
			keyed[block] = map[string]cty.Value{}
		}
		keyed[block][key] = cty.ObjectVal(obj)
	}
	for block, instances := range keyed {
		if _, clash := plain[block]; !clash {
			plain[block] = cty.ObjectVal(instances)
		}
	}
	return cty.ObjectVal(plain)
}

// undefinedStat says whether name is a stat over the runs that is no
// number for one run (or a zero mean): METRIC_cv, _trend or _digits.
func undefinedStat(name string) bool {
	_, s, ok := metric.SplitStat(name)
	return ok && (s == metric.CV || s == metric.Trend || s == metric.Digits)
}
