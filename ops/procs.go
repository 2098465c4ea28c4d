//go:build linux

package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/specrun/specrun/internal/procgroup"
	"github.com/specrun/specrun/param"
)

func init() {
	Register(&Def{
		Name: "process.spawn",
		Doc: "One iteration starts the command as a child process (os.StartProcess: clone and execve, " +
			"with the executable's path resolved before the runs and stdio on /dev/null) and waits " +
			"for it to exit. A non-zero exit is the benchmark's error.",
		Classic: "NSTask process spawn",
		Params: []param.Param{{
			Name: "command", Type: param.Strings, Default: []string{"/bin/true"},
			Doc: "program and arguments, run without a shell",
		}},
		Metrics: []Metric{
			{Name: "user_ns", Unit: "ns", Doc: "child user CPU time per iteration (rusage; tick-apportioned for very short children)"},
			{Name: "sys_ns", Unit: "ns", Doc: "child system CPU time per iteration (rusage; tick-apportioned for very short children)"},
			{Name: "cpu_ns", Unit: "ns", Doc: "child user+sys CPU time per iteration: the reliable figure of the two"},
			{Name: "max_rss_bytes", Unit: "bytes", Doc: "largest ru_maxrss of the run's children; Go starts children with a vfork-style clone that shares the parent's memory until execve, so this is at least the parent's resident set, not the child's own peak (the exec op measures that)"},
		},
		New: newProcessSpawn,
	})
}

type processSpawn struct {
	path  string
	argv  []string
	null  *os.File
	group *procgroup.Group
}

func newProcessSpawn(p param.Values, _ Env) (Op, error) {
	argv := p.Strings("command")
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("process.spawn: command must name a program")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("process.spawn: find command: %w", err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, fmt.Errorf("process.spawn: open %s: %w", os.DevNull, err)
	}
	return &processSpawn{path: path, argv: argv, null: null, group: procgroup.New("process.spawn", procgroup.Options{})}, nil
}

// Run starts and waits for n children. Each leads its own process group in
// the op's group; a cancellation kills the child being waited for and
// everything it started, and what children leave behind in the op's cgroup
// is killed when the run ends (not between iterations, which are timed).
func (s *processSpawn) Run(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	// The thread that starts a child must outlive it: the kernel's
	// parent-death signal follows the thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	attr := &os.ProcAttr{Files: []*os.File{s.null, s.null, s.null}, Sys: s.group.SysProcAttr(nil)}
	defer s.group.Kill()
	stop := context.AfterFunc(ctx, func() { s.group.Signal(syscall.SIGKILL) })
	defer stop()
	var user, sys, maxRSS int64
	for i := int64(0); i < n; i++ {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		proc, err := os.StartProcess(s.path, s.argv, attr)
		if err != nil {
			return Sample{N: i}, fmt.Errorf("process.spawn: start %s: %w", s.path, err)
		}
		s.group.Add(proc.Pid)
		if ctx.Err() != nil {
			// Cancelled while it started: the kill above may have come
			// before the group knew of it.
			syscall.Kill(-proc.Pid, syscall.SIGKILL)
		}
		state, err := proc.Wait()
		// Reaped: its id may be reused. What it left is in the cgroup, where
		// there is one; without, only a cancellation while it runs reaches
		// its process group.
		s.group.Remove(proc.Pid)
		if err != nil {
			return Sample{N: i}, fmt.Errorf("process.spawn: wait for %s: %w", s.path, err)
		}
		if !state.Success() {
			if ctx.Err() != nil {
				return Sample{N: i}, ctx.Err()
			}
			return Sample{N: i}, fmt.Errorf("process.spawn: %s: %s", s.path, state)
		}
		if ru, ok := state.SysUsage().(*syscall.Rusage); ok {
			user += syscall.TimevalToNsec(ru.Utime)
			sys += syscall.TimevalToNsec(ru.Stime)
			maxRSS = max(maxRSS, int64(ru.Maxrss)*1024) // Linux reports KiB
		}
	}
	per := func(ns int64) float64 { return float64(ns) / float64(max(n, 1)) }
	return Sample{Metrics: map[string]float64{
		"user_ns":       per(user),
		"sys_ns":        per(sys),
		"cpu_ns":        per(user + sys),
		"max_rss_bytes": float64(maxRSS),
	}}, nil
}

// Close kills what the children left running and releases /dev/null.
func (s *processSpawn) Close() error {
	return errors.Join(s.group.Close(), s.null.Close())
}
