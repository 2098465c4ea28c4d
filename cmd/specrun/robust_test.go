package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specrun/specrun/results"
)

// The tests in this file run specrun as a separate process (the copy of
// this test binary that testscript.Main puts in $PATH as "specrun") and
// watch it from /proc, as a user's shell and an init system would.

// specrunProcess is a `specrun run` started in its own process group, with
// a private TMPDIR and --out dir.
type specrunProcess struct {
	cmd            *exec.Cmd
	out, tmp       string
	stdout, stderr bytes.Buffer
	done           chan struct{}
	seen           map[int]procInfo // every descendant seen while it ran
}

// startSpecrun writes src to a spec file and runs it.
func startSpecrun(t *testing.T, src string) *specrunProcess {
	t.Helper()
	if testing.Short() {
		t.Skip("starts specrun processes and servers for seconds")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find child processes")
	}
	bin, err := exec.LookPath("specrun")
	if err != nil {
		t.Skipf("no specrun in $PATH (testscript.Main puts one there): %v", err)
	}
	dir := t.TempDir()
	p := &specrunProcess{out: filepath.Join(dir, "out"), tmp: filepath.Join(dir, "tmp"), done: make(chan struct{}), seen: map[int]procInfo{}}
	if err := os.Mkdir(p.tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(dir, "spec.hcl")
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, "run", "--no-progress", "--label", "box", "--out", p.out, specPath)
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	// Its own group, so that what it leaves behind cannot hide in ours.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
		for _, pi := range p.seen {
			if pi.alive() {
				syscall.Kill(pi.pid, syscall.SIGKILL)
			}
		}
	})
	return p
}

// waitFor polls the process's descendants until one runs prog (the base
// name of its argv[0]) with each of words in its command line, recording
// every descendant it sees.
func (p *specrunProcess) waitFor(t *testing.T, prog string, words ...string) procInfo {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			t.Fatalf("specrun exited (%v) before %s %q started\nstderr:\n%s", p.cmd.ProcessState, prog, words, p.stderr.String())
		default:
		}
		var found *procInfo
		for _, d := range descendants(p.cmd.Process.Pid) {
			p.seen[d.pid] = d
			if found == nil && d.runs(prog, words) {
				found = &d
			}
		}
		if found != nil {
			return *found
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s %q under specrun after 20s\nstderr:\n%s", prog, words, p.stderr.String())
	return procInfo{}
}

// record adds the descendants alive now to those seen.
func (p *specrunProcess) record() {
	for _, d := range descendants(p.cmd.Process.Pid) {
		p.seen[d.pid] = d
	}
}

func (p *specrunProcess) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal specrun: %v", err)
	}
}

