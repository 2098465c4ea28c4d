package ops

import (
	"errors"
	"net/netip"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The event-loop client is wrk's design: each of a phase's threads is one
// goroutine, on its own OS thread while it waits, running an epoll loop
// over its share of the connections, which
// are non-blocking sockets read and written with raw system calls. The
// request is written from the buffer built once per instance, the response
// parsed as each read arrives, and there is no goroutine per connection, no
// deadline per request (the loop checks request_timeout now and then) and
// one clock read per read that brings data, the first byte written being
// the last response's last byte read on a kept-alive connection. A rate
// phase's sends are timed by epoll_pwait2's nanosecond timeout.

// loopClient keeps the connections of an http instance between phases.
type loopClient struct {
	o     *httpOp
	conns []*loopConn
	cpus  int // GOMAXPROCS when prepared: the default number of loops
	loops int // the last phase's event loops
}

func newLoopClient(o *httpOp) client {
	if o.tls != nil {
		return nil
	}
	lc := &loopClient{o: o, conns: make([]*loopConn, o.concurrency), cpus: runtime.GOMAXPROCS(0)}
	for i := range lc.conns {
		lc.conns[i] = &loopConn{fd: -1, wire: wireConn{buf: o.bufs[i*readBufferSize : (i+1)*readBufferSize : (i+1)*readBufferSize]}}
	}
	return lc
}

// loopConn is one connection of an event loop and its request in flight.
type loopConn struct {
	wire     wireConn // the read buffer and the response's parser; no nc
	fd       int      // -1 when closed
	idx      int32    // its index in its loop, the epoll event's data
	state    connState
	sent     int   // bytes of the request written
	start    int64 // monoNow when the request began: its connect, or its first byte written
	ready    int64 // monoNow when its first byte was written, after any connect
	connect  int64 // time spent connecting; 0 on a kept-alive connection
	intended int64 // rate mode: when the request was due
	before   int64 // wire.n when the request began, to tell whether a response started
	fresh    bool  // connected for this request
	retried  bool  // a kept-alive connection found closed has been redialed
	readable bool  // data or an end came while the request was not being read
}

// connState is what a connection waits for.
type connState uint8

const (
	connIdle       connState = iota // nothing: its next request is about to be chosen
	connConnecting                  // its connect to finish
	connWriting                     // room to write the rest of the request
	connReading                     // the response
	connPacing                      // its slot in a rate phase
	connDone                        // nothing: it sends no more requests this phase
)

func (c *loopConn) inFlight() bool {
	return c.state == connConnecting || c.state == connWriting || c.state == connReading
}

// errRequestTimeout is a request over request_timeout.
var errRequestTimeout = errors.New("request timed out")

// eventLoop is one thread's loop over its connections for one phase.
type eventLoop struct {
	counter
	o       *httpOp
	ph      *phase
	sa      unix.Sockaddr
	family  int
	ep      int // the epoll instance
	conns   []*loopConn
	events  [64]unix.EpollEvent
	now     int64       // the latest clock reading
	live    int         // connections not done
	idle    []*loopConn // connections whose next request is to be chosen
	pacing  ring        // rate mode: connections waiting for their slots, earliest first
	every   int64       // how often to look for requests over request_timeout
	check   int64       // when to look next
	noWait2 bool        // epoll_pwait2 is missing: millisecond timeouts
}

// ring is a first-in first-out queue of connections, at most one entry each.
type ring struct {
	q          []*loopConn
	head, size int
}

func (r *ring) push(c *loopConn) {
	r.q[(r.head+r.size)%len(r.q)] = c
	r.size++
}

func (r *ring) peek() *loopConn { return r.q[r.head] }

func (r *ring) pop() *loopConn {
	c := r.q[r.head]
	r.head = (r.head + 1) % len(r.q)
	r.size--
	return c
}

// run sends the phase's requests from one event loop per thread.
func (lc *loopClient) run(ph *phase) []*counter {
	o := lc.o
	threads := lc.threads()
	// The phase's cancellation wakes every loop through one eventfd,
	// readable in all of their epolls once written.
	stopFD, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return lc.failAll(ph)
	}
	defer unix.Close(stopFD)
	loops := make([]*eventLoop, threads)
	lc.loops = threads
	every := int64(min(max(o.timeout/10, time.Millisecond), 100*time.Millisecond))
	for i := range loops {
		ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err == nil {
			err = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, stopFD, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1})
		}
		if err != nil {
			for _, l := range loops[:i] {
				unix.Close(l.ep)
			}
			if ep >= 0 {
				unix.Close(ep)
			}
			return lc.failAll(ph)
		}
		loops[i] = &eventLoop{o: o, ph: ph, ep: ep, every: every}
		loops[i].family, loops[i].sa = sockaddr(o.addrPort)
	}
	for i, c := range lc.conns {
		l := loops[i%threads]
		c.idx = int32(len(l.conns))
		l.conns = append(l.conns, c)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ph.ctx.Done():
			ph.stop.Store(true)
			one := [8]byte{1}
			unix.Write(stopFD, one[:])
		case <-done:
		}
	}()
	var wg sync.WaitGroup
	for _, l := range loops {
		wg.Add(1)
		// Not locked to its thread: a raw epoll wait keeps the loop on
		// its thread while it waits, and a loop the runtime preempts
		// (every 10 ms it runs) resumes on any thread, without the
		// hand-off between threads that a locked one costs each time.
		go func() {
			defer wg.Done()
			l.run()
		}()
	}
	wg.Wait()
	close(done)
	counters := make([]*counter, len(loops))
	for i, l := range loops {
		unix.Close(l.ep)
		counters[i] = &l.counter
	}
	return counters
}

