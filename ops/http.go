package ops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/valyala/fasthttp"

	"github.com/specrun/specrun/param"
)

func init() {
	Register(&Def{
		Name: "http",
		Doc: "One run is one load phase: `requests` requests (or as many as fit in `duration`) from " +
			"`concurrency` connections; one iteration is one request, so ns_per_op is elapsed time over " +
			"requests (ab's \"time per request, mean, across all concurrent requests\"). Connections are " +
			"kept alive by default, as `ab -k` does; set keepalive = false for plain `ab`. A phase in which " +
			"more than max_failures of the requests failed or got a non-2xx status is a benchmark error.",
		Classic: "ab -k -n 1000 -c 10",
		Params: []param.Param{
			{Name: "url", Type: param.String, Doc: "The URL to load: any http URL, or server.NAME.url; set this or server."},
			{Name: "server", Type: param.String, Doc: "The name of a server block to load; its base URL is joined with path."},
			{Name: "path", Type: param.String, Default: "/", Doc: "The path requested from server."},
			{Name: "method", Type: param.String, Default: "GET", Doc: "The request method."},
			{Name: "headers", Type: param.StringMap, Doc: "Request headers."},
			{Name: "body", Type: param.String, Doc: "The request body."},
			{Name: "requests", Type: param.Int, Default: int64(1000), Unit: "requests", Positive: true,
				Doc: "Requests per load phase; ignored when duration is set."},
			{Name: "duration", Type: param.Duration, Positive: true, Doc: "Length of a load phase, instead of a number of requests."},
			{Name: "concurrency", Type: param.Int, Default: int64(10), Unit: "connections", Positive: true,
				Doc: "Requests in flight at once, each on its own connection."},
			{Name: "keepalive", Type: param.Bool, Default: true, Doc: "Reuse connections (HTTP keep-alive); false opens one per request."},
			{Name: "request_timeout", Type: param.Duration, Default: 30 * time.Second, Positive: true,
				Doc: "Per-request limit on connecting, sending and receiving; a request over it fails. (The benchmark's timeout bounds the whole benchmark.)"},
			{Name: "rate", Type: param.Number, Unit: "requests/s", Positive: true,
				Doc: "Send at this constant rate (open model) and measure latency from each request's intended send time, correcting coordinated omission as wrk2 does. A phase that reaches less than 90% of it records a warning."},
			{Name: "max_failures", Type: param.Number, Default: 0.01,
				Doc: "The largest fraction of a phase's requests that may fail or get a non-2xx status (0.01 is 1%, 1 accepts any); above it the phase is a benchmark error."},
			{Name: "variable_length", Type: param.Bool, Default: false,
				Doc: "Accept responses whose body length differs from the first's (ab -l); otherwise each such response is a failed request, as ab counts it."},
		},
		Metrics: httpMetrics,
		Iterations: func(p param.Values) int64 {
			if p.Has("duration") {
				return 1 // the phase reports how many requests fitted
			}
			return p.Int("requests")
		},
		Interleave: true,
		Servers: func(p param.Values, env Env) []string {
			if name := httpServer(p, env); name != "" {
				return []string{name}
			}
			return nil
		},
		New: newHTTP,
	})
}

var httpMetrics = []Metric{
	{Name: "requests_per_sec", Unit: "requests/s", Doc: "Completed requests (failed included, as ab counts them) over the phase's elapsed time.", HigherIsBetter: true},
	{Name: "time_per_request_ms", Unit: "ms", Doc: "concurrency * elapsed / requests: the mean time one client waits (ab's first figure)."},
	{Name: "time_per_request_all_ms", Unit: "ms", Doc: "elapsed / requests: mean across all concurrent requests (ab's second figure)."},
	{Name: "transfer_bytes_per_sec", Unit: "bytes/s", Doc: "Bytes received, headers included, over elapsed time.", HigherIsBetter: true},
	{Name: "total_bytes", Unit: "bytes", Doc: "Bytes received, headers included."},
	{Name: "body_bytes", Unit: "bytes", Doc: "Response body bytes received (ab's HTML transferred)."},
	{Name: "requests", Unit: "count", Doc: "Requests completed in the phase."},
	{Name: "failed", Unit: "count", Doc: "Requests that failed: connect, send or read error, timeout, or a body length unlike the first response's (as ab counts them)."},
	{Name: "non_2xx", Unit: "count", Doc: "Responses with a status outside 200-299."},
	{Name: "latency_p50_ns", Unit: "ns", Doc: "Median request latency."},
	{Name: "latency_p90_ns", Unit: "ns", Doc: "90th percentile request latency."},
	{Name: "latency_p99_ns", Unit: "ns", Doc: "99th percentile request latency."},
	{Name: "latency_p999_ns", Unit: "ns", Doc: "99.9th percentile request latency."},
	{Name: "latency_max_ns", Unit: "ns", Doc: "Largest request latency."},
	{Name: "client_cpu_ns_per_request", Unit: "ns", Doc: "specrun's own CPU time (user+sys) over requests: the load generator's cost."},
	{Name: "server_cpu_ns", Unit: "ns", Doc: "The server's CPU time (user+sys of its process group) during the phase; server blocks only."},
	{Name: "server_cpu_ns_per_request", Unit: "ns", Doc: "server_cpu_ns over requests."},
	{Name: "server_max_rss_bytes", Unit: "bytes", Doc: "The server's peak resident set size during the phase."},
}