// wait waits at most d for specrun to exit and returns its exit status.
func (p *specrunProcess) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("specrun still running %v after the signal\nstderr:\n%s", d, p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// checkNoOrphans requires that every process seen under specrun, and every
// process in a group that one of them led, is gone (after a short wait, as
// KILL is delivered asynchronously).
func (p *specrunProcess) checkNoOrphans(t *testing.T) {
	t.Helper()
	groups := map[int]bool{}
	for _, pi := range p.seen {
		groups[pi.pgid] = true
	}
	delete(groups, syscall.Getpgrp()) // a child left in our group would still show as seen
	var left []string
	deadline := time.Now().Add(3 * time.Second)
	for {
		left = left[:0]
		for _, pi := range p.seen {
			if pi.alive() {
				left = append(left, fmt.Sprintf("%d %q", pi.pid, pi.cmdline))
			}
		}
		for _, pi := range allProcs() {
			if groups[pi.pgid] && !pi.zombie {
				if _, ok := p.seen[pi.pid]; !ok {
					left = append(left, fmt.Sprintf("%d %q (group %d)", pi.pid, pi.cmdline, pi.pgid))
				}
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("processes of the run still alive after it exited: %s", strings.Join(left, "; "))
	}
}

// result reads the one JSON result the run wrote.
func (p *specrunProcess) result(t *testing.T) *results.Result {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(p.out, "*.json"))
	if len(matches) != 1 {
		t.Fatalf("result files %q, want one\nstderr:\n%s", matches, p.stderr.String())
	}
	r, err := results.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestInterruptLeavesNothingBehind interrupts runs of an http benchmark
// against a builtin server and of an exec of a long command, with SIGINT
// and SIGTERM: the finished benchmark is written, the result is marked
// interrupted, the temp dir is empty, and no process of the run is left.
func TestInterruptLeavesNothingBehind(t *testing.T) {
	const quick = `
suite "interrupted" {
  repeat = 1
  warmup = "0s"
}

benchmark "quick" {
  op         = "noop"
  iterations = 1000
}
`
	specs := []struct {
		name, src string
		prog      string
		waitFor   []string // with prog, the command line that says the slow part is running
	}{
		{"builtin-server", quick + `
server "site" {
  builtin = "static"
}

benchmark "load" {
  op          = "http"
  url         = "${server.site.url}/"
  duration    = "60s"
  concurrency = 2
}
`, "specrun", []string{"serve"}},
		{"exec", quick + `
benchmark "sleep" {
  op         = "exec"
  command    = ["sleep", "31"]
  iterations = 1
}
`, "sleep", []string{"31"}},
	}
	for _, s := range specs {
		for _, c := range []struct {
			sig  syscall.Signal
			code int
		}{{syscall.SIGINT, exitSIGINT}, {syscall.SIGTERM, exitSIGTERM}} {
			t.Run(s.name+"/"+c.sig.String(), func(t *testing.T) {
				p := startSpecrun(t, s.src)
				p.waitFor(t, s.prog, s.waitFor...)
				time.Sleep(300 * time.Millisecond) // into the load phase or the command's run
				p.record()
				p.signal(t, c.sig)
				if code := p.wait(t, 20*time.Second); code != c.code {
					t.Errorf("exit status %d, want %d\nstderr:\n%s", code, c.code, p.stderr.String())
				}
				if strings.Contains(p.stderr.String(), "panic") || strings.Contains(p.stderr.String(), "goroutine ") {
					t.Errorf("stderr shows a Go panic or stack:\n%s", p.stderr.String())
				}
				r := p.result(t)
				if !r.Interrupted {
					t.Error("result not marked interrupted")
				}
				var names []string
				for _, b := range r.Benchmarks {
					names = append(names, b.Name)
					if b.Name == "quick" && (b.Interrupted || b.Error != "" || len(b.Runs) != 1) {
						t.Errorf("finished benchmark quick: interrupted %v, error %q, %d runs", b.Interrupted, b.Error, len(b.Runs))
					}
				}
				if len(names) == 0 || names[0] != "quick" {
					t.Errorf("benchmarks %q, want quick first", names)
				}
				if left, _ := os.ReadDir(p.tmp); len(left) > 0 {
					t.Errorf("left in TMPDIR: %v", left)
				}
				p.checkNoOrphans(t)
			})
		}
	}
}

// TestSecondInterruptDuringServerGrace interrupts a run whose server
// ignores TERM and has a long grace period; a second SIGINT, while specrun
// waits out that grace, must end specrun at once, take the server's whole
// group with it and leave no result file behind, whole or half-written.
func TestSecondInterruptDuringServerGrace(t *testing.T) {
	port := freePort(t)
	// sh and its sleep ignore TERM (an ignored signal stays ignored across
	// exec); specrun serve catches TERM and exits, so only the stubborn
	// part of the group is left for the grace period.
	p := startSpecrun(t, fmt.Sprintf(`
suite "stubborn" {
  repeat = 1
  warmup = "0s"
}

server "stubborn" {
  command = ["sh", "-c", "trap '' TERM; sleep 301 & specrun serve --addr 127.0.0.1:%[1]d & wait"]
  url     = "http://127.0.0.1:%[1]d"
  ready   = "http://127.0.0.1:%[1]d/"
  grace   = "60s"
}

benchmark "load" {
  op          = "http"
  server      = "stubborn"
  duration    = "60s"
  concurrency = 2
}
`, port))
	serve := p.waitFor(t, "specrun", "serve", strconv.Itoa(port))
	p.waitFor(t, "sleep", "301")
	time.Sleep(300 * time.Millisecond)
	p.record()
	p.signal(t, syscall.SIGINT)

	// The serve process exits on TERM: from then on specrun is in the grace.
	deadline := time.Now().Add(10 * time.Second)
	for serve.alive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if serve.alive() {
		t.Fatalf("the server was not sent its stop signal within 10s\nstderr:\n%s", p.stderr.String())
	}
	p.record()
	p.signal(t, syscall.SIGINT)
	if code := p.wait(t, 5*time.Second); code != exitSIGINT {
		t.Errorf("exit status %d, want %d\nstderr:\n%s", code, exitSIGINT, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "again: quitting") {
		t.Errorf("stderr does not say specrun quit on the second signal:\n%s", p.stderr.String())
	}
	// A result written after the grace would be complete; none may be
	// written at all, and no temp file may be left where results go.
	if left, _ := os.ReadDir(p.out); len(left) > 0 {
		t.Errorf("left in the results dir: %v", left)
	}
	p.checkNoOrphans(t)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// procInfo is what /proc says of a process; start (jiffies since boot)
// tells a process from a later one given the same pid.
type procInfo struct {
	pid, ppid, pgid int
	start           string
	zombie          bool
	cmdline         string
}

func readProc(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	// Fields after the command's closing parenthesis, from state (3rd).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return procInfo{}, false
	}
	pi := procInfo{pid: pid, start: f[19], zombie: f[0] == "Z" || f[0] == "X"}
	pi.ppid, _ = strconv.Atoi(f[1])
	pi.pgid, _ = strconv.Atoi(f[2])
	cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	pi.cmdline = strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
	return pi, true
}

// alive reports whether the process is still running (not a zombie, not
// replaced by another with its pid).
func (pi procInfo) alive() bool {
	now, ok := readProc(pi.pid)
	return ok && now.start == pi.start && !now.zombie
}

func allProcs() []procInfo {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procInfo
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pi, ok := readProc(pid); ok {
			out = append(out, pi)
		}
	}
	return out
}

// descendants are the live processes below root.
func descendants(root int) []procInfo {
	all := allProcs()
	children := map[int][]procInfo{}
	for _, pi := range all {
		children[pi.ppid] = append(children[pi.ppid], pi)
	}
	var out []procInfo
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if !c.zombie {
				out = append(out, c)
			}
			queue = append(queue, c.pid)
		}
	}
	return out
}

// runs reports whether the process runs prog with each of words in its
// command line; `sh -c "prog ..."` does not run prog.
func (pi procInfo) runs(prog string, words []string) bool {
	argv0, _, _ := strings.Cut(pi.cmdline, " ")
	if filepath.Base(argv0) != prog {
		return false
	}
	for _, w := range words {
		if !strings.Contains(pi.cmdline, w) {
			return false
		}
	}
	return true
}

// TestFileOpsOnAFullOrReadOnlyDir runs file ops whose dir is a tiny tmpfs
// and a read-only mount: each such benchmark records an error that names
// the problem, the others still run, and the run exits 3.
func TestFileOpsOnAFullOrReadOnlyDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	full, ro := filepath.Join(dir, "full"), filepath.Join(dir, "ro")
	mount := func(target, opts string) {
		if err := os.Mkdir(target, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mount("tmpfs", target, "tmpfs", 0, opts); err != nil {
			t.Skipf("cannot mount a tmpfs here: %v", err)
		}
		t.Cleanup(func() { syscall.Unmount(target, syscall.MNT_DETACH) })
	}
	mount(full, "size=64k")
	mount(ro, "size=64k")
	// A tmpfs remounted read-only stops root, which a 0555 mode does not.
	if err := syscall.Mount("tmpfs", ro, "tmpfs", syscall.MS_REMOUNT|syscall.MS_RDONLY, "size=64k"); err != nil {
		t.Skipf("cannot remount a tmpfs read-only: %v", err)
	}
	specPath := filepath.Join(dir, "files.hcl")
	src := fmt.Sprintf(`
suite "faults" {
  repeat = 2
  warmup = "0s"
}

benchmark "before" {
  op         = "noop"
  iterations = 1000
}

benchmark "full" {
  op = "file.write"
  matrix {
    atomic = [false, true]
  }
  atomic     = param.atomic
  dir        = %[1]q
  size       = "16MB"
  iterations = 2
}

benchmark "read_full" {
  op         = "file.read"
  dir        = %[1]q
  size       = "16MB"
  iterations = 2
}

benchmark "readonly" {
  op         = "file.write"
  dir        = %[2]q
  iterations = 2
}

benchmark "after" {
  op         = "file.write"
  iterations = 2
}
`, full, ro)
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--no-progress", "--label", "box", "--out", out, specPath}, &stdout, &stderr)
	if code != exitBenchError {
		t.Errorf("exit code %d, want %d\nstderr:\n%s", code, exitBenchError, stderr.String())
	}
	matches, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(matches) != 1 {
		t.Fatalf("result files %q, want one", matches)
	}
	r, err := results.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"before":            "",
		"full/atomic=false": "no space left on device",
		"full/atomic=true":  "no space left on device",
		"read_full":         "no space left on device",
		"readonly":          "read-only file system",
		"after":             "",
	}
	for _, b := range r.Benchmarks {
		w, ok := want[b.Name]
		if !ok {
			t.Errorf("unexpected benchmark %s", b.Name)
			continue
		}
		delete(want, b.Name)
		switch {
		case w == "" && (b.Error != "" || len(b.Runs) != 2):
			t.Errorf("%s: error %q, %d runs; want 2 runs", b.Name, b.Error, len(b.Runs))
		case w != "" && !strings.Contains(b.Error, w):
			t.Errorf("%s: error %q, want it to say %q", b.Name, b.Error, w)
		}
	}
	for name := range want {
		t.Errorf("benchmark %s missing from the result", name)
	}
	// The failed writes leave neither the file nor its temporary behind.
	for _, d := range []string{full, ro} {
		if left, _ := os.ReadDir(d); len(left) > 0 {
			t.Errorf("left in %s: %v", d, left)
		}
	}
}

