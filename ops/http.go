package ops

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

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
			{Name: "threads", Type: param.Int, Unit: "threads", Positive: true,
				Doc: "The OS threads that run the phase's connections, as wrk's -t: on Linux over http, one event loop each (at most one per connection); elsewhere and for https, GOMAXPROCS during the phase. Unset, one per CPU. Fewer threads cost less CPU per request."},
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
		Servers: func(p param.Values, owner ServerOwner) []string {
			if name := httpServer(p, owner); name != "" {
				return []string{name}
			}
			return nil
		},
		New:    newHTTP,
		Check:  checkHTTP,
		Memory: httpFootprint,
	})
}

var httpMetrics = append([]Metric{
	{Name: "requests_per_sec", Unit: "requests/s", Doc: "Completed requests (failed included, as ab counts them) over the phase's elapsed time.", HigherIsBetter: true},
	{Name: "time_per_request_ms", Unit: "ms", Doc: "concurrency * elapsed / requests: the mean time one client waits (ab's first figure)."},
	{Name: "time_per_request_all_ms", Unit: "ms", Doc: "elapsed / requests: mean across all concurrent requests (ab's second figure)."},
	{Name: "transfer_bytes_per_sec", Unit: "bytes/s", Doc: "Bytes received, headers included, over elapsed time.", HigherIsBetter: true},
	{Name: "total_bytes", Unit: "bytes", Neutral: true, Doc: "Bytes received, headers included."},
	{Name: "body_bytes", Unit: "bytes", Neutral: true, Doc: "Response body bytes received (ab's HTML transferred)."},
	{Name: "requests", Unit: "count", HigherIsBetter: true, Doc: "Requests completed in the phase (with duration, more is better; with requests, it is that number)."},
	{Name: "failed", Unit: "count", Doc: "Requests that failed: connect, send or read error, timeout, or a body length unlike the first response's (as ab counts them)."},
	{Name: "non_2xx", Unit: "count", Doc: "Responses with a status outside 200-299."},
	{Name: "latency_p50_ns", Unit: "ns", Doc: "Median latency of the responses: " + latencyDef},
	{Name: "latency_p90_ns", Unit: "ns", Doc: "90th percentile latency (as latency_p50_ns)."},
	{Name: "latency_p99_ns", Unit: "ns", Doc: "99th percentile latency (as latency_p50_ns)."},
	{Name: "latency_p999_ns", Unit: "ns", Doc: "99.9th percentile latency (as latency_p50_ns)."},
	{Name: "latency_max_ns", Unit: "ns", Doc: "Largest latency (as latency_p50_ns)."},
	{Name: "client_cpu_ns_per_request", Unit: "ns", Doc: "specrun's own CPU time (user+sys) over requests: the load generator's cost."},
	{Name: "server_cpu_ns", Unit: "ns", Doc: "The server's CPU time (user+sys of its process group) during the phase; server blocks only."},
	{Name: "server_cpu_ns_per_request", Unit: "ns", Doc: "server_cpu_ns over requests."},
	{Name: "server_max_rss_bytes", Unit: "bytes", Doc: "The server's peak resident set size during the phase: of its whole process group, summed over its processes (workers and wrapped children count)."},
	{Name: "server_own_max_rss_bytes", Unit: "bytes", Doc: "The peak resident set size of the server's main process alone (its VmHWM), beside the group's server_max_rss_bytes."},
	{Name: "server_cpu_percent", Unit: "%", Neutral: true, Doc: "server_cpu_ns over the phase's elapsed time, as top's %CPU: 100 is one CPU busy throughout."},
	{Name: "server_threads", Unit: "count", Neutral: true, Doc: "The most threads the server's process group had at once during the phase, sampled."},
}, connectionTimeMetrics()...)

// latencyDef says what latency_* measure, and which figures are raw.
const latencyDef = "in a closed loop, raw samples from the first byte of the request written to the last byte " +
	"of the response read, the connect excluded (wrk's definition; stock wrk then back-fills its percentiles " +
	"for coordinated omission, specrun does not); with rate, from each request's intended send time, " +
	"connect and any wait for a free connection included (wrk2's correction for coordinated omission)."

