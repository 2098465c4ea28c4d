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
