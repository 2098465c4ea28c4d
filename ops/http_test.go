package ops

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specrun/specrun/param"
)

// fakeEnv lends the http op servers by name.
type fakeEnv map[string]Server

func (fakeEnv) TempDir() string { return os.TempDir() }

func (e fakeEnv) Server(_ context.Context, name string) (Server, error) {
	s, ok := e[name]
	if !ok {
		return Server{}, fmt.Errorf("no server %q", name)
	}
	return s, nil
}

func runHTTP(t *testing.T, p param.Values, env Env, n int64) Sample {
	t.Helper()
	op, err := newHTTP(p, env)
	if err != nil {
		t.Fatal(err)
	}
	defer op.(*httpOp).Close()
	s, err := op.Run(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHTTPCountsAndLatencies(t *testing.T) {
	page := strings.Repeat("x", 5000)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(page))
	}))
	defer ts.Close()

	s := runHTTP(t, param.Values{"url": ts.URL, "concurrency": int64(4)}, nil, 200)
	m := s.Metrics
	if s.N != 200 || m["requests"] != 200 {
		t.Errorf("N = %d, requests = %v, want 200", s.N, m["requests"])
	}
	if m["failed"] != 0 || m["non_2xx"] != 0 {
		t.Errorf("failed = %v, non_2xx = %v, want 0", m["failed"], m["non_2xx"])
	}
	if m["body_bytes"] != 200*5000 {
		t.Errorf("body_bytes = %v, want %d", m["body_bytes"], 200*5000)
	}
	if m["total_bytes"] <= m["body_bytes"] {
		t.Errorf("total_bytes = %v, want more than body_bytes %v (headers)", m["total_bytes"], m["body_bytes"])
	}
	secs := s.Elapsed.Seconds()
	if got, want := m["requests_per_sec"], 200/secs; !near(got, want) {
		t.Errorf("requests_per_sec = %v, want %v", got, want)
	}
	if got, want := m["time_per_request_ms"], 4*secs*1e3/200; !near(got, want) {
		t.Errorf("time_per_request_ms = %v, want %v", got, want)
	}
	if got, want := m["time_per_request_all_ms"], secs*1e3/200; !near(got, want) {
		t.Errorf("time_per_request_all_ms = %v, want %v", got, want)
	}
	p50, p90, p99, p999, mx := m["latency_p50_ns"], m["latency_p90_ns"], m["latency_p99_ns"], m["latency_p999_ns"], m["latency_max_ns"]
	if !(0 < p50 && p50 <= p90 && p90 <= p99 && p99 <= p999 && p999 <= mx) {
		t.Errorf("latencies p50 %v p90 %v p99 %v p99.9 %v max %v, want increasing and positive", p50, p90, p99, p999, mx)
	}
	if _, ok := m["server_cpu_ns"]; ok {
		t.Error("server_cpu_ns reported for a plain URL")
	}
}

func near(a, b float64) bool { return a >= b*0.999 && a <= b*1.001 }

func TestHTTPFailuresAreCounted(t *testing.T) {
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch h := hits.Add(1); {
		case h%5 == 0:
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("abcd"))
		case h%7 == 0:
			w.Write([]byte("abcdefgh")) // a length unlike the first response's
		default:
			w.Write([]byte("abcd"))
		}
	}))
	defer ts.Close()
	s := runHTTP(t, param.Values{"url": ts.URL, "concurrency": int64(1), "max_failures": 1.0}, nil, 35)
	if got := s.Metrics["non_2xx"]; got != 7 {
		t.Errorf("non_2xx = %v, want 7", got)
	}
	if got := s.Metrics["failed"]; got != 4 { // 7, 14, 21, 28 (35 is a 500 of the right length)
		t.Errorf("failed = %v, want 4", got)
	}

	// Nothing listens: every request fails, and the phase still ends.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s = runHTTP(t, param.Values{"url": "http://" + addr + "/", "concurrency": int64(2), "request_timeout": time.Second,
		"max_failures": 1.0}, nil, 10)
	if s.Metrics["failed"] != 10 || s.N != 10 {
		t.Errorf("refused: failed = %v of N = %d, want 10 of 10", s.Metrics["failed"], s.N)
	}
}

func TestHTTPServerDiesMidLoad(t *testing.T) {
	var hits atomic.Int64
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 50 {
			go ts.Close()
		}
		w.Write([]byte("ok"))
	}))
	defer ts.Close()
	s := runHTTP(t, param.Values{"url": ts.URL, "concurrency": int64(2), "request_timeout": 2 * time.Second,
		"max_failures": 1.0}, nil, 500)
	if s.N != 500 {
		t.Errorf("N = %d, want all 500 counted", s.N)
	}
	if f := s.Metrics["failed"]; f < 400 || f > 452 {
		t.Errorf("failed = %v, want the ~450 sent after the server died", f)
	}
}

