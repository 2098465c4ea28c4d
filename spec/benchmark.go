package spec

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/param"
)

// benchmarkAttrs are the attributes every benchmark block may have; the
// rest of its attributes are the op's parameters.
var benchmarkAttrs = attrSchema(
	append([]param.Param{opAttr, labelAttr, interleaveAttr, everyShardAttr}, timingAttrs...), "iterations")

// axis is one matrix key with all its values.
type axis struct {
	key    string
	rng    hcl.Range // of the key in the matrix block
	values []cty.Value
	names  []string
}

// decodeBenchmarkBlock decodes a benchmark block into its instances, one
// per matrix point, and what asserts need to know about the block.
func (l *loader) decodeBenchmarkBlock(b *hcl.Block) ([]*Benchmark, *blockInfo, hcl.Diagnostics) {
	d := l.fresh()
	name := b.Labels[0]
	info := &blockInfo{declRange: b.DefRange, broken: true}
	def := d.decodeOp(b)
	if def == nil {
		return nil, info, d.diags
	}
	content, diags := b.Body.Content(benchmarkSchema(def))
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil, info, d.diags
	}
	axes, ok := d.decodeMatrix(name, content.Blocks)
	if !ok {
		return nil, info, d.diags
	}
	info.matrix = len(axes) > 0
	info.metrics = metricNames(def)

	total := 1
	for _, a := range axes {
		total *= len(a.values) // each factor is at most MaxInstances, checked in decodeMatrix
		if total > MaxInstances {
			break
		}
	}
	if l.count+total > MaxInstances {
		d.errorf(b.DefRange.Ptr(), "Too many benchmark instances",
			"Benchmark %q would bring the spec over %d instances (the block alone has %s). Use fewer matrix values or split the spec.",
			name, MaxInstances, productText(axes))
		return nil, info, d.diags
	}

	if _, set := content.Attributes["iterations"]; set && def.Iterations != nil {
		d.warnf(content.Attributes["iterations"].NameRange.Ptr(), "Iterations ignored",
			"Op %q fixes the iteration count of a run from its parameters, so \"iterations\" has no effect.", def.Name)
	}

	var bms []*Benchmark
	seen := map[string][]Axis{}
	for _, pt := range expand(axes) {
		instName, ctx := name, d.ctx(nil)
		if len(axes) > 0 {
			instName = name + "/" + pt.key
			if prev, dup := seen[instName]; dup {
				d.errorf(content.Blocks[0].DefRange.Ptr(), "Duplicate instance name",
					"The matrix points %s and %s of benchmark %q are both named %q, since their values hold \"/\" or \"=\". Change one of the values.",
					pointText(prev), pointText(pt.axes), name, instName)
				continue
			}
			seen[instName] = pt.axes
			info.instances = append(info.instances, pt.key)
			ctx = d.ctx(pt.params)
		}
		bm, diags := d.decodeInstance(instName, name, def, content.Attributes, ctx)
		d.diags = append(d.diags, diags...)
		bm.Matrix = pt.axes
		bm.DeclRange = b.DefRange
		bms = append(bms, bm)
	}
	info.broken = d.diags.HasErrors()
	if !info.broken {
		d.unusedAxes(name, def, axes, content.Attributes)
	}
	return bms, info, d.diags
}

// decodeOp reads a benchmark's op attribute and looks the op up; nil when
// it is missing or unknown (reported).
func (l *loader) decodeOp(b *hcl.Block) *ops.Def {
	head, _, diags := b.Body.PartialContent(&hcl.BodySchema{Attributes: benchmarkAttrs[:1]})
	l.diags = append(l.diags, diags...)
	attr := head.Attributes[opAttr.Name]
	if attr == nil {
		return nil
	}
	var opName string
	decodeInto(l, head.Attributes, l.ctx(nil), opAttr, &opName)
	if opName == "" {
		if !l.diags.HasErrors() { // empty or null
			l.errorf(attr.Expr.Range().Ptr(), "Missing op", "Benchmark %q needs an op to time, such as op = \"noop\".", b.Labels[0])
		}
		return nil
	}
	def, ok := l.opts.lookup(opName)
	if !ok {
		l.errorf(attr.Expr.Range().Ptr(), "Unknown op",
			"There is no op named %q.%s Run \"specrun ops\" to list them.", opName, didYouMean(opName, l.opts.opNames()))
		return nil
	}
	return def
}

