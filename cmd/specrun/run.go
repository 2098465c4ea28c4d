package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	"github.com/specrun/specrun/internal/atomicfile"
	"github.com/specrun/specrun/internal/procgroup"
	"github.com/specrun/specrun/internal/sysinfo"
	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/report"
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
func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "[flags] PATH...",
		"Run the benchmarks of a spec (files, or a directory of .hcl files), write\n<out>/<suite>-<label>-<time>.json and .md, and print the table.", stderr)
	var sf specFlags
	sf.register(fs)
	filter := fs.String("filter", "", "run only the instances whose name matches `REGEX` (\"memcpy/size=16B\")")
	scale := fs.Float64("scale", 1, "multiply fixed iteration counts (never below 1) and the min_time of \"auto\" benchmarks by `F`, for quick reruns")
	repeat := fs.Int("repeat", 0, "do `N` timed runs of every benchmark, overriding the spec")
	launches := fs.Int("launches", 0, "spread each benchmark's runs over `N` fresh specrun processes, overriding the spec's launches (benchmarks that load a server stay in one)")
	label := fs.String("label", "", "the `TEXT` this run is known by in comparisons (default: the hostname)")
	baseline := fs.String("baseline", "", "the stored `RESULT.json` that assertions read as baseline.*")
	outDir := fs.String("out", "specrun-results", "write the JSON result and the Markdown table into `DIR`")
	resultFile := fs.String("result", "", "write the JSON result to exactly `FILE.json`, and the Markdown table beside it as FILE.md (instead of --out); - writes the JSON alone to stdout")
	format := fs.String("format", "auto", "print `FORMAT` on stdout: "+autoFormat+report.FormatHelp(false))
	sortBy := fs.String("sort", "time", "table rows in `ORDER`: time (by time per op) or spec (file order)")
	strict := fs.Bool("strict", false, "treat an inconclusive assertion as a failure")
	mustBaseline := fs.Bool("require-baseline", false, "make an assertion that reads a missing baseline figure an error rather than a skip")
	budget := fs.Duration("budget", 0, "stop benchmarks with repeat = \"auto\" at the look before the run would pass `DURATION` in all (\"10m\"); 0 is no bound")
	noProgress := fs.Bool("no-progress", false, "do not show progress on stderr (it only shows on a terminal)")
	force := fs.Bool("force", false, "replace result and --export files that already exist")
	exports := exportFlag(fs, report.Formats())
	var view viewFlags
	view.register(fs, false)
	var sh shardFlag
	fs.Var(&sh, "shard", "run part `I/N` of the load: every http phase's concurrency, requests and rate divided by N, other benchmarks on shard 0 only; merge the N results with \"specrun merge\"")
	startAtFlag := fs.String("start-at", "", "begin the benchmarks at `TIME` (RFC 3339, or +DURATION from now), so that shards on several machines load the target together")
	maxSkew := fs.Duration("max-skew", 100*time.Millisecond, "warn when --start-at is missed by more than `D`")
	paths, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	var at time.Time
	if *startAtFlag != "" {
		if at, err = parseStartAt(*startAtFlag); err != nil {
			return err
		}
		if time.Until(at) > maxStartWait {
			return usageError("--start-at %s is more than %v away", *startAtFlag, maxStartWait)
		}
	}
	// --result - makes stdout the result: the JSON alone, for a pod's log
	// or a pipe, and no file beside it.
	toStdout := *resultFile == "-"
	if toStdout {
		if isSet(fs, "format") && *format != "json" {
			return usageError("--result - writes the JSON result to stdout; --format %s would print over it", *format)
		}
		*format = "json"
	}
	if len(paths) == 0 {
		return usageErrorHelp(fs, "no spec path given")
	}
	cfg := runner.Config{Scale: *scale, Repeat: *repeat, Budget: *budget, Launches: *launches}
	if *launches < 0 || *launches > spec.MaxLaunches {
		return usageError("--launches is a number of processes from 1 to %d (0 keeps the spec's), not %d", spec.MaxLaunches, *launches)
	}
	if *budget < 0 {
		return usageError("--budget must not be negative, not %v", *budget)
	}
	if !(*scale > 0) || math.IsInf(*scale, 0) {
		return usageError("--scale must be a finite number above 0, not %v", *scale)
	}
	if *repeat < 0 || *repeat > math.MaxInt32 {
		return usageError("--repeat is a number of runs from 1 to %d (0 keeps the spec's), not %d", math.MaxInt32, *repeat)
	}
	if err := checkLabel(*label); err != nil {
		return err
	}
	if *filter != "" {
		re, err := regexp.Compile(*filter)
		if err != nil {
			return usageError("--filter: %v", err)
		}
		cfg.Filter = re
	}
	name, opt, err := renderOptions(&view, *format, stdout)
	if err != nil {
		return err
	}
	opt.Notes = stderr
	*format = name
	reporter, err := checkedReporter(*format, *sortBy, opt)
	if err != nil {
		return err
	}
	var base *results.Result
	if *baseline != "" {
		if base, err = results.ReadFile(*baseline); err != nil {
			return usageError("--baseline: %v", err)
		}
	}
	plan, err := sf.load(paths, stderr)
	if err != nil {
		return err
	}
	if err := checkFilter(plan, cfg.Filter); err != nil {
		return err
	}
	if err := shard(plan, sh); err != nil {
		return err
	}
	lay, err := view.layout.apply(planLayout(plan.Report), "")
	if err != nil {
		return err
	}
	if err := checkLayout(plan, lay); err != nil {
		return err
	}
	if err := probeLayout(plan, cfg.Filter, lay); err != nil {
		return err
	}
	if err := checkColumns(plan, opt.Columns); err != nil {
		return err
	}
	if err := checkExecExports(plan, cfg.Filter, *format, *exports); err != nil {
		return err
	}
	if err := runner.Check(plan, cfg); err != nil {
		return usageError("--scale %v: %v", *scale, err)
	}
	if err := runner.CheckLaunches(plan, cfg); err != nil {
		return usageError("launches: %v", err)
	}
	if *label == "" {
		*label, _ = os.Hostname()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool := servers.NewPool(plan.Servers, "")
	pool.Context = ctx // Ctrl-C ends a wait for a server to become ready
	defer pool.Close() // on a panic too; a second Close does nothing
	cfg.Resources = pool
	var launch *launcher
	if launchesAny(plan, cfg) {
		if launch, err = newLauncher(plan, *scale, sh); err != nil {
			return err
		}
		cfg.Launcher = launch
	}
	// Quitting at once kills the servers and every other command started,
	// the launches among them, and removes the launches' files.
	signals := watchSignals(cancel, func() { pool.Kill(); procgroup.KillAll(); launch.remove() }, stderr)
	defer signals.stop()
	defer launch.remove() // before the signals are let go: a late one cannot leave the files

	// The output is checked before the run, so that a directory that
	// cannot take the files is found before minutes of benchmarks rather
	// than after. The check writes a probe file, which a second signal
	// waits for, as it waits for the result files.
	if err := checkExports(*exports, *force); err != nil {
		return err
	}
	started := time.Now().UTC()
	var names resultNames
	if toStdout {
		if isSet(fs, "out") {
			return usageError("--out and --result both say where to write; give one")
		}
	} else {
		if quit := signals.whileWriting(func() {
			names, err = outputNames(fs, *outDir, *resultFile, resultBase(plan.Suite.Name, *label, started), *force)
		}); quit != nil {
			return quit
		}
		if err != nil {
			return err
		}
		if names.exact {
			stem := names.stem(0)
			if err := checkExportsSpare(*exports, "the result file --result writes", stem+".json", stem+".md"); err != nil {
				return err
			}
		}
	}

	env, envWarnings := sysinfo.CaptureEnvironment(version())
	var prog *progress
	if !*noProgress {
		prog = newProgress(stderr)
	}
	if prog != nil {
		cfg.Observer = prog // a nil *progress would be a non-nil Observer
	}
	cfg.Settler = settler(plan, base)
	if *repeat == 0 {
		cfg.Together = together(plan)
	}
	var late time.Duration
	var startWarning string
	if !at.IsZero() {
		if late, startWarning, err = startAt(ctx, at, *maxSkew); err != nil {
			return &exitError{code: exitSIGINT, err: fmt.Errorf("interrupted while waiting for --start-at")}
		}
	}
	load := sysinfo.WatchLoad()
	outcome := runner.Run(ctx, plan, cfg)
	finished := time.Now().UTC()
	if err := pool.Close(); err != nil {
		fmt.Fprintf(stderr, "specrun run: stop servers: %v\n", err)
	}
	procgroup.KillAll() // what an op the runner gave up on still runs (a setup that hangs)
	prog.finish()

	env.Servers = pool.Versions()
	r := newResult(plan, *label, env, started, finished, outcome)
	r.Suite.Layout = lay
	r.Warnings = append(append(envWarnings, outcome.Warnings...), load.Stop()...)
	r.Warnings = append(r.Warnings, results.BaselineWarnings(r, base)...)
	if startWarning != "" {
		r.Warnings = append(r.Warnings, startWarning)
	}
	r.Shard = shardRecord(sh, at, late)
	r.Assertions = judge(plan, r, base, *mustBaseline)
	if *format != "term" || !isTerminal(stdout) {
		// The terminal view shows them once, at the end of the table.
		for _, w := range r.Warnings {
			fmt.Fprintf(stderr, "specrun: warning: %s\n", w)
		}
	}

	// The table goes to stdout even when the files cannot be written, so
	// that the measurements are not lost with them. A second signal waits
	// for the files rather than leave a temporary one behind.
	var writeErr error
	if quit := signals.whileWriting(func() {
		if !toStdout {
			writeErr = writeResult(r, names, *sortBy, opt, stderr)
		}
		fileOpt := opt
		fileOpt.Color = false
		writeErr = errors.Join(writeErr, writeExports(*exports, *force, func(format string, w io.Writer) error {
			rep, err := sortedReporter(format, *sortBy, fileOpt)
			if err != nil {
				return err
			}
			return rep.Report(w, r)
		}))
	}); quit != nil {
		return quit
	}
	if err := reporter.Report(stdout, r); err != nil {
		if !toStdout {
			writeErr = errors.Join(writeErr, fmt.Errorf("print the table: %w", err))
		} else if kept, kerr := keepResult(r, resultBase(plan.Suite.Name, *label, started)); kerr == nil {
			// stdout was the result's only copy.
			writeErr = errors.Join(writeErr, fmt.Errorf("print the result: %w; the result is kept in %s", err, kept))
		} else {
			writeErr = errors.Join(writeErr, fmt.Errorf("print the result: %w; the result could not be kept elsewhere either", err))
		}
	}

	switch signals.received() {
	case syscall.SIGINT:
		return &exitError{code: exitSIGINT, err: writeErr}
	case syscall.SIGTERM:
		return &exitError{code: exitSIGTERM, err: writeErr}
	}
	if writeErr != nil {
		return writeFailed(writeErr)
	}
	return judged(r.Assertions, r.Benchmarks, *strict)
}