// threads is the number of loops: threads, by default one per CPU the
// runtime had when the instance was prepared, and at most one per connection.
func (lc *loopClient) threads() int {
	threads := lc.o.threads
	if threads <= 0 {
		threads = lc.cpus
	}
	return min(threads, len(lc.conns))
}

// procs leaves a P to spare for the rest of the process (the server of a
// test, the phase's cancellation): each loop holds its P while it waits.
func (lc *loopClient) procs() int {
	if threads := lc.threads(); runtime.GOMAXPROCS(0) <= threads {
		return threads + 1
	}
	return 0
}

// sockaddr is addr for connect, one per loop: Connect writes into it.
func sockaddr(addr netip.AddrPort) (family int, sa unix.Sockaddr) {
	if a := addr.Addr(); a.Is4() {
		return unix.AF_INET, &unix.SockaddrInet4{Port: int(addr.Port()), Addr: a.As4()}
	}
	return unix.AF_INET6, &unix.SockaddrInet6{Port: int(addr.Port()), Addr: addr.Addr().As16()}
}

// failAll is a phase that could not start its loops (no file descriptors
// left): its requests fail, as a dial without a socket would.
func (lc *loopClient) failAll(ph *phase) []*counter {
	n := int64(1)
	if ph.deadline == 0 {
		n = ph.n
	}
	return []*counter{{t: tally{done: n, failed: n, bad: n}}}
}

// close closes the connections kept alive between phases.
func (lc *loopClient) close() {
	for _, c := range lc.conns {
		c.hangUp()
	}
}

func (c *loopConn) hangUp() {
	c.sent = 0 // a request cut off half written starts again whole
	if c.fd >= 0 {
		unix.Close(c.fd) // which also takes it out of its epoll
		c.fd = -1
	}
	c.wire.r, c.wire.w = 0, 0
	c.readable = false
}

// run drives the loop's connections until the phase ends for all of them.
func (l *eventLoop) run() {
	l.now = monoNow()
	l.check = l.now + l.every
	l.pacing.q = make([]*loopConn, len(l.conns))
	l.idle = make([]*loopConn, 0, len(l.conns))
	l.live = len(l.conns)
	for _, c := range l.conns {
		c.state = connIdle
		if c.fd >= 0 && !l.watchFD(c) {
			c.hangUp()
		}
		l.idle = append(l.idle, c)
	}
	l.drain()
	rate := l.ph.interval > 0 && l.ph.deadline != 0
	for l.live > 0 || rate && l.now < l.ph.deadline {
		n := l.wait()
		if n == 0 {
			l.now = monoNow()
		}
		for _, ev := range l.events[:n] {
			if ev.Fd < 0 {
				l.stopAll()
				return
			}
			l.handle(l.conns[ev.Fd], ev.Events)
			l.drain()
		}
		l.tick()
		l.drain()
	}
}

// watchFD adds a connection to the loop's epoll, edge-triggered: one
// registration serves every request it carries.
func (l *eventLoop) watchFD(c *loopConn) bool {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: c.idx}
	return unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, c.fd, &ev) == nil
}

