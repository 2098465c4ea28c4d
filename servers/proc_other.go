//go:build !linux

package servers

import (
	"os/exec"
	"syscall"
	"time"
)

// threadCPU falls back to wall time where the thread's CPU clock is not at hand.
func threadCPU() (now func() time.Duration, done func()) {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }, func() {}
}

// groupAttr starts a server in its own process group, so that stopping it
// reaches whatever it forks.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// startProcess starts cmd.
func startProcess(cmd *exec.Cmd) error { return cmd.Start() }