// connectionTimes are ab's "Connection Times" rows, always raw samples of
// the responses received: connect (zero on a kept-alive connection),
// processing (connected to last byte read), waiting (request's first byte written to
// first byte read) and total (start of connect, or of the write, to last
// byte read).
var connectionTimes = [...]string{"connect", "processing", "waiting", "total"}

func connectionTimeMetrics() []Metric {
	var ms []Metric
	docs := map[string]string{
		"connect":    "connecting (0 on a reused keep-alive connection)",
		"processing": "from connected to the last byte of the response read",
		"waiting":    "from the first byte of the request written to the first byte of the response read",
		"total":      "from the start of the connect (or of the write, on a reused connection) to the last byte read",
	}
	for _, row := range connectionTimes {
		for _, stat := range [...]string{"min", "mean", "sd", "median", "max"} {
			ms = append(ms, Metric{Name: row + "_" + stat + "_ns", Unit: "ns",
				Doc: "ab's Connection Times, " + row + " " + stat + ": " + docs[row] + "; raw samples."})
		}
	}
	return ms
}

// LatencyHistogram names the histogram of latency_* in Sample.Histograms.
const LatencyHistogram = "latency_ns"

// Histograms of a phase record nanoseconds up to an hour: latency with 3
// significant digits, as wrk2 does, and ab's connection times with 2 (ab
// prints whole milliseconds).
const (
	histMax    = int64(time.Hour)
	flushEvery = 128 // samples a connection keeps before adding them to the phase's histograms
)

type httpOp struct {
	addr        string         // "IP:port", resolved once when the op is prepared
	addrPort    netip.AddrPort // the same
	tls         *tls.Config    // nil for http
	request     []byte         // what every connection sends, built once
	head        bool           // a HEAD request: responses have no body
	concurrency int
	duration    time.Duration
	rate        float64
	timeout     time.Duration
	keepalive   bool
	maxFailures float64 // the fraction of bad requests a phase may have
	anyLength   bool    // ab -l: a body length unlike the first response's is no failure
	threads     int     // GOMAXPROCS during a phase; 0 leaves it
	serverPID   int     // 0 when the URL is not a server block's

	mu     sync.Mutex  // guards conns between phases
	conns  []*wireConn // the goroutine client's kept-alive connections, one slot per worker, reused by the next phase
	bufs   []byte      // the read buffers of all slots, one allocation
	stats  *phaseStats // reset by every phase
	client client      // what sends a phase's requests
}

// client sends a phase's requests and keeps its connections between
// phases: on Linux an event loop per thread over plain-http sockets
// (loopClient), elsewhere and for https a goroutine per connection.
type client interface {
	// run sends the phase's requests and returns what each of its
	// workers or loops counted, still to be merged.
	run(ph *phase) []*counter
	// procs is the GOMAXPROCS a phase needs, 0 for any.
	procs() int
	close()
}

// goroutineClient, for tests, makes every instance use the goroutine
// client, which is otherwise only the fallback.
var goroutineClient bool

