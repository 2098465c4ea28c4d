package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"

	"github.com/specrun/specrun/spec"
)

// specFlags are the spec-loading flags that validate and run share:
// --var NAME=VALUE and --var-file FILE, both repeatable, as in Terraform.
type specFlags struct {
	vars     map[string]string
	varFiles []string
}

// register adds --var and --var-file to fs.
func (f *specFlags) register(fs *flag.FlagSet) {
	fs.Func("var", "set variable NAME to VALUE (`NAME=VALUE`; repeatable; VALUE is HCL, or a plain string)", func(s string) error {
		name, value, ok := strings.Cut(s, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return fmt.Errorf("want NAME=VALUE, got %q", s)
		}
		if f.vars == nil {
			f.vars = map[string]string{}
		}
		f.vars[name] = value
		return nil
	})
	fs.Func("var-file", "read variables from `FILE` of NAME = VALUE lines (repeatable)", func(s string) error {
		f.varFiles = append(f.varFiles, s)
		return nil
	})
}

// options are the spec.Options these flags describe, over the built-in ops.
func (f *specFlags) options() spec.Options {
	return spec.Options{Vars: f.vars, VarFiles: f.varFiles}
}

// load loads the spec at paths and prints its diagnostics (warnings too)
// to stderr. ok is false when there were errors: the caller exits with
// exitUsage, since nothing ran.
func (f *specFlags) load(paths []string, stderr io.Writer) (plan *spec.Plan, ok bool) {
	plan, diags := spec.Load(paths, f.options())
	return plan, printDiagnostics(stderr, plan, diags)
}

// printDiagnostics prints diags about plan's files to stderr, with source
// snippets, and reports whether none of them is an error.
func printDiagnostics(stderr io.Writer, plan *spec.Plan, diags hcl.Diagnostics) bool {
	if len(diags) > 0 {
		width, color := diagStyle(stderr)
		if err := plan.DiagnosticWriter(stderr, width, color).WriteDiagnostics(diags); err != nil {
			fmt.Fprintf(stderr, "specrun: print diagnostics: %v\n", err)
		}
	}
	return !diags.HasErrors()
}

// diagStyle wraps and colours diagnostics only for a person at a terminal;
// logs and pipes get plain text on long lines, which grep well.
func diagStyle(w io.Writer) (width uint, color bool) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	width = 78
	if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
		width = uint(cols)
	}
	return width, os.Getenv("NO_COLOR") == ""
}

// newFlagSet returns a flag set whose errors return rather than exit, with
// a usage message naming the command; help goes to stdout when asked for.
func newFlagSet(name, args, summary string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: specrun %s %s\n\n%s\n", name, args, summary)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintf(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args, allowing flags after the paths
// (`specrun validate spec.hcl --var n=2`); everything after "--" is a path.
// It returns the paths, or ok false and the exit code when the command
// should stop: exitOK after -h, exitUsage after a bad flag (reported).
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (paths []string, code int, ok bool) {
	var tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(stdout)
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		if fs.NArg() == 0 {
			return append(paths, tail...), exitOK, true
		}
		paths = append(paths, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
