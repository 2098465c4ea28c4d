package servers

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3

// threadCPU returns a function that reports the CPU time of the calling
// thread, and a function to call when done. Calibrating the simulated work
// on CPU time rather than wall time keeps it right on a busy machine, where
// the calibrating thread may be preempted.
func threadCPU() (now func() time.Duration, done func()) {
	runtime.LockOSThread()
	return func() time.Duration {
		var ts syscall.Timespec
		if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
			return time.Duration(time.Now().UnixNano())
		}
		return time.Duration(ts.Nano())
	}, runtime.UnlockOSThread
}
