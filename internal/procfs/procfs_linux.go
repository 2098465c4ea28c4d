//go:build linux

package procfs

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	prom "github.com/prometheus/procfs"
)

// root is where proc is mounted; tests point it at a fixture.
var root = prom.DefaultMountPoint

var pageSize = int64(os.Getpagesize())

var defaultFS = sync.OnceValues(func() (prom.FS, error) { return prom.NewFS(root) })

func fsys() (prom.FS, error) {
	if root != prom.DefaultMountPoint {
		return prom.NewFS(root)
	}
	return defaultFS()
}

func proc(pid int) (prom.Proc, error) {
	fs, err := fsys()
	if err != nil {
		return prom.Proc{}, err
	}
	return fs.Proc(pid)
}

// Stat reads /proc/PID/stat.
func Stat(pid int) (Proc, error) {
	p, err := proc(pid)
	if err != nil {
		return Proc{}, err
	}
	s, err := p.Stat()
	if err != nil {
		return Proc{}, fmt.Errorf("read stat of pid %d: %w", pid, err)
	}
	return Proc{
		PID: s.PID, PPID: s.PPID, PGRP: s.PGRP, State: s.State, Comm: s.Comm,
		User: ticks(uint64(s.UTime)), Sys: ticks(uint64(s.STime)),
		RSS: int64(s.RSS) * pageSize, Threads: s.NumThreads, Start: s.Starttime,
	}, nil
}

// HWM is the process's peak resident set size (VmHWM) in bytes.
func HWM(pid int) (int64, error) {
	p, err := proc(pid)
	if err != nil {
		return 0, err
	}
	s, err := p.NewStatus()
	if err != nil {
		return 0, fmt.Errorf("read status of pid %d: %w", pid, err)
	}
	return int64(s.VmHWM), nil
}

// ResetHWM sets the process's peak RSS back to its current RSS, so that
// HWM reads the peak of what follows (clear_refs "5", proc(5)).
func ResetHWM(pid int) error {
	return os.WriteFile(root+"/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0)
}

// GroupMembers lists the live processes of the process group pgid, in
// increasing pid order. A zombie is not live: it has exited, and reaping
// it is its parent's business.
func GroupMembers(pgid int) []int {
	return Members(func(p Proc) bool { return p.PGRP == pgid })
}

// Children lists the live processes whose parent is pid.
func Children(pid int) []int {
	return Members(func(p Proc) bool { return p.PPID == pid })
}

// Members lists the live processes that match, in increasing pid order.
func Members(match func(Proc) bool) []int {
	fs, err := fsys()
	if err != nil {
		return nil
	}
	all, err := fs.AllProcs()
	if err != nil {
		return nil
	}
	var pids []int
	for _, p := range all {
		// A process that exits while the list is read is simply not a member.
		if s, err := Stat(p.PID); err == nil && s.Alive() && match(s) {
			pids = append(pids, p.PID)
		}
	}
	slices.Sort(pids)
	return pids
}

// SystemBusy is the CPU time all CPUs together spent not idle since boot
// (idle and iowait left out; guest time is already inside user).
func SystemBusy() (time.Duration, error) {
	fs, err := fsys()
	if err != nil {
		return 0, err
	}
	s, err := fs.Stat()
	if err != nil {
		return 0, fmt.Errorf("read stat: %w", err)
	}
	c := s.CPUTotal // seconds
	busy := c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal
	return time.Duration(math.Round(busy * float64(time.Second))), nil
}

// CPUInfo reads /proc/cpuinfo.
func CPUInfo() (CPU, error) {
	fs, err := fsys()
	if err != nil {
		return CPU{}, err
	}
	cpus, err := fs.CPUInfo()
	if err != nil {
		return CPU{}, fmt.Errorf("read cpuinfo: %w", err)
	}
	if len(cpus) == 0 {
		return CPU{}, errors.New("read cpuinfo: no processor listed")
	}
	c := cpus[0]
	model := c.ModelName
	if model == "" {
		model = c.Model
	}
	return CPU{Model: strings.TrimSpace(model), Flags: c.Flags}, nil
}

// MemInfo reads MemTotal and MemAvailable from /proc/meminfo.
func MemInfo() (Memory, error) {
	fs, err := fsys()
	if err != nil {
		return Memory{}, err
	}
	m, err := fs.Meminfo()
	if err != nil {
		return Memory{}, fmt.Errorf("read meminfo: %w", err)
	}
	if m.MemTotalBytes == nil {
		return Memory{}, errors.New("read meminfo: no MemTotal")
	}
	info := Memory{Total: int64(*m.MemTotalBytes)}
	if m.MemAvailableBytes != nil {
		info.Available = int64(*m.MemAvailableBytes)
	} else if m.MemFree != nil {
		info.Available = int64(*m.MemFreeBytes) // kernels before 3.14 have no estimate
	}
	return info, nil
}

// tcpListen is the state of a listening socket in /proc/net/tcp.
const tcpListen = 0x0A

// Listeners returns the inodes of the TCP sockets (IPv4 and IPv6) that
// listen on port.
func Listeners(port int) ([]uint64, error) {
	fs, err := fsys()
	if err != nil {
		return nil, err
	}
	var inodes []uint64
	var errs []error
	for _, read := range []func() (prom.NetTCP, error){fs.NetTCP, fs.NetTCP6} {
		socks, err := read()
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) { // no IPv6 on this machine
				errs = append(errs, err)
			}
			continue
		}
		for _, s := range socks {
			if s.St == tcpListen && s.LocalPort == uint64(port) {
				inodes = append(inodes, s.Inode)
			}
		}
	}
	if len(errs) == 2 {
		return nil, fmt.Errorf("read listening sockets: %w", errors.Join(errs...))
	}
	return inodes, nil
}

// Sockets returns the inodes of the sockets the process pid has open.
func Sockets(pid int) ([]uint64, error) {
	p, err := proc(pid)
	if err != nil {
		return nil, err
	}
	targets, err := p.FileDescriptorTargets()
	if err != nil {
		return nil, fmt.Errorf("read fds of pid %d: %w", pid, err)
	}
	var inodes []uint64
	for _, t := range targets {
		if s, ok := strings.CutPrefix(t, "socket:["); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
				inodes = append(inodes, n)
			}
		}
	}
	return inodes, nil
}