func newHTTP(p param.Values, env Env) (Op, error) {
	target, pid, err := resolveTarget(p, env)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("http: url %q is not an http or https URL", target)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	// One resolution per instance: a phase dials the address it found.
	tcp, err := net.ResolveTCPAddr("tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return nil, fmt.Errorf("http: resolve %s: %w", u.Host, err)
	}
	o := &httpOp{
		addrPort:    netip.AddrPortFrom(tcp.AddrPort().Addr().Unmap(), tcp.AddrPort().Port()),
		concurrency: int(max(p.Int("concurrency"), 1)),
		duration:    p.Duration("duration"),
		rate:        p.Float("rate"),
		timeout:     p.Duration("request_timeout"),
		keepalive:   !p.Has("keepalive") || p.Bool("keepalive"),
		maxFailures: 0.01,
		anyLength:   p.Bool("variable_length"),
		threads:     int(p.Int("threads")),
		serverPID:   pid,
	}
	o.addr = o.addrPort.String()
	if o.timeout <= 0 {
		o.timeout = 30 * time.Second
	}
	if p.Has("max_failures") {
		o.maxFailures = p.Float("max_failures")
	}
	if errs := checkHTTP(p); len(errs) > 0 {
		return nil, fmt.Errorf("http: %w", errs[0])
	}
	if u.Scheme == "https" {
		o.tls = &tls.Config{ServerName: u.Hostname()}
	}
	method := strings.ToUpper(p.String("method"))
	if method == "" {
		method = "GET"
	}
	o.head = method == "HEAD"
	var headers [][2]string
	for k, v := range p.StringMap("headers") {
		headers = append(headers, [2]string{k, v})
	}
	sort.Slice(headers, func(i, j int) bool { return headers[i][0] < headers[j][0] })
	o.request = buildRequest(method, u.RequestURI(), u.Host, headers, []byte(p.String("body")), o.keepalive)
	o.conns = make([]*wireConn, o.concurrency)
	o.bufs = make([]byte, o.concurrency*readBufferSize)
	o.stats = newPhaseStats()
	o.client = workerClient{o}
	if c := newLoopClient(o); c != nil && !goroutineClient {
		o.client = c
	}
	if o.duration > 0 {
		return timedHTTP{o}, nil
	}
	return o, nil
}

// timedHTTP is an http op whose phases last a duration: it warms up with
// a phase as long as the warm-up, not a whole one.
type timedHTTP struct{ *httpOp }

var _ DurationBound = timedHTTP{}

// WarmUp loads the target for d, as a phase would, without judging its
// failures or its rate.
func (o timedHTTP) WarmUp(ctx context.Context, d time.Duration) (Sample, error) {
	return o.phase(ctx, 0, d, false)
}

// tally is one connection's count for a phase, merged when the phase ends
// so that the hot path shares nothing but, now and then, the histograms.
type tally struct {
	done      int64
	failed    int64
	non2xx    int64
	bad       int64 // failed or non-2xx, each request once
	bodyBytes int64
	received  int64 // bytes read, headers included
}

func (t *tally) add(u tally) {
	t.done += u.done
	t.failed += u.failed
	t.non2xx += u.non2xx
	t.bad += u.bad
	t.bodyBytes += u.bodyBytes
	t.received += u.received
}

// sample is one response's timings, in nanoseconds.
type sample struct {
	latency int64
	times   [len(connectionTimes)]int64 // connect, processing, waiting, total
}

// dist is one of ab's connection-time rows: a histogram for the median and
// exact sums for the mean and standard deviation.
type dist struct {
	hist       *hdrhistogram.Histogram
	n          int64
	sum, sumSq float64
	min, max   int64
}

func (d *dist) add(v int64) {
	d.hist.RecordValue(min(max(v, 0), histMax))
	if d.n == 0 || v < d.min {
		d.min = v
	}
	d.max = max(d.max, v)
	d.n++
	d.sum += float64(v)
	d.sumSq += float64(v) * float64(v)
}

// phaseStats are the histograms of one phase, which connections add to a
// batch of samples at a time.
type phaseStats struct {
	mu      sync.Mutex
	latency *hdrhistogram.Histogram
	times   [len(connectionTimes)]dist
}

func newPhaseStats() *phaseStats {
	s := &phaseStats{latency: hdrhistogram.New(1, histMax, 3)}
	for i := range s.times {
		s.times[i].hist = hdrhistogram.New(1, histMax, 2)
	}
	return s
}

func (s *phaseStats) reset() {
	s.latency.Reset()
	for i := range s.times {
		h := s.times[i].hist
		h.Reset()
		s.times[i] = dist{hist: h}
	}
}

func (s *phaseStats) add(batch []sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range batch {
		s.latency.RecordValue(min(max(x.latency, 1), histMax))
		for i, v := range x.times {
			s.times[i].add(v)
		}
	}
}

// counter is what one worker or event loop keeps of its requests until
// the phase ends: its tally, and the samples not yet added to the phase's
// histograms.
type counter struct {
	t     tally
	batch []sample
}

// failure counts a request that failed.
func (k *counter) failure() {
	k.t.done++
	k.t.failed++
	k.t.bad++
}

