package spec

import (
	"fmt"
	"sort"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/specrun/specrun/param"
)

// Suite defaults: what a spec gets without a suite block.
const (
	DefaultRepeat  = 3
	DefaultWarmup  = 100 * time.Millisecond
	DefaultMinTime = 500 * time.Millisecond
	DefaultTimeout = 10 * time.Minute

	// The budget and the precision of repeat = "auto", and its first look.
	DefaultMaxRepeat = 50
	DefaultMaxTime   = 30 * time.Second
	DefaultPrecision = 0.02
	AutoMinRepeat    = 10

	// DefaultLaunches is the number of fresh processes a benchmark's runs
	// are spread over (docs/statistics.md has the measurements behind it).
	DefaultLaunches = 1
)

// MaxInstances bounds the benchmark instances of one spec, so that a matrix
// typo is a diagnostic rather than an exhausted machine.
const MaxInstances = 10000

// Ranges of the numeric settings. A value outside is a diagnostic, never
// clamped. Iteration counts stay exact in a float64, so that scaling them
// (--scale) cannot overflow; a repeat count bounds the runs kept and
// resampled per benchmark.
const (
	MaxIterations = 1 << 53
	MaxRepeat     = 10000
	// MaxLaunches bounds launches: each is a process start and a
	// calibration, and more than this is a typo.
	MaxLaunches = 100
	// Number and int op parameters are finite and at most MaxParamNumber
	// in magnitude; a non-zero number is at least MinParamNumber, so that
	// ops may take its inverse as a duration in nanoseconds.
	MaxParamNumber = 1e15
	MinParamNumber = 1e-9
)

var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "suite", LabelNames: []string{"name"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "benchmark", LabelNames: []string{"name"}},
		{Type: "server", LabelNames: []string{"name"}},
		{Type: "assert", LabelNames: []string{"name"}},
		{Type: "report"},
	},
}

// loader carries the state of one LoadFiles: what is evaluated so far and
// the diagnostics gathered.
type loader struct {
	opts      Options
	parser    *hclparse.Parser
	plan      *Plan
	diags     hcl.Diagnostics
	functions map[string]function.Function // functions and file()
	path      cty.Value                    // path.spec, path.cwd

	vars    map[string]cty.Value
	locals  map[string]cty.Value
	servers map[string]cty.Value
	blocks  map[string]*blockInfo // benchmark blocks by name, for assert references
	count   int                   // instances so far, against MaxInstances

	columnsAttr *hcl.Attribute // the suite's columns, checked once the benchmarks are known
}

// blockInfo is what asserts need to know about a benchmark block.
type blockInfo struct {
	matrix    bool
	instances []string // keys of matrix instances, "size=16B/atomic=true"
	metrics   []string
	broken    bool // it had errors: references to it are not reported again
	declRange hcl.Range
}

func (l *loader) errorf(subject *hcl.Range, summary, format string, args ...any) {
	l.report(hcl.DiagError, subject, summary, fmt.Sprintf(format, args...))
}

func (l *loader) warnf(subject *hcl.Range, summary, format string, args ...any) {
	l.report(hcl.DiagWarning, subject, summary, fmt.Sprintf(format, args...))
}

func (l *loader) report(severity hcl.DiagnosticSeverity, subject *hcl.Range, summary, detail string) {
	l.diags = append(l.diags, &hcl.Diagnostic{Severity: severity, Summary: summary, Detail: detail, Subject: subject})
}

// result drops repeated diagnostics: every instance of a matrix evaluates
// the same attributes and would report the same mistake once per instance.
func (l *loader) result() hcl.Diagnostics {
	seen := map[string]bool{}
	var out hcl.Diagnostics
	for _, d := range l.diags {
		key := fmt.Sprintf("%d|%s|%s|%v", d.Severity, d.Summary, d.Detail, d.Subject)
		if !seen[key] {
			seen[key] = true
			out = append(out, d)
		}
	}
	return out
}

// decode walks the blocks of every file in dependency order: variables,
// locals, suite, servers, benchmarks, then asserts, which refer to them.
func (l *loader) decode(bodies []hcl.Body, defaultName string) {
	byType := map[string][]*hcl.Block{}
	for _, body := range bodies {
		content, diags := body.Content(rootSchema)
		l.diags = append(l.diags, diags...)
		if content == nil {
			continue
		}
		for _, b := range content.Blocks {
			byType[b.Type] = append(byType[b.Type], b)
		}
	}

	l.decodeVariables(byType["variable"])
	l.decodeLocals(byType["locals"])
	l.plan.Suite = l.decodeSuite(byType["suite"], defaultName)

	l.servers = map[string]cty.Value{}
	names := map[string]hcl.Range{}
	for _, b := range byType["server"] {
		if !l.checkName(b, "server", names) {
			continue
		}
		s, diags := l.decodeServerBlock(b)
		l.diags = append(l.diags, diags...)
		if s != nil {
			l.plan.Servers = append(l.plan.Servers, s)
			l.servers[s.Name] = cty.ObjectVal(map[string]cty.Value{
				"name":    cty.StringVal(s.Name),
				"url":     cty.StringVal(s.URL),
				"address": cty.StringVal(s.address()),
			})
		}
	}
	l.decodeServerDeps(l.plan.Servers)

	l.blocks = map[string]*blockInfo{}
	names = map[string]hcl.Range{}
	for _, b := range byType["benchmark"] {
		if !l.checkName(b, "benchmark", names) {
			continue
		}
		bms, info, diags := l.decodeBenchmarkBlock(b)
		l.diags = append(l.diags, diags...)
		l.blocks[b.Labels[0]] = info
		l.plan.Benchmarks = append(l.plan.Benchmarks, bms...)
		l.count += len(bms)
	}
	if len(byType["benchmark"]) == 0 {
		l.errorf(nil, "No benchmarks", "The spec declares no benchmark block. Add one, such as:\n\n  benchmark \"null\" {\n    op = \"noop\"\n  }")
	}

	l.checkColumns()
	l.plan.Report = l.decodeReport(byType["report"])

	names = map[string]hcl.Range{}
	for _, b := range byType["assert"] {
		if !l.checkName(b, "assert", names) {
			continue
		}
		as, diags := l.decodeAssertBlock(b)
		l.diags = append(l.diags, diags...)
		l.plan.Asserts = append(l.plan.Asserts, as...)
	}
}

