//go:build linux

package ops

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specrun/specrun/internal/procfs"
	"github.com/specrun/specrun/internal/procgroup"
	"github.com/specrun/specrun/param"
)

// running lists the live processes whose command line (arguments joined
// by spaces) starts with prefix.
func running(prefix string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.HasPrefix(strings.ReplaceAll(string(b), "\x00", " "), prefix) {
			continue
		}
		if p, err := procfs.Stat(pid); err == nil && p.Alive() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sleepArg is a sleep duration no other test uses, so that its processes
// can be told apart on a shared machine.
func sleepArg(t *testing.T, n int) string {
	return "3" + strconv.Itoa(n) + "." + strconv.Itoa(os.Getpid())
}

func cgroupContainment() bool {
	g := procgroup.New("probe", procgroup.Options{})
	defer g.Close()
	return g.Containment() != "process group"
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A command that backgrounds a child and exits leaves nothing running once
// its run is over (hyperfine leaves these behind).
func TestExecKillsWhatARunLeaves(t *testing.T) {
	arg := sleepArg(t, 1)
	shell := "sleep " + arg + " & exit 0"
	if cgroupContainment() {
		shell = "setsid sleep " + arg + " & " + shell // a daemon leaves the process group; the cgroup holds it
	}
	op := newExecOp(t, param.Values{"shell": shell})
	if _, err := op.Run(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	// KILL is delivered asynchronously: give it a moment.
	if left := stillRunning("sleep " + arg); len(left) > 0 {
		t.Errorf("after the run: %d sleeps left running: %v", len(left), left)
	}
}

// Cancelling a run kills the command and what it started: the shell's
// sleep as well as the shell.
func TestExecCancelKillsGrandchild(t *testing.T) {
	arg := sleepArg(t, 2)
	op := newExecOp(t, param.Values{"shell": "sleep " + arg + "; true"})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := op.Run(ctx, 1)
		errc <- err
	}()
	eventually(t, "the sleep runs", func() bool { return len(running("sleep "+arg)) == 1 })
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("cancelled run: err = nil")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled run did not return")
	}
	if left := stillRunning("sleep " + arg); len(left) > 0 {
		t.Errorf("after the cancel: %v left running", left)
	}
}

// stillRunning is running(prefix) once it is empty or 5 s have passed.
func stillRunning(prefix string) []int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := running(prefix)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// What setup starts lives through the benchmark and dies with it.
func TestExecSetupLivesUntilClose(t *testing.T) {
	arg := sleepArg(t, 3)
	op, err := newExec(param.Values{"command": []string{"/bin/true"}, "setup": "sleep " + arg + " &"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Run(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if n := len(running("sleep " + arg)); n != 1 {
		t.Errorf("during the benchmark: %d of setup's sleeps running, want 1", n)
	}
	if err := op.(*execOp).Close(); err != nil {
		t.Fatal(err)
	}
	if left := running("sleep " + arg); len(left) > 0 {
		t.Errorf("after Close: %v left running", left)
	}
}

func TestExecFailureCarriesStderr(t *testing.T) {
	op := newExecOp(t, param.Values{"shell": "echo to stdout; echo first >&2; echo 'no such file: data.txt' >&2; exit 3"})
	_, err := op.Run(context.Background(), 1)
	if err == nil {
		t.Fatal("exit 3: err = nil")
	}
	msg := err.Error()
	for _, want := range []string{"status 3", "its stderr ends:\nfirst\nno such file: data.txt"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	if _, tail, _ := strings.Cut(msg, "ends:"); strings.Contains(tail, "to stdout") {
		t.Errorf("error %q carries stdout", msg)
	}
}

// ctxEnv lends an op nothing but a context, as the runner's does while it
// prepares a benchmark under its timeout.
type ctxEnv struct{ ctx context.Context }

func (ctxEnv) TempDir() string { return os.TempDir() }
func (ctxEnv) Server(context.Context, string) (Server, error) {
	return Server{}, errors.New("no servers")
}
func (ctxEnv) Servers() []string          { return nil }
func (e ctxEnv) Context() context.Context { return e.ctx }

// A setup still running when its benchmark times out (or the run is
// cancelled) is stopped then, with what it started, not at the end of the
// run.
func TestExecSetupEndsWithItsBenchmark(t *testing.T) {
	arg := sleepArg(t, 30)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := newExec(param.Values{"command": []string{"/bin/true"}, "setup": "sleep " + arg + "; true"}, ctxEnv{ctx})
	if err == nil {
		t.Fatal("a setup cut short by its benchmark's timeout: err = nil")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("New returned after %v, want soon after the 300ms timeout", d)
	}
	if left := stillRunning("sleep " + arg); len(left) > 0 {
		t.Errorf("after the timeout: %v left running", left)
	}
}

// setup's output is kept as a bounded tail, not whole.
func TestExecSetupOutputIsATail(t *testing.T) {
	_, err := newExec(param.Values{"command": []string{"/bin/true"},
		"setup": "head -c 20000000 /dev/zero | tr '\\0' x; echo; echo the last line; exit 1"}, nil)
	if err == nil {
		t.Fatal("failing setup: err = nil")
	}
	msg := err.Error()
	if !strings.Contains(msg, "the last line") || len(msg) > 2*procgroup.TailSize {
		t.Errorf("error (%d bytes) should end with the setup's last line and be short: %.200q...", len(msg), msg)
	}
}

// show_output passes the command's output through, as hyperfine's
// --show-output does.
func TestExecShowOutput(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdout
	os.Stdout = f
	op, err := newExec(param.Values{"shell": "echo shown", "show_output": true}, nil)
	os.Stdout = old
	if err != nil {
		t.Fatal(err)
	}
	defer op.(*execOp).Close()
	if _, err := op.Run(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f.Name())
	if string(b) != "shown\nshown\n" {
		t.Errorf("passed-through output = %q, want two lines of shown", b)
	}
}

func TestProcessSpawnCancelKillsChild(t *testing.T) {
	arg := sleepArg(t, 4)
	def, _ := Lookup("process.spawn")
	op, err := def.New(param.Values{"command": []string{"sleep", arg}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer op.(interface{ Close() error }).Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := op.Run(ctx, 1)
		errc <- err
	}()
	eventually(t, "the child runs", func() bool { return len(running("sleep "+arg)) == 1 })
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("cancelled spawn: err = nil")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled spawn did not return: its child was not killed")
	}
	if left := stillRunning("sleep " + arg); len(left) > 0 {
		t.Errorf("after the cancel: %v left running", left)
	}
}

// TestExecWithoutCgroups runs the containment tests again in a child test
// process that may make no cgroups: process groups must do on their own
// for what stays in the command's process group.
func TestExecWithoutCgroups(t *testing.T) {
	if os.Getenv(procgroup.NoCgroupsEnv) != "" {
		t.Skip("already without cgroups")
	}
	cmd := exec.Command(os.Args[0], "-test.count=1", "-test.run=^(TestExecKillsWhatARunLeaves|TestExecCancelKillsGrandchild|TestExecSetupLivesUntilClose|TestProcessSpawnCancelKillsChild|TestExecFailureCarriesStderr|TestExecSetupPrepareCleanupStdin|TestExecPeakMemoryIsTheCommands)$", "-test.v")
	cmd.Env = append(os.Environ(), procgroup.NoCgroupsEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("without cgroups: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestExecKillsWhatARunLeaves") || !strings.Contains(string(out), "--- SKIP: TestExecPeakMemoryIsTheCommands") {
		t.Errorf("without cgroups, the tests did not run as expected:\n%s", out)
	}
}
