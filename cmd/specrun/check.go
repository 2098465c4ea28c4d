package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// checkCmd re-evaluates a spec's assertions against the runs stored in a
// result, so that a CI job can run on one machine and judge on another.
// No op is run: the spec is only loaded, from the result or from --spec.
func checkCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	specPath := fs.String("spec", "", "judge with the spec at `PATH` instead of the one stored in the result")
	baseline := fs.String("baseline", "", "the result `FILE` that baseline.* refers to")
	strict := fs.Bool("strict", false, "treat an inconclusive assertion as a failure")
	vars := checkVars{}
	var varFiles checkVarFiles
	fs.Var(vars, "var", "set a variable: `NAME=VALUE` (repeatable)")
	fs.Var(&varFiles, "var-file", "read variables from `FILE` (repeatable)")
	usage := "usage: specrun check [--spec PATH] [--baseline FILE] [--strict] [--var NAME=VALUE]... RESULT.json"
	paths, code, ok := parseCommandLine(fs, args, usage, stdout, stderr)
	if !ok {
		return code
	}
	if len(paths) != 1 {
		fmt.Fprintf(stderr, "specrun check: want one result file, have %d\n%s\n", len(paths), usage)
		return exitUsage
	}
	r, err := results.ReadFile(paths[0])
	if err != nil {
		fmt.Fprintf(stderr, "specrun check: %v\n", err)
		return exitUsage
	}
	var base *results.Result
	if *baseline != "" {
		if base, err = results.ReadFile(*baseline); err != nil {
			fmt.Fprintf(stderr, "specrun check: baseline: %v\n", err)
			return exitUsage
		}
	}

	opts := spec.Options{Vars: vars, VarFiles: varFiles}
	var plan *spec.Plan
	var diags hcl.Diagnostics
	specName := *specPath
	if specName != "" {
		plan, diags = spec.Load([]string{specName}, opts)
	} else {
		if len(r.Spec.Files) == 0 {
			fmt.Fprintf(stderr, "specrun check: %s carries no spec; give one with --spec PATH\n", paths[0])
			return exitUsage
		}
		files := make(map[string][]byte, len(r.Spec.Files))
		for name, src := range r.Spec.Files {
			files[name] = []byte(src)
		}
		specName = "the spec stored in " + paths[0]
		plan, diags = spec.LoadFiles(files, r.Spec.Paths, opts)
	}
	if len(diags) > 0 {
		plan.DiagnosticWriter(stderr, 0, false).WriteDiagnostics(diags)
		if diags.HasErrors() {
			return exitUsage
		}
	}
	if err := sameBenchmarks(plan, r); err != nil {
		fmt.Fprintf(stderr, "specrun check: %s does not come from %s: %v\n", paths[0], specName, err)
		return exitUsage
	}
	if *specPath != "" && r.Spec.SHA256 != "" && plan.SHA256 != r.Spec.SHA256 {
		fmt.Fprintf(stderr, "specrun check: note: %s differs from the spec stored in %s\n", *specPath, paths[0])
	}
	if len(plan.Asserts) == 0 {
		fmt.Fprintf(stdout, "No assertions in %s.\n", specName)
		return exitOK
	}

	as := results.Judge(expectations(plan), r, base)
	if err := results.WriteAssertions(stdout, as); err != nil {
		fmt.Fprintf(stderr, "specrun check: %v\n", err)
		return exitUsage
	}
	if code := assertionExit(as, *strict); code != exitOK {
		return code
	}
	for _, b := range r.Benchmarks {
		if b.Error != "" {
			return exitBenchError // as run would: the stored result has a benchmark that could not run
		}
	}
	return exitOK
}

// sameBenchmarks reports a result that shares no benchmark instance with
// the plan: it was run from another spec. A partial overlap (a run with
// --filter) is fine; assertions that read a missing instance say so.
func sameBenchmarks(plan *spec.Plan, r *results.Result) error {
	inPlan := map[string]bool{}
	for _, b := range plan.Benchmarks {
		inPlan[b.Name] = true
	}
	var stored []string
	for _, b := range r.Benchmarks {
		if inPlan[b.Name] {
			return nil
		}
		stored = append(stored, b.Name)
	}
	var planned []string
	for name := range inPlan {
		planned = append(planned, name)
	}
	sort.Strings(planned)
	return fmt.Errorf("none of its benchmarks (%s) is in the spec, which has %s", someNames(stored), someNames(planned))
}

// someNames lists up to five names.
func someNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
}

// checkVars collects --var NAME=VALUE flags.
type checkVars map[string]string

func (v checkVars) String() string { return "" }

func (v checkVars) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=VALUE, have %q", s)
	}
	v[strings.TrimSpace(name)] = value
	return nil
}

// checkVarFiles collects --var-file FILE flags in order.
type checkVarFiles []string

func (f *checkVarFiles) String() string { return strings.Join(*f, ",") }

func (f *checkVarFiles) Set(s string) error { *f = append(*f, s); return nil }

var _ flag.Value = checkVars(nil)
