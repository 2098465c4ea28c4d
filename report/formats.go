package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// format is one output format: its name as --format takes it, what it
// renders a result and a comparison with, and the extension of its files.
type format struct {
	name      string
	extension string
	doc       string // what a result becomes
	result    func(Options) Reporter
	compare   func(Options) ComparisonReporter // nil when the format has no comparison
	compared  string                           // what a comparison becomes
	// ordered keeps the result's order whatever --sort says: the result
	// itself, and hyperfine's export, whose scripts draw a parameter
	// scan in the order its commands come.
	ordered bool
	binary  bool // bytes for a file or a pipe, not text for a terminal
}

// Options are what a command says about rendering, beyond the format.
type Options struct {
	// Metrics declares the ops' own metrics, for the formats that say
	// which direction is better.
	Metrics metric.Catalog
	Chart   ChartOptions
	// TimeUnit forces the unit of the tables' times: "ns", "us", "ms" or
	// "s"; "" or "auto" lets each column choose (see Markdown).
	TimeUnit string
	// Columns are the table's columns (see ColumnHelp); empty for the
	// suite's, or each kind of benchmark's defaults.
	Columns []string
	// Color colours the terminal view's verdicts and warnings.
	Color bool
	// Phases adds every benchmark's runs in order, warm-ups first, to the
	// tables (a Phases section) and the charts (a line per instance).
	Phases bool
	// Notes receives what a format says beside its output, such as the
	// benchmarks hyperfine-json leaves out; nil discards it.
	Notes io.Writer

	plain bool // cells for a terminal: printable, not Markdown-escaped
}

// text is user text as a cell of the table o draws.
func (o Options) text(s string) string {
	if o.plain {
		return oneLine(s)
	}
	return escape(s)
}

// formats is every format, in the order help lists them.
var formats = []format{
	{name: "md", extension: ".md", doc: "the classic table",
		result: func(o Options) Reporter {
			return Markdown{TimeUnit: o.TimeUnit, Columns: o.Columns, Metrics: o.Metrics, Phases: o.Phases}
		},
		compare: func(o Options) ComparisonReporter { return CompareMarkdown{TimeUnit: o.TimeUnit} }, compared: "a table of ratios"},
	{name: "term", extension: ".term", doc: "the aligned table a terminal shows, what auto picks on a terminal",
		result:  func(o Options) Reporter { return Terminal{Options: o} },
		compare: func(o Options) ComparisonReporter { return CompareTerminal{Options: o} }, compared: "the aligned comparison a terminal shows"},
	{name: "json", extension: ".json", doc: "the result itself", ordered: true,
		result:  func(Options) Reporter { return ReporterFunc(results.Encode) },
		compare: func(Options) ComparisonReporter { return CompareJSON{} }, compared: "the comparison's data"},
	{name: "csv", extension: ".csv", doc: "RFC 4180",
		result:  func(Options) Reporter { return CSV{} },
		compare: func(Options) ComparisonReporter { return CompareCSV{} }, compared: "RFC 4180"},
	{name: "svg", extension: ".svg", doc: "bar charts, and line charts of scans",
		result:  func(o Options) Reporter { return SVG{Chart: o.Chart, Phases: o.Phases} },
		compare: func(o Options) ComparisonReporter { return CompareSVG{Chart: o.Chart} }, compared: "grouped bars with ratios, lines of scans"},
	{name: "png", extension: ".png", doc: "the svg charts as an image", binary: true,
		result:  func(o Options) Reporter { return PNG{Chart: o.Chart, Phases: o.Phases} },
		compare: func(o Options) ComparisonReporter { return ComparePNG{Chart: o.Chart} }, compared: "the svg chart as an image"},
	{name: "html", extension: ".html", doc: "one self-contained page: environment, table, charts, verdicts, runs",
		result: func(o Options) Reporter {
			return HTML{Chart: o.Chart, TimeUnit: o.TimeUnit, Columns: o.Columns, Metrics: o.Metrics}
		},
		compare: func(o Options) ComparisonReporter { return CompareHTML{Chart: o.Chart, TimeUnit: o.TimeUnit} }, compared: "one self-contained page"},
	{name: "gobench", extension: ".txt", doc: "the Go benchmark format that benchstat reads",
		result: func(o Options) Reporter { return GoBench{Metrics: o.Metrics} }},
	{name: "hyperfine-json", extension: ".json", doc: "the exec benchmarks in hyperfine's --export-json schema", ordered: true,
		result: func(o Options) Reporter { return Hyperfine{Notes: o.Notes} }},
}

// Ordered reports whether a format keeps the result's order of
// benchmarks, rather than the order --sort asks for.
func Ordered(name string) bool {
	for _, f := range formats {
		if f.name == name {
			return f.ordered
		}
	}
	return false
}

// Binary reports whether a format writes bytes that are not text, which
// have no business on a terminal.
func Binary(name string) bool {
	for _, f := range formats {
		if f.name == name {
			return f.binary
		}
	}
	return false
}

// Formats lists the names of the formats a result renders in.
func Formats() []string { return names(func(format) bool { return true }) }

// ComparisonFormats lists the names of the formats a comparison renders in.
func ComparisonFormats() []string { return names(func(f format) bool { return f.compare != nil }) }

func names(keep func(format) bool) []string {
	var out []string
	for _, f := range formats {
		if keep(f) {
			out = append(out, f.name)
		}
	}
	return out
}

// Format returns the reporter of a result format, and its file extension.
// metrics declares the ops' own metrics, for the formats that say which
// direction is better.
func Format(name string, metrics metric.Catalog) (Reporter, string, error) {
	return FormatWith(name, Options{Metrics: metrics})
}

// FormatWith is Format with all the rendering options.
func FormatWith(name string, opt Options) (Reporter, string, error) {
	for _, f := range formats {
		if f.name == name || (name == "markdown" && f.name == "md") {
			return f.result(opt), f.extension, nil
		}
	}
	return nil, "", fmt.Errorf("unknown format %q (want one of %s)", name, strings.Join(Formats(), ", "))
}

// ComparisonFormat returns the reporter of a comparison format.
func ComparisonFormat(name string) (ComparisonReporter, error) {
	return ComparisonFormatWith(name, Options{})
}

// ComparisonFormatWith is ComparisonFormat with all the rendering options.
func ComparisonFormatWith(name string, opt Options) (ComparisonReporter, error) {
	for _, f := range formats {
		if f.compare != nil && (f.name == name || (name == "markdown" && f.name == "md")) {
			return f.compare(opt), nil
		}
	}
	return nil, fmt.Errorf("unknown format %q (want one of %s)", name, strings.Join(ComparisonFormats(), ", "))
}

// FormatHelp is the --format help of a command that renders results
// ("md (the classic table), json (the result itself), ..."), or comparisons.
func FormatHelp(comparison bool) string {
	var parts []string
	for _, f := range formats {
		switch {
		case !comparison:
			parts = append(parts, f.name+" ("+f.doc+")")
		case f.compare != nil:
			parts = append(parts, f.name+" ("+f.compared+")")
		}
	}
	return strings.Join(parts, ", ")
}
