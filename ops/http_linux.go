package ops

import (
	"net/netip"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// pacer waits for an open model's send times. The Go runtime wakes a
// sleeper up to a millisecond late, and a thread of its own per sleeping
// connection costs an OS wake-up each (a loaded machine makes those late
// too), so a pacer arms a timerfd and reads it through the runtime's
// poller: the wake is precise to microseconds and comes with the poller's
// other events.
type pacer struct {
	f   *os.File // nil when no timerfd could be had: the runtime's sleep
	fd  uintptr  // f's; f.Fd() would make reads block their thread
	buf [8]byte
}

func newPacer() *pacer {
	fd, _, errno := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic,
		syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return &pacer{}
	}
	return &pacer{f: os.NewFile(fd, "timerfd"), fd: fd}
}

const clockMonotonic = 1 // CLOCK_MONOTONIC

// itimerspec is the kernel's struct itimerspec.
type itimerspec struct {
	interval, value syscall.Timespec
}

// wait waits for the monotonic clock (monoNow) to reach t, or for stop,
// and reports whether t came. It looks at stop at least every 50 ms.
func (p *pacer) wait(t int64, stop *atomic.Bool) bool {
	for !stop.Load() {
		d := t - monoNow()
		if d <= 0 {
			return true
		}
		d = min(d, int64(50*time.Millisecond))
		if p.f == nil {
			time.Sleep(time.Duration(d))
			continue
		}
		its := itimerspec{value: syscall.NsecToTimespec(d)}
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, p.fd, 0,
			uintptr(unsafe.Pointer(&its)), 0, 0, 0); errno != 0 {
			p.f.Close()
			p.f = nil
			continue
		}
		// Read, not a raw wait: a timer that fired before the wait began
		// would leave a raw wait blocked, since the poller's readiness is
		// reset when a wait starts.
		p.f.Read(p.buf[:]) // until it fires
	}
	return false
}

func (p *pacer) close() {
	if p.f != nil {
		p.f.Close()
	}
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