// wait waits for events until the next thing the loop must do on time: a
// rate phase's next slot, its end, or the next look at request timeouts.
func (l *eventLoop) wait() int {
	timeout, bounded := int64(0), false
	bound := func(t int64) {
		if !bounded || t < timeout {
			timeout, bounded = t, true
		}
	}
	if l.live > l.pacing.size { // requests in flight: look at their timeouts
		bound(l.check - l.now)
	}
	if l.pacing.size > 0 {
		bound(l.pacing.peek().intended - l.now)
		// The kernel may wake a thread up to its timer slack late (50 µs
		// by default), which would count in every paced request's latency;
		// the loop's thread may change, so each paced wait asks for 1 ns.
		unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, 1, 0, 0, 0, 0)
	}
	if l.live == 0 {
		bound(l.ph.deadline - l.now)
	}
	if !bounded {
		timeout = -1
	} else {
		timeout = max(timeout, 0)
	}
	n, err := l.epollWait(timeout)
	if err != nil {
		// EINTR: a signal, the runtime's preemption among them. The loop
		// reads the clock and works out the timeout afresh.
		return 0
	}
	return n
}

func (l *eventLoop) epollWait(timeout int64) (int, error) {
	if !l.noWait2 {
		var ts *unix.Timespec
		if timeout >= 0 {
			t := unix.NsecToTimespec(timeout)
			ts = &t
		}
		// A raw system call: the runtime sees the loop as running, so its
		// monitor neither hands the loop's P off each wait nor polls every
		// 20 µs (a tenth of a context switch per request). A preemption
		// signal ends the wait with EINTR, and the loop yields at its next call.
		n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])),
			uintptr(len(l.events)), uintptr(unsafe.Pointer(ts)), 0, 0)
		if errno != unix.ENOSYS && errno != unix.EPERM {
			if errno != 0 {
				return 0, errno
			}
			return int(n), nil
		}
		l.noWait2 = true // a kernel before 5.11, or a filter that forbids it
	}
	ms := -1
	if timeout >= 0 {
		ms = int((timeout + int64(time.Millisecond) - 1) / int64(time.Millisecond)) // late, never early
	}
	return unix.EpollWait(l.ep, l.events[:], ms)
}

// tick does what is due: a rate phase's sends, and every so often the
// request timeouts.
func (l *eventLoop) tick() {
	if l.pacing.size > 0 && l.now < l.pacing.peek().intended {
		l.now = monoNow()
	}
	for l.pacing.size > 0 && l.pacing.peek().intended <= l.now {
		l.send(l.pacing.pop())
	}
	if l.now < l.check {
		return
	}
	l.check = l.now + l.every
	for _, c := range l.conns {
		if c.inFlight() && l.now-c.start > int64(l.o.timeout) {
			l.fail(c, errRequestTimeout)
		}
	}
}

// drain chooses the next request of every connection that finished one.
func (l *eventLoop) drain() {
	for len(l.idle) > 0 {
		c := l.idle[len(l.idle)-1]
		l.idle = l.idle[:len(l.idle)-1]
		l.next(c)
	}
}

// next starts the connection's next request, queues it for its slot, or
// ends the phase for it.
func (l *eventLoop) next(c *loopConn) {
	ph := l.ph
	if ph.stop.Load() {
		l.finish(c)
		return
	}
	var i int64
	if ph.deadline == 0 || ph.interval > 0 {
		i = ph.next.Add(1) - 1
		if ph.deadline == 0 && i >= ph.n {
			l.finish(c)
			return
		}
	}
	if ph.interval > 0 {
		// Open model: latency counts from when the request was due.
		c.intended = ph.start + int64(float64(i)*ph.interval)
		if ph.deadline != 0 && c.intended >= ph.deadline {
			l.finish(c)
			return
		}
		if c.intended > l.now {
			c.state = connPacing
			l.pacing.push(c)
			return
		}
	} else if ph.deadline != 0 && l.now >= ph.deadline {
		l.finish(c)
		return
	}
	l.send(c)
}

func (l *eventLoop) finish(c *loopConn) {
	c.state = connDone
	l.live--
}

// send begins a request: now, on a kept-alive connection, else with a connect.
func (l *eventLoop) send(c *loopConn) {
	c.start = l.now // in a closed loop, the clock read when the last response ended
	c.retried = false
	c.before = c.wire.n
	if c.fd < 0 {
		l.dial(c)
		return
	}
	c.fresh = false
	c.connect = 0
	c.ready = c.start
	l.write(c)
}

// dial starts a connect on a new non-blocking socket.
func (l *eventLoop) dial(c *loopConn) {
	c.fresh = true
	fd, err := unix.Socket(l.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.fail(c, err)
		return
	}
	c.fd = fd
	if l.o.keepalive {
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	}
	if !l.watchFD(c) {
		l.fail(c, errors.New("epoll_ctl failed"))
		return
	}
	switch err := unix.Connect(fd, l.sa); err {
	case nil:
		l.connected(c)
	case unix.EINPROGRESS, unix.EINTR:
		c.state = connConnecting
	default:
		l.fail(c, err)
	}
}