// TestRunWithServerLeavesNoDescriptors runs, in this process, a suite of
// file, spawn, exec and http ops against a server, and checks that every
// file descriptor is given back and no child is left. (TestRunLeavesNoFiles
// covers the ops without a server.) The server is `specrun serve` as a
// command: a builtin server would run this test binary.
func TestRunWithServerLeavesNoDescriptors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc/self/fd")
	}
	if _, err := exec.LookPath("specrun"); err != nil {
		t.Skipf("no specrun in $PATH (testscript.Main puts one there): %v", err)
	}
	port := freePort(t)
	dir, tmp := privateTmp(t)
	specPath := filepath.Join(dir, "all.hcl")
	src := fmt.Sprintf(`
suite "all" {
  repeat = 2
  warmup = "0s"
}

server "site" {
  command = ["specrun", "serve", "--addr", "127.0.0.1:%[1]d"]
  url     = "http://127.0.0.1:%[1]d"
  ready   = "http://127.0.0.1:%[1]d/"
}

benchmark "load" {
  op          = "http"
  server      = "site"
  requests    = 200
  concurrency = 4
}

benchmark "fresh_connections" {
  op          = "http"
  server      = "site"
  requests    = 50
  concurrency = 2
  keepalive   = false
}

benchmark "write" {
  op         = "file.write"
  atomic     = true
  iterations = 10
}

benchmark "read" {
  op         = "file.read"
  iterations = 10
}

benchmark "spawn" {
  op         = "process.spawn"
  iterations = 3
}

benchmark "exec" {
  op         = "exec"
  command    = ["true"]
  stdin      = %[2]q
  setup      = "true"
  iterations = 3
}
`, port, specPath)
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	kids := len(descendants(os.Getpid()))
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--no-progress", "--out", filepath.Join(dir, "out"), specPath}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit code %d, want 0\nstderr:\n%s\nstdout:\n%s", code, stderr.String(), stdout.String())
	}
	// Idle HTTP connections are closed by goroutines that may need a moment.
	after := openFDs(t)
	for deadline := time.Now().Add(3 * time.Second); after > before && time.Now().Before(deadline); after = openFDs(t) {
		time.Sleep(50 * time.Millisecond)
	}
	if after > before {
		t.Errorf("%d file descriptors open after the run, %d before", after, before)
	}
	if n := len(descendants(os.Getpid())); n > kids {
		t.Errorf("%d child processes after the run, %d before: %v", n, kids, descendants(os.Getpid()))
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temp dir: %v", left)
	}
}

