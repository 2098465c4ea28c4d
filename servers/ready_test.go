//go:build linux

package servers

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specrun/specrun/spec"
)

// An orphaned server from an earlier run (here: this test's listener) on
// the port: the new server is refused before it starts, rather than the
// old one being benchmarked.
func TestReadyRefusesATakenPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "old") }))
	s, mark := commandServer(t, "app", nil)
	port := ln.Addr().(*net.TCPAddr).AddrPort().Port()
	s.URL = "http://" + ln.Addr().String()
	s.Ready = s.URL + "/"
	_, err = Start(context.Background(), s, nil)
	if err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("Start on a taken port %d: err = %v, want \"already in use\"", port, err)
	}
	if left := alive(mark); len(left) > 0 {
		t.Errorf("server started anyway: %v", left)
	}
}

// The port was free, but the answer comes from a process outside the
// server's group: not ready.
func TestReadyProvesTheAnswerIsTheServers(t *testing.T) {
	port := freePort(t)
	s := &spec.Server{Name: "sleeper", Command: []string{"sleep", "30"},
		URL: "http://127.0.0.1:" + port, ReadyTimeout: 10 * time.Second, Grace: time.Second, StopSignal: "TERM"}
	go func() {
		time.Sleep(200 * time.Millisecond) // after the port check
		ln, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			return
		}
		defer ln.Close()
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "not the server") })}
		go srv.Serve(ln)
		time.Sleep(5 * time.Second)
		srv.Close()
	}()
	p, err := Start(context.Background(), s, nil)
	if err == nil {
		p.Stop()
		t.Fatal("a server whose port another process answers was declared ready")
	}
	if !strings.Contains(err.Error(), "not the server's") {
		t.Errorf("err = %v, want \"not the server's\"", err)
	}
}

// A server that exited while another process answers its URL is not
// ready: the answer is not its.
func TestReadyFailsWhenTheServerExited(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "other") }))
	defer other.Close()
	p := &Process{Name: "gone", done: make(chan struct{})}
	close(p.done)
	err := p.poll(context.Background(), other.URL, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("poll for a server that exited: err = %v, want \"exited\"", err)
	}
}

// The readiness poll follows no redirect, so a ready URL cannot send
// specrun to another host.
func TestReadyFollowsNoRedirect(t *testing.T) {
	var elsewhere bool
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere = true }))
	defer target.Close()
	s, _ := commandServer(t, "app", nil)
	p := &Process{Name: "app", done: make(chan struct{})}
	redirect := httptest.NewServer(http.RedirectHandler(target.URL+"/landed", http.StatusFound))
	defer redirect.Close()
	if err := p.poll(context.Background(), redirect.URL, s.ReadyTimeout); err != nil {
		t.Fatal(err)
	}
	if elsewhere {
		t.Error("the readiness poll followed a redirect to another host")
	}
}

// A server that dies after it was ready fails the benchmarks that come
// after, instead of their loading whatever answers its port.
func TestPoolServerThatExitedIsAnError(t *testing.T) {
	s, _ := commandServer(t, "crashy", map[string]string{"CRASH_AFTER": "1"})
	pool := NewPool([]*spec.Server{s}, t.TempDir())
	defer pool.Close()
	srv, err := pool.Server(context.Background(), "crashy")
	if err != nil {
		t.Fatal(err)
	}
	http.Get(srv.URL + "/") // the second request: it exits
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err = pool.Server(context.Background(), "crashy"); err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("Server after the server died: err = %v, want \"exited\"", err)
	}
}

// A run killed with SIGKILL leaves its temp dir; the next run removes it,
// and only dirs that specrun marked as its own, for a dead owner.
func TestStaleRunDirsAreRemoved(t *testing.T) {
	parent := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name, marker string) string {
		d := filepath.Join(parent, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "server.log"), []byte("x"), 0o644)
		if marker != "" {
			os.WriteFile(filepath.Join(d, ownerFile), []byte(marker), 0o644)
		}
		return d
	}
	stale := mk("specrun-111", strconv.Itoa(dead.Process.Pid)+" 1")
	reused := mk("specrun-222", owner(os.Getpid())+"0") // this pid, another start: a reused pid
	live := mk("specrun-333", owner(os.Getpid()))
	unmarked := mk("specrun-444", "")
	users := mk("notspecrun-555", strconv.Itoa(dead.Process.Pid))

	d, err := makeRunDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{stale: false, reused: false, live: true, unmarked: true, users: true, d: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: exists = %v, want %v", filepath.Base(dir), err == nil, want)
		}
	}
}

// Start takes the Plan's settings as spec.Load settled them; it does not
// default them again, so a server that did not come from a Plan is refused
// rather than quietly given other values.
func TestStartTrustsThePlan(t *testing.T) {
	base := spec.Server{Name: "x", Command: []string{"sleep", "30"}, URL: "http://127.0.0.1:1",
		ReadyTimeout: time.Second, Grace: time.Second, StopSignal: "TERM"}
	noSignal, noTimeout := base, base
	noSignal.StopSignal = "SIGTERM" // spec normalises to "TERM"; anything else is not from a Plan
	noTimeout.ReadyTimeout = 0
	for _, s := range []*spec.Server{&noSignal, &noTimeout} {
		if p, err := Start(context.Background(), s, nil); err == nil {
			p.Stop()
			t.Errorf("Start(%+v): no error", s)
		}
	}
	for _, sig := range spec.StopSignals {
		if got, ok := spec.LookupStopSignal(sig.Name); !ok || got != sig.Signal {
			t.Errorf("LookupStopSignal(%q) = %v, %v", sig.Name, got, ok)
		}
	}
}
