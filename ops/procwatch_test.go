//go:build linux

package ops

import (
	"os/exec"
	"syscall"
	"testing"
)

func TestProcWatchSeesTheServerExit(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := watchProcs(cmd.Process.Pid)
	if err := w.Exited(); err != nil {
		t.Errorf("live server: Exited = %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	w.Stop()
	if err := w.Exited(); err == nil {
		t.Error("server killed during the watch: Exited = nil")
	}
}

// A wrapper (sh) whose child holds the memory and the threads: the group's
// peak RSS counts the child, the server's own is the wrapper's alone.
func TestProcWatchGroupAndOwnFigures(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to hold memory and threads in a child")
	}
	script := "import threading, time, sys\n" +
		"x = b'x' * (64 << 20)\n" +
		"for _ in range(3): threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n" +
		"print('ready', flush=True)\n" +
		"time.sleep(30)\n"
	cmd := exec.Command("sh", "-c", `"$0" -c "$1" & wait`, py, script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	if _, err := out.Read(make([]byte, 6)); err != nil { // "ready"
		t.Fatal(err)
	}
	w := watchProcs(cmd.Process.Pid)
	f := w.Stop()
	const mib = 1 << 20
	if f.GroupRSS < 60*mib {
		t.Errorf("group peak RSS %.1f MiB, want at least the child's 64 MiB", float64(f.GroupRSS)/mib)
	}
	if f.OwnRSS <= 0 || f.OwnRSS > 20*mib {
		t.Errorf("the wrapper's own peak RSS %.1f MiB, want its own few MiB", float64(f.OwnRSS)/mib)
	}
	if f.MaxThreads < 5 { // sh, and python's main thread and three more
		t.Errorf("max threads %d, want at least 5", f.MaxThreads)
	}
}