func TestHTTPKeepalive(t *testing.T) {
	for _, keep := range []bool{true, false} {
		var conns atomic.Int64
		ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
		ts.Start()
		runHTTP(t, param.Values{"url": ts.URL, "concurrency": int64(2), "keepalive": keep}, nil, 20)
		ts.Close()
		if got := conns.Load(); keep && got > 2 || !keep && got != 20 {
			t.Errorf("keepalive = %v: %d connections for 20 requests at concurrency 2", keep, got)
		}
	}
}

func TestHTTPRequestShape(t *testing.T) {
	got := make(chan string, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := new(strings.Builder)
		fmt.Fprintf(b, "%s %s %s ", r.Method, r.URL.Path, r.Header.Get("X-Token"))
		buf := make([]byte, 64)
		n, _ := r.Body.Read(buf)
		b.Write(buf[:n])
		select {
		case got <- b.String():
		default:
		}
	}))
	defer ts.Close()
	env := fakeEnv{"app": {Name: "app", URL: ts.URL, PID: os.Getpid()}}
	s := runHTTP(t, param.Values{
		"server": "app", "path": "/api", "method": "post",
		"headers": map[string]string{"X-Token": "t1"}, "body": "hello",
	}, env, 3)
	if g := <-got; g != "POST /api t1 hello" {
		t.Errorf("request = %q, want %q", g, "POST /api t1 hello")
	}
	for _, k := range []string{"server_cpu_ns", "server_cpu_ns_per_request", "server_max_rss_bytes"} {
		if _, ok := s.Metrics[k]; !ok {
			t.Errorf("%s missing for a server block", k)
		}
	}
	if s.Metrics["server_max_rss_bytes"] <= 0 {
		t.Errorf("server_max_rss_bytes = %v, want > 0", s.Metrics["server_max_rss_bytes"])
	}

	// server.NAME.url of a builtin server, as the spec hands it over.
	runHTTP(t, param.Values{"url": ServerURLScheme + "app/api", "method": "POST", "headers": map[string]string{"X-Token": "t2"}}, env, 1)
	if g := <-got; g != "POST /api t2 " {
		t.Errorf("via %s: request = %q", ServerURLScheme, g)
	}
	if _, err := newHTTP(param.Values{"server": "nope"}, env); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown server: err = %v", err)
	}
}

func TestHTTPDurationAndRate(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()

	s := runHTTP(t, param.Values{"url": ts.URL, "duration": 200 * time.Millisecond, "concurrency": int64(2)}, nil, 1)
	if s.N < 2 || s.Elapsed < 200*time.Millisecond {
		t.Errorf("duration 200ms: N = %d in %v", s.N, s.Elapsed)
	}

	// 40 requests due every 5ms take at least 195ms, however fast the server.
	s = runHTTP(t, param.Values{"url": ts.URL, "rate": 200.0, "concurrency": int64(4)}, nil, 40)
	if s.N != 40 || s.Elapsed < 195*time.Millisecond {
		t.Errorf("rate 200/s: N = %d in %v, want 40 in at least 195ms", s.N, s.Elapsed)
	}
}

func TestHTTPCancel(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	op, err := newHTTP(param.Values{"url": ts.URL, "duration": time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := op.Run(ctx, 1); err == nil {
		t.Error("cancelled phase: err = nil")
	}
}

// TestHTTPTooManyFailuresIsAnError: a phase whose bad requests (failed
// or non-2xx) exceed max_failures is a benchmark error, as a non-zero exit
// is for hyperfine; at or under it the phase is a result.
func TestHTTPTooManyFailuresIsAnError(t *testing.T) {
	var hits atomic.Int64
	every := func(n int64) http.HandlerFunc { // every nth request is a 404
		return func(w http.ResponseWriter, r *http.Request) {
			if n > 0 && hits.Add(1)%n == 0 {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte("ok"))
		}
	}
	for _, c := range []struct {
		name    string
		every   int64
		max     any // max_failures; nil for the default
		wantErr string
	}{
		{"all 404", 1, nil, "200 of 200 requests (100.0%) failed or got a non-2xx status (0 failed, 200 non-2xx)"},
		{"1 in 200 at the default 1%", 200, nil, ""},
		{"1 in 50 at the default 1%", 50, nil, "4 of 200 requests (2.0%)"},
		{"1 in 200 with none allowed", 200, 0.0, "1 of 200 requests (0.5%)"},
		{"all 404 all allowed", 1, 1.0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			hits.Store(0)
			ts := httptest.NewServer(every(c.every))
			defer ts.Close()
			p := param.Values{"url": ts.URL, "concurrency": int64(1), "variable_length": true}
			if c.max != nil {
				p["max_failures"] = c.max
			}
			op, err := newHTTP(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer op.(*httpOp).Close()
			_, err = op.Run(context.Background(), 200)
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("err = %v, want one saying %q", err, c.wantErr)
			}
		})
	}
	for _, bad := range []float64{-0.1, 1.5} {
		if _, err := newHTTP(param.Values{"url": "http://127.0.0.1:1/", "max_failures": bad}, nil); err == nil {
			t.Errorf("max_failures = %v: no error", bad)
		}
	}
}

// TestHTTPVariableLength: ab counts a body length unlike the first
// response's as a failure unless -l; variable_length is -l.
func TestHTTPVariableLength(t *testing.T) {
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "page %d", hits.Add(1)) // 9 to 11 bytes
	}))
	defer ts.Close()
	for _, anyLength := range []bool{false, true} {
		hits.Store(0)
		s := runHTTP(t, param.Values{"url": ts.URL, "concurrency": int64(1), "variable_length": anyLength,
			"max_failures": 1.0}, nil, 100)
		want := 91.0 // the 9-byte page came first; 10-99 and 100 differ
		if anyLength {
			want = 0
		}
		if got := s.Metrics["failed"]; got != want {
			t.Errorf("variable_length = %v: failed = %v, want %v", anyLength, got, want)
		}
	}
}