// Histogram bounds: 1µs resolution up to an hour, 3 significant digits,
// as wrk2 records. One histogram is about 190 KB, so connections share at
// most histShards of them.
const (
	histMin    = int64(time.Microsecond)
	histMax    = int64(time.Hour)
	histShards = 64
)

// shard is a latency histogram that a few connections share.
type shard struct {
	mu   sync.Mutex
	hist *hdrhistogram.Histogram
}

type httpOp struct {
	client      *fasthttp.HostClient
	uri         string
	method      string
	headers     [][2]string
	body        []byte
	concurrency int
	duration    time.Duration
	rate        float64
	keepalive   bool
	maxFailures float64 // the fraction of bad requests a phase may have
	anyLength   bool    // ab -l: a body length unlike the first response's is no failure
	serverPID   int     // 0 when the URL is not a server block's
	received    int64   // bytes read from the server, updated by every connection
}

func newHTTP(p param.Values, env Env) (Op, error) {
	target, pid, err := resolveTarget(p, env)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("http: url %q is not an http or https URL", target)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	o := &httpOp{
		uri:         u.String(),
		method:      strings.ToUpper(p.String("method")),
		body:        []byte(p.String("body")),
		concurrency: int(max(p.Int("concurrency"), 1)),
		duration:    p.Duration("duration"),
		rate:        p.Float("rate"),
		keepalive:   !p.Has("keepalive") || p.Bool("keepalive"),
		maxFailures: 0.01,
		anyLength:   p.Bool("variable_length"),
		serverPID:   pid,
	}
	if p.Has("max_failures") {
		o.maxFailures = p.Float("max_failures")
	}
	if !(o.maxFailures >= 0 && o.maxFailures <= 1) {
		return nil, fmt.Errorf("http: max_failures %v is not a fraction from 0 to 1 (0.01 is 1%%)", o.maxFailures)
	}
	if err := checkConcurrency(o.concurrency); err != nil {
		return nil, err
	}
	if o.method == "" {
		o.method = "GET"
	}
	for k, v := range p.StringMap("headers") {
		o.headers = append(o.headers, [2]string{k, v})
	}
	sort.Slice(o.headers, func(i, j int) bool { return o.headers[i][0] < o.headers[j][0] })

	timeout := p.Duration("request_timeout")
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	o.client = &fasthttp.HostClient{
		Addr:  addr,
		IsTLS: u.Scheme == "https",
		// Each worker holds one connection, as ab's and wrk's do.
		MaxConns:           o.concurrency,
		MaxConnWaitTimeout: timeout,
		ReadTimeout:        timeout,
		WriteTimeout:       timeout,
		// A benchmark counts a failure; it never retries one.
		MaxIdemponentCallAttempts: 1,
		// A whole response in one read where the page allows: fewer syscalls per request.
		ReadBufferSize:           64 << 10,
		RetryIfErr:               func(*fasthttp.Request, int, error) (bool, bool) { return false, false },
		NoDefaultUserAgentHeader: true,
		// Headers go out as the spec wrote them.
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
		DialTimeout: func(addr string, t time.Duration) (net.Conn, error) {
			c, err := net.DialTimeout("tcp", addr, min(t, timeout))
			if err != nil {
				return nil, err
			}
			return &countConn{Conn: c, n: &o.received}, nil
		},
	}
	return o, nil
}

// httpServer is the server block an http instance loads, or "" for a URL
// that belongs to none.
func httpServer(p param.Values, env Env) string {
	raw, name := p.String("url"), p.String("server")
	switch {
	case name != "":
		return name
	case strings.HasPrefix(raw, ServerURLScheme):
		// server.NAME.url of a builtin server, with anything after it as the path.
		name, _, _ = strings.Cut(strings.TrimPrefix(raw, ServerURLScheme), "/")
		return name
	case raw != "":
		if l, ok := env.(ServerLookup); ok {
			if name, ok := l.ServerFor(raw); ok {
				return name
			}
		}
	}
	return name
}

