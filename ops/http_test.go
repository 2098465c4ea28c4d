package ops

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

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

// Servers is what the plan settles from the parameters, which these tests
// build by hand: newPlanned hands an instance its servers.
func (fakeEnv) Servers() []string        { return nil }
func (fakeEnv) Context() context.Context { return context.Background() }

type plannedEnv struct {
	Env
	servers []string
}

func (e plannedEnv) Servers() []string { return e.servers }

// newPlanned prepares an http instance with the servers the plan would
// have settled for p.
func newPlanned(p param.Values, env Env) (Op, error) {
	def, _ := Lookup("http")
	return newHTTP(p, plannedEnv{env, def.Servers(p, nil)})
}

// useGoroutineClient makes the test's instances use the goroutine client.
func useGoroutineClient(t *testing.T) {
	goroutineClient = true
	t.Cleanup(func() { goroutineClient = false })
}

// TestHTTPGoroutineClient runs the client's tests again with the goroutine
// client, which is the only one off Linux and for https: both clients
// count, time, fail and time out alike.
func TestHTTPGoroutineClient(t *testing.T) {
	useGoroutineClient(t)
	for _, test := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"CountsAndLatencies", TestHTTPCountsAndLatencies},
		{"FailuresAreCounted", TestHTTPFailuresAreCounted},
		{"ServerDiesMidLoad", TestHTTPServerDiesMidLoad},
		{"Keepalive", TestHTTPKeepalive},
		{"RequestShape", TestHTTPRequestShape},
		{"DurationAndRate", TestHTTPDurationAndRate},
		{"Cancel", TestHTTPCancel},
		{"TooManyFailuresIsAnError", TestHTTPTooManyFailuresIsAnError},
		{"VariableLength", TestHTTPVariableLength},
		{"RateMissedIsAWarning", TestHTTPRateMissedIsAWarning},
		{"RequestTimeout", TestHTTPRequestTimeout},
		{"BodiesAreStreamed", TestHTTPBodiesAreStreamed},
		{"ConnectionTimes", TestHTTPConnectionTimes},
		{"IdleConnectionClosedByServer", TestHTTPIdleConnectionClosedByServer},
		{"CancelDuringARateSleep", TestHTTPCancelDuringARateSleep},
		{"RatePhaseEndsAtItsDuration", TestHTTPRatePhaseEndsAtItsDuration},
		{"DurationPhaseWarmsUpForTheWarmUp", TestHTTPDurationPhaseWarmsUpForTheWarmUp},
		{"ConnectTimeout", TestHTTPConnectTimeout},
		{"PhaseKeepsItsLatencyHistogram", TestHTTPPhaseKeepsItsLatencyHistogram},
		{"LargeRequestBody", TestHTTPLargeRequestBody},
		{"TimeoutWhileWriting", TestHTTPTimeoutWhileWriting},
		{"OverIPv6", TestHTTPOverIPv6},
	} {
		t.Run(test.name, test.f)
	}
}

