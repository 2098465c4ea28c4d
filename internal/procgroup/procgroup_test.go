//go:build linux

package procgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specrun/specrun/internal/procfs"
)

// marked lists the live processes whose command line starts with prefix
// (arguments separated by spaces).
func marked(t *testing.T, prefix string) []int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.HasPrefix(strings.ReplaceAll(string(cmdline), "\x00", " "), prefix) {
			continue
		}
		if p, err := procfs.Stat(pid); err == nil && p.Alive() {
			pids = append(pids, pid)
		}
	}
	return pids
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A command's children, grandchildren and (where cgroups hold them) a
// daemon that left the process group all die with the group.
func TestKillReachesDescendants(t *testing.T) {
	g := New("test kill", Options{})
	defer g.Close()
	marker := "3.1" + strconv.Itoa(os.Getpid()%1000)
	daemon := ""
	if g.cg != nil {
		daemon = "setsid sleep " + marker + "2 & "
	}
	cmd := exec.Command("/bin/sh", "-c", "sleep "+marker+"0 & (sleep "+marker+"1 & wait) & "+daemon+"wait")
	if err := g.Start(cmd); err != nil {
		t.Fatal(err)
	}
	want := 3
	if daemon != "" {
		want = 4
	}
	waitFor(t, "the sleeps", func() bool { return len(marked(t, "sleep "+marker)) == want-1 })
	if p, err := procfs.Stat(cmd.Process.Pid); err != nil || p.PGRP != cmd.Process.Pid {
		t.Errorf("the command is not the leader of its own process group: %+v, %v", p, err)
	}
	if got := len(g.Members()); got < want {
		t.Errorf("Members = %d, want at least %d (%s)", got, want, g.Containment())
	}
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if left := marked(t, "sleep "+marker); len(left) > 0 {
		t.Errorf("after Kill (%s): %v still running", g.Containment(), left)
	}
	if m := g.Members(); len(m) != 0 {
		t.Errorf("after Kill: Members = %v", m)
	}
}

func TestCloseRemovesCgroup(t *testing.T) {
	g := New("test close", Options{Memory: true})
	if g.cg == nil {
		t.Skip("no writable cgroup here")
	}
	dirs := []string{g.cg.v2, g.cg.v1}
	if err := g.Start(exec.Command("/bin/sleep", "300")); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s still there after Close: %v", d, err)
		}
	}
	if err := g.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestMemoryPeak(t *testing.T) {
	g := New("test memory", Options{Memory: true})
	defer g.Close()
	if _, ok := g.MemoryPeak(); !ok {
		t.Skip("no memory cgroup here (" + g.Containment() + ")")
	}
	g.ResetMemoryPeak()
	// The shell holds 40 MB in a variable, in a child of the command.
	cmd := exec.Command("/bin/sh", "-c", `sh -c 'x=$(head -c 40000000 /dev/zero | tr "\0" a); echo ${#x}' >/dev/null`)
	if err := g.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	peak, _ := g.MemoryPeak()
	if peak < 40e6 || peak > 400e6 {
		t.Errorf("MemoryPeak = %.1f MB for a grandchild holding 40 MB, want 40..400", float64(peak)/1e6)
	}
	g.ResetMemoryPeak()
	small := exec.Command("/bin/true")
	if err := g.Start(small); err != nil {
		t.Fatal(err)
	}
	small.Wait()
	if p, _ := g.MemoryPeak(); p > 20e6 {
		t.Errorf("MemoryPeak of /bin/true after a reset = %.1f MB", float64(p)/1e6)
	}
}

func TestKillAll(t *testing.T) {
	g := New("test killall", Options{})
	defer g.Close()
	cmd := exec.Command("/bin/sleep", "313")
	if err := g.Start(cmd); err != nil {
		t.Fatal(err)
	}
	KillAll()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("KillAll did not kill the group's command")
	}
}

// deadPid is the pid of a child that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	dead := exec.Command("/bin/true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	return dead.Process.Pid
}

// nestedRun makes, in group, the run directory and one group of a specrun
// that a command of the group ran and that was killed with it.
func nestedRun(t *testing.T, group string) string {
	t.Helper()
	inner := filepath.Join(group, runDirPrefix+strconv.Itoa(deadPid(t))+"-2", "1-exec")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Remove(inner)
		os.Remove(filepath.Dir(inner))
	})
	return inner
}

// A group whose command ran specrun holds that specrun's run directory;
// closing the group removes both.
func TestCloseRemovesANestedRunsCgroups(t *testing.T) {
	g := New("test nested", Options{})
	if g.cg == nil {
		t.Skip("no writable cgroup here")
	}
	dir := g.cg.v2
	if dir == "" {
		dir = g.cg.v1
	}
	nestedRun(t, dir)
	if err := g.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still there after Close: %v", dir, err)
	}
}

// A dead run whose group held the run directory of a specrun it ran (as a
// launched or exec'd command) is removed whole: a directory left there
// would cost every later run the wait for it to empty.
func TestStaleNestedRunDirsRemoved(t *testing.T) {
	setupOnce.Do(discover)
	h := v2Tree
	if h == nil {
		h = memTree
	}
	if h == nil {
		t.Skip("no writable cgroup tree here")
	}
	run := filepath.Join(h.home, runDirPrefix+strconv.Itoa(deadPid(t))+"-1")
	group := filepath.Join(run, "1-launch")
	if err := os.MkdirAll(group, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Remove(group)
		os.Remove(run)
	})
	nestedRun(t, group)

	removeStale(h.home)

	if _, err := os.Stat(run); !os.IsNotExist(err) {
		t.Errorf("dead run's dir %s still there: %v", run, err)
	}
}

// A run killed with SIGKILL leaves its cgroups with their processes; the
// next run kills those and removes the directories.
func TestStaleRunDirsRemoved(t *testing.T) {
	setupOnce.Do(discover)
	h := v2Tree
	if h == nil {
		h = memTree
	}
	if h == nil {
		t.Skip("no writable cgroup tree here")
	}
	// A pid that is dead: a child that has been reaped.
	dead := exec.Command("/bin/true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(h.home, runDirPrefix+strconv.Itoa(dead.Process.Pid)+"-1")
	group := filepath.Join(run, "1-server")
	if err := os.MkdirAll(group, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(run)
	defer os.Remove(group)
	orphan := exec.Command("/bin/sleep", "314")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	defer orphan.Process.Kill()
	if err := os.WriteFile(filepath.Join(group, "cgroup.procs"), []byte(strconv.Itoa(orphan.Process.Pid)), 0); err != nil {
		t.Fatal(err)
	}
	// A live run's directory (this process's) is left alone.
	mine := filepath.Join(h.home, runDirName())
	os.Mkdir(mine, 0o755)
	keep := filepath.Join(mine, "keep")
	if err := os.Mkdir(keep, 0o755); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	defer os.Remove(mine) // fails, harmlessly, while a group is open
	defer os.Remove(keep)

	removeStale(h.home)

	done := make(chan struct{})
	go func() { orphan.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the dead run's process is still running")
	}
	if _, err := os.Stat(run); !os.IsNotExist(err) {
		t.Errorf("dead run's dir %s still there: %v", run, err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("live run's dir removed: %v", err)
	}
}
