// Command specrun runs benchmarks that are written down in HCL spec files.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
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
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is the command table; each command lives in its own file.
var commands = []command{
	{"run", "[flags] PATH...", "run spec files or directories; print the Markdown table", runCmd},
	{"validate", "[flags] PATH...", "decode and check specs; never runs an op", validateCmd},
	{"fmt", "[--check] [--diff] PATH...", "rewrite specs in canonical HCL format", fmtCmd},
	{"ops", "[NAME]", "list the built-in ops, or show one: parameters, units, metrics", opsCmd},
	{"report", "[--format F] RESULT.json", "re-render a stored result (md, json, csv, svg, gobench)", reportCmd},
	{"check", "[--spec PATH] [--baseline FILE] RESULT.json", "re-evaluate assertions on a stored result", checkCmd},
	{"compare", "[flags] A.json B.json [C.json...]", "side-by-side table of results, ratios, significance", compareCmd},
	{"serve", "[flags]", "built-in HTTP target server for http benchmarks", serveCmd},
}

// run is specrun's whole command line; main only exits with its result.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := lookupCommand(args[1]); ok {
				return c.run([]string{"-h"}, stdout, stderr)
			}
		}
		usage(stdout)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "specrun %s\n", version())
		return exitOK
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		fmt.Fprintf(stderr, "specrun: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "specrun runs benchmarks written down in HCL spec files.\n\nUsage:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  specrun %-8s %s\n", c.name, c.args)
		fmt.Fprintf(w, "           %s\n", c.summary)
	}
	fmt.Fprintf(w, "\n  specrun help COMMAND   flags of one command\n  specrun --version\n")
	fmt.Fprintf(w, "\nExit codes: 0 all ran and no assertion failed; 1 an assertion failed;\n"+
		"2 a usage or spec error (nothing ran); 3 a benchmark could not run (the others\n"+
		"ran and were written); 4 the benchmarks ran but a result file could not be\n"+
		"written (the message names where the JSON is kept); 130/143 interrupted.\n")
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
