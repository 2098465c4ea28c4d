//go:build linux

package procgroup

import (
	"syscall"
	"time"

	"github.com/specrun/specrun/internal/procfs"
)

// SysProcAttr returns base (or a new one) set to start a command in the
// group: a process group of its own, the group's v2 cgroup from the start
// (clone3's CLONE_INTO_CGROUP), and KILL if the starting thread ends.
func (g *Group) SysProcAttr(base *syscall.SysProcAttr) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if base != nil {
		*a = *base
	}
	a.Setpgid, a.Pgid = true, 0
	a.Pdeathsig = syscall.SIGKILL
	if g.cg != nil && g.cg.fd >= 0 {
		a.UseCgroupFD, a.CgroupFD = true, g.cg.fd
	}
	return a
}

// Enter moves the calling thread into the group's v1 cgroup, where the
// group has one, so that the children it forks are born inside; leave moves
// it back. The caller must hold the thread (runtime.LockOSThread) from
// Enter until after leave.
func (g *Group) Enter() (leave func(), err error) {
	if g.cg == nil {
		return func() {}, nil
	}
	return g.cg.enter()
}

// ResetMemoryPeak starts a new memory peak, before a command runs.
func (g *Group) ResetMemoryPeak() {
	if g.cg != nil {
		g.cg.resetPeak()
	}
}

// MemoryPeak is the peak memory charged to the group's cgroup since
// ResetMemoryPeak, above what it held then: the resident memory (and page
// cache) of the group's processes, children included. ok is false where the
// group has no memory cgroup.
func (g *Group) MemoryPeak() (bytes int64, ok bool) {
	if g.cg == nil {
		return 0, false
	}
	return g.cg.memoryPeak()
}

// members lists the live processes of the group: its cgroup's, or where it
// has none, those of its process groups.
func (g *Group) members(pgids map[int]bool) []int {
	if g.cg != nil {
		return g.cg.procs()
	}
	if len(pgids) == 0 {
		return nil
	}
	return procfs.Members(func(p procfs.Proc) bool { return pgids[p.PGRP] && p.PID != self })
}

func nowPlus(d time.Duration) time.Time { return time.Now().Add(d) }
func pastDeadline(t time.Time) bool     { return time.Now().After(t) }
func sleepBrief()                       { time.Sleep(5 * time.Millisecond) }