// response counts a response received and keeps its sample.
func (k *counter) response(o *httpOp, ph *phase, resp response, x sample) {
	k.t.done++
	bad := false
	if resp.status < 200 || resp.status > 299 {
		k.t.non2xx++
		bad = true
	}
	k.t.bodyBytes += resp.body
	if !o.anyLength {
		if want := ph.bodyLen.Load(); want == 0 {
			ph.bodyLen.CompareAndSwap(0, resp.body+1)
		} else if want != resp.body+1 {
			k.t.failed++ // ab's "Length" failure
			bad = true
		}
	}
	if bad {
		k.t.bad++
	}
	if k.batch == nil {
		k.batch = make([]sample, 0, flushEvery)
	}
	k.batch = append(k.batch, x)
	if len(k.batch) == flushEvery {
		o.stats.add(k.batch)
		k.batch = k.batch[:0]
	}
}

// worker drives one connection through a phase.
type worker struct {
	o   *httpOp
	ph  *phase
	buf []byte
	mu  sync.Mutex // guards c and cancelDial against the watchdog
	c   *wireConn  // nil between connections
	// dialCtx is what connects run under; the watchdog cancels it to end
	// a connect over request_timeout, and the next dial makes a new one.
	dialCtx    context.Context
	cancelDial context.CancelFunc
	since      atomic.Int64 // monoNow at the start of the request in flight, 0 when none
	counter
	pacer *pacer // rate mode's clock
}

// phase is what the workers of one Run share.
type phase struct {
	ctx      context.Context
	n        int64
	next     atomic.Int64 // the next request's index
	stop     atomic.Bool
	start    int64 // monoNow
	deadline int64 // monoNow; 0 without a duration
	interval float64
	bodyLen  atomic.Int64 // the first response's body length, +1; 0 until there is one
	dialer   net.Dialer
}

// Run is one load phase: n requests, or as many as fit in the duration.
func (o *httpOp) Run(ctx context.Context, n int64) (Sample, error) {
	return o.phase(ctx, n, o.duration, true)
}

