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

	"github.com/specrun/specrun/report"
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
// to stderr. After errors it returns errReported: nothing ran, and the
// diagnostics said why.
func (f *specFlags) load(paths []string, stderr io.Writer) (*spec.Plan, error) {
	plan, diags := spec.Load(paths, f.options())
	if !printDiagnostics(stderr, plan, diags) {
		return plan, errReported
	}
	return plan, nil
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
			printFlags(w, fs)
		}
	}
	return fs
}

// printFlags is flag.PrintDefaults with flags written as the README and
// the error messages write them, --name.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		line := "  " + dashed(f.Name)
		if arg != "" {
			line += " " + arg
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			format := " (default %v)"
			if g, ok := f.Value.(flag.Getter); ok {
				if _, isString := g.Get().(string); isString {
					format = " (default %q)"
				}
			}
			line += fmt.Sprintf(format, f.DefValue)
		}
		fmt.Fprintln(w, line)
	})
}

// parseFlags parses args, allowing flags after the paths
// (`specrun validate spec.hcl --var n=2`); everything after "--" is a path.
// After -h it returns errHelp. A flag it does not know is an error that
// suggests the closest one it does; a string flag given as "" is refused,
// since no flag of specrun means anything by an empty value.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (paths []string, err error) {
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
	// flag prints its errors and the whole usage; specrun's say what is
	// wrong in one line instead.
	out := fs.Output()
	fs.SetOutput(io.Discard)
	defer fs.SetOutput(out)
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				fs.Usage()
				return nil, errHelp
			}
			return nil, flagError(fs, err)
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		args = fs.Args()[1:]
	}
	var empty []string
	fs.Visit(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok {
			if s, ok := g.Get().(string); ok && s == "" {
				empty = append(empty, dashed(f.Name))
			}
		}
	})
	if len(empty) > 0 {
		return nil, usageError("%s is empty; leave it out for its default", strings.Join(empty, ", "))
	}
	return append(paths, tail...), nil
}

// dashed is a flag's name as specrun writes it: -o, --label.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagError rewords flag's parse error for a flag fs does not define into
// one that suggests the closest one, and points at the command's help.
func flagError(fs *flag.FlagSet, err error) error {
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		hint := ""
		if s := spec.Suggest(name, names); s != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", dashed(s))
		}
		msg = fmt.Sprintf("unknown flag %s%s", dashed(name), hint)
	}
	return usageError("%s; \"specrun help %s\" lists the flags", msg, fs.Name())
}

// checkedReporter is the reporter for --format with rows in --sort order,
// or a usage error naming the flag that is wrong.
func checkedReporter(format, sortBy string, opt report.Options) (report.Reporter, error) {
	if sortBy != "time" && sortBy != "spec" {
		return nil, usageError("--sort is time or spec, not %q", sortBy)
	}
	rep, err := sortedReporter(format, sortBy, opt)
	if err != nil {
		return nil, usageError("--format: %v", err)
	}
	return rep, nil
}
