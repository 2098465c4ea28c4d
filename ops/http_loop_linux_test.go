package ops

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/specrun/specrun/param"
)

// TestHTTPEventLoopIsLinuxClient: on Linux a plain-http instance uses the
// event loop, an https one the goroutine client.
func TestHTTPEventLoopIsLinuxClient(t *testing.T) {
	for url, want := range map[string]string{"http://127.0.0.1:1/": "*ops.loopClient", "https://127.0.0.1:1/": "ops.workerClient"} {
		op, err := newHTTP(param.Values{"url": url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := typeName(op.(*httpOp).client); got != want {
			t.Errorf("%s: client %s, want %s", url, got, want)
		}
		op.(*httpOp).Close()
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *loopClient:
		return "*ops.loopClient"
	case workerClient:
		return "ops.workerClient"
	}
	return "?"
}

// rawServer answers every request on a connection with a two-byte body,
// one goroutine per connection, and reports how many goroutines the
// process has beside its own when the nth request arrives.
func rawServer(t *testing.T, nth int64, goroutines *atomic.Int64) (url string, own *atomic.Int64) {
	own = new(atomic.Int64) // its goroutines: the acceptor and one per connection
	own.Store(1)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var requests atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			own.Add(1)
			go func() {
				defer own.Add(-1)
				defer c.Close()
				buf := make([]byte, 4096)
				have := 0
				for {
					n, err := c.Read(buf[have:])
					if err != nil {
						return
					}
					have += n
					for {
						end := bytes.Index(buf[:have], []byte("\r\n\r\n"))
						if end < 0 {
							break
						}
						if requests.Add(1) == nth {
							goroutines.Store(int64(runtime.NumGoroutine()) - own.Load())
						}
						if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
							return
						}
						have = copy(buf, buf[end+4:have])
					}
				}
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/", own
}

// TestHTTPEventLoopHasNoGoroutinePerConnection: a phase's connections are
// driven by its loops, one goroutine (on its own thread) each, however
// many connections there are; and threads is the number of loops.
func TestHTTPEventLoopHasNoGoroutinePerConnection(t *testing.T) {
	const conns = 50
	for _, threads := range []int64{1, 2} {
		var during atomic.Int64
		url, server := rawServer(t, 5*conns, &during)
		op, err := newHTTP(param.Values{"url": url, "concurrency": int64(conns), "threads": threads}, nil)
		if err != nil {
			t.Fatal(err)
		}
		before := int64(runtime.NumGoroutine()) - server.Load()
		if _, err := op.Run(context.Background(), 10*conns); err != nil {
			t.Fatal(err)
		}
		op.(io.Closer).Close()
		// The loops, and the one goroutine that waits for cancellation.
		if extra := during.Load() - before; extra > threads+1 {
			t.Errorf("threads %d, %d connections: %d goroutines more during the phase, want at most %d",
				threads, conns, extra, threads+1)
		}
		if got := op.(*httpOp).client.(*loopClient).loops; got != int(threads) {
			t.Errorf("threads %d: %d event loops", threads, got)
		}
	}
	// Unset: a loop per CPU, but no more than there are connections.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	op, err := newHTTP(param.Values{"url": ts.URL, "concurrency": int64(1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer op.(io.Closer).Close()
	procs := runtime.GOMAXPROCS(0)
	if _, err := op.Run(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	if got := op.(*httpOp).client.(*loopClient).loops; got != 1 {
		t.Errorf("one connection: %d event loops", got)
	}
	if after := runtime.GOMAXPROCS(0); after != procs {
		t.Errorf("GOMAXPROCS after the phase = %d, want %d restored", after, procs)
	}
}

// TestEventLoopWaitIsNeverEarly: the loop's timed wait (a rate phase's
// next slot) is precise to the nanosecond it asks for and never returns
// before it, with epoll_pwait2 and with the millisecond fallback.
func TestEventLoopWaitIsNeverEarly(t *testing.T) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ep)
	for _, noWait2 := range []bool{false, true} {
		l := &eventLoop{ep: ep, noWait2: noWait2}
		for _, d := range []time.Duration{0, 30 * time.Microsecond, 300 * time.Microsecond, 1500 * time.Microsecond} {
			start := monoNow()
			n, err := l.epollWait(int64(d))
			if err == unix.EINTR {
				continue // a signal (the runtime's preemption): the loop waits again for what is left
			}
			if n != 0 || err != nil {
				t.Fatalf("epollWait(%v) = %d, %v on an empty epoll", d, n, err)
			}
			if got := time.Duration(monoNow() - start); got < d {
				t.Errorf("noWait2 %v: epollWait(%v) returned after %v", noWait2, d, got)
			}
		}
	}
}

// TestHTTPRatePhaseTightensTimerSlack: a rate phase's loop asks the kernel
// for 1 ns of timer slack instead of the default 50 µs, which would make
// every paced send up to that late.
func TestHTTPRatePhaseTightensTimerSlack(t *testing.T) {
	// Each thread's slack is /proc/TID/timerslack_ns, which the task
	// directory does not list.
	slack := func(reset bool) (tight int) {
		tasks, _ := filepath.Glob("/proc/self/task/*")
		for _, task := range tasks {
			f := "/proc/" + filepath.Base(task) + "/timerslack_ns"
			if reset {
				os.WriteFile(f, []byte("50000"), 0) // earlier rate phases' threads
			}
			if b, err := os.ReadFile(f); err == nil && strings.TrimSpace(string(b)) == "1" {
				tight++
			}
		}
		return tight
	}
	if _, err := os.ReadFile("/proc/self/timerslack_ns"); err != nil {
		t.Skipf("no timerslack_ns: %v", err)
	}
	before := slack(true)
	if before > 0 {
		t.Skip("an earlier rate phase's threads keep 1 ns of slack, and cannot be reset here")
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	// Slots 100 ms apart: the loop waits for the second and third, however slow the machine.
	runHTTP(t, param.Values{"url": ts.URL, "rate": 10.0, "concurrency": int64(1)}, nil, 3)
	if after := slack(false); after <= before {
		t.Errorf("threads with 1 ns of timer slack: %d before a rate phase, %d after", before, after)
	}
}