// phase sends n requests, or as many as fit in duration when it is set,
// and judges the outcome (too many failures, a rate missed) when asked.
func (o *httpOp) phase(ctx context.Context, n int64, duration time.Duration, judge bool) (Sample, error) {
	// No TCP keep-alive probes (four setsockopt calls a dial) and no timer
	// per dial: the watchdog cancels a connect that takes too long.
	ph := &phase{ctx: ctx, n: n, dialer: net.Dialer{KeepAlive: -1}}
	if o.rate > 0 {
		ph.interval = float64(time.Second) / o.rate
	}
	var watch *procWatch
	if o.serverPID > 0 {
		watch = watchProcs(o.serverPID)
	}
	o.stats.reset()
	if procs := o.client.procs(); procs > 0 && procs != runtime.GOMAXPROCS(0) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs)) // set outside the phase's timing: it stops the world
	}
	cpu0 := selfCPU()
	wall := time.Now()
	ph.start = monoNow()
	if duration > 0 {
		ph.deadline = ph.start + int64(duration)
	}
	counters := o.client.run(ph)
	elapsed := time.Since(wall)
	clientCPU := selfCPU() - cpu0

	var total tally
	for _, k := range counters {
		o.stats.add(k.batch)
		total.add(k.t)
	}
	if err := ctx.Err(); err != nil {
		if watch != nil {
			watch.Stop()
		}
		return Sample{}, err
	}
	reqs := float64(max(total.done, 1))
	secs := elapsed.Seconds()
	st := o.stats
	m := map[string]float64{
		"requests_per_sec":          float64(total.done) / secs,
		"time_per_request_ms":       float64(o.concurrency) * secs * 1e3 / reqs,
		"time_per_request_all_ms":   secs * 1e3 / reqs,
		"transfer_bytes_per_sec":    float64(total.received) / secs,
		"total_bytes":               float64(total.received),
		"body_bytes":                float64(total.bodyBytes),
		"requests":                  float64(total.done),
		"failed":                    float64(total.failed),
		"non_2xx":                   float64(total.non2xx),
		"latency_p50_ns":            float64(st.latency.ValueAtQuantile(50)),
		"latency_p90_ns":            float64(st.latency.ValueAtQuantile(90)),
		"latency_p99_ns":            float64(st.latency.ValueAtQuantile(99)),
		"latency_p999_ns":           float64(st.latency.ValueAtQuantile(99.9)),
		"latency_max_ns":            float64(st.latency.Max()),
		"client_cpu_ns_per_request": float64(clientCPU) / reqs,
	}
	for i, row := range connectionTimes {
		d := &st.times[i]
		var mean, sd float64
		if d.n > 0 {
			mean = d.sum / float64(d.n)
		}
		if d.n > 1 {
			sd = math.Sqrt(max(d.sumSq-d.sum*mean, 0) / float64(d.n-1)) // ab's: over n-1
		}
		m[row+"_min_ns"] = float64(d.min)
		m[row+"_mean_ns"] = mean
		m[row+"_sd_ns"] = sd
		m[row+"_median_ns"] = float64(d.hist.ValueAtQuantile(50))
		m[row+"_max_ns"] = float64(d.max)
	}
	if watch != nil {
		f := watch.Stop()
		m["server_cpu_ns"] = float64(f.CPU)
		m["server_cpu_ns_per_request"] = float64(f.CPU) / reqs
		if elapsed > 0 {
			m["server_cpu_percent"] = 100 * float64(f.CPU) / float64(elapsed)
		}
		m["server_max_rss_bytes"] = float64(f.GroupRSS)
		m["server_own_max_rss_bytes"] = float64(f.OwnRSS)
		m["server_threads"] = float64(f.MaxThreads)
		if err := watch.Exited(); err != nil {
			return Sample{}, fmt.Errorf("http: %w", err)
		}
	}
	s := Sample{N: total.done, Elapsed: elapsed, Metrics: m, Started: wall}
	if enc, err := st.latency.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		s.Histograms = map[string]string{LatencyHistogram: string(enc)}
		for i, row := range connectionTimes {
			if enc, err := st.times[i].hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
				s.Histograms[row+"_ns"] = string(enc)
			}
		}
	}
	if judge {
		var err error
		if s.Warnings, err = o.judge(total, elapsed); err != nil {
			return Sample{}, err
		}
	}
	return s, nil
}

// workerClient runs a goroutine per connection over the runtime's poller.
type workerClient struct{ o *httpOp }

func (wc workerClient) run(ph *phase) []*counter {
	o := wc.o
	workers := make([]*worker, o.concurrency)
	o.mu.Lock()
	for i := range workers {
		workers[i] = &worker{o: o, ph: ph, c: o.conns[i], buf: o.bufs[i*readBufferSize : (i+1)*readBufferSize : (i+1)*readBufferSize]}
		if c := workers[i].c; c != nil {
			c.nc.SetDeadline(time.Time{}) // the last phase's watchdog may have fired at its very end
		}
	}
	o.mu.Unlock()
	watchdog := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop()
		}()
	}
	go o.watch(ph, workers, watchdog)
	wg.Wait()
	close(watchdog)

	counters := make([]*counter, len(workers))
	o.mu.Lock()
	for i, w := range workers {
		if w.cancelDial != nil {
			w.cancelDial()
		}
		counters[i] = &w.counter
		o.conns[i] = w.c
	}
	o.mu.Unlock()
	return counters
}

// procs is threads: fewer threads than CPUs wake each other less, as
// wrk's -t.
func (wc workerClient) procs() int { return wc.o.threads }

// close closes the connections kept alive between phases.
func (wc workerClient) close() {
	o := wc.o
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, c := range o.conns {
		if c != nil {
			c.nc.Close()
			o.conns[i] = nil
		}
	}
}

// watch is the phase's one timer: rather than a deadline per request, it
// looks at the requests in flight now and then and breaks the connection
// of one over request_timeout, and of all when the run is cancelled.
func (o *httpOp) watch(ph *phase, workers []*worker, done <-chan struct{}) {
	every := min(max(o.timeout/10, time.Millisecond), 100*time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-ph.ctx.Done():
			ph.stop.Store(true)
			for _, w := range workers {
				w.abort()
			}
			<-done
			return
		case <-tick.C:
			now := monoNow()
			for _, w := range workers {
				if s := w.since.Load(); s != 0 && now-s > int64(o.timeout) {
					w.abort()
				}
			}
		}
	}
}

