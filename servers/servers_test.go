package servers

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/specrun/specrun/internal/procgroup"
	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/param"
	"github.com/specrun/specrun/spec"
)

// TestMain lets the test binary play the servers under test, chosen by
// $SPECRUN_SERVERS_HELPER:
//
//	serve             `specrun serve --addr A --body-size N --work D`
//	listen PORT MARK  answer "ok" on PORT; $IGNORE_TERM=1 ignores SIGTERM,
//	                  $FORK=1 leaves a hanging child in its group,
//	                  $CRASH_AFTER=N exits after N requests,
//	                  $REQUIRE_PORT=P exits 4 at once unless P accepts a connection,
//	                  $STOP_LOG=F writes "up" or "down" to F on SIGTERM: whether P
//	                  still accepts one
//	exit              print "boom" and exit 3
//	hang MARK         sleep a minute
func TestMain(m *testing.M) {
	switch os.Getenv("SPECRUN_SERVERS_HELPER") {
	case "":
		os.Exit(m.Run())
	case "serve":
		helperServe(os.Args[1:])
	case "listen":
		helperListen(os.Args[1:])
	case "exit":
		fmt.Fprintln(os.Stderr, "boom")
		os.Exit(3)
	case "hang":
		time.Sleep(time.Minute)
	}
	os.Exit(2)
}

func helperServe(args []string) {
	addr, s := "127.0.0.1:0", &Static{BodySize: DefaultBodySize}
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--addr":
			addr = args[i+1]
		case "--body-size":
			s.BodySize, _ = param.ParseSize(args[i+1])
		case "--work":
			s.Work, _ = time.ParseDuration(args[i+1])
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		os.Exit(1)
	}
	h := s.Handler()
	fmt.Printf("http://%s\n", ln.Addr())
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM)
	go http.Serve(ln, h)
	<-c
	os.Exit(0)
}

func helperListen(args []string) {
	if os.Getenv("IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	dial := func(port string) bool {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	if dep := os.Getenv("REQUIRE_PORT"); dep != "" {
		if !dial(dep) {
			os.Exit(4)
		}
		if log := os.Getenv("STOP_LOG"); log != "" {
			c := make(chan os.Signal, 1)
			signal.Notify(c, syscall.SIGTERM)
			go func() {
				<-c
				state := "down"
				if dial(dep) {
					state = "up"
				}
				os.WriteFile(log, []byte(state), 0o644)
				os.Exit(0)
			}()
		}
	}
	if os.Getenv("FORK") == "1" {
		c := exec.Command(os.Args[0], args[1])
		c.Env = append(os.Environ(), "SPECRUN_SERVERS_HELPER=hang")
		c.Start()
	}
	crashAfter, _ := strconv.Atoi(os.Getenv("CRASH_AFTER"))
	var hits atomic.Int64
	http.ListenAndServe("127.0.0.1:"+args[0], http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := hits.Add(1); crashAfter > 0 && n > int64(crashAfter) {
			os.Exit(1)
		}
		io.WriteString(w, "ok")
	}))
	os.Exit(1)
}

func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// commandServer is a server block running the listen helper.
func commandServer(t *testing.T, name string, env map[string]string) (*spec.Server, string) {
	port, mark := freePort(t), fmt.Sprintf("specrun-test-mark-%d-%d", os.Getpid(), time.Now().UnixNano())
	e := map[string]string{"SPECRUN_SERVERS_HELPER": "listen"}
	for k, v := range env {
		e[k] = v
	}
	return &spec.Server{
		Name: name, Command: []string{self(t), port, mark}, Env: e,
		URL: "http://127.0.0.1:" + port, Ready: "http://127.0.0.1:" + port + "/",
		ReadyTimeout: 10 * time.Second, Grace: 2 * time.Second, StopSignal: "TERM",
	}, mark
}