// TestRandomSignals interrupts runs of a mixed spec (an exec whose shell
// leaves a child and a daemon, a command server with a helper process,
// http load on it, file writes in the run's temp dir) at a random moment,
// with SIGINT, SIGTERM or two SIGINTs. After each: no process the run
// started is alive (found by a marker in their command lines, so that a
// daemon that left specrun's tree is found too), TMPDIR is empty, no temp
// file is left in --out, and a result that was written is valid JSON.
func TestRandomSignals(t *testing.T) {
	const runs = 30
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	type trial struct {
		sig    string
		delay  time.Duration
		second time.Duration // the second SIGINT's delay after the first
	}
	trials := make([]trial, runs)
	for i := range trials {
		// The delay counts from the run's first child: before it, specrun
		// may not have installed its signal handlers yet, and a signal's
		// default action ends it with nothing cleaned up.
		tr := trial{delay: time.Duration(rng.Int63n(int64(1200 * time.Millisecond)))}
		switch i % 3 {
		case 0:
			tr.sig = "INT"
		case 1:
			tr.sig = "TERM"
		default:
			tr.sig = "INT+INT"
			tr.second = time.Duration(rng.Int63n(int64(300 * time.Millisecond)))
		}
		trials[i] = tr
	}
	start := time.Now()
	for i, tr := range trials {
		t.Run(fmt.Sprintf("%02d-%s-%v", i, tr.sig, tr.delay.Round(time.Millisecond)), func(t *testing.T) {
			t.Parallel()
			marker := fmt.Sprintf("%d%03d", os.Getpid(), i)
			p := startSpecrun(t, fmt.Sprintf(`
suite "mixed" {
  repeat = 2
  warmup = "0s"
}

server "app" {
  command = ["sh", "-c", "sleep 301.%[2]s & exec specrun serve --addr 127.0.0.1:%[1]d"]
  url     = "http://127.0.0.1:%[1]d"
  ready   = "http://127.0.0.1:%[1]d/"
  grace   = "1s"
}

benchmark "grandchild" {
  op         = "exec"
  shell      = "sleep 302.%[2]s & setsid sleep 303.%[2]s & sleep 0.05; true"
  iterations = 2
}

benchmark "load" {
  op          = "http"
  server      = "app"
  requests    = 300
  concurrency = 2
}

benchmark "files" {
  op         = "file.write"
  size       = "4KB"
  iterations = 200
}
`, freePort(t), marker))
			for first := time.Now().Add(20 * time.Second); len(descendants(p.cmd.Process.Pid)) == 0; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(first) {
					t.Fatalf("no child of specrun after 20s\nstderr:\n%s", p.stderr.String())
				}
			}
			deadline := time.Now().Add(tr.delay)
			for time.Now().Before(deadline) {
				p.record()
				time.Sleep(10 * time.Millisecond)
			}
			p.record()
			switch tr.sig {
			case "TERM":
				p.cmd.Process.Signal(syscall.SIGTERM)
			default:
				p.cmd.Process.Signal(syscall.SIGINT)
				if tr.sig == "INT+INT" {
					time.Sleep(tr.second)
					p.record()
					p.cmd.Process.Signal(syscall.SIGINT)
				}
			}
			p.wait(t, 30*time.Second)
			stderr := p.stderr.String()
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
				t.Errorf("stderr shows a Go panic or stack:\n%s", stderr)
			}
			p.checkNoOrphans(t)
			var left []string
			for waitUntil := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				left = left[:0]
				for _, pi := range allProcs() {
					if !pi.zombie && strings.Contains(pi.cmdline, "."+marker) {
						left = append(left, fmt.Sprintf("%d %q (ppid %d)", pi.pid, pi.cmdline, pi.ppid))
					}
				}
				if len(left) == 0 || time.Now().After(waitUntil) {
					break
				}
			}
			if len(left) > 0 {
				t.Errorf("the run's processes outlive it: %s\nstderr:\n%s", strings.Join(left, "; "), stderr)
			}
			if entries, _ := os.ReadDir(p.tmp); len(entries) > 0 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("left in TMPDIR: %v", names)
			}
			entries, _ := os.ReadDir(p.out)
			for _, e := range entries {
				name := e.Name()
				switch {
				case strings.Contains(name, ".tmp"):
					t.Errorf("temp file left in --out: %s", name)
				case strings.HasSuffix(name, ".json"):
					if _, err := results.ReadFile(filepath.Join(p.out, name)); err != nil {
						t.Errorf("result %s is not valid: %v", name, err)
					}
				}
			}
		})
	}
	t.Cleanup(func() { t.Logf("%d interrupted runs in %v", runs, time.Since(start).Round(time.Millisecond)) })
}

// TestInterruptedSetupLeavesNothing interrupts a run while an exec's setup
// (which New runs, and the runner gives up on after its grace) still runs
// a grandchild: the grandchild dies with the run.
func TestInterruptedSetupLeavesNothing(t *testing.T) {
	marker := fmt.Sprintf("%d", os.Getpid())
	p := startSpecrun(t, fmt.Sprintf(`
suite "setup" {
  repeat = 1
  warmup = "0s"
}

benchmark "slow_setup" {
  op         = "exec"
  command    = ["/bin/true"]
  setup      = "sleep 305.%[1]s; true"
  iterations = 1
}
`, marker))
	p.waitFor(t, "sleep", "305."+marker)
	p.record()
	p.signal(t, syscall.SIGINT)
	if code := p.wait(t, 20*time.Second); code != exitSIGINT {
		t.Errorf("exit status %d, want %d\nstderr:\n%s", code, exitSIGINT, p.stderr.String())
	}
	p.checkNoOrphans(t)
}
