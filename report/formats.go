package report

import (
	"fmt"
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
	result    func(metrics metric.Catalog) Reporter
	compare   ComparisonReporter // nil when the format has no comparison
	compared  string             // what a comparison becomes
}

// formats is every format, in the order help lists them.
var formats = []format{
	{name: "md", extension: ".md", doc: "the classic table",
		result: func(metric.Catalog) Reporter { return Markdown{} }, compare: CompareMarkdown{}, compared: "a table of ratios"},
	{name: "json", extension: ".json", doc: "the result itself",
		result: func(metric.Catalog) Reporter { return ReporterFunc(results.Encode) }, compare: CompareJSON{}, compared: "the comparison's data"},
	{name: "csv", extension: ".csv", doc: "RFC 4180",
		result: func(metric.Catalog) Reporter { return CSV{} }, compare: CompareCSV{}, compared: "RFC 4180"},
	{name: "svg", extension: ".svg", doc: "a bar chart",
		result: func(metric.Catalog) Reporter { return SVG{} }, compare: CompareSVG{}, compared: "grouped bars"},
	{name: "gobench", extension: ".txt", doc: "the Go benchmark format that benchstat reads",
		result: func(m metric.Catalog) Reporter { return GoBench{Metrics: m} }},
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
	for _, f := range formats {
		if f.name == name || (name == "markdown" && f.name == "md") {
			return f.result(metrics), f.extension, nil
		}
	}
	return nil, "", fmt.Errorf("unknown format %q (want one of %s)", name, strings.Join(Formats(), ", "))
}

// ComparisonFormat returns the reporter of a comparison format.
func ComparisonFormat(name string) (ComparisonReporter, error) {
	for _, f := range formats {
		if f.compare != nil && (f.name == name || (name == "markdown" && f.name == "md")) {
			return f.compare, nil
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
