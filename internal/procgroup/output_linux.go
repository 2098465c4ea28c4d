//go:build linux

package procgroup

import (
	"os"
	"syscall"
	"unsafe"
)

// pending is how many bytes wait in the pipe r (FIONREAD).
func pending(r *os.File) int {
	rc, err := r.SyscallConn()
	if err != nil {
		return 0
	}
	var n int32
	rc.Control(func(fd uintptr) {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); e != 0 {
			n = 0
		}
	})
	return int(n)
}
