package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/specrun/specrun/report"
	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

// mergeCmd makes one result of the N results of `run --shard I/N`.
func mergeCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", "[flags] --result FILE.json SHARD.json...",
		"Merge the results of `run --shard I/N` into one, as if one generator had run it all:\n"+
			"counts summed, rates over the common window, percentiles from the merged histograms.", stderr)
	resultFile := fs.String("result", "", "write the merged JSON result to `FILE.json` (- for stdout)")
	label := fs.String("label", "", "the `TEXT` the merged result is known by (default: shard 0's label)")
	maxSkew := fs.Duration("max-skew", 100*time.Millisecond, "warn when the shards' phases started more than `D` apart")
	force := fs.Bool("force", false, "replace FILE.json if it exists")
	paths, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageErrorHelp(fs, "no shard results given")
	}
	if *resultFile == "" {
		return usageErrorHelp(fs, "--result FILE.json is required")
	}
	if err := checkLabel(*label); err != nil {
		return err
	}
	if *resultFile != "-" {
		if err := checkSpare("--result "+*resultFile, *resultFile, "a shard merge reads", paths...); err != nil {
			return err
		}
	}
	shards := make([]*results.Result, len(paths))
	for i, p := range paths {
		if shards[i], err = readShard(p); err != nil {
			return usageError("%v", err)
		}
	}
	m, err := results.MergeShards(shards, *maxSkew)
	if err != nil {
		return usageError("%v", err)
	}
	if *label != "" {
		m.Label = *label
	}
	m.Assertions = judgeStored(m, stderr)
	for _, w := range m.Warnings {
		fmt.Fprintf(stderr, "specrun merge: warning: %s\n", w)
	}
	if *resultFile == "-" {
		return results.Encode(stdout, m)
	}
	if err := results.WriteFile(*resultFile, m, *force); err != nil {
		return writeFailed(err)
	}
	fmt.Fprintf(stderr, "specrun: wrote %s from %d shards\n", *resultFile, len(shards))
	table, err := sortedReporter("md", "spec", report.Options{Metrics: opMetrics})
	if err != nil {
		return err
	}
	return table.Report(stdout, m)
}

// readShard reads a shard's result: a result file, or the log of a pod
// that ran `run --result -`, where kubectl logs mixes specrun's warnings
// on stderr with the JSON on stdout. Of a log, the lines from the first
// that is "{" to the last that is "}" are the result.
func readShard(path string) (*results.Result, error) {
	r, err := results.ReadFile(path)
	if err == nil {
		return r, nil
	}
	data, rerr := os.ReadFile(path)
	if rerr != nil {
		return nil, err
	}
	begin := bytes.Index(data, []byte("\n{\n"))
	if bytes.HasPrefix(data, []byte("{\n")) {
		begin = -1
	} else if begin < 0 {
		return nil, err
	}
	end := bytes.LastIndex(data, []byte("\n}\n"))
	if end <= begin+1 {
		return nil, err
	}
	r, derr := results.Decode(data[begin+1 : end+3])
	if derr != nil {
		return nil, fmt.Errorf("read result %s: %w", path, derr)
	}
	return r, nil
}

// judgeStored judges the assertions of the spec a result carries on it;
// a spec that no longer loads leaves them unjudged, with its diagnostics
// printed.
func judgeStored(r *results.Result, stderr io.Writer) []results.Assertion {
	if len(r.Spec.Files) == 0 {
		return []results.Assertion{}
	}
	files := make(map[string][]byte, len(r.Spec.Files))
	for name, src := range r.Spec.Files {
		files[name] = []byte(src)
	}
	var sf specFlags
	opts := sf.options()
	opts.VarLiterals = r.Spec.Vars
	opts.Stored = true
	plan, diags := spec.LoadFiles(files, r.Spec.Paths, opts)
	if !printDiagnostics(stderr, plan, diags) {
		return []results.Assertion{}
	}
	return results.Judge(expectations(plan), r, nil)
}
