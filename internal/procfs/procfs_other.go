//go:build !linux

package procfs

import (
	"errors"
	"fmt"
	"time"
)

var errNoProc = fmt.Errorf("procfs: no /proc on this system: %w", errors.ErrUnsupported)

// Stat reads /proc/PID/stat.
func Stat(pid int) (Proc, error) { return Proc{}, errNoProc }

// HWM is the process's peak resident set size (VmHWM) in bytes.
func HWM(pid int) (int64, error) { return 0, errNoProc }

// ResetHWM sets the process's peak RSS back to its current RSS.
func ResetHWM(pid int) error { return errNoProc }

// GroupMembers lists the live processes of the process group pgid.
func GroupMembers(pgid int) []int { return nil }

// Children lists the live processes whose parent is pid.
func Children(pid int) []int { return nil }

// SystemBusy is the CPU time all CPUs together spent not idle since boot.
func SystemBusy() (time.Duration, error) { return 0, errNoProc }

// CPUInfo reads /proc/cpuinfo.
func CPUInfo() (CPU, error) { return CPU{}, errNoProc }

// MemInfo reads MemTotal and MemAvailable from /proc/meminfo.
func MemInfo() (Memory, error) { return Memory{}, errNoProc }

// Listeners returns the inodes of the TCP sockets that listen on port.
func Listeners(port int) ([]uint64, error) { return nil, errNoProc }

// Sockets returns the inodes of the sockets the process pid has open.
func Sockets(pid int) ([]uint64, error) { return nil, errNoProc }

// Members lists the live processes that match.
func Members(match func(Proc) bool) []int { return nil }
