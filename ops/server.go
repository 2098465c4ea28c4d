package ops

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ServerURLScheme prefixes the URL that a spec sees for a builtin server
// ("specrun-server://NAME"): its port is chosen when the run starts, so the
// http op resolves the name through Env.Server at run time.
const ServerURLScheme = "specrun-server://"

// ServerLookup is implemented by an Env that knows which server block a URL
// belongs to. A spec may load a command server through its URL
// (`url = "${server.app.url}/health"`, which is a plain http URL) rather
// than `server = "app"`; the http op then still starts that server and
// measures its CPU and RSS.
type ServerLookup interface {
	ServerFor(url string) (name string, ok bool)
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times; it is 100
// on every Linux architecture specrun builds for.
const clockTicks = 100

// sampleEvery is how often a load phase samples the server's RSS: often
// enough for a peak, rare enough to cost the client nothing measurable.
const sampleEvery = 10 * time.Millisecond

// procWatch follows a server's process group through a load phase: its CPU
// time (user+sys, from /proc/PID/stat) and its peak RSS (the kernel's VmHWM,
// reset at the start through clear_refs, and VmRSS samples of the group).
type procWatch struct {
	pids []int
	cpu0 time.Duration
	peak atomic.Int64
	done chan struct{}
	wg   sync.WaitGroup
}

// watchProcs starts following the process group led by pid (a server is
// started in its own group, so a wrapper script's children count too).
func watchProcs(pid int) *procWatch {
	w := &procWatch{pids: groupPIDs(pid), done: make(chan struct{})}
	for _, p := range w.pids {
		// "5" resets the peak RSS to the current RSS (proc(5)).
		os.WriteFile("/proc/"+strconv.Itoa(p)+"/clear_refs", []byte("5"), 0)
	}
	w.cpu0 = w.cpu()
	w.peak.Store(w.rss())
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
				if r := w.rss(); r > w.peak.Load() {
					w.peak.Store(r)
				}
			}
		}
	}()
	return w
}

// Stop ends the watch and returns the group's CPU time since the start and
// its peak RSS in bytes.
func (w *procWatch) Stop() (cpu time.Duration, peakRSS int64) {
	close(w.done)
	w.wg.Wait()
	peak := max(w.peak.Load(), w.rss())
	for _, p := range w.pids {
		peak = max(peak, procHWM(p))
	}
	return max(w.cpu()-w.cpu0, 0), peak
}

func (w *procWatch) cpu() time.Duration {
	var ticks int64
	for _, p := range w.pids {
		f := statFields(p)
		if len(f) > 15 {
			u, _ := strconv.ParseInt(f[13], 10, 64)
			s, _ := strconv.ParseInt(f[14], 10, 64)
			ticks += u + s
		}
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

func (w *procWatch) rss() int64 {
	var pages int64
	for _, p := range w.pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/statm")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 1 {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			pages += n
		}
	}
	return pages * int64(os.Getpagesize())
}

// statFields splits /proc/PID/stat into its fields, with the command name
// (which may hold spaces) as field 2 and the rest from field 3 on.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open {
		return nil
	}
	return append([]string{strings.TrimSpace(s[:open]), s[open+1 : close]}, strings.Fields(s[close+1:])...)
}

// groupPIDs lists the process group pgid for a watch: pgid first, then its
// other live members.
func groupPIDs(pgid int) []int {
	pids := []int{pgid}
	for _, p := range GroupMembers(pgid) {
		if p != pgid {
			pids = append(pids, p)
		}
	}
	return pids
}

// GroupMembers lists the live processes (zombies are dead) in the process
// group pgid, from /proc.
func GroupMembers(pgid int) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// Fields: pid, comm, state, ppid, pgrp.
		if f := statFields(p); len(f) > 4 && f[2] != "Z" && f[2] != "X" && f[4] == strconv.Itoa(pgid) {
			pids = append(pids, p)
		}
	}
	return pids
}

// procHWM reads a process's peak resident set size (VmHWM) in bytes.
func procHWM(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	return statusKB(b, "VmHWM:")
}

// statusKB returns the value of a "Key:   123 kB" line of /proc/PID/status in bytes.
func statusKB(status []byte, key string) int64 {
	i := bytes.Index(status, []byte(key))
	if i < 0 {
		return 0
	}
	line := status[i+len(key):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	line = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))
	kb, _ := strconv.ParseInt(string(line), 10, 64)
	return kb << 10
}