func runHTTP(t *testing.T, p param.Values, env Env, n int64) Sample {
	t.Helper()
	op, err := newPlanned(p, env)
	if err != nil {
		t.Fatal(err)
	}
	defer op.(io.Closer).Close()
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
	started := make(chan struct{}) // ts is set: the race detector sees no order through raw sockets
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 50 {
			go func() {
				<-started
				ts.Close()
			}()
		}
		w.Write([]byte("ok"))
	}))
	close(started)
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
	if _, err := newPlanned(param.Values{"server": "nope"}, env); err == nil || !strings.Contains(err.Error(), `"nope"`) {
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
		ws, err := o.judge(tally{done: c.done}, time.Second)
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
// limit or the machine's memory is refused before anything runs (Validate,
// which the spec turns into a diagnostic) and again when the op is
// prepared, never left to Go's fatal out-of-memory.
func TestHTTPConcurrencyThatCannotFit(t *testing.T) {
	d, _ := Lookup("http")
	p := param.Values{"url": "http://127.0.0.1:1/", "concurrency": int64(1e9)}
	errs := d.Validate(p)
	if len(errs) == 0 {
		t.Fatal("concurrency 1e9: Validate finds nothing")
	}
	for _, e := range errs {
		if e.Param != "concurrency" {
			t.Errorf("concurrency 1e9: %v blames %q", e, e.Param)
		}
	}
	if _, err := d.New(p, nil); err == nil || !strings.Contains(err.Error(), "concurrency") {
		t.Errorf("concurrency 1e9: New err = %v", err)
	}
	if fp := httpFootprint(param.Values{"concurrency": int64(1000)}); fp.Bytes < 1000*readBufferSize {
		t.Errorf("footprint of 1000 connections = %d bytes, less than their read buffers", fp.Bytes)
	}
	if errs := d.Validate(param.Values{"url": "http://127.0.0.1:1/", "concurrency": int64(10), "max_failures": 2.0}); len(errs) != 1 || errs[0].Param != "max_failures" {
		t.Errorf("max_failures = 2: Validate = %v, want one error about max_failures", errs)
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

// TestHTTPNamesTheServerItLoads: the plan learns which server block an
// instance loads, however the spec names it, to hand it to the op and to
// stop it after its last use.
func TestHTTPNamesTheServerItLoads(t *testing.T) {
	def, _ := Lookup("http")
	owner := func(url string) (string, bool) {
		return "app", strings.HasPrefix(url, "http://127.0.0.1:8081")
	}
	for _, c := range []struct {
		p    param.Values
		want []string
	}{
		{param.Values{"server": "a", "path": "/x"}, []string{"a"}},
		{param.Values{"url": ServerURLScheme + "b/page"}, []string{"b"}},
		{param.Values{"url": "http://127.0.0.1:8081/health"}, []string{"app"}},
		{param.Values{"url": "http://127.0.0.1:9999/"}, nil},
	} {
		if got := def.Servers(c.p, owner); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Servers(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}

// TestHTTPBodiesAreStreamed: a response body is counted as it arrives and
// never held whole, with or without a length: two 64 MiB responses cost
// the client its read buffers, not 128 MiB.
func TestHTTPBodiesAreStreamed(t *testing.T) {
	const size = 64 << 20
	block := make([]byte, 1<<20)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/length" {
			w.Header().Set("Content-Length", fmt.Sprint(size))
		} // otherwise net/http sends it chunked
		for range size / len(block) {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	}))
	defer ts.Close()
	for _, path := range []string{"/length", "/chunked"} {
		op, err := newHTTP(param.Values{"url": ts.URL + path, "concurrency": int64(2)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := op.Run(context.Background(), 2)
		runtime.ReadMemStats(&after)
		op.(*httpOp).Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Metrics["body_bytes"]; got != 2*size {
			t.Errorf("%s: body_bytes = %v, want %d", path, got, 2*size)
		}
		// The test server's own writes allocate a little; the bodies would be 128 MiB.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
			t.Errorf("%s: two %d MiB responses allocated %d KiB", path, size>>20, alloc>>10)
		}
	}
}

// TestHTTPConnectionTimes: ab's Connection Times are recorded, and they
// add up as ab's do: connect + processing = total, waiting within
// processing; a kept-alive connection connects once, a closed one per request.
func TestHTTPConnectionTimes(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	defer ts.Close()
	for _, keep := range []bool{true, false} {
		m := runHTTP(t, param.Values{"url": ts.URL, "concurrency": int64(2), "keepalive": keep}, nil, 100).Metrics
		for _, row := range connectionTimes {
			min, mean, med, mx, sd := m[row+"_min_ns"], m[row+"_mean_ns"], m[row+"_median_ns"], m[row+"_max_ns"], m[row+"_sd_ns"]
			if !(0 <= min && min <= mean && mean <= mx && sd >= 0 && med <= mx*1.01) {
				t.Errorf("keepalive %v, %s: min %v mean %v median %v max %v sd %v", keep, row, min, mean, med, mx, sd)
			}
		}
		if got, want := m["total_mean_ns"], m["connect_mean_ns"]+m["processing_mean_ns"]; got < want*0.999 || got > want*1.001 {
			t.Errorf("keepalive %v: total mean %v, want connect + processing = %v", keep, got, want)
		}
		if m["waiting_mean_ns"] > m["processing_mean_ns"] || m["waiting_min_ns"] <= 0 {
			t.Errorf("keepalive %v: waiting mean %v min %v, processing mean %v", keep, m["waiting_mean_ns"], m["waiting_min_ns"], m["processing_mean_ns"])
		}
		// Two connections for 100 requests: the median request reuses one.
		if connects := m["connect_median_ns"]; keep && connects != 0 || !keep && m["connect_min_ns"] <= 0 {
			t.Errorf("keepalive %v: connect median %v, min %v", keep, connects, m["connect_min_ns"])
		}
		if lat, proc := m["latency_p50_ns"], m["processing_median_ns"]; lat < proc*0.95 || lat > proc*1.05 {
			t.Errorf("keepalive %v: latency p50 %v, want the processing median %v (closed loop: raw, connect excluded)", keep, lat, proc)
		}
	}
}

// TestHTTPIdleConnectionClosedByServer: a kept-alive connection the server
// closed between phases is redialed, not counted as a failure.
func TestHTTPIdleConnectionClosedByServer(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	op, err := newHTTP(param.Values{"url": ts.URL, "concurrency": int64(2), "max_failures": 0.0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer op.(*httpOp).Close()
	for phase := range 3 {
		s, err := op.Run(context.Background(), 10)
		if err != nil || s.Metrics["failed"] != 0 {
			t.Fatalf("phase %d: err %v, failed %v", phase, err, s.Metrics["failed"])
		}
		ts.CloseClientConnections()
		time.Sleep(10 * time.Millisecond) // let the close reach the client's side
	}
}

func TestHTTPHeadAndTLS(t *testing.T) {
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		if r.Method != http.MethodHead {
			w.Write(make([]byte, 1000))
		}
	}))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes below are expected
	ts.StartTLS()
	defer ts.Close()
	for _, method := range []string{"GET", "HEAD"} {
		op, err := newHTTP(param.Values{"url": ts.URL, "method": method, "concurrency": int64(2)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		op.(*httpOp).tls.RootCAs = ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
		s, err := op.Run(context.Background(), 10)
		op.(*httpOp).Close()
		want := map[string]float64{"GET": 10000, "HEAD": 0}[method]
		if err != nil || s.Metrics["body_bytes"] != want {
			t.Errorf("%s over TLS: err %v, body_bytes %v, want %v", method, err, s.Metrics["body_bytes"], want)
		}
	}
	// Without the test server's certificate, every handshake fails.
	op, err := newHTTP(param.Values{"url": ts.URL, "max_failures": 1.0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer op.(*httpOp).Close()
	if s, err := op.Run(context.Background(), 3); err != nil || s.Metrics["failed"] != 3 {
		t.Errorf("untrusted certificate: err %v, failed %v, want 3", err, s.Metrics["failed"])
	}
}

// TestPacerIsNeverEarly: the open model's pacing may wake late (a busy
// machine), never before the request is due.
func TestPacerIsNeverEarly(t *testing.T) {
	p := newPacer()
	defer p.close()
	for _, d := range []time.Duration{0, time.Microsecond, 30 * time.Microsecond, 300 * time.Microsecond, 1200 * time.Microsecond, 2500 * time.Microsecond} {
		due := monoNow() + int64(d)
		var stop atomic.Bool
		if !p.wait(due, &stop) {
			t.Errorf("wait(+%v) reports a stop", d)
		}
		if now := monoNow(); now < due {
			t.Errorf("wait(+%v) returned %v early", d, time.Duration(due-now))
		}
	}
	var stop atomic.Bool
	stop.Store(true)
	if p.wait(monoNow()+int64(time.Hour), &stop) {
		t.Error("wait(+1h) after a stop reports the time came")
	}
}

// TestHTTPCancelDuringARateSleep: a phase whose next request is due in an
// hour still stops when the run is cancelled.
func TestHTTPCancelDuringARateSleep(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	op, err := newHTTP(param.Values{"url": ts.URL, "rate": 1.0 / 3600, "duration": 2 * time.Hour, "concurrency": int64(2)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer op.(io.Closer).Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := op.Run(ctx, 1); err == nil {
		t.Error("cancelled phase: err = nil")
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("a cancelled phase took %v to stop", d)
	}
}

// TestHTTPRatePhaseEndsAtItsDuration: a worker whose next slot lies past
// the phase's end does not sleep until it.
func TestHTTPRatePhaseEndsAtItsDuration(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	s := runHTTP(t, param.Values{"url": ts.URL, "rate": 0.1, "duration": 200 * time.Millisecond, "concurrency": int64(2)}, nil, 1)
	if s.N != 1 || s.Elapsed < 200*time.Millisecond || s.Elapsed > 5*time.Second {
		t.Errorf("rate 0.1/s for 200ms: %d requests in %v, want 1 in 200ms, not until the next slot at 10s", s.N, s.Elapsed)
	}
}

// TestHTTPDurationPhaseWarmsUpForTheWarmUp: an http phase with a duration
// warms up with a phase as long as the warm-up, not with a whole phase.
func TestHTTPDurationPhaseWarmsUpForTheWarmUp(t *testing.T) {
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer ts.Close()
	op, err := newHTTP(param.Values{"url": ts.URL, "duration": time.Hour, "concurrency": int64(1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer op.(io.Closer).Close()
	db, ok := op.(DurationBound)
	if !ok {
		t.Fatal("an http op with a duration is not DurationBound")
	}
	start := time.Now()
	s, err := db.WarmUp(context.Background(), 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if s.N != hits.Load() || s.Elapsed <= 0 {
		t.Errorf("the warm-up's sample says %d requests in %v; the server counted %d", s.N, s.Elapsed, hits.Load())
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > time.Minute {
		t.Errorf("a 50ms warm-up of a one-hour phase took %v", d)
	}
	if hits.Load() == 0 {
		t.Error("the warm-up sent no requests")
	}
	counted, _ := newHTTP(param.Values{"url": ts.URL, "requests": int64(10)}, nil)
	defer counted.(io.Closer).Close()
	if _, ok := counted.(DurationBound); ok {
		t.Error("an http op with a count of requests is DurationBound; its warm-up runs grow towards the count")
	}
}

// TestHTTPConnectTimeout: request_timeout also bounds a connect that
// hangs (a listener whose accept queue is full drops the SYN, so the
// client retries for minutes); the phase still ends.
func TestHTTPConnectTimeout(t *testing.T) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil { // an accept queue of one, never accepted
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	for range 3 { // fill the queue, and then some
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			defer c.Close()
		}
	}
	start := time.Now()
	s := runHTTP(t, param.Values{"url": "http://" + addr + "/", "concurrency": int64(1),
		"request_timeout": 200 * time.Millisecond, "max_failures": 1.0}, nil, 2)
	if s.Metrics["failed"] != 2 {
		t.Errorf("failed = %v, want 2", s.Metrics["failed"])
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("2 requests whose connects time out after 200ms took %v", d)
	}
}

// TestHTTPThreads: for the goroutine client, threads sets GOMAXPROCS for
// the phase only. (The event loop's threads are its loops.)
func TestHTTPThreads(t *testing.T) {
	useGoroutineClient(t)
	var during atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		during.Store(int64(runtime.GOMAXPROCS(0)))
	}))
	defer ts.Close()
	before := runtime.GOMAXPROCS(0)
	runHTTP(t, param.Values{"url": ts.URL, "concurrency": int64(1), "threads": int64(before + 1)}, nil, 3)
	if got := during.Load(); got != int64(before+1) {
		t.Errorf("GOMAXPROCS during the phase = %d, want threads = %d", got, before+1)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS after the phase = %d, want %d restored", after, before)
	}
}

func TestHTTPPhaseKeepsItsLatencyHistogram(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	before := time.Now()
	s := runHTTP(t, param.Values{"url": ts.URL, "concurrency": int64(3)}, nil, 150)
	enc, ok := s.Histograms[LatencyHistogram]
	if !ok {
		t.Fatalf("no %q histogram in %v", LatencyHistogram, s.Histograms)
	}
	h, err := hdrhistogram.Decode([]byte(enc))
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != 150 {
		t.Errorf("histogram holds %d samples, want 150", h.TotalCount())
	}
	for q, name := range map[float64]string{50: "latency_p50_ns", 99: "latency_p99_ns"} {
		if got := float64(h.ValueAtQuantile(q)); got != s.Metrics[name] {
			t.Errorf("decoded p%v = %v, %s = %v", q, got, name, s.Metrics[name])
		}
	}
	if s.Started.Before(before) || s.Started.After(time.Now()) {
		t.Errorf("Started = %v, not within the phase's call", s.Started)
	}
}

// BenchmarkHTTP is one load phase of b.N requests, for profiling the
// client: against SPECRUN_BENCH_URL when set (nginx, say, so that the
// server's work stays out of the profile), else an in-process server.
// The concurrency is SPECRUN_BENCH_C (default 10), keepalive off when
// SPECRUN_BENCH_CLOSE is set; SPECRUN_BENCH_RATE sets a rate and
// SPECRUN_BENCH_THREADS the threads (default min(c, 2)).
func BenchmarkHTTP(b *testing.B) {
	target := os.Getenv("SPECRUN_BENCH_URL")
	if target == "" {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write(make([]byte, 6041))
		}))
		defer ts.Close()
		target = ts.URL
	}
	c := int64(10)
	if s := os.Getenv("SPECRUN_BENCH_C"); s != "" {
		fmt.Sscan(s, &c)
	}
	p := param.Values{"url": target, "concurrency": c, "keepalive": os.Getenv("SPECRUN_BENCH_CLOSE") == "", "threads": min(c, 2)}
	if s := os.Getenv("SPECRUN_BENCH_THREADS"); s != "" {
		var threads int64
		fmt.Sscan(s, &threads)
		p["threads"] = threads
	}
	if s := os.Getenv("SPECRUN_BENCH_RATE"); s != "" {
		var rate float64
		fmt.Sscan(s, &rate)
		p["rate"] = rate
	}
	op, err := newHTTP(p, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer op.(io.Closer).Close()
	b.ResetTimer()
	s, err := op.Run(context.Background(), int64(b.N))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(s.Metrics["client_cpu_ns_per_request"], "cpu-ns/req")
	b.ReportMetric(s.Metrics["failed"], "failed")
	b.ReportMetric(s.Metrics["latency_p50_ns"], "p50-ns")
}

// TestHTTPLargeRequestBody: a request larger than the socket's buffer is
// written in parts as the server reads it, on every connection.
func TestHTTPLargeRequestBody(t *testing.T) {
	const size = 4 << 20
	var got atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Add(n)
		fmt.Fprint(w, n)
	}))
	defer ts.Close()
	s := runHTTP(t, param.Values{"url": ts.URL, "method": "POST", "body": strings.Repeat("b", size),
		"concurrency": int64(2), "max_failures": 0.0}, nil, 6)
	if s.Metrics["failed"] != 0 || got.Load() != 6*size {
		t.Errorf("failed %v, server read %d bytes, want %d", s.Metrics["failed"], got.Load(), 6*size)
	}
}

// TestHTTPOverIPv6: an IPv6 address is dialed as one.
func TestHTTPOverIPv6(t *testing.T) {
	l, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("six"))
	}))
	ts.Listener.Close()
	ts.Listener = l
	ts.Start()
	defer ts.Close()
	for _, keep := range []bool{true, false} {
		s := runHTTP(t, param.Values{"url": ts.URL, "concurrency": int64(2), "keepalive": keep, "max_failures": 0.0}, nil, 10)
		if s.Metrics["body_bytes"] != 30 {
			t.Errorf("keepalive %v: body_bytes = %v, want 30", keep, s.Metrics["body_bytes"])
		}
	}
}

// TestHTTPTimeoutWhileWriting: a request that times out half written fails
// alone; the next one goes out whole on a new connection.
func TestHTTPTimeoutWhileWriting(t *testing.T) {
	const size = 8 << 20 // more than the client's send buffer and a receive window that no read opens hold
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			time.Sleep(1500 * time.Millisecond) // reads nothing: the client's write stalls
			return
		}
		if n, _ := io.Copy(io.Discard, r.Body); n != size {
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer ts.Close()
	s := runHTTP(t, param.Values{"url": ts.URL, "method": "POST", "body": strings.Repeat("b", size),
		"concurrency": int64(1), "request_timeout": time.Second, "max_failures": 1.0}, nil, 3)
	if s.Metrics["failed"] != 1 || s.Metrics["non_2xx"] != 0 {
		t.Errorf("failed %v, non-2xx %v; want the first request failed and the others whole", s.Metrics["failed"], s.Metrics["non_2xx"])
	}
}
