package ops

import (
	"net/netip"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// sleepUntil waits for the monotonic clock (monoNow) to reach t, or for
// stop, and reports whether t came. The Go runtime wakes sleepers up to a
// millisecond late, so the last stretch is a nanosleep with the thread's
// timer slack cut from 50µs to 1µs: an open model at 10,000 requests/s
// needs its sends on time within microseconds.
func sleepUntil(t int64, stop *atomic.Bool) bool {
	const coarse = int64(1500 * time.Microsecond)
	for !stop.Load() {
		d := t - monoNow()
		switch {
		case d <= 0:
			return true
		case d > coarse:
			// In steps, so that a stop is seen within 50ms.
			time.Sleep(min(time.Duration(d-coarse)+500*time.Microsecond, 50*time.Millisecond))
		default:
			syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_TIMERSLACK, 1000, 0)
			ts := syscall.NsecToTimespec(d)
			syscall.Nanosleep(&ts, nil)
		}
	}
	return false
}

// rawDial starts a TCP connect to addr on a non-blocking socket handed
// straight to the runtime's poller as an *os.File. net's dialer adds
// getsockname, getpeername and TCP_NODELAY calls and parks until its poller
// reports the connect done, about a tenth of a new connection's CPU on
// loopback. connected waits for the connect to finish (breakable through
// the file's deadline) and reports how it ended. nodelay is for
// connections that carry more than one request.
func rawDial(addr netip.AddrPort, nodelay bool) (c conn, connected func() error, ok bool) {
	var sa syscall.Sockaddr
	family := syscall.AF_INET
	if a := addr.Addr(); a.Is4() {
		sa = &syscall.SockaddrInet4{Port: int(addr.Port()), Addr: a.As4()}
	} else {
		family = syscall.AF_INET6
		sa = &syscall.SockaddrInet6{Port: int(addr.Port()), Addr: a.As16()}
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, false // let net's dialer try, and report its error
	}
	if nodelay {
		syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	}
	err = syscall.Connect(fd, sa)
	f := os.NewFile(uintptr(fd), "tcp "+addr.String())
	connected = func() error {
		switch err {
		case nil, syscall.EINPROGRESS, syscall.EALREADY, syscall.EINTR:
		default:
			return os.NewSyscallError("connect", err)
		}
		rc, err := f.SyscallConn()
		if err != nil {
			return err
		}
		var cerr error
		if err := rc.Write(func(fd uintptr) bool {
			// Connecting again tells how the first attempt stands.
			switch err := syscall.Connect(int(fd), sa); err {
			case syscall.EALREADY, syscall.EINPROGRESS, syscall.EINTR:
				return false // not yet: wait until the socket is writable
			case nil, syscall.EISCONN:
			default:
				cerr = os.NewSyscallError("connect", err)
			}
			return true
		}); err != nil {
			return err
		}
		return cerr
	}
	return f, connected, true
}
