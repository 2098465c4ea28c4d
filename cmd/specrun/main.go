// Command specrun runs benchmarks that are written down in HCL spec files.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/specrun/specrun/report"
	"github.com/specrun/specrun/spec"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes, as the README and `specrun help` list them.
const (
	exitOK          = 0 // all benchmarks ran, no assertion failed
	exitAssertion   = 1 // an assertion failed (or was inconclusive under --strict); fmt --check found a change
	exitUsage       = 2 // usage or spec error: nothing ran
	exitBenchError  = 3 // a benchmark could not run; the others ran and were written
	exitWriteFailed = 4 // the benchmarks ran, but a result file could not be written (the message says where the JSON is kept)
)

type command struct {
	name    string
	args    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands is the command table; each command lives in its own file.
var commands = []command{
	{"run", "[flags] PATH...", "run spec files or directories; print the table (Markdown, or the terminal view on a terminal)", runCmd},
	{"validate", "[flags] PATH...", "decode and check specs; never runs an op", validateCmd},
	{"fmt", "[--check] [--diff] PATH...", "rewrite specs in canonical HCL format", fmtCmd},
	{"ops", "[NAME]", "list the built-in ops, or show one: parameters, units, metrics", opsCmd},
	{"report", "[--format F] RESULT.json", "re-render a stored result (" + strings.Join(report.Formats(), ", ") + ")", reportCmd},
	{"check", "[--spec PATH] [--baseline FILE] RESULT.json", "re-evaluate assertions on a stored result", checkCmd},
	{"compare", "[flags] A.json B.json [C.json...]", "side-by-side table of results, ratios, significance", compareCmd},
	{"merge", "--result FILE SHARD.json...", "merge the results of run --shard I/N into one", mergeCmd},
	{"serve", "[flags]", "built-in HTTP target server for http benchmarks", serveCmd},
}

// run is specrun's whole command line; main only exits with its result.
// The commands return errors; run prints each once, as "specrun CMD: err",
// and decides the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		switch len(args) {
		case 1:
			usage(stdout)
			return exitOK
		case 2:
			if c, ok := lookupCommand(args[1]); ok {
				return exitCode(stderr, c.name, c.run([]string{"-h"}, stdout, stderr))
			}
			return exitCode(stderr, "help", usageError("no command %q%s; \"specrun help\" lists them", args[1], commandHint(args[1])))
		}
		return exitCode(stderr, "help", usageError("name one command at most"))
	case launchCommand:
		return launchCmd(args[1:], stderr)
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "specrun %s\n", version())
		return exitOK
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		fmt.Fprintf(stderr, "specrun: unknown command %q%s\n\n", args[0], commandHint(args[0]))
		usage(stderr)
		return exitUsage
	}
	return exitCode(stderr, c.name, c.run(args[1:], stdout, stderr))
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commandHint is " (did you mean "run"?)" for a name close to a command's.
func commandHint(name string) string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	if s := spec.Suggest(name, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "specrun runs benchmarks written down in HCL spec files.\n\nUsage:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  specrun %-8s %s\n", c.name, c.args)
		fmt.Fprintf(w, "           %s\n", c.summary)
	}
	fmt.Fprintf(w, "\n  specrun help COMMAND   flags of one command\n  specrun --version\n")
	fmt.Fprintf(w, "\nExit codes: 0 all ran and no assertion failed (skip is no failure); 1 an\n"+
		"assertion failed, or compare --fail-on-regression found a regression;\n"+
		"2 a usage or spec error (nothing ran); 3 a benchmark could not run (the others\n"+
		"ran and were written); 4 the benchmarks ran but a result file could not be\n"+
		"written (the message names where the JSON is kept); 130/143 interrupted.\n")
}

// exitError is an error with the exit code it calls for. Its err is
// printed once, by run; a nil err means the command has said all there is
// to say (diagnostics, a verdict, help). usage, when set, prints the
// command's usage after the message.
type exitError struct {
	code  int
	err   error
	usage func()
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is a mistake in how a command was called: exit 2, nothing ran.
func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// usageErrorHelp is a usageError followed by the command's usage.
func usageErrorHelp(fs *flag.FlagSet, format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...), usage: fs.Usage}
}

// Exits whose reason is already on the screen.
var (
	errHelp     = &exitError{code: exitOK}        // help was asked for and shown
	errReported = &exitError{code: exitUsage}     // diagnostics said what is wrong
	errAsserted = &exitError{code: exitAssertion} // an assertion failed; the verdicts say which
	errChanged  = &exitError{code: exitAssertion} // fmt --check found files to format
)

// benchFailed is the exit of a run (or a check) in which a benchmark
// could not run; its error is in the table.
func benchFailed() error { return &exitError{code: exitBenchError} }

// writeFailed is the exit of a run whose benchmarks ran but whose result
// could not be written where it was asked to be.
func writeFailed(err error) error { return &exitError{code: exitWriteFailed, err: err} }

// exitCode prints err, if there is something to print, and returns the
// exit code it calls for: an exitError's own, else exitUsage, since an
// error a command did not classify happened before anything ran.
func exitCode(stderr io.Writer, cmd string, err error) int {
	if err == nil {
		return exitOK
	}
	code := exitUsage
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			err = nil
		}
	}
	if e, ok := err.(*exitError); ok {
		err = e.err // its message, without the code
	}
	// Errors joined together (fmt's, one per file) get a line each.
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else if err != nil {
		errs = []error{err}
	}
	for _, err := range errs {
		fmt.Fprintf(stderr, "specrun %s: %v\n", cmd, err)
	}
	if ee != nil && ee.usage != nil {
		fmt.Fprintln(stderr)
		ee.usage()
	}
	return code
}

// version is the module version from the build info, else "devel-" and the
// VCS revision it was built from, else "devel".
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel-" + rev[:min(12, len(rev))] + dirty
}
