package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/specrun/specrun/report"
	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// checkCmd re-evaluates a spec's assertions against the runs stored in a
// result, so that a CI job can run on one machine and judge on another.
// No op is run: the spec is only loaded, from the result or from --spec.
func checkCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("check", "[--spec PATH] [--baseline FILE] [--strict] [--require-baseline] [--var NAME=VALUE]... RESULT.json",
		"Judge a spec's assertions again on the runs stored in a result; nothing is run.\nThe spec is the one stored in the result unless --spec names another.", stderr)
	specPath := fs.String("spec", "", "judge with the spec at `PATH` instead of the one stored in the result")
	baseline := fs.String("baseline", "", "the result `FILE` that baseline.* refers to")
	strict := fs.Bool("strict", false, "treat an inconclusive assertion as a failure")
	mustBaseline := fs.Bool("require-baseline", false, "make an assertion that reads a missing baseline figure an error rather than a skip")
	var sf specFlags
	sf.register(fs)
	paths, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return usageErrorHelp(fs, "want one result file, have %d", len(paths))
	}
	r, err := results.ReadFile(paths[0])
	if err != nil {
		return err
	}
	var base *results.Result
	if *baseline != "" {
		if base, err = results.ReadFile(*baseline); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}

	var plan *spec.Plan
	specName := *specPath
	if specName != "" {
		if plan, err = sf.load([]string{specName}, stderr); err != nil {
			return err
		}
	} else {
		if len(r.Spec.Files) == 0 {
			return usageError("%s carries no spec; give one with --spec PATH", paths[0])
		}
		files := make(map[string][]byte, len(r.Spec.Files))
		for name, src := range r.Spec.Files {
			files[name] = []byte(src)
		}
		specName = "the spec stored in " + paths[0]
		// The variables the run was given, unless --var sets them again.
		opts := sf.options()
		opts.VarLiterals = r.Spec.Vars
		opts.Stored = true
		p, diags := spec.LoadFiles(files, r.Spec.Paths, opts)
		if !printDiagnostics(stderr, p, diags) {
			return errReported
		}
		plan = p
	}
	if err := sameBenchmarks(plan, r); err != nil {
		return fmt.Errorf("%s does not come from %s: %w", paths[0], specName, err)
	}
	if *specPath != "" && r.Spec.SHA256 != "" && plan.SHA256 != r.Spec.SHA256 {
		fmt.Fprintf(stderr, "specrun check: note: %s differs from the spec stored in %s\n", *specPath, paths[0])
	}
	if len(plan.Asserts) == 0 {
		fmt.Fprintf(stdout, "No assertions in %s.\n", specName)
		return nil
	}

	as := judge(plan, r, base, *mustBaseline)
	if err := report.WriteAssertions(stdout, as); err != nil {
		return err
	}
	// As run would: a stored benchmark that could not run is exitBenchError.
	return judged(as, r.Benchmarks, *strict)
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