// checkName reports a label that is not an identifier or is already taken
// by a block of the same type, in any file of the spec.
func (l *loader) checkName(b *hcl.Block, kind string, seen map[string]hcl.Range) bool {
	name := b.Labels[0]
	if !hclsyntax.ValidIdentifier(name) {
		l.errorf(b.LabelRanges[0].Ptr(), fmt.Sprintf("Invalid %s name", kind),
			"The name %q cannot be used in expressions such as %s.NAME. A name starts with a letter or underscore and holds only letters, digits, underscores and dashes.", name, kind)
		return false
	}
	if prev, dup := seen[name]; dup {
		l.errorf(b.LabelRanges[0].Ptr(), fmt.Sprintf("Duplicate %s", kind),
			"A %s named %q is already declared at %s. Names must be unique across all files of a spec.", kind, name, prev.String())
		return false
	}
	seen[name] = b.DefRange
	return true
}

// ctx is the evaluation context of most attributes: variables, locals,
// path, servers, the standard functions and file(), and param when given.
func (l *loader) ctx(params map[string]cty.Value) *hcl.EvalContext {
	vars := map[string]cty.Value{
		"var":   cty.ObjectVal(l.vars),
		"local": cty.ObjectVal(l.locals),
		"path":  l.path,
	}
	if l.servers != nil {
		vars["server"] = cty.ObjectVal(l.servers)
	}
	if params != nil {
		vars["param"] = cty.ObjectVal(params)
	}
	return &hcl.EvalContext{Variables: vars, Functions: l.functions}
}

var suiteSchema = &hcl.BodySchema{Attributes: attrSchema(
	append([]param.Param{titleAttr, descriptionAttr, columnsAttr, timeUnitAttr}, timingAttrs...), "threshold")}

func (l *loader) decodeSuite(blocks []*hcl.Block, defaultName string) Suite {
	s := Suite{Name: defaultName, Timing: Timing{Repeat: DefaultRepeat, Warmup: DefaultWarmup, MinTime: DefaultMinTime, Timeout: DefaultTimeout,
		MaxRepeat: DefaultMaxRepeat, MaxTime: DefaultMaxTime, Precision: DefaultPrecision, Launches: DefaultLaunches}}
	if _, bad := controlChar(defaultName); bad && len(blocks) == 0 {
		l.errorf(nil, "Invalid suite name",
			"The suite takes its name from the path, %q, which holds a control character; results and reports must name it in one line of text. Add a suite block with a name.", defaultName)
	}
	for i, b := range blocks {
		if i > 0 {
			hint := ""
			if first := blocks[0].DefRange.Filename; b.DefRange.Filename != first {
				hint = fmt.Sprintf(" The files %q and %q each declare a suite, so they are separate specs, not one: give the path of one file, such as %q.",
					first, b.DefRange.Filename, first)
			}
			l.errorf(b.DefRange.Ptr(), "Duplicate suite block",
				"A spec has at most one suite block; the first is at %s.%s", blocks[0].DefRange.String(), hint)
			continue
		}
		s.Name = b.Labels[0]
		if r, bad := controlChar(s.Name); bad {
			l.errorf(b.LabelRanges[0].Ptr(), "Invalid suite name",
				"The suite name holds the control character %U; it names result files and reports, which must stay one line of text.", r)
		}
		content, diags := b.Body.Content(suiteSchema)
		l.diags = append(l.diags, diags...)
		ctx := l.ctx(nil)
		attrs := content.Attributes
		l.decodeName(attrs, ctx, titleAttr, &s.Title)
		decodeInto(l, attrs, ctx, descriptionAttr, &s.Description)
		l.decodeTiming(attrs, ctx, &s.Timing)
		l.checkLaunches(attrs, s.Timing)
		l.thresholdAttr(attrs["threshold"], ctx, &s.Threshold)
		l.decodeReportAttrs(attrs, ctx, &s)
	}
	return s
}

// fresh is a loader for one block: it shares everything decoded so far and
// gathers diagnostics of its own, which the block's decoder returns.
func (l *loader) fresh() *loader {
	d := *l
	d.diags = nil
	return &d
}

// sortedAttrs returns attrs in source order, for stable diagnostics and
// for matrix keys, whose order names the instances.
func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Range, out[j].Range
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
	return out
}
