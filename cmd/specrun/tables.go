package main

import (
	"flag"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/specrun/specrun/report"
)

// tableFlags are the flags that say how tables are drawn: --time-unit,
// and for a result --columns and --phases, over what the suite says.
type tableFlags struct {
	timeUnit, columns, color *string
	phases                   *bool
}

func (t *tableFlags) register(fs *flag.FlagSet, columns bool) {
	t.timeUnit = fs.String("time-unit", "auto", "write the tables' times in `UNIT`: auto (each column its own, from its figures), "+
		strings.Join(report.TimeUnits, ", "))
	t.color = fs.String("color", "auto", "colour the terminal view: auto (on a terminal, unless NO_COLOR is set), always or never")
	if columns {
		t.columns = fs.String("columns", "", "the table's columns, comma-separated `NAMES`: "+report.ColumnHelp+
			"; default: the suite's columns, else those of each kind of benchmark")
		t.phases = fs.Bool("phases", false, "also show every benchmark's runs in the order they ran, warm-ups first and marked: a table per benchmark "+
			"(md, term) and a line chart of each block's phases (svg, png); the html page always has both")
	}
}

// apply checks the flags and sets them in o.
func (t *tableFlags) apply(o *report.Options) error {
	if err := report.CheckTimeUnit(*t.timeUnit); err != nil {
		return usageError("--time-unit: %v", err)
	}
	o.TimeUnit = *t.timeUnit
	o.Phases = t.phases != nil && *t.phases
	switch *t.color {
	case "auto", "always", "never":
	default:
		return usageError("--color is auto, always or never, not %q", *t.color)
	}
	if t.columns != nil && *t.columns != "" {
		for _, c := range strings.Split(*t.columns, ",") {
			if c = strings.TrimSpace(c); c != "" {
				o.Columns = append(o.Columns, c)
			}
		}
	}
	return nil
}

// viewFlags are the flags run, report and compare share to shape what they
// draw: the charts, the table's units and columns, and the layout.
type viewFlags struct {
	chart  chartFlags
	table  tableFlags
	layout layoutFlags
}

// register adds the three groups. compare has a --metric of its own, and
// its --columns names the layout's --by rather than the table's columns.
func (v *viewFlags) register(fs *flag.FlagSet, compare bool) {
	v.chart.register(fs)
	v.table.register(fs, !compare)
	v.layout.register(fs, !compare, compare)
}

// renderOptions gathers the chart and table flags into report.Options and
// settles --format auto and --color for output going to out (nil for a
// file): the one place run, report and compare decide how they draw.
func renderOptions(v *viewFlags, format string, out io.Writer) (string, report.Options, error) {
	opt, err := v.chart.options()
	if err != nil {
		return "", opt, err
	}
	if err := v.table.apply(&opt); err != nil {
		return "", opt, err
	}
	if report.Binary(format) && isTerminal(out) {
		return "", opt, usageError("--format %s writes an image, which a terminal cannot show: use --export %s=FILE, -o FILE (report, compare), or redirect stdout to a file", format, format)
	}
	return v.table.resolve(format, out, &opt), opt, nil
}

// autoFormat is the help of --format auto.
const autoFormat = "auto (term when stdout is a terminal, else md), "

// resolve turns --format auto into term when the output is a terminal
// and md otherwise, and sets the colour --color asks for.
func (t *tableFlags) resolve(format string, out io.Writer, o *report.Options) string {
	tty := isTerminal(out)
	o.Color = *t.color == "always" || (*t.color == "auto" && tty && os.Getenv("NO_COLOR") == "")
	if format != "auto" {
		return format
	}
	if tty {
		return "term"
	}
	return "md"
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
