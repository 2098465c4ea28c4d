package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/specrun/specrun/results"
)

// reportCmd re-renders a stored result in any report format. It reads the
// JSON only; nothing from the spec is run.
func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	format := fs.String("format", "md", "report format: "+strings.Join(results.Formats, ", "))
	sortBy := fs.String("sort", "time", "row order: time (by median time per op) or spec (as the spec lists them)")
	out := fs.String("o", "", "write the report to `FILE` (atomically) instead of stdout")
	usage := "usage: specrun report [--format F] [--sort time|spec] [-o FILE] RESULT.json"
	paths, code, ok := parseCommandLine(fs, args, usage, stdout, stderr)
	if !ok {
		return code
	}
	if len(paths) != 1 {
		fmt.Fprintf(stderr, "specrun report: want one result file, have %d\n%s\n", len(paths), usage)
		return exitUsage
	}
	if *sortBy != "time" && *sortBy != "spec" {
		fmt.Fprintf(stderr, "specrun report: --sort %q: want time or spec\n", *sortBy)
		return exitUsage
	}
	rep, err := results.Format(*format)
	if err != nil {
		fmt.Fprintf(stderr, "specrun report: --format: %v\n", err)
		return exitUsage
	}
	r, err := results.ReadFile(paths[0])
	if err != nil {
		fmt.Fprintf(stderr, "specrun report: %v\n", err)
		return exitUsage
	}
	if md, ok := rep.(results.Markdown); ok {
		md.Sort = *sortBy
		rep = md
	} else if *sortBy == "time" && *format != "json" {
		// The JSON is the result itself, in the order it was run.
		r = results.ByTime(r)
	}
	if err := writeOutput(*out, stdout, func(w io.Writer) error { return rep.Report(w, r) }); err != nil {
		fmt.Fprintf(stderr, "specrun report: %v\n", err)
		return exitUsage
	}
	return exitOK
}

// parseCommandLine parses flags that may come before, between or after the
// positional arguments, and returns the positional ones. On -h it prints
// the usage to stdout; on a bad flag, to stderr. ok is false when the
// command should return code at once.
func parseCommandLine(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (positional []string, code int, ok bool) {
	fs.SetOutput(io.Discard) // errors and usage are printed below, once
	printUsage := func(w io.Writer) {
		fmt.Fprintln(w, usage)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(stdout)
				return nil, exitOK, false
			}
			fmt.Fprintf(stderr, "specrun %s: %v\n", fs.Name(), err)
			printUsage(stderr)
			return nil, exitUsage, false
		}
		if fs.NArg() == 0 {
			return positional, 0, true
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// writeOutput renders to path atomically, or to stdout when path is empty,
// so that a failed render never leaves half a file behind.
func writeOutput(path string, stdout io.Writer, render func(io.Writer) error) error {
	if path == "" {
		return render(stdout)
	}
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	return results.WriteFileAtomic(path, buf.Bytes(), true)
}
