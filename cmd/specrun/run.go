package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/runner"
	"github.com/specrun/specrun/servers"
	"github.com/specrun/specrun/spec"
)

// Exit codes after a signal, as a shell reports a process killed by one.
const (
	exitSIGINT  = 130
	exitSIGTERM = 143
)

// runCmd runs a spec, writes its JSON result and Markdown table under
// --out, and prints the table (or --format) to stdout.
func runCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", "[flags] PATH...",
		"Run the benchmarks of a spec (files, or a directory of .hcl files), write\n<out>/<suite>-<label>-<time>.json and .md, and print the table.", stderr)
	var sf specFlags
	sf.register(fs)
	filter := fs.String("filter", "", "run only the instances whose name matches `REGEX` (\"memcpy/size=16B\")")
	scale := fs.Float64("scale", 1, "multiply fixed iteration counts by `F` (never below 1), for quick reruns")
	repeat := fs.Int("repeat", 0, "do `N` timed runs of every benchmark, overriding the spec")
	label := fs.String("label", "", "the `TEXT` this run is known by in comparisons (default: the hostname)")
	baseline := fs.String("baseline", "", "the stored `RESULT.json` that assertions read as baseline.*")
	outDir := fs.String("out", "results", "write the JSON result and the Markdown table into `DIR`")
	format := fs.String("format", "md", "print `FORMAT` on stdout: "+strings.Join(results.Formats, ", "))
	sortBy := fs.String("sort", "time", "table rows in `ORDER`: time (by time per op) or spec (file order)")
	strict := fs.Bool("strict", false, "treat an inconclusive assertion as a failure")
	noProgress := fs.Bool("no-progress", false, "do not show progress on stderr (it only shows on a terminal)")
	force := fs.Bool("force", false, "replace result files that already exist")
	paths, code, ok := parseFlags(fs, args, stdout)
	if !ok {
		return code
	}

	usageError := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "specrun run: "+format+"\n", args...)
		return exitUsage
	}
	if len(paths) == 0 {
		fmt.Fprintf(stderr, "specrun run: no spec path given\n\n")
		fs.Usage()
		return exitUsage
	}
	cfg := runner.Config{Scale: *scale, Repeat: *repeat}
	if *scale <= 0 {
		return usageError("--scale must be above 0, not %v", *scale)
	}
	if *repeat < 0 {
		return usageError("--repeat must be at least 1, not %d", *repeat)
	}
	if *sortBy != "time" && *sortBy != "spec" {
		return usageError("--sort is time or spec, not %q", *sortBy)
	}
	if *filter != "" {
		re, err := regexp.Compile(*filter)
		if err != nil {
			return usageError("--filter: %v", err)
		}
		cfg.Filter = re
	}
	reporter, err := sortedReporter(*format, *sortBy)
	if err != nil {
		return usageError("--format: %v", err)
	}
	var base *results.Result
	if *baseline != "" {
		if base, err = results.ReadFile(*baseline); err != nil {
			return usageError("--baseline: %v", err)
		}
	}
	plan, ok := sf.load(paths, stderr)
	if !ok {
		return exitUsage
	}
	if *label == "" {
		*label, _ = os.Hostname()
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return usageError("--out: %v", err)
	}

	// The file names are fixed before the run, so that a clash is found
	// before minutes of benchmarks rather than after.
	started := time.Now().UTC()
	stem := resultStem(*outDir, plan.Suite.Name, *label, started)
	if !*force {
		for _, ext := range []string{".json", ".md"} {
			if _, err := os.Lstat(stem + ext); err == nil {
				return usageError("%s%s exists (use --force to replace it)", stem, ext)
			}
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool := servers.NewPool(plan.Servers, "")
	pool.Context = ctx // Ctrl-C ends a wait for a server to become ready
	defer pool.Close() // on a panic too; a second Close does nothing
	cfg.Env = pool
	signals := watchSignals(cancel, pool.Kill, stderr)
	defer signals.stop()

	env, envWarnings := results.CaptureEnvironment(version())
	var prog *progress
	if !*noProgress {
		prog = newProgress(stderr)
	}
	if prog != nil {
		cfg.Observer = prog // never a typed nil: the runner tests Observer against nil
	}
	load := results.WatchLoad()
	outcome := runner.Run(ctx, plan, cfg)
	finished := time.Now().UTC()
	if err := pool.Close(); err != nil {
		fmt.Fprintf(stderr, "specrun run: stop servers: %v\n", err)
	}
	prog.finish()

	r := newResult(plan, *label, env, started, finished, outcome)
	r.Warnings = append(append(envWarnings, outcome.Warnings...), load.Stop()...)
	r.Assertions = results.Judge(expectations(plan), r, base)
	for _, w := range r.Warnings {
		fmt.Fprintf(stderr, "specrun: warning: %s\n", w)
	}

	// The table goes to stdout even when the files cannot be written, so
	// that the measurements are not lost with them.
	writeErr := writeResult(r, stem, *sortBy, *force, stderr)
	if writeErr != nil {
		fmt.Fprintf(stderr, "specrun run: %v\n", writeErr)
	}
	if err := reporter.Report(stdout, r); err != nil {
		fmt.Fprintf(stderr, "specrun run: %v\n", err)
		return exitUsage
	}
	if writeErr != nil {
		return exitUsage
	}

	switch signals.received() {
	case syscall.SIGINT:
		return exitSIGINT
	case syscall.SIGTERM:
		return exitSIGTERM
	}
	return resultExit(r.Assertions, r.Benchmarks, *strict)
}

// newResult assembles the result of a run; assertions are judged on it
// afterwards.
func newResult(plan *spec.Plan, label string, env results.Environment, started, finished time.Time, o runner.Outcome) *results.Result {
	files := make(map[string]string, len(plan.Files))
	for name, src := range plan.Files {
		files[name] = string(src)
	}
	r := &results.Result{
		Schema:      results.Schema,
		Suite:       results.Suite{Name: plan.Suite.Name, Title: plan.Suite.Title, Description: plan.Suite.Description},
		Label:       label,
		Spec:        results.Spec{Paths: plan.Paths, SHA256: plan.SHA256, Files: files, Vars: plan.Vars},
		Environment: env,
		StartedAt:   started,
		FinishedAt:  finished,
		Interrupted: o.Interrupted,
		Benchmarks:  o.Benchmarks,
	}
	if r.Benchmarks == nil {
		r.Benchmarks = []results.Benchmark{} // "benchmarks": [] says none ran; null would say the field is missing
	}
	return r
}

// resultStem is <dir>/<suite>-<label>-<UTC time>, the result files' name
// without extension.
func resultStem(dir, suite, label string, started time.Time) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%s-%s", fileSafe(suite), fileSafe(label), started.UTC().Format("20060102T150405Z")))
}

