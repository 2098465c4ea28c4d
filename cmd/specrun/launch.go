package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/specrun/specrun/internal/procgroup"
	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/runner"
	"github.com/specrun/specrun/spec"
)

// launchCommand is the hidden command a launch runs: `specrun __launch
// FILE`, where FILE holds a launchOrder. It is no command a user types,
// and is not in the command table.
const launchCommand = "__launch"

// launchOrder is what the parent tells a launch: the spec as the parent
// loaded it, and the launch's part of it.
type launchOrder struct {
	Paths  []string          `json:"paths"`
	Vars   map[string]string `json:"vars,omitempty"` // HCL literals, as Plan.Vars
	SHA256 string            `json:"sha256"`
	Scale  float64           `json:"scale"`
	Shard  string            `json:"shard,omitempty"` // run --shard I/N, which divides the http phases
	Launch runner.Launch     `json:"launch"`
	Result string            `json:"result"` // where the launch writes its result
}

// launchGrace is how long a launch has, after it is told to stop, to write
// what it finished before it is killed.
const launchGrace = 10 * time.Second

// launcher starts each launch as a fresh specrun process, the same binary,
// in a procgroup.Group, with its files and its temp dir in a directory of
// the parent's that remove deletes.
type launcher struct {
	exe   string
	dir   string
	plan  *spec.Plan
	scale float64
	shard shardFlag

	mu      sync.Mutex
	removed bool
}

// newLauncher makes the directory the launches of plan work in.
func newLauncher(plan *spec.Plan, scale float64, shard shardFlag) (*launcher, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("launches: find specrun's own binary: %w", err)
	}
	dir, err := os.MkdirTemp("", "specrun-launches-")
	if err != nil {
		return nil, fmt.Errorf("launches: %w", err)
	}
	return &launcher{exe: exe, dir: dir, plan: plan, scale: scale, shard: shard}, nil
}

// remove deletes the launches' directory and what they left in it. It is
// safe to call more than once, and from the signal handler.
func (l *launcher) remove() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.removed {
		l.removed = true
		os.RemoveAll(l.dir)
	}
}

var _ runner.Launcher = (*launcher)(nil)

// Launch runs one launch to its end. Cancelling ctx sends it SIGINT, so
// that it stops after the run in progress and writes what it finished;
// one that has not exited launchGrace later is killed.
func (l *launcher) Launch(ctx context.Context, part runner.Launch) (runner.Outcome, error) {
	work := filepath.Join(l.dir, fmt.Sprintf("launch-%d", part.Index))
	if err := os.Mkdir(work, 0o700); err != nil {
		return runner.Outcome{}, err
	}
	order := launchOrder{Paths: l.plan.Paths, Vars: l.plan.Vars, SHA256: l.plan.SHA256, Scale: l.scale,
		Shard: l.shard.String(), Launch: part, Result: filepath.Join(work, "result.json")}
	data, err := json.Marshal(order)
	if err != nil {
		return runner.Outcome{}, err
	}
	orderFile := filepath.Join(work, "order.json")
	if err := os.WriteFile(orderFile, data, 0o600); err != nil {
		return runner.Outcome{}, err
	}
	// The running binary itself, even if a rebuild has replaced the file
	// since: where /proc holds it, that is /proc/self/exe. argv[0] stays
	// the binary's name.
	path := l.exe
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		path = "/proc/self/exe"
	}
	cmd := exec.Command(path, launchCommand, orderFile)
	cmd.Args[0] = l.exe
	// What the launch and its ops make in the temp dir is in work, which
	// the parent removes whatever becomes of the launch.
	cmd.Env = append(os.Environ(), "TMPDIR="+work)
	output, err := procgroup.NewOutput(nil)
	if err != nil {
		return runner.Outcome{}, err
	}
	defer output.Close()
	cmd.Stdout, cmd.Stderr = output.W, output.W
	g := procgroup.New("launch", procgroup.Options{})
	defer g.Close()
	err = g.Start(cmd)
	output.CloseWrite()
	if err != nil {
		return runner.Outcome{}, fmt.Errorf("start %s: %w", l.exe, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-ctx.Done():
		cmd.Process.Signal(os.Interrupt) // the launch alone: it stops its own ops
		select {
		case waitErr = <-done:
		case <-time.After(launchGrace):
			g.Kill()
			waitErr = <-done
		}
	}
	g.Reaped(cmd.Process.Pid)
	r, readErr := results.ReadFile(order.Result)
	if readErr != nil {
		if msg := output.Last(5); msg != "" {
			return runner.Outcome{}, fmt.Errorf("%v, and left no result: %s", exitText(waitErr), msg)
		}
		return runner.Outcome{}, fmt.Errorf("%v, and left no result: %v", exitText(waitErr), readErr)
	}
	out := runner.Outcome{Benchmarks: r.Benchmarks, Warnings: r.Warnings, Interrupted: r.Interrupted}
	if waitErr != nil && !r.Interrupted {
		return out, fmt.Errorf("%v: %s", exitText(waitErr), output.Last(5))
	}
	return out, nil
}

