//go:build linux

package ops

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/specrun/specrun/internal/procgroup"
)

// pPID and wNoWait are waitid's P_PID and WNOWAIT (not in package syscall).
const (
	pPID    = 1
	wNoWait = 0x01000000
)

// spawn runs one child to completion in group g and reports its usage and
// the group's memory peak over its run. The child leads a process group of
// its own inside g; whatever it leaves running when it exits is killed
// before spawn returns, so one execution cannot load the next.
//
// The child is waited for in two steps: waitid with WNOWAIT sees the exit
// without reaping, so its pid (and process group id) cannot be reused while
// the group is killed; wait4 then reaps it with its rusage.
func spawn(ctx context.Context, s *spawnSpec, g *procgroup.Group) (childUsage, error) {
	fds := make([]uintptr, len(s.files))
	for i, f := range s.files {
		fds[i] = f.Fd()
	}
	attr := &syscall.ProcAttr{Dir: s.dir, Env: s.env, Files: fds, Sys: g.SysProcAttr(nil)}
	g.ResetMemoryPeak()
	start := time.Now()
	pid, err := syscall.ForkExec(s.path, s.argv, attr)
	if err != nil {
		return childUsage{}, err
	}
	g.Add(pid)
	defer g.Remove(pid)
	var (
		mu     sync.Mutex
		exited bool
	)
	kill := func() {
		mu.Lock()
		defer mu.Unlock()
		if !exited {
			syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
	stop := context.AfterFunc(ctx, kill)
	defer stop()

	var info [128]byte // siginfo_t, unread: the status comes from wait4
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|wNoWait, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			syscall.Kill(-pid, syscall.SIGKILL)
			return childUsage{}, fmt.Errorf("wait for pid %d: %w", pid, e)
		}
		break
	}
	wall := time.Since(start)
	// The leader is a zombie now: the group id is still this child's.
	syscall.Kill(-pid, syscall.SIGKILL)
	mu.Lock()
	exited = true
	mu.Unlock()

	var (
		ws syscall.WaitStatus
		ru syscall.Rusage
	)
	for {
		_, err := syscall.Wait4(pid, &ws, 0, &ru)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return childUsage{}, fmt.Errorf("wait for pid %d: %w", pid, err)
		}
		break
	}
	peak, _ := g.MemoryPeak()
	// Its process group is dealt with; what escaped it (a daemon) is still
	// in the cgroup, where there is one. Without one, Kill has nothing left
	// to look for, and costs no scan of /proc.
	g.Remove(pid)
	if err := g.Kill(); err != nil {
		return childUsage{}, err
	}
	u := childUsage{
		Wall:     wall,
		User:     time.Duration(ru.Utime.Nano()),
		Sys:      time.Duration(ru.Stime.Nano()),
		MaxRSS:   peak,
		ExitCode: ws.ExitStatus(),
	}
	if ws.Signaled() {
		u.ExitCode = 128 + int(ws.Signal())
	}
	return u, nil
}
