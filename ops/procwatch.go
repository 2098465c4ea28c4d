package ops

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specrun/specrun/internal/procfs"
)

// sampleEvery is how often a load phase samples the server's RSS: often
// enough for a peak, rare enough to cost the client nothing measurable.
const sampleEvery = 10 * time.Millisecond

// procWatch follows a server's process group through a load phase: its CPU
// time (user+sys, from /proc/PID/stat) and its peak RSS (the kernel's VmHWM,
// reset at the start through clear_refs, and VmRSS samples of the group).
type procWatch struct {
	leader procfs.Proc // the server's main process as the watch began
	pids   []int
	cpu0   time.Duration
	peak   atomic.Int64 // the group's RSS, summed over its processes
	own    atomic.Int64 // the main process's own RSS
	thr    atomic.Int64 // the most threads the group had at once
	done   chan struct{}
	wg     sync.WaitGroup
}

// watchProcs starts following the process group led by pid (a server is
// started in its own group, so a wrapper script's children count too).
func watchProcs(pid int) *procWatch {
	w := &procWatch{pids: groupPIDs(pid), done: make(chan struct{})}
	w.leader, _ = procfs.Stat(pid)
	for _, p := range w.pids {
		procfs.ResetHWM(p) // where it cannot be reset, the peak is the process's whole life's
	}
	w.cpu0 = w.cpu()
	w.sample()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-t.C:
				w.sample()
			}
		}
	}()
	return w
}

// Figures are what a watch saw of a server over a load phase.
type Figures struct {
	CPU        time.Duration // user+sys of the whole group
	GroupRSS   int64         // peak resident set of the group, summed over its processes, bytes
	OwnRSS     int64         // peak resident set of the server's main process alone, bytes
	MaxThreads int           // the most threads the group had at once
}

// Stop ends the watch and returns what it saw: the group's CPU time since
// the start, its peak RSS and the main process's own, and its threads.
func (w *procWatch) Stop() Figures {
	close(w.done)
	w.wg.Wait()
	w.sample()
	peak, own := w.peak.Load(), w.own.Load()
	for i, p := range w.pids {
		if hwm, err := procfs.HWM(p); err == nil {
			if i == 0 {
				own = max(own, hwm) // pids[0] is the leader
			}
			peak = max(peak, hwm)
		}
	}
	return Figures{CPU: max(w.cpu()-w.cpu0, 0), GroupRSS: max(peak, own), OwnRSS: own, MaxThreads: int(w.thr.Load())}
}

// sample records the group's RSS and threads now, where above their peaks.
func (w *procWatch) sample() {
	var rss, own, thr int64
	for i, p := range w.pids {
		if s, err := procfs.Stat(p); err == nil && s.Alive() {
			rss += s.RSS
			thr += int64(s.Threads)
			if i == 0 {
				own = s.RSS
			}
		}
	}
	for _, m := range []struct {
		v *atomic.Int64
		n int64
	}{{&w.peak, rss}, {&w.own, own}, {&w.thr, thr}} {
		if m.n > m.v.Load() {
			m.v.Store(m.n)
		}
	}
}

// Exited is an error when the server's main process, alive when the watch
// began, has exited since: the phase then loaded a dead server, or
// whatever took its port.
func (w *procWatch) Exited() error {
	if w.leader.PID == 0 {
		return nil // not known at the start
	}
	if p, err := procfs.Stat(w.leader.PID); err == nil && p.Alive() && p.Start == w.leader.Start {
		return nil
	}
	return fmt.Errorf("the server (pid %d) exited during the load phase", w.leader.PID)
}

func (w *procWatch) cpu() time.Duration {
	var cpu time.Duration
	for _, p := range w.pids {
		if s, err := procfs.Stat(p); err == nil {
			cpu += s.CPU()
		}
	}
	return cpu
}

// groupPIDs lists the process group pgid for a watch: pgid first, then its
// other live members.
func groupPIDs(pgid int) []int {
	pids := []int{pgid}
	for _, p := range procfs.GroupMembers(pgid) {
		if p != pgid {
			pids = append(pids, p)
		}
	}
	return pids
}