// connected writes the request on a connection whose connect has ended;
// a connect that failed makes the write fail with its error.
func (l *eventLoop) connected(c *loopConn) {
	l.now = monoNow()
	c.ready = l.now
	c.connect = c.ready - c.start
	l.write(c)
}

// handle is the loop's response to a connection's epoll event.
func (l *eventLoop) handle(c *loopConn, ev uint32) {
	const out = unix.EPOLLOUT | unix.EPOLLERR | unix.EPOLLHUP
	switch {
	case c.state == connReading:
		l.read(c)
	case c.state == connConnecting && ev&out != 0:
		l.connected(c)
	case c.state == connWriting && ev&out != 0:
		if ev&(unix.EPOLLIN|unix.EPOLLRDHUP) != 0 {
			c.readable = true
		}
		l.write(c)
	case ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0:
		// An edge that will not come again: the next read must look.
		c.readable = true
	}
}

// write writes what is left of the request, and then reads the response.
func (l *eventLoop) write(c *loopConn) {
	req := l.o.request
	for c.sent < len(req) {
		n, errno := rawWrite(c.fd, req[c.sent:])
		switch errno {
		case 0:
			c.sent += n
			continue
		case unix.EAGAIN:
			c.state = connWriting
			return
		case unix.EINTR:
			continue
		}
		c.sent = 0
		l.fail(c, errno)
		return
	}
	c.sent = 0
	c.state = connReading
	c.wire.begin(l.o.head)
	if c.wire.r < c.wire.w {
		if done, err := c.wire.advance(); err != nil {
			l.fail(c, err)
			return
		} else if done {
			l.complete(c)
			return
		}
	}
	if c.readable {
		l.read(c)
	}
}

// read reads what the socket holds of the response, parsing it as it
// comes. Edge-triggered: it reads until a read comes short, the response
// ends, or the socket is empty.
func (l *eventLoop) read(c *loopConn) {
	c.readable = false
	w := &c.wire
	for {
		if err := w.room(); err != nil {
			l.fail(c, err)
			return
		}
		space := len(w.buf) - w.w
		n, errno := rawRead(c.fd, w.buf[w.w:])
		switch {
		case errno == unix.EAGAIN:
			return
		case errno == unix.EINTR:
			continue
		case errno != 0:
			l.fail(c, errno)
			return
		case n == 0:
			l.now = monoNow()
			if done, err := w.eof(); !done {
				l.fail(c, err)
				return
			}
			l.complete(c)
			return
		}
		l.now = monoNow()
		w.got(n, l.now)
		l.t.received += int64(n)
		done, err := w.advance()
		switch {
		case err != nil:
			l.fail(c, err)
			return
		case done:
			l.complete(c)
			return
		case n < space:
			return // the socket is empty: the next edge brings more
		}
	}
}

// complete counts a response, whose last byte was read at l.now.
func (l *eventLoop) complete(c *loopConn) {
	w, last := &c.wire, l.now
	x := sample{latency: last - c.ready, times: [...]int64{c.connect, last - c.ready, w.first - c.ready, last - c.start}}
	if l.ph.interval > 0 {
		x.latency = last - c.intended
	}
	l.response(l.o, l.ph, w.resp, x)
	if w.resp.close || !l.o.keepalive {
		c.hangUp()
	}
	c.state = connIdle
	l.idle = append(l.idle, c)
}

// fail counts a failed request and hangs up. A kept-alive connection that
// the server had closed is redialed once, as browsers do: the request
// never reached it.
func (l *eventLoop) fail(c *loopConn, err error) {
	c.hangUp()
	if !c.fresh && !c.retried && c.wire.n == c.before && retryable(err) && !l.ph.stop.Load() {
		c.retried = true
		l.dial(c)
		return
	}
	l.failure()
	l.now = monoNow()
	c.state = connIdle
	l.idle = append(l.idle, c)
}

// stopAll ends a cancelled phase: requests in flight are abandoned.
func (l *eventLoop) stopAll() {
	for _, c := range l.conns {
		if c.inFlight() {
			c.hangUp()
		}
		c.state = connDone
	}
	l.live = 0
}

func rawRead(fd int, b []byte) (int, unix.Errno) {
	n, _, errno := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(n), errno
}

func rawWrite(fd int, b []byte) (int, unix.Errno) {
	n, _, errno := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(n), errno
}