// alive lists the live (not zombie) processes whose command line holds mark.
func alive(mark string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if strings.Contains(string(cmdline), mark) && !strings.Contains(string(stat), ") Z ") {
			pids = append(pids, pid)
		}
	}
	return pids
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBuiltinServer(t *testing.T) {
	t.Setenv("SPECRUN_SERVERS_HELPER", "serve")
	pool := NewPool([]*spec.Server{{Name: "a", Builtin: "static", BodySize: 1000, Work: 100 * time.Microsecond,
		URL: ops.ServerURLScheme + "a", ReadyTimeout: 10 * time.Second, Grace: time.Second, StopSignal: "TERM"}}, t.TempDir())
	pool.Self = []string{self(t)}
	defer pool.Close()

	s, err := pool.Server(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || s.PID <= 0 {
		t.Fatalf("server = %+v, want a loopback URL and a PID", s)
	}
	if body := get(t, s.URL+"/"); len(body) != 1000 || !strings.HasPrefix(body, "<!DOCTYPE html>") {
		t.Errorf("page = %d bytes %.20q..., want a 1000-byte HTML page", len(body), body)
	}
	again, err := pool.Server(context.Background(), "a")
	if err != nil || again != s {
		t.Errorf("second Server = %+v, %v; want the same server %+v", again, err, s)
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(s.PID, 0) == nil && !zombie(s.PID) {
		t.Errorf("pid %d still running after Close", s.PID)
	}
	if _, err := pool.Server(context.Background(), "a"); err == nil {
		t.Error("Server after Close: err = nil")
	}
}

func zombie(pid int) bool {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return len(b) == 0 || strings.Contains(string(b), ") Z ")
}

func TestReadyTimeout(t *testing.T) {
	mark := fmt.Sprintf("specrun-test-ready-%d", time.Now().UnixNano())
	port := freePort(t)
	pool := NewPool([]*spec.Server{{Name: "slow", Command: []string{self(t), mark}, Env: map[string]string{"SPECRUN_SERVERS_HELPER": "hang"},
		URL: "http://127.0.0.1:" + port, Ready: "http://127.0.0.1:" + port + "/health",
		ReadyTimeout: 300 * time.Millisecond, Grace: time.Second, StopSignal: "TERM"}}, t.TempDir())
	defer pool.Close()

	start := time.Now()
	_, err := pool.Server(context.Background(), "slow")
	if err == nil || !strings.Contains(err.Error(), `server "slow"`) || !strings.Contains(err.Error(), "not ready after 300ms") {
		t.Fatalf("err = %v, want a ready timeout naming the server", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("gave up after %v, want about 300ms", d)
	}
	if pids := alive(mark); len(pids) > 0 {
		t.Errorf("processes %v left running after a failed start", pids)
	}
	// Remembered: the next benchmark on it fails at once.
	start = time.Now()
	if _, err2 := pool.Server(context.Background(), "slow"); err2 == nil || time.Since(start) > 100*time.Millisecond {
		t.Errorf("second try: err = %v after %v, want the first error at once", err2, time.Since(start))
	}
}

func TestExitBeforeReady(t *testing.T) {
	s, _ := commandServer(t, "dies", map[string]string{"SPECRUN_SERVERS_HELPER": "exit"})
	pool := NewPool([]*spec.Server{s}, t.TempDir())
	defer pool.Close()
	_, err := pool.Server(context.Background(), "dies")
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v, want the exit and the server's output", err)
	}
}

func TestIgnoredTERMIsKilledAfterGrace(t *testing.T) {
	s, mark := commandServer(t, "stubborn", map[string]string{"IGNORE_TERM": "1"})
	s.Grace = 300 * time.Millisecond
	pool := NewPool([]*spec.Server{s}, t.TempDir())
	if _, err := pool.Server(context.Background(), "stubborn"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("Close took %v, want the 300ms grace then KILL", d)
	}
	if pids := alive(mark); len(pids) > 0 {
		t.Errorf("processes %v survive Close", pids)
	}
}

func TestNoOrphans(t *testing.T) {
	s, mark := commandServer(t, "forks", map[string]string{"FORK": "1"})
	pool := NewPool([]*spec.Server{s}, "")
	if _, err := pool.Server(context.Background(), "forks"); err != nil {
		t.Fatal(err)
	}
	dir := pool.TempDir()
	deadline := time.Now().Add(5 * time.Second)
	for len(alive(mark)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the server and its sleep child
	}
	if n := len(alive(mark)); n < 2 {
		t.Fatalf("%d processes with the mark, want the server and its child", n)
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if pids := alive(mark); len(pids) > 0 {
		t.Errorf("processes %v outlive Close", pids)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the pool's temp dir %s survives Close (%v)", dir, err)
	}
}

func TestServerDiesMidLoad(t *testing.T) {
	s, _ := commandServer(t, "crashy", map[string]string{"CRASH_AFTER": "100"})
	pool := NewPool([]*spec.Server{s}, t.TempDir())
	defer pool.Close()

	op, err := instance(t, pool, &spec.Plan{Servers: []*spec.Server{s}}, "http", param.Values{"server": "crashy", "path": "/", "concurrency": int64(2),
		"keepalive": true, "request_timeout": 2 * time.Second, "max_failures": 1.0})
	if err != nil {
		t.Fatal(err)
	}
	defer op.(io.Closer).Close()
	// A server that dies during its benchmark is that benchmark's error,
	// not a phase of failed requests that might read as a result.
	_, err = op.Run(context.Background(), 400)
	if err == nil || !strings.Contains(err.Error(), "exited during the load phase") {
		t.Fatalf("phase against a server that died: err = %v, want \"exited during the load phase\"", err)
	}
}

// TestStaticWorkIsCalibrated: a server with work burns some; how long a
// request then takes is measured by bench/staticwork, not here.
func TestStaticWorkIsCalibrated(t *testing.T) {
	s := &Static{BodySize: 10, Work: 2 * time.Millisecond}
	h := s.Handler()
	if s.rounds <= 0 {
		t.Fatalf("rounds = %d, want > 0", s.rounds)
	}
	h.ServeHTTP(discard{}, nil)
	none := &Static{BodySize: 10}
	none.Handler()
	if none.rounds != 0 {
		t.Errorf("a server without work burns %d rounds a request", none.rounds)
	}
}

// TestCalibrationTakesTheMedian times the trials on a fake CPU clock: a
// round costs 2µs, except in trials that a busy moment made five times
// slower (fewer than half) or that ran faster. The rounds are what d costs
// at the median trial's rate, and at least one.
func TestCalibrationTakesTheMedian(t *testing.T) {
	for _, c := range []struct {
		name   string
		d      time.Duration
		perRnd []time.Duration // per trial, cycled
		want   int
	}{
		{"steady", 2 * time.Millisecond, []time.Duration{2 * time.Microsecond}, 1000},
		{"some slow trials", 2 * time.Millisecond, []time.Duration{2 * time.Microsecond, 10 * time.Microsecond, 2 * time.Microsecond}, 1000},
		{"some fast trials", 2 * time.Millisecond, []time.Duration{2 * time.Microsecond, time.Microsecond, 2 * time.Microsecond}, 1000},
		{"more work", 50 * time.Millisecond, []time.Duration{2 * time.Microsecond}, 25000},
		{"less than a round", time.Microsecond, []time.Duration{2 * time.Microsecond}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var clock time.Duration
			trial := 0
			burned := 0
			now := func() time.Duration { return clock }
			burn := func(rounds int) {
				burned += rounds
				clock += time.Duration(rounds) * c.perRnd[trial%len(c.perRnd)]
				trial++
			}
			if got := roundsFor(c.d, now, burn); got != c.want {
				t.Errorf("rounds = %d, want %d", got, c.want)
			}
			if burned == 0 {
				t.Error("no trial burned anything")
			}
		})
	}
}

type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

func TestStartIsCancelledWithThePool(t *testing.T) {
	mark := fmt.Sprintf("specrun-test-cancel-%d", time.Now().UnixNano())
	port := freePort(t)
	pool := NewPool([]*spec.Server{{Name: "slow", Command: []string{self(t), mark}, Env: map[string]string{"SPECRUN_SERVERS_HELPER": "hang"},
		URL: "http://127.0.0.1:" + port, ReadyTimeout: time.Minute, Grace: time.Second, StopSignal: "TERM"}}, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	pool.Context = ctx
	defer pool.Close()
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	if _, err := pool.Server(context.Background(), "slow"); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("err = %v, want the start cancelled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelled start returned after %v", d)
	}
	if pids := alive(mark); len(pids) > 0 {
		t.Errorf("processes %v left after a cancelled start", pids)
	}
}

// instanceEnv is the pool as the runner lends it to one instance: with the
// servers the plan settled for it.
type instanceEnv struct {
	*Pool
	servers []string
}

func (e instanceEnv) Servers() []string      { return e.servers }
func (instanceEnv) Context() context.Context { return context.Background() }

// instance prepares an op instance as spec and the runner would: the plan
// settles which servers it loads, and the op is handed them.
func instance(t *testing.T, pool *Pool, plan *spec.Plan, op string, p param.Values) (ops.Op, error) {
	t.Helper()
	def, _ := ops.Lookup(op)
	var names []string
	if def.Servers != nil {
		names = def.Servers(p, plan.ServerFor)
	}
	return def.New(p, instanceEnv{pool, names})
}

func TestURLOfACommandServerStartsIt(t *testing.T) {
	s, _ := commandServer(t, "app", nil)
	plan := &spec.Plan{Servers: []*spec.Server{s, {Name: "b", Builtin: "static", URL: ops.ServerURLScheme + "b"}}}
	pool := NewPool(plan.Servers, t.TempDir())
	defer pool.Close()
	if name, ok := plan.ServerFor(s.URL + "/some/path?x=1"); !ok || name != "app" {
		t.Errorf("ServerFor(%s/some/path) = %q, %v; want app", s.URL, name, ok)
	}
	if name, ok := plan.ServerFor("http://127.0.0.1:1/"); ok {
		t.Errorf("ServerFor(another host) = %q, want none", name)
	}

	op, err := instance(t, pool, plan, "http", param.Values{"url": s.URL + "/", "concurrency": int64(1), "keepalive": true, "request_timeout": 2 * time.Second, "max_failures": 1.0})
	if err != nil {
		t.Fatal(err)
	}
	defer op.(io.Closer).Close()
	sample, err := op.Run(context.Background(), 20)
	if err != nil {
		t.Fatal(err)
	}
	if sample.Metrics["failed"] != 0 {
		t.Errorf("failed = %v, want 0: the server was started for its URL", sample.Metrics["failed"])
	}
	if _, ok := sample.Metrics["server_max_rss_bytes"]; !ok {
		t.Error("server_max_rss_bytes missing for a URL of a server block")
	}
}

func TestServerOutlivesEndedThreads(t *testing.T) {
	s, _ := commandServer(t, "app", nil)
	pool := NewPool([]*spec.Server{s}, t.TempDir())
	defer pool.Close()
	srv, err := pool.Server(context.Background(), "app")
	if err != nil {
		t.Fatal(err)
	}
	// Goroutines that exit locked end their threads, as the thread-creation
	// op does; the server's death signal must not follow any of them.
	for i := 0; i < 50; i++ {
		done := make(chan struct{})
		go func() {
			defer close(done)
			runtime.LockOSThread()
		}()
		<-done
	}
	time.Sleep(100 * time.Millisecond)
	if got := get(t, srv.URL+"/"); got != "ok" {
		t.Errorf("server answered %q after threads ended", got)
	}
}

// TestKillDoesNotWaitForGrace is the second Ctrl-C: a server that ignores
// TERM, with a long grace, is killed at once, its group and all.
// TestKillDoesNotWaitForAStart interrupts the start of a server that is
// not ready yet and ignores TERM: the start then waits out the server's
// grace, and the way out at once (Kill, and KILL to every group, as a
// second Ctrl-C does) must not wait behind it.
func TestKillDoesNotWaitForAStart(t *testing.T) {
	mark := fmt.Sprintf("61.%06d", time.Now().UnixNano()%1e6) // sleep's argument
	port := freePort(t)
	pool := NewPool([]*spec.Server{{Name: "stubborn", Command: []string{"sh", "-c", "trap '' TERM; sleep " + mark},
		URL: "http://127.0.0.1:" + port, ReadyTimeout: time.Minute, Grace: time.Minute, StopSignal: "TERM"}}, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	pool.Context = ctx
	defer pool.Close()
	started := make(chan error, 1)
	go func() {
		_, err := pool.Server(context.Background(), "stubborn")
		started <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); len(alive(mark)) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server's sleep did not start within 20s")
		}
	}
	cancel() // the start gives up, sends TERM and waits out the minute
	killed := make(chan struct{})
	go func() {
		pool.Kill()
		procgroup.KillAll()
		close(killed)
	}()
	// Far less than the grace, far more than signalling takes.
	select {
	case <-killed:
	case <-time.After(20 * time.Second):
		t.Fatal("Kill waits for the start's grace period")
	}
	select {
	case err := <-started:
		if err == nil {
			t.Error("the interrupted start succeeded")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the start still waits after its server was killed")
	}
	if pids := alive(mark); len(pids) > 0 {
		t.Errorf("processes %v outlive Kill", pids)
	}
}

func TestKillDoesNotWaitForGrace(t *testing.T) {
	s, mark := commandServer(t, "stubborn", map[string]string{"IGNORE_TERM": "1", "FORK": "1"})
	s.Grace = time.Minute
	pool := NewPool([]*spec.Server{s}, "")
	if _, err := pool.Server(context.Background(), "stubborn"); err != nil {
		t.Fatal(err)
	}
	dir := pool.TempDir()
	closed := make(chan error, 1)
	go func() { closed <- pool.Close() }() // waits out the grace...
	time.Sleep(100 * time.Millisecond)
	pool.Kill() // ...unless killed
	deadline := time.Now().Add(5 * time.Second)
	for len(alive(mark)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if pids := alive(mark); len(pids) > 0 {
		t.Errorf("processes %v outlive Kill", pids)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the pool's temp dir %s survives Kill (%v)", dir, err)
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Error("Close still waits for the grace period after Kill")
	}
}

// TestStopServerStopsOnlyThatServer: a server whose last benchmark ran
// stops, the others keep serving.
func TestStopServerStopsOnlyThatServer(t *testing.T) {
	a, markA := commandServer(t, "a", nil)
	b, markB := commandServer(t, "b", nil)
	pool := NewPool([]*spec.Server{a, b}, t.TempDir())
	defer pool.Close()
	for _, name := range []string{"a", "b"} {
		if _, err := pool.Server(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
	if err := pool.StopServer("a"); err != nil {
		t.Fatal(err)
	}
	if pids := alive(markA); len(pids) > 0 {
		t.Errorf("server a (%v) runs on after StopServer", pids)
	}
	if len(alive(markB)) == 0 {
		t.Error("server b stopped with a")
	}
	if err := pool.StopServer("never-started"); err != nil {
		t.Errorf("StopServer of a server that is not running: %v", err)
	}
}

// TestBuiltinServerEmptyPage: body_size = 0 serves an empty page, not
// serve's default one.
func TestBuiltinServerEmptyPage(t *testing.T) {
	t.Setenv("SPECRUN_SERVERS_HELPER", "serve")
	pool := NewPool([]*spec.Server{{Name: "a", Builtin: "static", BodySize: 0,
		URL: ops.ServerURLScheme + "a", ReadyTimeout: 10 * time.Second, Grace: time.Second, StopSignal: "TERM"}}, t.TempDir())
	pool.Self = []string{self(t)}
	defer pool.Close()
	s, err := pool.Server(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if body := get(t, s.URL+"/"); body != "" {
		t.Errorf("body_size 0: page = %d bytes %.20q..., want none", len(body), body)
	}
}