// resolveTarget returns the URL to load and, for a server block, the
// server's process id.
func resolveTarget(p param.Values, env Env) (string, int, error) {
	raw, path := p.String("url"), p.String("path")
	switch {
	case raw != "" && p.String("server") != "":
		return "", 0, errors.New("http: set url or server, not both")
	case raw == "" && p.String("server") == "":
		return "", 0, errors.New("http: set url or server")
	}
	name := httpServer(p, env)
	if name == "" {
		return raw, 0, nil
	}
	if env == nil {
		return "", 0, fmt.Errorf("http: server %q: no servers in this run", name)
	}
	s, err := env.Server(context.Background(), name)
	if err != nil {
		return "", 0, fmt.Errorf("http: start server %q: %w", name, err)
	}
	if raw != "" && !strings.HasPrefix(raw, ServerURLScheme) {
		return raw, s.PID, nil // a command server's own URL
	}
	if raw != "" {
		_, rest, _ := strings.Cut(strings.TrimPrefix(raw, ServerURLScheme), "/")
		path = "/" + rest
	}
	if path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return strings.TrimSuffix(s.URL, "/") + path, s.PID, nil
}

// countConn counts the bytes a connection reads: ab's "Total transferred".
type countConn struct {
	net.Conn
	n *int64
}

func (c *countConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	atomic.AddInt64(c.n, int64(n))
	return n, err
}

// worker is one connection's tally for a phase, merged when the phase ends
// so that the hot path shares only the request counter and, beyond
// histShards connections, a histogram.
type worker struct {
	shard     *shard
	done      int64
	failed    int64
	non2xx    int64
	bad       int64 // failed or non-2xx, each request once
	bodyBytes int64
}