// writeResult writes stem.json and stem.md.
func writeResult(r *results.Result, stem, sortBy string, force bool, stderr io.Writer) error {
	if err := results.WriteFile(stem+".json", r, force); err != nil {
		return err
	}
	var md bytes.Buffer
	if err := (results.Markdown{Sort: sortBy}).Report(&md, r); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(stem+".md", md.Bytes(), force); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "specrun: wrote %s.json and .md\n", stem)
	return nil
}

// fileSafe keeps a suite name or label from leaving the output directory
// or confusing a shell: anything but letters, digits, '.', '_' and '-'
// becomes '-'.
func fileSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, s)
	s = strings.TrimLeft(s, ".")
	if s == "" {
		return "unnamed"
	}
	return s
}

// signalWatch turns the first SIGINT or SIGTERM into a cancellation of the
// run, so that what finished is written; a second one kills what the run
// started (quit) and exits at once, which the atomic writes make safe.
type signalWatch struct {
	ch    chan os.Signal
	first chan os.Signal // holds the first signal once it came
	done  chan struct{}
}

func watchSignals(cancel context.CancelFunc, quit func(), stderr io.Writer) *signalWatch {
	w := &signalWatch{ch: make(chan os.Signal, 2), first: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(w.ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-w.ch:
			w.first <- sig
			fmt.Fprintf(stderr, "\nspecrun: %v: stopping after writing what finished (again to quit at once)\n", sig)
			cancel()
		case <-w.done:
			return
		}
		select {
		case sig := <-w.ch:
			fmt.Fprintf(stderr, "specrun: %v again: quitting\n", sig)
			quit()
			if sig == syscall.SIGTERM {
				os.Exit(exitSIGTERM)
			}
			os.Exit(exitSIGINT)
		case <-w.done:
		}
	}()
	return w
}

// received is the first signal, or nil.
func (w *signalWatch) received() os.Signal {
	select {
	case sig := <-w.first:
		w.first <- sig
		return sig
	default:
		return nil
	}
}

func (w *signalWatch) stop() {
	signal.Stop(w.ch)
	close(w.done)
}