// abort makes the worker's blocked connect, read or write return at once.
func (w *worker) abort() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.c != nil {
		w.c.nc.SetDeadline(time.Unix(1, 0))
	} else if w.cancelDial != nil {
		w.cancelDial()
	}
}

// loop sends requests until the phase's count or duration is reached.
func (w *worker) loop() {
	o, ph := w.o, w.ph
	last := int64(0) // when the last response ended; the next request starts there in a closed loop
	for !ph.stop.Load() {
		var i int64
		if ph.deadline == 0 || ph.interval > 0 {
			i = ph.next.Add(1) - 1
			if ph.deadline == 0 && i >= ph.n {
				return
			}
		}
		start, intended := last, int64(0)
		if ph.interval > 0 {
			// Open model: latency counts from when the request was due.
			intended = ph.start + int64(float64(i)*ph.interval)
			if w.pacer == nil {
				w.pacer = newPacer()
				defer w.pacer.close()
			}
			if ph.deadline != 0 && intended >= ph.deadline {
				w.pacer.wait(ph.deadline, &ph.stop) // the phase lasts its duration, at the rate asked
				return
			}
			if !w.pacer.wait(intended, &ph.stop) {
				return
			}
			start = 0
		}
		if start == 0 {
			start = monoNow()
		}
		if ph.deadline != 0 && start >= ph.deadline {
			return
		}
		w.since.Store(start)
		t, resp, err := w.do(start)
		if c := w.c; err == nil && c != nil && c.reads == 1 {
			last = c.first // the whole response came in one read: the clock was read then
		} else {
			last = monoNow()
		}
		w.since.Store(0)
		if err != nil {
			w.failure()
			w.hangUp()
			last = 0
			continue
		}
		x := sample{latency: last - t.ready, times: [...]int64{t.connect, last - t.ready, t.waiting, last - start}}
		if intended != 0 {
			x.latency = last - intended
		}
		w.response(o, ph, resp, x)
		if resp.close || !o.keepalive {
			w.hangUp()
			last = 0
		}
	}
}

// reqTimes are the clock readings of one request that its sample needs.
type reqTimes struct {
	connect int64 // time spent connecting; 0 on a kept-alive connection
	ready   int64 // monoNow when the connection was ready and the write began
	waiting int64 // from the request's first byte written to the response's first byte read
}

// do sends the request on the worker's connection, dialing one first if
// needed, and reads the response. A kept-alive connection that the server
// closed while idle is redialed once, as browsers do: the request never
// reached it.
func (w *worker) do(start int64) (t reqTimes, resp response, err error) {
	for attempt := 0; ; attempt++ {
		fresh := w.c == nil
		t = reqTimes{ready: start}
		if fresh {
			if err := w.dial(); err != nil {
				return t, resp, err
			}
			t.ready = monoNow()
			t.connect = t.ready - start
		}
		c := w.c
		before := c.n
		if _, err = c.nc.Write(w.o.request); err == nil {
			resp, err = c.readResponse(w.o.head)
			t.waiting = c.first - t.ready
		}
		w.t.received += c.n - before
		if err == nil || fresh || attempt > 0 || c.n != before || !retryable(err) || w.ph.stop.Load() {
			return t, resp, err
		}
		w.hangUp()
	}
}

