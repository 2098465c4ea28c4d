//go:build linux

package ops

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"time"

	"github.com/specrun/specrun/internal/procfs"
)

// ptraceExitKill kills the tracee if specrun dies while tracing it, so an
// interrupted run cannot leave a stopped child behind (PTRACE_O_EXITKILL;
// not in package syscall).
const ptraceExitKill = 0x100000

// spawn runs one child to completion and reports its usage; with trace,
// also its own peak RSS.
//
// The peak RSS is read from /proc/PID/status (VmHWM) at the child's
// PTRACE_EVENT_EXIT stop, while its address space still exists. rusage's
// ru_maxrss cannot be used: Go starts children with CLONE_VM, so until exec
// the child runs on specrun's address space, and exec carries that high-water
// mark into the child's maxrss (a 1 MB /bin/true reads as specrun's 10+ MB).
// Tracing costs two stops per child (after exec, at exit), about 10% of
// /bin/true's wall time on a busy 2-core VM (BenchmarkSpawnTrue), so timed
// executions are not traced. The peak is the command's own process: a
// process it forks is not traced (dash's `sh -c CMD` execs CMD in place).
func spawn(ctx context.Context, s *spawnSpec, trace bool) (childUsage, error) {
	if trace {
		// ptrace requests must come from the thread that started the tracee.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}

	fds := make([]uintptr, len(s.files))
	for i, f := range s.files {
		fds[i] = f.Fd()
	}
	attr := &syscall.ProcAttr{
		Dir:   s.dir,
		Env:   s.env,
		Files: fds,
		Sys:   &syscall.SysProcAttr{Ptrace: trace},
	}
	start := time.Now()
	pid, err := syscall.ForkExec(s.path, s.argv, attr)
	if err != nil {
		return childUsage{}, err
	}
	stop := context.AfterFunc(ctx, func() { syscall.Kill(pid, syscall.SIGKILL) })
	defer stop()
	var (
		ws     syscall.WaitStatus
		ru     syscall.Rusage
		hwm    int64
		traced bool
	)
	for {
		_, err := syscall.Wait4(pid, &ws, 0, &ru)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Kill(pid, syscall.SIGKILL)
			return childUsage{}, fmt.Errorf("wait for pid %d: %w", pid, err)
		}
		if ws.Exited() || ws.Signaled() {
			break
		}
		if !ws.Stopped() {
			continue
		}
		sig := 0
		switch {
		case !traced:
			// The SIGTRAP stop after the first exec: now the exit stop can be asked for.
			traced = true
			if err := syscall.PtraceSetOptions(pid, syscall.PTRACE_O_TRACEEXIT|ptraceExitKill); err != nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		case ws.TrapCause() == syscall.PTRACE_EVENT_EXIT:
			hwm, _ = procfs.HWM(pid)
		case ws.StopSignal() == syscall.SIGTRAP:
			// A later exec by the child: swallow the tracer's trap.
		default:
			sig = int(ws.StopSignal()) // deliver the child's own signals
		}
		syscall.PtraceCont(pid, sig)
	}
	wall := time.Since(start)
	u := childUsage{
		Wall:     wall,
		User:     time.Duration(ru.Utime.Nano()),
		Sys:      time.Duration(ru.Stime.Nano()),
		MaxRSS:   hwm,
		ExitCode: ws.ExitStatus(),
	}
	if ws.Signaled() {
		u.ExitCode = 128 + int(ws.Signal())
	}
	return u, nil
}