func (o *httpOp) Run(ctx context.Context, n int64) (Sample, error) {
	var (
		next      atomic.Int64
		bodyLen   atomic.Int64 // the first response's body length, +1 (0: none yet)
		stop      atomic.Bool
		wg        sync.WaitGroup
		workers   = make([]*worker, o.concurrency)
		shards    = make([]*shard, min(o.concurrency, histShards))
		interval  time.Duration
		deadline  time.Time
		watch     *procWatch
		atomicRcv = atomic.LoadInt64(&o.received)
	)
	if o.rate > 0 {
		interval = time.Duration(float64(time.Second) / o.rate)
	}
	if o.serverPID > 0 {
		watch = watchProcs(o.serverPID)
	}
	stopOnCancel := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer stopOnCancel()

	for i := range shards {
		shards[i] = &shard{hist: hdrhistogram.New(histMin, histMax, 3)}
	}
	cpu0 := selfCPU()
	start := time.Now()
	if o.duration > 0 {
		deadline = start.Add(o.duration)
	}
	for i := range workers {
		w := &worker{shard: shards[i%len(shards)]}
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			o.build(req)
			for !stop.Load() {
				i := next.Add(1) - 1
				if deadline.IsZero() && i >= n {
					return
				}
				sent := time.Now()
				if interval > 0 {
					// Open model: latency counts from when the request was due.
					sent = start.Add(time.Duration(i) * interval)
					if d := time.Until(sent); d > 0 {
						time.Sleep(d)
					}
				}
				if !deadline.IsZero() && !sent.Before(deadline) {
					return
				}
				err := o.client.Do(req, resp)
				lat := time.Since(sent)
				w.done++
				w.shard.mu.Lock()
				w.shard.hist.RecordValue(min(max(int64(lat), histMin), histMax))
				w.shard.mu.Unlock()
				if err != nil {
					w.failed++
					w.bad++
					continue
				}
				bad := false
				if sc := resp.StatusCode(); sc < 200 || sc > 299 {
					w.non2xx++
					bad = true
				}
				bl := int64(len(resp.Body()))
				w.bodyBytes += bl
				if !o.anyLength && !bodyLen.CompareAndSwap(0, bl+1) && bodyLen.Load() != bl+1 {
					w.failed++ // ab's "Length" failure
					bad = true
				}
				if bad {
					w.bad++
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	clientCPU := selfCPU() - cpu0

	hist := hdrhistogram.New(histMin, histMax, 3)
	for _, sh := range shards {
		hist.Merge(sh.hist)
	}
	var total worker
	for _, w := range workers {
		total.done += w.done
		total.failed += w.failed
		total.non2xx += w.non2xx
		total.bad += w.bad
		total.bodyBytes += w.bodyBytes
	}
	if err := ctx.Err(); err != nil {
		if watch != nil {
			watch.Stop()
		}
		return Sample{}, err
	}
	received := atomic.LoadInt64(&o.received) - atomicRcv
	reqs := float64(max(total.done, 1))
	secs := elapsed.Seconds()
	m := map[string]float64{
		"requests_per_sec":          float64(total.done) / secs,
		"time_per_request_ms":       float64(o.concurrency) * secs * 1e3 / reqs,
		"time_per_request_all_ms":   secs * 1e3 / reqs,
		"transfer_bytes_per_sec":    float64(received) / secs,
		"total_bytes":               float64(received),
		"body_bytes":                float64(total.bodyBytes),
		"requests":                  float64(total.done),
		"failed":                    float64(total.failed),
		"non_2xx":                   float64(total.non2xx),
		"latency_p50_ns":            float64(hist.ValueAtQuantile(50)),
		"latency_p90_ns":            float64(hist.ValueAtQuantile(90)),
		"latency_p99_ns":            float64(hist.ValueAtQuantile(99)),
		"latency_p999_ns":           float64(hist.ValueAtQuantile(99.9)),
		"latency_max_ns":            float64(hist.Max()),
		"client_cpu_ns_per_request": float64(clientCPU) / reqs,
	}
	if watch != nil {
		cpu, rss := watch.Stop()
		m["server_cpu_ns"] = float64(cpu)
		m["server_cpu_ns_per_request"] = float64(cpu) / reqs
		m["server_max_rss_bytes"] = float64(rss)
	}
	warnings, err := o.judge(total, elapsed)
	if err != nil {
		return Sample{}, err
	}
	return Sample{N: total.done, Elapsed: elapsed, Metrics: m, Warnings: warnings}, nil
}

// judge decides what a phase's tally says about the benchmark, as
// hyperfine does of a non-zero exit: more bad requests than max_failures
// allows is an error, and a rate target missed by far is a warning.
func (o *httpOp) judge(t worker, elapsed time.Duration) ([]string, error) {
	if t.done > 0 && float64(t.bad) > o.maxFailures*float64(t.done) {
		return nil, fmt.Errorf("http: %d of %d requests (%.1f%%) failed or got a non-2xx status "+
			"(%d failed, %d non-2xx), more than max_failures = %v allows",
			t.bad, t.done, 100*float64(t.bad)/float64(t.done), t.failed, t.non2xx, o.maxFailures)
	}
	var warnings []string
	if o.rate > 0 && elapsed > 0 {
		if reached := float64(t.done) / elapsed.Seconds(); reached < 0.9*o.rate {
			warnings = append(warnings, fmt.Sprintf("rate %.0f requests/s asked, %.0f reached (%.0f%%): "+
				"the server or the %d connections could not keep up", o.rate, reached, 100*reached/o.rate, o.concurrency))
		}
	}
	return warnings, nil
}

// connMemory is what one connection of a phase may hold: its read and
// write buffers and its goroutine's stack.
const connMemory = 64<<10 + 4<<10 + 8<<10

// checkConcurrency refuses a concurrency that cannot be had: more sockets
// than the open-file limit, or more buffers than the machine's free memory
// (Go's out-of-memory is fatal and would lose the whole run).
func checkConcurrency(c int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && uint64(c) > lim.Cur {
		return fmt.Errorf("http: concurrency %d needs as many sockets, over the open-file limit of %d", c, lim.Cur)
	}
	if avail := memAvailable(); avail > 0 && uint64(c) > avail/2/connMemory {
		return fmt.Errorf("http: concurrency %d needs about %d MiB for its connections, over half of the %d MiB available",
			c, uint64(c)*connMemory>>20, avail>>20)
	}
	return nil
}

// memAvailable is the kernel's estimate of the memory available to start
// new work without swapping, or 0 where it cannot be read.
func memAvailable() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			var kb uint64
			if _, err := fmt.Sscan(rest, &kb); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// build fills in the request every worker sends.
func (o *httpOp) build(req *fasthttp.Request) {
	req.SetRequestURI(o.uri)
	req.Header.SetMethod(o.method)
	for _, h := range o.headers {
		req.Header.Set(h[0], h[1])
	}
	if len(o.body) > 0 {
		req.SetBody(o.body)
	}
	if !o.keepalive {
		req.SetConnectionClose()
	}
}

// Close closes idle connections.
func (o *httpOp) Close() error {
	o.client.CloseIdleConnections()
	return nil
}

// selfCPU is specrun's own CPU time so far (user+sys of every thread).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