// checkLabel refuses a label that would break the lines of a report: a
// newline in it could forge a row of a table or a gobench line.
func checkLabel(label string) error {
	if strings.IndexFunc(label, unicode.IsControl) >= 0 {
		return usageError("--label %q holds a control character; use printable text", label)
	}
	return nil
}

// checkFilter refuses a --filter that selects nothing, naming what exists,
// as a run of nothing would write an empty result and look like success.
func checkFilter(plan *spec.Plan, filter *regexp.Regexp) error {
	if filter == nil {
		return nil
	}
	var names []string
	for _, b := range plan.Benchmarks {
		if filter.MatchString(b.Name) {
			return nil
		}
		names = append(names, b.Name)
	}
	return usageError("--filter %q matches none of the %s: %s", filter, plural(len(names), "instance"), someNames(names))
}

// checkColumns refuses a --columns name that is neither a table column
// nor a metric of an op the spec runs, before anything runs.
func checkColumns(plan *spec.Plan, columns []string) error {
	known := slices.Clone(spec.TableColumns)
	for _, m := range metric.Standard {
		known = append(known, m.Name)
	}
	for _, b := range plan.Benchmarks {
		if b.Op != nil {
			for _, m := range b.Op.Metrics {
				known = append(known, m.Name)
			}
		}
	}
	for _, c := range columns {
		if !slices.Contains(known, c) {
			hint := ""
			if s := spec.Suggest(c, known); s != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", s)
			}
			return usageError("--columns: %q is neither a column (%s) nor a metric of this spec's ops%s", c, strings.Join(spec.TableColumns, ", "), hint)
		}
	}
	return nil
}

