//go:build !linux

package procgroup

import "syscall"

type cgroup struct{}

func newCgroup(string, Options) *cgroup { return nil }
func (*cgroup) kind() string            { return "" }
func (*cgroup) kill()                   {}
func (*cgroup) remove() error           { return nil }

// SysProcAttr returns base (or a new one) set to start a command in a
// process group of its own.
func (g *Group) SysProcAttr(base *syscall.SysProcAttr) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if base != nil {
		*a = *base
	}
	a.Setpgid, a.Pgid = true, 0
	return a
}

// Enter does nothing where there are no cgroups.
func (g *Group) Enter() (leave func(), err error) { return func() {}, nil }

// ResetMemoryPeak does nothing where there are no cgroups.
func (g *Group) ResetMemoryPeak() {}

// MemoryPeak is never known where there are no cgroups.
func (g *Group) MemoryPeak() (int64, bool) { return 0, false }

// members lists the process groups that still answer a signal; their
// members cannot be listed here.
func (g *Group) members(pgids map[int]bool) []int {
	var live []int
	for pgid := range pgids {
		if syscall.Kill(-pgid, 0) == nil {
			live = append(live, -pgid)
		}
	}
	return live
}

func removeRunDirs() {}
