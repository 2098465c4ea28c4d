// Package procfs reads what specrun needs from Linux's /proc: a process's
// CPU time, memory and process group, the machine's CPU and memory, and
// which processes hold a listening TCP socket. The parsing is
// github.com/prometheus/procfs's; this package picks the few figures specrun
// uses and turns them into its units (bytes, time.Duration).
//
// Where /proc does not exist (other systems), every call returns an error
// wrapping errors.ErrUnsupported, and GroupMembers returns nothing.
package procfs

import "time"

// UserHZ is the unit of the CPU times in /proc/PID/stat and /proc/stat: the
// kernel's USER_HZ, fixed at 100 on every Linux architecture.
const UserHZ = 100

// Proc is what /proc/PID/stat says about one process.
type Proc struct {
	PID, PPID int
	PGRP      int    // process group
	State     string // "R", "S", "D", "Z" (zombie), "X" (dead), ...
	Comm      string
	User, Sys time.Duration // CPU time so far
	RSS       int64         // resident set size, bytes
	Threads   int
	Start     uint64 // start time in ticks since boot: with PID, names the process
}

// CPU is the process's user plus system time.
func (p Proc) CPU() time.Duration { return p.User + p.Sys }

// Alive reports whether the process still runs: a zombie has exited and
// waits only for its parent to reap it.
func (p Proc) Alive() bool { return p.State != "Z" && p.State != "X" }

// CPU is what /proc/cpuinfo says about the first processor.
type CPU struct {
	Model string   // "Intel(R) Xeon(R) ...", or the architecture's nearest field
	Flags []string // x86 feature flags ("hypervisor" in a VM); empty elsewhere
}

// Memory is the machine's memory from /proc/meminfo, in bytes.
type Memory struct {
	Total     int64
	Available int64 // the kernel's estimate of what can be allocated without swapping
}

func ticks(n uint64) time.Duration { return time.Duration(n) * time.Second / UserHZ }