// exitText says how a launch ended.
func exitText(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "the launch exited 0"
	case errors.As(err, &ee):
		return "the launch " + ee.ProcessState.String()
	}
	return "the launch: " + err.Error()
}

// launchCmd is a launch: it loads the spec its order names, checks that it
// is the one the parent ran, runs its part, and writes what it measured.
// A first SIGINT or SIGTERM stops it after the run in progress; what
// finished is written.
func launchCmd(args []string, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "specrun %s: a launch takes the file of its order; it is started by specrun run, not by hand\n", launchCommand)
		return exitUsage
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "specrun %s: %v\n", launchCommand, err)
		return exitUsage
	}
	var order launchOrder
	if err := json.Unmarshal(data, &order); err != nil {
		fmt.Fprintf(stderr, "specrun %s: %s: %v\n", launchCommand, args[0], err)
		return exitUsage
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			cancel()
		}
	}()

	plan, diags := spec.Load(order.Paths, spec.Options{VarLiterals: order.Vars})
	if !printDiagnostics(stderr, plan, diags) {
		return exitUsage
	}
	if plan.SHA256 != order.SHA256 {
		fmt.Fprintf(stderr, "specrun %s: the spec changed on disk since specrun run loaded it (sha256 %.12s, not %.12s)\n",
			launchCommand, plan.SHA256, order.SHA256)
		return exitUsage
	}
	if order.Shard != "" {
		var sh shardFlag
		if err := sh.Set(order.Shard); err != nil {
			fmt.Fprintf(stderr, "specrun %s: --shard: %v\n", launchCommand, err)
			return exitUsage
		}
		if err := shard(plan, sh); err != nil {
			fmt.Fprintf(stderr, "specrun %s: %v\n", launchCommand, err)
			return exitUsage
		}
	}
	started := time.Now().UTC()
	outcome := runner.Run(ctx, runner.LaunchPlan(plan, order.Launch), runner.Config{Scale: order.Scale})
	procgroup.KillAll() // what an op the runner gave up on still runs
	// The parent records the environment and judges the assertions.
	r := newResult(plan, fmt.Sprintf("launch %d", order.Launch.Index), results.Environment{}, started, time.Now().UTC(), outcome)
	r.Warnings = outcome.Warnings
	r.Assertions = []results.Assertion{}
	if err := results.WriteFile(order.Result, r, false); err != nil {
		fmt.Fprintf(stderr, "specrun %s: %v\n", launchCommand, err)
		return exitWriteFailed
	}
	if outcome.Interrupted {
		return exitSIGINT
	}
	return exitOK
}

// launchesAny says whether a benchmark cfg selects spreads its runs over
// launches, so that the run needs a launcher.
func launchesAny(plan *spec.Plan, cfg runner.Config) bool {
	for _, b := range plan.Benchmarks {
		if cfg.Filter != nil && !cfg.Filter.MatchString(b.Name) {
			continue
		}
		if runner.LaunchesOf(b, cfg) > 1 {
			return true
		}
	}
	return false
}