// retryable is a kept-alive connection's error when the server had closed it.
func retryable(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func (w *worker) dial() error {
	w.mu.Lock()
	if w.dialCtx == nil || w.dialCtx.Err() != nil {
		if w.cancelDial != nil {
			w.cancelDial()
		}
		w.dialCtx, w.cancelDial = context.WithCancel(w.ph.ctx)
	}
	ctx := w.dialCtx
	w.mu.Unlock()
	if w.o.tls == nil {
		if c, connected, ok := rawDial(w.o.addrPort, w.o.keepalive); ok {
			// The watchdog can break the connect once the worker holds it.
			w.mu.Lock()
			w.c = newWireConn(c, w.buf)
			w.mu.Unlock()
			if err := connected(); err != nil {
				w.hangUp()
				return err
			}
			return nil
		}
	}
	// An IP literal: the dialer parses it and asks no resolver. (DialTCP
	// with a netip.AddrPort would also bind the socket before connecting,
	// which takes a port without the connect's TIME_WAIT reuse.)
	nc, err := w.ph.dialer.DialContext(ctx, "tcp", w.o.addr)
	if err != nil {
		return err
	}
	tcp := nc
	if w.o.tls != nil {
		t := tls.Client(tcp, w.o.tls)
		if err := t.HandshakeContext(ctx); err != nil {
			tcp.Close()
			return err
		}
		nc = t
	}
	w.mu.Lock()
	w.c = newWireConn(nc, w.buf)
	w.mu.Unlock()
	return nil
}

// hangUp closes the worker's connection.
func (w *worker) hangUp() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.c != nil {
		w.c.nc.Close()
		w.c = nil
	}
}

// Close closes the connections kept alive between phases.
func (o *httpOp) Close() error {
	o.client.close()
	return nil
}

// httpServer is the server block an http instance loads, or "" for a URL
// that belongs to none.
func httpServer(p param.Values, owner ServerOwner) string {
	raw, name := p.String("url"), p.String("server")
	switch {
	case name != "":
		return name
	case strings.HasPrefix(raw, ServerURLScheme):
		// server.NAME.url of a builtin server, with anything after it as the path.
		name, _, _ = strings.Cut(strings.TrimPrefix(raw, ServerURLScheme), "/")
		return name
	case raw != "" && owner != nil:
		if name, ok := owner(raw); ok {
			return name
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
	var name string
	if env != nil {
		if names := env.Servers(); len(names) > 0 {
			name = names[0]
		}
	}
	if name == "" {
		if name = httpServer(p, nil); name != "" {
			return "", 0, fmt.Errorf("http: server %q: no servers in this run", name)
		}
		return raw, 0, nil
	}
	s, err := env.Server(envContext(env), name)
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

// judge decides what a phase's tally says about the benchmark, as
// hyperfine does of a non-zero exit: more bad requests than max_failures
// allows is an error, and a rate target missed by far is a warning.
func (o *httpOp) judge(t tally, elapsed time.Duration) ([]string, error) {
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

// connMemory is what one connection of a phase may hold: its read buffer,
// its batch of samples, its goroutine's stack (the goroutine client's) and
// the kernel's socket.
const connMemory = readBufferSize + flushEvery*40 + 8<<10 + 4<<10

// histMemory is what an instance's histograms take, whatever its concurrency.
const histMemory = 512 << 10

// httpFootprint is the memory an http instance holds: it grows with its
// concurrency, which a typo can make a billion.
func httpFootprint(p param.Values) Footprint {
	return Footprint{Bytes: times(max(p.Int("concurrency"), 1), connMemory) + histMemory, Param: "concurrency",
		What: fmt.Sprintf("%s per connection for its read buffer, goroutine and samples", approxBytes(connMemory))}
}

// checkHTTP refuses what cannot run whatever the server does: a
// max_failures that is no fraction, and more connections than the
// open-file limit allows sockets.
func checkHTTP(p param.Values) []*ParamError {
	var errs []*ParamError
	if f := p.Float("max_failures"); p.Has("max_failures") && !(f >= 0 && f <= 1) {
		errs = append(errs, &ParamError{Param: "max_failures", Summary: "Not a fraction",
			Err: fmt.Errorf("max_failures is %v; it is the fraction of requests that may fail, from 0 to 1 (0.01 is 1%%)", f)})
	}
	var lim syscall.Rlimit
	if c := p.Int("concurrency"); syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && c > 0 && uint64(c) > uint64(lim.Cur) {
		errs = append(errs, &ParamError{Param: "concurrency", Summary: "Too many connections",
			Err: fmt.Errorf("concurrency %d needs as many sockets, more than the open-file limit of %d", c, lim.Cur)})
	}
	return errs
}

// selfCPU is specrun's own CPU time so far (user+sys of every thread).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
