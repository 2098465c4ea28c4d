package servers

import (
	"os/exec"
	"runtime"
	"sync"
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

// groupAttr starts a server in its own process group, so that stopping it
// reaches whatever it forks, and has the kernel kill it if specrun dies.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Pdeathsig fires when the thread that started the child exits, not the
// process, and Go ends threads (a goroutine that exits while locked to its
// thread, as an op timing thread creation does). So servers are started
// from one locked thread that lives as long as specrun.
var (
	spawnOnce sync.Once
	spawnReqs chan func()
)

// startProcess starts cmd from the long-lived spawning thread.
func startProcess(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnReqs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must not be reused or ended
			for f := range spawnReqs {
				f()
			}
		}()
	})
	errc := make(chan error, 1)
	spawnReqs <- func() { errc <- cmd.Start() }
	return <-errc
}
