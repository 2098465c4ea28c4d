package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/specrun/specrun/internal/atomicfile"
	"github.com/specrun/specrun/report"
	"github.com/specrun/specrun/results"
)

// reportCmd re-renders a stored result in any report format. It reads the
// JSON only; nothing from the spec is run.
func reportCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", "[--format F] [--sort time|spec] [-o FILE] RESULT.json",
		"Re-render a stored result in any report format; nothing from its spec is run.", stderr)
	format := fs.String("format", "auto", "report format: "+autoFormat+report.FormatHelp(false))
	sortBy := fs.String("sort", "time", "row order: time (by median time per op) or spec (as the spec lists them)")
	out := fs.String("o", "", "write the report to `FILE` (atomically) instead of stdout; an existing FILE needs --force")
	force := fs.Bool("force", false, "replace the -o and --export files if they exist")
	exports := exportFlag(fs, report.Formats())
	var view viewFlags
	view.register(fs, false)
	paths, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return usageErrorHelp(fs, "want one result file, have %d", len(paths))
	}
	if err := checkSpare("-o "+*out, *out, "the result report reads", paths[0]); err != nil {
		return err
	}
	if err := checkExportsSpare(*exports, "the result report reads", paths[0]); err != nil {
		return err
	}
	var target io.Writer = stdout
	if *out != "" {
		target = nil // a file gets md, never colour
	}
	name, opt, err := renderOptions(&view, *format, target)
	if err != nil {
		return err
	}
	opt.Notes = stderr
	rep, err := checkedReporter(name, *sortBy, opt)
	if err != nil {
		return err
	}
	r, err := results.ReadFile(paths[0])
	if err != nil {
		return err
	}
	if r.Suite.Layout, err = view.layout.apply(r.Suite.Layout, ""); err != nil {
		return err
	}
	if r.Suite.Layout != nil {
		// A layout that does not fit the result is a usage error, said
		// before anything is written.
		c, err := results.CompareLayout([]*results.Result{r}, *r.Suite.Layout, results.CompareOptions{Metrics: opMetrics})
		if err != nil {
			return usageError("lay out the table: %v", err)
		}
		if err := view.layout.checkUnit(c); err != nil {
			return err
		}
	}
	if err := report.CheckColumns(r, opt.Columns); err != nil {
		return usageError("--columns: %v", err)
	}
	if err := checkExports(*exports, *force); err != nil {
		return err
	}
	if err := writeOutput(*out, *force, stdout, func(w io.Writer) error { return rep.Report(w, r) }); err != nil {
		return err
	}
	fileOpt := opt
	fileOpt.Color = false
	return writeExports(*exports, *force, func(format string, w io.Writer) error {
		rep, err := sortedReporter(format, *sortBy, fileOpt)
		if err != nil {
			return err
		}
		return rep.Report(w, r)
	})
}

// sortedReporter is the reporter for --format with rows in --sort order:
// reporters keep the result's order, so this is the one place that sorts.
// json (the result itself) and hyperfine-json keep the order it was run in.
func sortedReporter(format, sortBy string, opt report.Options) (report.Reporter, error) {
	rep, _, err := report.FormatWith(format, opt)
	if err != nil {
		return rep, err
	}
	if !report.Ordered(format) && sortBy == "time" {
		sorted := rep
		rep = report.ReporterFunc(func(w io.Writer, r *results.Result) error {
			return sorted.Report(w, results.ByTime(r))
		})
	}
	return layoutReporter(rep, format, opt), nil
}

// writeOutput renders to path atomically, or to stdout when path is empty,
// so that a failed render never leaves half a file behind. An existing
// file (a stored result, say) is replaced only with force.
func writeOutput(path string, force bool, stdout io.Writer, render func(io.Writer) error) error {
	if path == "" {
		return render(stdout)
	}
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	err := atomicfile.Write(path, buf.Bytes(), atomicfile.Options{Overwrite: force})
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w (use --force to replace it)", err)
	}
	return err
}
