// Package procgroup contains the processes specrun starts. Every command
// (an exec run, setup, prepare, cleanup, process.spawn, a server) starts in
// a Group: its own process group and, where specrun may create cgroups, its
// own cgroup, which also holds what a command starts in a new session or
// process group (a daemon) and so escapes the process group. Killing a
// Group kills all of it.
//
// Every open Group is registered, so that the way out of a run that must
// end now (a second Ctrl-C) can kill them all with KillAll. What a SIGKILL
// of specrun leaves in its cgroups is killed by the next specrun, which
// removes the cgroups of dead runs when it makes its first Group.
package procgroup

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// NoCgroupsEnv, when set in the environment, keeps specrun from making
// cgroups: groups are process groups only, as where cgroups are not
// writable (to compare the two, or to test the fallback as root).
const NoCgroupsEnv = "SPECRUN_NO_CGROUPS"

// KillWait bounds the wait for a group to be empty after KILL, which cannot
// be ignored but can be delayed by a process stuck in the kernel.
const KillWait = 5 * time.Second

// Group is the processes of one command and of everything it starts.
type Group struct {
	name string

	mu     sync.Mutex
	pgids  map[int]bool // process groups started in it, each led by a started command
	cg     *cgroup
	closed bool
}

var (
	liveMu sync.Mutex
	live   = map[*Group]struct{}{}
)

// Options are what a group needs beyond containment.
type Options struct {
	// Memory asks for a cgroup with the memory controller, so that
	// MemoryPeak can tell the peak of what the group's processes used.
	Memory bool
}

// New returns an empty group; name says what it is for ("exec", "server
// app") and goes into the cgroup's name. Where no cgroup can be made the
// group is process groups only.
func New(name string, opts Options) *Group {
	liveMu.Lock()
	g := &Group{name: name, cg: newCgroup(name, opts), pgids: map[int]bool{}}
	live[g] = struct{}{}
	liveMu.Unlock()
	return g
}

// Containment says how the group holds its processes: "cgroup v2",
// "cgroup v1" (with the memory controller), or "process group".
func (g *Group) Containment() string {
	if g.cg == nil {
		return "process group"
	}
	return g.cg.kind()
}

// Start starts cmd in the group: in a process group of its own, in the
// group's cgroup from its first instruction on, and killed by the kernel if
// specrun dies. The start happens on a thread that lives as long as specrun
// (the kernel's parent-death signal follows the starting thread, not the
// process).
func (g *Group) Start(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	spawner.do(func() {
		cmd.SysProcAttr = g.SysProcAttr(cmd.SysProcAttr)
		leave, err := g.Enter()
		if err != nil {
			errc <- err
			return
		}
		err = cmd.Start()
		leave()
		errc <- err
	})
	if err := <-errc; err != nil {
		return err
	}
	g.Add(cmd.Process.Pid)
	return nil
}

// Add records the process group led by pid (a command started with
// SysProcAttr), so that Kill reaches it.
func (g *Group) Add(pid int) {
	g.mu.Lock()
	g.pgids[pid] = true
	g.mu.Unlock()
}

// Kill sends KILL to every process of the group and waits, up to KillWait,
// until none is left. The group stays usable.
func (g *Group) Kill() error {
	pgids := g.groups()
	deadline := time.Now().Add(KillWait)
	for {
		left := g.signal(pgids, syscall.SIGKILL)
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %d processes still running %v after KILL", g.name, left, KillWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Signal sends sig to every process of the group.
func (g *Group) Signal(sig syscall.Signal) {
	pgids := g.groups()
	g.signal(pgids, sig)
}

// Members lists the live processes of the group.
func (g *Group) Members() []int {
	pgids := g.groups()
	return g.members(pgids)
}

func (g *Group) groups() map[int]bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.pgids)
}

// signal sends sig to the group's processes and returns how many were live.
func (g *Group) signal(pgids map[int]bool, sig syscall.Signal) int {
	pids := g.members(pgids)
	for _, pid := range pids {
		syscall.Kill(pid, sig)
	}
	return len(pids)
}

// Close kills what is left of the group and removes its cgroup.
func (g *Group) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	g.mu.Unlock()
	if g.cg != nil {
		// All at once, where the kernel can, so that nothing forks in
		// between. Not before: a cgroup once killed kills what starts in it
		// afterwards too (Linux 6.18).
		g.cg.kill()
	}
	err := g.Kill()
	if g.cg != nil && err == nil {
		err = g.cg.remove()
	}
	liveMu.Lock()
	delete(live, g)
	if len(live) == 0 {
		removeRunDirs() // under liveMu: no group is made meanwhile
	}
	liveMu.Unlock()
	return err
}

// Reaped tells the group that the leader pid of one of its process groups
// has been reaped. The process group is forgotten if nothing is left in it
// (its id may be reused from now on) or if the cgroup holds what is; else
// Kill still reaches what is left.
func (g *Group) Reaped(pid int) {
	if g.cg == nil && len(g.members(map[int]bool{pid: true})) > 0 {
		return
	}
	g.Remove(pid)
}

// Remove forgets the process group led by pid, once the caller has killed
// what was left in it and reaped its leader.
func (g *Group) Remove(pid int) {
	g.mu.Lock()
	delete(g.pgids, pid)
	g.mu.Unlock()
}

// KillAll sends KILL to every process of every open group, without
// waiting: the way out when specrun must exit now.
func KillAll() {
	liveMu.Lock()
	groups := make([]*Group, 0, len(live))
	for g := range live {
		groups = append(groups, g)
	}
	liveMu.Unlock()
	for _, g := range groups {
		g.Signal(syscall.SIGKILL)
		if g.cg != nil {
			g.cg.kill()
		}
	}
}

// spawner is the thread that starts processes for Group.Start.
var spawner = &spawnThread{}

type spawnThread struct {
	once sync.Once
	reqs chan func()
}

func (s *spawnThread) do(f func()) {
	s.once.Do(func() {
		s.reqs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must not be reused or ended
			for f := range s.reqs {
				f()
			}
		}()
	})
	s.reqs <- f
}

var self = os.Getpid()