// newResult assembles the result of a run; assertions are judged on it
// afterwards.
func newResult(plan *spec.Plan, label string, env results.Environment, started, finished time.Time, o runner.Outcome) *results.Result {
	files := make(map[string]string, len(plan.Files))
	for name, src := range plan.Files {
		files[name] = string(src)
	}
	r := &results.Result{
		Schema: results.Schema,
		Suite: results.Suite{Name: plan.Suite.Name, Title: plan.Suite.Title, Description: plan.Suite.Description,
			Columns: plan.Suite.Columns, TimeUnit: plan.Suite.TimeUnit},
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

// Bounds on the parts of a result file's name, so that the name with its
// counter and extension stays well inside the usual 255-byte limit.
const (
	maxSuiteInName = 100
	maxLabelInName = 60
)

// resultBase is <suite>-<label>-<UTC time>, the result files' name without
// counter and extension.
func resultBase(suite, label string, started time.Time) string {
	return fmt.Sprintf("%s-%s-%s", fileSafe(suite, maxSuiteInName), fileSafe(label, maxLabelInName), started.UTC().Format("20060102T150405Z"))
}

// resultNames picks the names of a run's .json and .md in dir. Without
// force, a name that is taken (by an earlier run in the same second, say)
// gets a counter, base-2, base-3, ..., rather than an error; an exact name
// (--result) gets none.
type resultNames struct {
	dir, base string
	force     bool
	exact     bool
}

// outputNames checks, before anything runs, that the result files can be
// written where --out or --result says: the directory exists (or is made)
// and takes files, and the names are free.
func outputNames(fs *flag.FlagSet, outDir, resultFile, base string, force bool) (resultNames, error) {
	flagName := "--out"
	names := resultNames{dir: outDir, base: base, force: force}
	if isSet(fs, "result") {
		if isSet(fs, "out") {
			return names, usageError("--out and --result both say where to write; give one")
		}
		stem, ok := strings.CutSuffix(resultFile, ".json")
		if !ok || filepath.Base(stem) == "" || filepath.Base(stem) == "." {
			return names, usageError("--result %q: want a FILE.json", resultFile)
		}
		flagName = "--result"
		names = resultNames{dir: filepath.Dir(stem), base: filepath.Base(stem), force: force, exact: true}
	}
	if err := os.MkdirAll(names.dir, 0o755); err != nil {
		return names, usageError("%s: %v", flagName, err)
	}
	if err := atomicfile.Probe(names.dir); err != nil {
		return names, usageError("%s: cannot write result files in %s: %v", flagName, names.dir, err)
	}
	if _, err := names.free(0); err != nil {
		return names, usageError("%s: %v", flagName, err)
	}
	return names, nil
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// maxNameTries bounds the counter: beyond it something other than a busy
// second is filling the directory.
const maxNameTries = 1000

// free is the first stem (the path without extension), from try on, whose
// .json and .md are both free, and the try that gave it.
func (n resultNames) free(from int) (stem string, err error) {
	tries := maxNameTries
	if n.exact {
		tries = 1
	}
	for try := from; try < tries; try++ {
		stem = n.stem(try)
		if n.force {
			return stem, nil
		}
		taken := false
		for _, ext := range []string{".json", ".md"} {
			_, err := os.Lstat(stem + ext)
			switch {
			case err == nil:
				taken = true
			case !errors.Is(err, fs.ErrNotExist):
				return "", err
			}
		}
		if !taken {
			return stem, nil
		}
	}
	if n.exact {
		return "", fmt.Errorf("%s.json or .md exists (use --force to replace it)", n.stem(0))
	}
	return "", fmt.Errorf("%s: %d result files of this name exist already", n.stem(0), maxNameTries)
}

func (n resultNames) stem(try int) string {
	if try == 0 {
		return filepath.Join(n.dir, n.base)
	}
	return filepath.Join(n.dir, fmt.Sprintf("%s-%d", n.base, try+1))
}

// writeResult writes the result's .json and .md under the first free
// names. When the JSON cannot be written there, it is kept in the temp dir
// (or the current one) and the error says where.
func writeResult(r *results.Result, names resultNames, sortBy string, opt report.Options, stderr io.Writer) error {
	var stem string
	var err error
	for try := 0; ; try++ {
		if stem, err = names.free(try); err != nil {
			break
		}
		if err = results.WriteFile(stem+".json", r, names.force); !errors.Is(err, fs.ErrExist) {
			break // written, or failed for a reason another name would not mend
		}
	}
	if err != nil {
		if kept, kerr := keepResult(r, names.base); kerr == nil {
			return fmt.Errorf("%w; the result is kept in %s", err, kept)
		}
		return fmt.Errorf("%w; the result could not be kept elsewhere either", err)
	}
	var md bytes.Buffer
	table, err := sortedReporter("md", sortBy, opt)
	if err == nil {
		err = table.Report(&md, r)
	}
	if err != nil {
		return fmt.Errorf("wrote %s.json, but not the table: %w", stem, err)
	}
	if err := atomicfile.Write(stem+".md", md.Bytes(), atomicfile.Options{Overwrite: names.force}); err != nil {
		return fmt.Errorf("wrote %s.json, but not the table: %w", stem, err)
	}
	fmt.Fprintf(stderr, "specrun: wrote %s.json and .md\n", stem)
	return nil
}

// keepResult writes r to a new file in the temp dir, or failing that the
// current directory, and returns its name.
func keepResult(r *results.Result, base string) (string, error) {
	var data bytes.Buffer
	if err := results.Encode(&data, r); err != nil {
		return "", err
	}
	base = base[:min(len(base), maxSuiteInName)] // a --result name can be any length
	var errs []error
	for _, dir := range []string{os.TempDir(), "."} {
		f, err := os.CreateTemp(dir, base+"-*.json")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		_, err = f.Write(data.Bytes())
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(f.Name())
			errs = append(errs, err)
			continue
		}
		return f.Name(), nil
	}
	return "", errors.Join(errs...)
}

// fileSafe keeps a suite name or label from leaving the output directory
// or confusing a shell: anything but letters, digits, '.', '_' and '-'
// becomes '-', and it is cut to at most max bytes.
func fileSafe(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, s)
	s = strings.TrimLeft(s, ".")
	if len(s) > max {
		s = s[:max] // all ASCII by now
	}
	if s == "" {
		return "unnamed"
	}
	return s
}

// signalWatch turns the first SIGINT or SIGTERM into a cancellation of the
// run, so that what finished is written; a second one kills what the run
// started (quit) and exits as soon as no result file is being written.
type signalWatch struct {
	ch       chan os.Signal
	first    chan os.Signal // holds the first signal once it came
	done     chan struct{}
	writing  sync.Mutex   // held while result files are written
	quitting atomic.Int32 // the exit code once a second signal came
	exit     func(code int)
}

func watchSignals(cancel context.CancelFunc, quit func(), stderr io.Writer) *signalWatch {
	w := newSignalWatch(cancel, quit, stderr, os.Exit)
	signal.Notify(w.ch, syscall.SIGINT, syscall.SIGTERM)
	return w
}

// newSignalWatch acts on the signals that arrive on its channel; exit ends
// the process on the second.
func newSignalWatch(cancel context.CancelFunc, quit func(), stderr io.Writer, exit func(int)) *signalWatch {
	w := &signalWatch{ch: make(chan os.Signal, 2), first: make(chan os.Signal, 1), done: make(chan struct{}), exit: exit}
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
			code := exitSIGINT
			if sig == syscall.SIGTERM {
				code = exitSIGTERM
			}
			// Before quit: killing a server ends the run's wait for it,
			// and the run must not start writing what it then has.
			w.quitting.Store(int32(code))
			quit()
			w.writing.Lock() // never exit half-way through a result file
			w.exit(code)
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

// whileWriting runs write, during which a second signal waits for it to
// end before the process exits. After a second signal it runs nothing and
// returns the exit code the watcher is about to exit with.
func (w *signalWatch) whileWriting(write func()) (quitting error) {
	w.writing.Lock()
	defer w.writing.Unlock()
	if code := w.quitting.Load(); code != 0 {
		return &exitError{code: int(code)}
	}
	write()
	return nil
}

func (w *signalWatch) stop() {
	signal.Stop(w.ch)
	close(w.done)
}
