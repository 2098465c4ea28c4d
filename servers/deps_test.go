package servers

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specrun/specrun/spec"
)

// tcpServer is commandServer made ready by a TCP connection, as memcached is.
func tcpServer(t *testing.T, name string, env map[string]string) (*spec.Server, string) {
	s, mark := commandServer(t, name, env)
	s.Ready = "tcp://" + strings.TrimPrefix(s.URL, "http://")
	return s, mark
}

func portOf(s *spec.Server) string {
	return s.URL[strings.LastIndexByte(s.URL, ':')+1:]
}

func TestTCPReadyWaitsForAConnection(t *testing.T) {
	s, mark := tcpServer(t, "cache", nil)
	p, err := Start(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.Ready, "tcp://"), time.Second)
	if err != nil {
		t.Fatalf("ready, but %s refuses a connection: %v", s.Ready, err)
	}
	c.Close()
	p.Stop()
	if left := alive(mark); len(left) > 0 {
		t.Errorf("server left running after Stop: %v", left)
	}
}

// A TCP ready address that another process answers is not the server's.
func TestTCPReadyProvesTheSocketIsTheServers(t *testing.T) {
	port := freePort(t)
	s := &spec.Server{Name: "sleeper", Command: []string{"sleep", "30"}, URL: "tcp://127.0.0.1:" + port,
		Ready: "tcp://127.0.0.1:" + port, ReadyTimeout: 10 * time.Second, Grace: time.Second, StopSignal: "TERM"}
	go func() {
		time.Sleep(200 * time.Millisecond) // after the port check
		ln, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			return
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		time.Sleep(5 * time.Second)
	}()
	p, err := Start(context.Background(), s, nil)
	if err == nil {
		p.Stop()
		t.Fatal("a server whose TCP port another process holds was declared ready")
	}
	if !strings.Contains(err.Error(), "not the server's") {
		t.Errorf("err = %v, want \"not the server's\"", err)
	}
}

func TestTCPReadyFailsWhenTheServerExits(t *testing.T) {
	port := freePort(t)
	s := &spec.Server{Name: "gone", Command: []string{self(t)}, Env: map[string]string{"SPECRUN_SERVERS_HELPER": "exit"},
		URL: "tcp://127.0.0.1:" + port, Ready: "tcp://127.0.0.1:" + port, ReadyTimeout: 10 * time.Second, Grace: time.Second, StopSignal: "TERM"}
	_, err := Start(context.Background(), s, nil)
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v, want \"exited before it was ready\" and the server's output", err)
	}
}

// app needs cache: cache starts first (app exits 4 at once otherwise) and
// is still up when app gets its stop signal.
func dependentPair(t *testing.T) (cache, app *spec.Server, cacheMark, appMark, stopLog string) {
	cache, cacheMark = tcpServer(t, "cache", nil)
	stopLog = filepath.Join(t.TempDir(), "stop.log")
	app, appMark = commandServer(t, "app", map[string]string{"REQUIRE_PORT": portOf(cache), "STOP_LOG": stopLog})
	app.DependsOn = []string{"cache"}
	return
}