// benchmarkSchema is what a benchmark block of op def may hold: the
// attributes every benchmark has, the op's parameters, and a matrix.
func benchmarkSchema(def *ops.Def) *hcl.BodySchema {
	schema := &hcl.BodySchema{
		Attributes: append([]hcl.AttributeSchema{}, benchmarkAttrs...),
		Blocks:     []hcl.BlockHeaderSchema{{Type: "matrix"}},
	}
	for _, p := range def.Params {
		if !isBenchmarkAttr(p.Name) {
			schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: p.Name})
		}
	}
	return schema
}

// point is one point of a matrix: its axes in declaration order, its
// key ("size=16B/atomic=true") and the values param.* binds.
type point struct {
	axes   []Axis
	key    string
	params map[string]cty.Value
}

// expand lists the points of the matrix axes, the last key varying
// fastest, as Go's sub-benchmarks nest; one empty point without axes.
func expand(axes []axis) []point {
	var points []point
	idx := make([]int, len(axes))
	for {
		pt := point{params: map[string]cty.Value{}}
		var key []string
		for i, a := range axes {
			pt.params[a.key] = a.values[idx[i]]
			key = append(key, a.key+"="+a.names[idx[i]])
			pt.axes = append(pt.axes, Axis{Key: a.key, Value: a.names[idx[i]]})
		}
		pt.key = strings.Join(key, "/")
		points = append(points, pt)
		if !advance(idx, axes) {
			return points
		}
	}
}

// advance moves the odometer idx to the next matrix point, the last key
// varying fastest as Go's sub-benchmarks nest; false after the last one.
func advance(idx []int, axes []axis) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		idx[i]++
		if idx[i] < len(axes[i].values) {
			return true
		}
		idx[i] = 0
	}
	return false
}