// TestHTTPRateMissedIsAWarning: a rate target missed by far is a warning
// of the run; one reached (within 10%) is not.
func TestHTTPRateMissedIsAWarning(t *testing.T) {
	o := &httpOp{rate: 1000, concurrency: 10}
	for _, c := range []struct {
		done int64
		warn bool
	}{{1000, false}, {901, false}, {899, true}, {3, true}} {
		ws, err := o.judge(worker{done: c.done}, time.Second)
		if err != nil || (len(ws) > 0) != c.warn {
			t.Errorf("%d requests in 1s at rate 1000: warnings %q, err %v; want a warning: %v", c.done, ws, err, c.warn)
		}
	}
	// End to end: a server that takes 2ms per request cannot be loaded at
	// 100,000 requests/s over one connection.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
	}))
	defer ts.Close()
	s := runHTTP(t, param.Values{"url": ts.URL, "rate": 1e5, "concurrency": int64(1)}, nil, 20)
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "rate 100000 requests/s asked") {
		t.Errorf("warnings = %q, want one about the rate", s.Warnings)
	}
}

// TestHTTPRequestTimeout: request_timeout bounds each request (the
// benchmark's own timeout is another setting): a server that accepts and
// never answers costs failed requests, not the phase.
func TestHTTPRequestTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	start := time.Now()
	s := runHTTP(t, param.Values{"url": "http://" + l.Addr().String() + "/", "concurrency": int64(1),
		"request_timeout": 100 * time.Millisecond, "max_failures": 1.0}, nil, 3)
	if s.Metrics["failed"] != 3 {
		t.Errorf("failed = %v, want 3", s.Metrics["failed"])
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("3 requests that time out after 100ms took %v", d)
	}
}

// TestHTTPConcurrencyThatCannotFit: a concurrency beyond the open-file
// limit or the machine's memory is refused when the op is prepared, not
// left to Go's fatal out-of-memory.
func TestHTTPConcurrencyThatCannotFit(t *testing.T) {
	_, err := newHTTP(param.Values{"url": "http://127.0.0.1:1/", "concurrency": int64(1e9)}, nil)
	if err == nil || !strings.Contains(err.Error(), "concurrency 1000000000") {
		t.Errorf("concurrency 1e9: err = %v", err)
	}
}

func TestExternalOpsInterleaveAndCountRequests(t *testing.T) {
	for _, name := range []string{"exec", "http"} {
		d, ok := Lookup(name)
		if !ok {
			t.Fatalf("no %s op", name)
		}
		if !d.Interleave {
			t.Errorf("%s: Interleave = false, want matrix variants run round-robin", name)
		}
	}
	d, _ := Lookup("http")
	if got := d.Iterations(param.Values{"requests": int64(1000)}); got != 1000 {
		t.Errorf("Iterations(requests=1000) = %d, want 1000: one run is one load phase", got)
	}
	if got := d.Iterations(param.Values{"requests": int64(1000), "duration": time.Second}); got != 1 {
		t.Errorf("Iterations(duration=1s) = %d, want 1 (the phase reports its count)", got)
	}
}

// lookupEnv also maps command servers' URLs to their names.
type lookupEnv struct{ fakeEnv }

func (lookupEnv) ServerFor(url string) (string, bool) {
	return "app", strings.HasPrefix(url, "http://127.0.0.1:8081")
}

// TestHTTPNamesTheServerItLoads: the harness learns which server block an
// instance loads, however the spec names it, to stop it after its last use.
func TestHTTPNamesTheServerItLoads(t *testing.T) {
	def, _ := Lookup("http")
	env := lookupEnv{}
	for _, c := range []struct {
		p    param.Values
		want []string
	}{
		{param.Values{"server": "a", "path": "/x"}, []string{"a"}},
		{param.Values{"url": ServerURLScheme + "b/page"}, []string{"b"}},
		{param.Values{"url": "http://127.0.0.1:8081/health"}, []string{"app"}},
		{param.Values{"url": "http://127.0.0.1:9999/"}, nil},
	} {
		if got := def.Servers(c.p, env); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Servers(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}