func TestDependencyStartsFirstAndStopsLast(t *testing.T) {
	for _, how := range []string{"StopServer", "Close"} {
		t.Run(how, func(t *testing.T) {
			cache, app, cacheMark, appMark, stopLog := dependentPair(t)
			pool := NewPool([]*spec.Server{app, cache}, t.TempDir())
			defer pool.Close()
			if _, err := pool.Server(context.Background(), "app"); err != nil {
				t.Fatal(err) // app exits at once when cache is not up yet
			}
			if len(alive(cacheMark)) == 0 {
				t.Fatal("cache is not running beside app")
			}
			var err error
			if how == "StopServer" {
				err = pool.StopServer("app")
			} else {
				err = pool.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(stopLog); err != nil || string(b) != "up" {
				t.Errorf("when app was stopped, cache was %q (%v), want \"up\"", b, err)
			}
			if left := append(alive(cacheMark), alive(appMark)...); len(left) > 0 {
				t.Errorf("left running after %s(app): %v", how, left)
			}
		})
	}
}

// A dependency a later benchmark loads itself outlives the server that
// needed it, until that benchmark releases it too.
func TestDependencyWantedItselfStaysUp(t *testing.T) {
	cache, app, cacheMark, _, _ := dependentPair(t)
	pool := NewPool([]*spec.Server{app, cache}, t.TempDir())
	defer pool.Close()
	for _, name := range []string{"app", "cache"} {
		if _, err := pool.Server(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
	if err := pool.StopServer("cache"); err != nil {
		t.Fatal(err)
	}
	if len(alive(cacheMark)) == 0 {
		t.Fatal("cache stopped while app, which needs it, runs")
	}
	if err := pool.StopServer("app"); err != nil {
		t.Fatal(err)
	}
	if left := alive(cacheMark); len(left) > 0 {
		t.Errorf("cache runs on after both were released: %v", left)
	}
}

func TestDependencyThatExitsFailsTheDependent(t *testing.T) {
	cache, app, cacheMark, _, _ := dependentPair(t)
	pool := NewPool([]*spec.Server{app, cache}, t.TempDir())
	defer pool.Close()
	if _, err := pool.Server(context.Background(), "app"); err != nil {
		t.Fatal(err)
	}
	for _, pid := range alive(cacheMark) {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err = pool.Server(context.Background(), "app"); err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err == nil || !strings.Contains(err.Error(), `depends on server "cache"`) || !strings.Contains(err.Error(), "exited") {
		t.Errorf("Server(app) after cache died: err = %v, want it to say cache exited", err)
	}
}

func TestDependencyThatFailsToStartStopsTheDependent(t *testing.T) {
	cache, app, _, appMark, _ := dependentPair(t)
	cache.Env["SPECRUN_SERVERS_HELPER"] = "exit"
	pool := NewPool([]*spec.Server{app, cache}, t.TempDir())
	defer pool.Close()
	_, err := pool.Server(context.Background(), "app")
	if err == nil || !strings.Contains(err.Error(), `depends on server "cache"`) {
		t.Fatalf("err = %v, want it to name the dependency", err)
	}
	if left := alive(appMark); len(left) > 0 {
		t.Errorf("app started without its dependency: %v", left)
	}
	if _, err2 := pool.Server(context.Background(), "app"); err2 == nil {
		t.Error("a second benchmark on app started it after its dependency failed")
	}
}

func TestVersionIsTheFirstLine(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"sh", "-c", "echo; echo '  memcached 1.6.21  '; echo more"}, "memcached 1.6.21"},
		{[]string{"sh", "-c", "printf 'v\\0331\\n'"}, "v1"},
		{[]string{"sh", "-c", "echo nope >&2; exit 3"}, "unknown (exit status 3: nope)"},
		{[]string{"/nonexistent/program"}, "unknown (fork/exec /nonexistent/program: no such file or directory)"},
	} {
		if got := Version(context.Background(), &spec.Server{Name: "s", Version: c.argv}); got != c.want {
			t.Errorf("Version(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
	long := Version(context.Background(), &spec.Server{Version: []string{"sh", "-c", "printf '%0300d' 0"}})
	if len(long) != 200 {
		t.Errorf("a 300-character version is kept as %d characters, want 200", len(long))
	}
}

func TestPoolRecordsVersions(t *testing.T) {
	cache, app, _, _, _ := dependentPair(t)
	cache.Version = []string{"sh", "-c", "echo cache 1.0"}
	pool := NewPool([]*spec.Server{app, cache}, t.TempDir())
	defer pool.Close()
	if v := pool.Versions(); v != nil {
		t.Errorf("versions before any server started: %v", v)
	}
	if _, err := pool.Server(context.Background(), "app"); err != nil {
		t.Fatal(err)
	}
	if v := pool.Versions(); len(v) != 1 || v["cache"] != "cache 1.0" {
		t.Errorf("versions = %v, want only cache's", v)
	}
}