// pointText writes a matrix point as its values: (a = "1", b = "2/b=3").
func pointText(point []Axis) string {
	var parts []string
	for _, a := range point {
		parts = append(parts, fmt.Sprintf("%s = %q", a.Key, a.Value))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func isBenchmarkAttr(name string) bool {
	for _, a := range benchmarkAttrs {
		if a.Name == name {
			return true
		}
	}
	return name == "matrix"
}

// metricNames lists the metrics an instance of def records, which asserts
// may read: the standard ones (metric.Standard), then the op's own.
func metricNames(def *ops.Def) []string {
	var names []string
	for _, m := range append(append([]ops.Metric{}, metric.Standard...), def.Metrics...) {
		names = append(names, m.Name)
	}
	return names
}

func productText(axes []axis) string {
	var parts []string
	total := 1.0
	for _, a := range axes {
		parts = append(parts, fmt.Sprint(len(a.values)))
		total *= float64(len(a.values))
	}
	if len(parts) < 2 {
		return fmt.Sprintf("%.0f", total)
	}
	return fmt.Sprintf("%.0f (%s)", total, strings.Join(parts, " × "))
}

// decodeMatrix reads the matrix block: keys in the order written, each a
// non-empty list of distinct strings, numbers or bools.
func (l *loader) decodeMatrix(block string, blocks hcl.Blocks) ([]axis, bool) {
	if len(blocks) == 0 {
		return nil, true
	}
	ok := true
	for _, extra := range blocks[1:] {
		l.errorf(extra.DefRange.Ptr(), "Duplicate matrix block",
			"Benchmark %q already has a matrix block at %s; put every key in one block.", block, blocks[0].DefRange.String())
		ok = false
	}
	attrs, diags := blocks[0].Body.JustAttributes()
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil, false
	}
	if len(attrs) == 0 {
		l.errorf(blocks[0].DefRange.Ptr(), "Empty matrix", "The matrix block of benchmark %q has no keys. Remove it, or add a key such as size = [\"16B\", \"1MB\"].", block)
		return nil, false
	}
	ctx := l.ctx(nil)
	var axes []axis
	for _, attr := range sortedAttrs(attrs) {
		v, diags := evaluate(attr.Expr, ctx)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() || !v.IsWhollyKnown() {
			ok = false
			continue
		}
		ty := v.Type()
		if v.IsNull() || !(ty.IsListType() || ty.IsTupleType() || ty.IsSetType()) {
			l.errorf(attr.Expr.Range().Ptr(), "Invalid matrix key",
				"Matrix key %q must be a list of values, such as [\"16B\", \"1MB\"]; got %s.", attr.Name, typeName(ty))
			ok = false
			continue
		}
		n := v.LengthInt()
		if n == 0 {
			l.errorf(attr.Expr.Range().Ptr(), "Empty matrix key",
				"Matrix key %q has no values, so benchmark %q would have no instances. Give it at least one value.", attr.Name, block)
			ok = false
			continue
		}
		if n > MaxInstances {
			l.errorf(attr.Expr.Range().Ptr(), "Too many benchmark instances",
				"Matrix key %q has %d values; a spec holds at most %d instances.", attr.Name, n, MaxInstances)
			ok = false
			continue
		}
		a := axis{key: attr.Name, rng: attr.NameRange}
		seen := map[string]bool{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			s, valid := matrixName(e)
			if !valid {
				l.errorf(attr.Expr.Range().Ptr(), "Invalid matrix value",
					"Matrix key %q holds %s; matrix values must be strings, numbers or bools, since they name instances.", attr.Name, typeName(e.Type()))
				ok = false
				break
			}
			if r, bad := controlChar(s); bad {
				l.errorf(attr.Expr.Range().Ptr(), "Invalid matrix value",
					"Matrix key %q holds a value with the control character %U; matrix values name instances in tables and reports, which must stay one line of text.", attr.Name, r)
				ok = false
				break
			}
			if seen[s] {
				l.errorf(attr.Expr.Range().Ptr(), "Duplicate matrix value",
					"Matrix key %q lists %q more than once; each instance needs a distinct name.", attr.Name, s)
				ok = false
				break
			}
			seen[s] = true
			a.values = append(a.values, e)
			a.names = append(a.names, s)
		}
		axes = append(axes, a)
	}
	return axes, ok
}

// unusedAxes warns of a matrix key that no attribute of the block reads
// as param.KEY: its instances differ only in name, which is most often a
// parameter forgotten (matrix { size = [...] } without size = param.size).
func (l *loader) unusedAxes(block string, def *ops.Def, axes []axis, attrs hcl.Attributes) {
	read := map[string]bool{}
	for _, attr := range attrs {
		for _, tr := range attr.Expr.Variables() {
			if tr.RootName() != "param" || len(tr) < 2 {
				continue
			}
			switch step := tr[1].(type) {
			case hcl.TraverseAttr:
				read[step.Name] = true
			case hcl.TraverseIndex:
				if step.Key.Type() == cty.String {
					read[step.Key.AsString()] = true
				}
			}
		}
	}
	if l.opts.Stored {
		return // a stored result's spec was warned about when it ran
	}
	var names []string
	for _, p := range def.Params {
		names = append(names, p.Name)
	}
	for _, a := range axes {
		if read[a.key] || len(a.values) < 2 {
			continue // one value only names the instance
		}
		hint := fmt.Sprintf("Read it in an attribute, as param.%s, or remove it.%s", a.key, didYouMean(a.key, names))
		for _, p := range def.Params {
			if p.Name == a.key {
				hint = fmt.Sprintf("Op %q has a parameter %q: set %s = param.%s to sweep it.", def.Name, a.key, a.key, a.key)
				break
			}
		}
		rng := a.rng
		l.warnf(&rng, "Unused matrix key",
			"No attribute of benchmark %q reads matrix key %q, so its instances differ only in name. %s", block, a.key, hint)
	}
}

// matrixName formats a matrix value as instance names show it: strings as
// written, numbers in shortest form, bools as true or false.
func matrixName(v cty.Value) (string, bool) {
	if v.IsNull() || !v.IsKnown() {
		return "", false
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), true
	case cty.Number:
		return formatNumber(v), true
	case cty.Bool:
		if v.True() {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

// decodeInstance evaluates one instance's attributes with param bound to
// its matrix point.
func (l *loader) decodeInstance(name, block string, def *ops.Def, attrs hcl.Attributes, ctx *hcl.EvalContext) (*Benchmark, hcl.Diagnostics) {
	d := l.fresh()
	bm := &Benchmark{
		Name: name, Block: block, Label: name, Op: def, Params: map[string]any{},
		Timing: l.plan.Suite.Timing, Interleave: def.Interleave,
	}
	d.decodeName(attrs, ctx, labelAttr, &bm.Label)
	d.iterationsAttr(attrs["iterations"], ctx, &bm.Iterations)
	d.decodeTiming(attrs, ctx, &bm.Timing)
	decodeInto(d, attrs, ctx, interleaveAttr, &bm.Interleave)
	decodeInto(d, attrs, ctx, everyShardAttr, &bm.EveryShard)

	params := d.fresh()
	for _, p := range def.Params {
		if isBenchmarkAttr(p.Name) {
			continue
		}
		attr := attrs[p.Name]
		if attr == nil {
			if p.Required {
				params.errorf(attrs["op"].Range.Ptr(), "Missing required parameter",
					"Op %q needs parameter %q (%s): %s", def.Name, p.Name, p.Type, p.Doc)
			} else if p.Default != nil {
				bm.Params[p.Name] = p.Default
			}
			continue
		}
		v, diags := evaluate(attr.Expr, ctx)
		params.diags = append(params.diags, diags...)
		if diags.HasErrors() || !v.IsWhollyKnown() {
			continue
		}
		if v.IsNull() {
			if p.Required {
				params.errorf(attr.Expr.Range().Ptr(), "Missing required parameter",
					"Op %q needs parameter %q (%s), and it is null here.", def.Name, p.Name, p.Type)
			} else if p.Default != nil {
				bm.Params[p.Name] = p.Default
			}
			continue
		}
		gv, diags := paramValue(p, v, attr.Expr.Range())
		params.diags = append(params.diags, diags...)
		if !diags.HasErrors() {
			bm.Params[p.Name] = gv
		}
	}
	d.diags = append(d.diags, params.diags...)

	// Which servers the instance loads is settled here, once, from the
	// spec's own server blocks.
	if def.Servers != nil && !params.diags.HasErrors() {
		for _, name := range def.Servers(bm.Params, l.plan.ServerFor) {
			if _, ok := l.servers[name]; !ok {
				subject := attrs["op"].Expr.Range().Ptr()
				for _, p := range def.Params { // the attribute that names it
					if v, ok := bm.Params[p.Name].(string); ok && attrs[p.Name] != nil && strings.Contains(v, name) {
						subject = attrs[p.Name].Expr.Range().Ptr()
						break
					}
				}
				d.errorf(subject, "Unknown server", "There is no server block named %q.%s", name, didYouMean(name, keys(l.servers)))
				continue
			}
			bm.Servers = append(bm.Servers, name)
		}
	}

	// A launch is a fresh specrun process without the spec's servers,
	// which the parent started: a benchmark that loads one runs in the
	// parent alone, and saying otherwise is refused.
	if len(bm.Servers) > 0 && bm.Launches > 1 {
		if attr := attrs[launchesAttr.Name]; attr != nil {
			d.errorf(attr.Expr.Range().Ptr(), "Launches with servers",
				"Benchmark %q loads server %q, which this specrun starts once; a launch is a fresh process that cannot share it, and would start the server again. Drop launches here: a benchmark that loads a server runs in one process.", name, bm.Servers[0])
		}
		bm.Launches = 1
	}
	d.checkLaunches(attrs, bm.Timing)

	// What the op can tell about its parameters before anything runs here.
	if !params.diags.HasErrors() && !l.opts.Stored {
		for _, perr := range def.Validate(bm.Params) {
			subject := attrs["op"].Expr.Range().Ptr()
			if attr := attrs[perr.Param]; attr != nil {
				subject = attr.Expr.Range().Ptr()
			}
			d.errorf(subject, perr.Summary, "%s.", perr.Err)
		}
	}
	return bm, d.diags
}

// iterationsAttr decodes "auto" (0) or a whole number of at least one.
// Integral floats such as 1e8 are accepted, since that is how big counts
// are written.
func (l *loader) iterationsAttr(attr *hcl.Attribute, ctx *hcl.EvalContext, dst *int64) {
	v, ok := l.value(attr, ctx)
	if !ok {
		return
	}
	switch v.Type() {
	case cty.String:
		if v.AsString() == "auto" {
			*dst = 0
			return
		}
	case cty.Number:
		if n, ok := wholeNumber(v); ok && n >= 1 && n <= MaxIterations {
			*dst = n
			return
		}
	}
	got := typeName(v.Type())
	switch v.Type() {
	case cty.String:
		got = fmt.Sprintf("%q", v.AsString())
	case cty.Number:
		got = formatNumber(v)
	}
	l.errorf(attr.Expr.Range().Ptr(), "Invalid iterations",
		"The iteration count must be a whole number from 1 to %d, or \"auto\" to calibrate it from min_time; got %s.", int64(MaxIterations), got)
}
