// Package servers starts and stops the servers that http benchmarks load: a
// spec's command servers and specrun's builtin server (`specrun serve`, in a
// separate process). Each runs in a procgroup.Group of its own (a process
// group, and a cgroup where specrun may make one) and is stopped with its
// stop signal, a grace period, then KILL for the whole group, on every path
// out, so that no process outlives the run.
package servers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/specrun/specrun/internal/procfs"
	"github.com/specrun/specrun/internal/procgroup"
	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/spec"
)

// killWait bounds the wait for a process group after KILL, which cannot be
// ignored but can be delayed by a process stuck in the kernel.
const killWait = 5 * time.Second

var signals = map[string]syscall.Signal{
	"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP,
	"QUIT": syscall.SIGQUIT, "KILL": syscall.SIGKILL,
}

// Process is a started server.
type Process struct {
	Name string
	URL  string // base URL, "http://127.0.0.1:PORT"
	PID  int    // also the process group's id

	cmd      *exec.Cmd
	group    *procgroup.Group
	done     chan struct{} // closed once the process has exited
	waitErr  error         // valid after done
	sig      syscall.Signal
	grace    time.Duration
	output   *procgroup.Output // the end of what the server printed
	stopOnce sync.Once
	stopErr  error
}

// Start starts the server s and waits until it is ready: a builtin server
// has printed its URL; a command server's ready URL (or its URL) answers an
// HTTP request. self runs specrun (builtin servers re-execute it as
// `specrun serve`); of the server's output, the end is kept for messages.
// On failure nothing is left running.
func Start(ctx context.Context, s *spec.Server, self []string) (*Process, error) {
	p := &Process{Name: s.Name, URL: s.URL, sig: syscall.SIGTERM, grace: s.Grace, done: make(chan struct{})}
	if sig, ok := signals[strings.TrimPrefix(strings.ToUpper(s.StopSignal), "SIG")]; ok {
		p.sig = sig
	}
	timeout := s.ReadyTimeout
	if timeout <= 0 {
		timeout = spec.DefaultReadyTimeout
	}

	var argv []string
	if s.Builtin != "" {
		if len(self) == 0 {
			return nil, fmt.Errorf("start server %q: no specrun executable to run `specrun serve`", s.Name)
		}
		argv = append(append([]string{}, self...), "serve", "--addr", "127.0.0.1:0", "--work", s.Work.String())
		if s.BodySize > 0 {
			argv = append(argv, "--body-size", strconv.FormatInt(s.BodySize, 10))
		}
	} else {
		argv = s.Command
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("start server %q: empty command", s.Name)
	}

	ready := s.Ready
	if ready == "" {
		ready = s.URL
	}
	port, local := localPort(ready)
	if s.Builtin == "" && local {
		if err := portFree(port); err != nil {
			return nil, fmt.Errorf("start server %q: %w", s.Name, err)
		}
	}

	output, err := procgroup.NewOutput(nil)
	if err != nil {
		return nil, fmt.Errorf("start server %q: %w", s.Name, err)
	}
	p.output = output
	defer output.CloseWrite() // the child holds its own descriptor

	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Dir = s.Dir
	p.cmd.Env = os.Environ()
	for k, v := range s.Env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = output.W, output.W

	var urlLine *os.File
	if s.Builtin != "" {
		r, w, err := os.Pipe()
		if err != nil {
			output.Close()
			return nil, fmt.Errorf("start server %q: %w", s.Name, err)
		}
		defer w.Close()
		urlLine, p.cmd.Stdout = r, w
	}
	p.group = procgroup.New("server "+s.Name, procgroup.Options{})
	if err := p.group.Start(p.cmd); err != nil {
		if urlLine != nil {
			urlLine.Close()
		}
		p.group.Close()
		output.Close()
		return nil, fmt.Errorf("start server %q: %w", s.Name, err)
	}
	p.PID = p.cmd.Process.Pid
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()

	if s.Builtin != "" {
		p.cmd.Stdout.(*os.File).Close()
		err = p.readURL(ctx, urlLine, timeout)
	} else {
		err = p.poll(ctx, ready, timeout)
		if err == nil && local {
			err = p.ownsPort(port)
		}
	}
	if err != nil {
		p.Stop()
		return nil, fmt.Errorf("start server %q: %w%s", s.Name, err, p.logTail())
	}
	return p, nil
}

// readURL reads the URL that `specrun serve` prints once it listens, then
// keeps the end of the rest of its output with the rest.
func (p *Process) readURL(ctx context.Context, r *os.File, timeout time.Duration) error {
	line := make(chan string, 1)
	go func() {
		defer r.Close()
		br := bufio.NewReaderSize(io.LimitReader(r, 64<<10), 4<<10)
		s, _ := br.ReadString('\n')
		line <- strings.TrimSpace(s)
		io.Copy(&p.output.Tail, br)
		io.Copy(&p.output.Tail, r)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case u := <-line:
		if !strings.HasPrefix(u, "http://") {
			select { // let it exit, so that the error can say how
			case <-p.done:
			case <-time.After(time.Second):
			}
			return fmt.Errorf("specrun serve printed %q, not its URL%s", u, p.exitNote())
		}
		p.URL = u
		return nil
	case <-t.C:
		return fmt.Errorf("not ready after %v: specrun serve printed no URL", timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// poll requests url until the server answers, exits, or timeout passes.
// It follows no redirect: any answer means the server serves, and a
// redirect may point at another host.
func (p *Process) poll(ctx context.Context, target string, timeout time.Duration) error {
	client := &http.Client{
		Timeout:       time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	deadline := time.Now().Add(timeout)
	wait := 10 * time.Millisecond
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return fmt.Errorf("poll ready URL: %w", err)
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if p.Exited() { // the answer came from another process
				return fmt.Errorf("exited before it was ready%s, and something else answered %s", p.exitNote(), target)
			}
			return nil // any answer means it serves
		}
		last = err
		select {
		case <-p.done:
			return fmt.Errorf("exited before it was ready%s", p.exitNote())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %s did not answer: %w", timeout, target, last)
		}
		wait = min(wait*2, 200*time.Millisecond)
	}
}

// ownsPort checks that the socket that answered the ready URL is the
// server's: a process of its group listens on port.
func (p *Process) ownsPort(port int) error {
	// A server may hand its socket to a worker it starts; give the group a
	// moment to settle before concluding it does not own the port.
	deadline := time.Now().Add(time.Second)
	for {
		ok, err := listensInGroup(port, append(p.group.Members(), p.PID))
		if err != nil || ok {
			return nil // where /proc cannot tell, the answer stands
		}
		if time.Now().After(deadline) {
			inodes, _ := procfs.Listeners(port)
			return fmt.Errorf("port %d answered, but is not the server's: it is held%s, outside the server's process group", port, ownerNote(inodes))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *Process) exitNote() string {
	select {
	case <-p.done:
		if p.waitErr != nil {
			return " (" + p.waitErr.Error() + ")"
		}
		return " (exit status 0)"
	default:
		return ""
	}
}

// logTail is the end of the server's output, for an error message.
func (p *Process) logTail() string {
	if s := p.output.Last(20); s != "" {
		return "; its output ends:\n" + s
	}
	return ""
}

// Stop stops the server's group: the stop signal, up to the grace period
// for it to exit, then KILL for every process left in the group. It is safe
// to call more than once and after the server died by itself.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		select {
		case <-p.done:
		default:
			p.group.Signal(p.sig)
			t := time.NewTimer(p.grace)
			select {
			case <-p.done:
			case <-t.C:
			}
			t.Stop()
		}
		// KILL the group even when the leader is gone: what it forked must
		// not outlive it.
		if err := p.group.Close(); err != nil {
			p.stopErr = fmt.Errorf("stop server %q: %w", p.Name, err)
		}
		select {
		case <-p.done:
		case <-time.After(procgroup.KillWait):
			p.stopErr = errors.Join(p.stopErr, fmt.Errorf("stop server %q: pid %d still running %v after KILL", p.Name, p.PID, procgroup.KillWait))
		}
		p.output.Close()
	})
	return p.stopErr
}

// Exited reports whether the server has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Pool is the servers of one run. It implements ops.Env: a server starts
// when a benchmark first asks for it, and Close stops them all.
type Pool struct {
	// Self is the command that runs specrun, for builtin servers; nil means
	// os.Executable().
	Self []string
	// Context, when set, also bounds every start: cancelling it (the run's
	// Ctrl-C) ends a wait for a server to become ready. Ops ask for servers
	// while being prepared, which has no context of its own.
	Context context.Context

	defs    map[string]*spec.Server
	tempDir string

	mu       sync.Mutex
	running  map[string]*Process
	started  []*Process // every server this pool started, for Kill
	failed   map[string]error
	closed   bool
	ownedDir bool // tempDir was made by the pool, and goes with it
}

var (
	_ ops.Env           = (*Pool)(nil)
	_ ops.ServerLookup  = (*Pool)(nil)
	_ ops.ServerStopper = (*Pool)(nil)
)

// NewPool returns a pool of the plan's servers, keeping their logs in
// tempDir (the run's temp dir; "" makes a private one, removed by Close).
func NewPool(servers []*spec.Server, tempDir string) *Pool {
	p := &Pool{defs: map[string]*spec.Server{}, tempDir: tempDir,
		running: map[string]*Process{}, failed: map[string]error{}}
	for _, s := range servers {
		p.defs[s.Name] = s
	}
	return p
}

// TempDir is the run's temp dir.
func (p *Pool) TempDir() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	dir, _ := p.dir()
	return dir
}

func (p *Pool) dir() (string, error) {
	if p.tempDir == "" {
		d, err := makeRunDir("")
		if err != nil {
			return "", err
		}
		p.tempDir, p.ownedDir = d, true
	}
	return p.tempDir, nil
}

// Server returns the named server, starting it on first use. A server that
// failed to start is not tried again: every benchmark on it gets the error.
func (p *Pool) Server(ctx context.Context, name string) (ops.Server, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr, ok := p.running[name]; ok {
		if pr.Exited() {
			// A benchmark must not load whatever now answers on its port.
			err := fmt.Errorf("server %q exited%s before this benchmark%s", name, pr.exitNote(), pr.logTail())
			delete(p.running, name)
			p.failed[name] = err
			return ops.Server{}, err
		}
		return ops.Server{Name: name, URL: pr.URL, PID: pr.PID}, nil
	}
	if err, ok := p.failed[name]; ok {
		return ops.Server{}, err
	}
	if p.closed {
		return ops.Server{}, fmt.Errorf("start server %q: the run is over", name)
	}
	def, ok := p.defs[name]
	if !ok {
		return ops.Server{}, fmt.Errorf("no server %q in this spec", name)
	}
	self := p.Self
	if self == nil && def.Builtin != "" {
		exe, err := os.Executable()
		if err != nil {
			return ops.Server{}, fmt.Errorf("start server %q: find specrun: %w", name, err)
		}
		self = []string{exe}
	}
	if p.Context != nil {
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer stop()
		defer context.AfterFunc(p.Context, stop)()
	}
	pr, err := Start(ctx, def, self)
	if err != nil {
		p.failed[name] = err
		return ops.Server{}, err
	}
	p.running[name] = pr
	p.started = append(p.started, pr)
	return ops.Server{Name: name, URL: pr.URL, PID: pr.PID}, nil
}

// StopServer stops one server once no benchmark left in the run loads it.
func (p *Pool) StopServer(name string) error {
	p.mu.Lock()
	pr, ok := p.running[name]
	delete(p.running, name)
	p.mu.Unlock()
	if !ok {
		return nil
	}
	return pr.Stop()
}

// Kill sends KILL to every server's process group at once, without a grace
// period or a wait, and removes a temp dir the pool made: the way out when
// specrun must exit now (a second Ctrl-C), even while Close is waiting.
func (p *Pool) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, pr := range p.started {
		pr.group.Signal(syscall.SIGKILL)
	}
	if p.ownedDir {
		os.RemoveAll(p.tempDir)
	}
}

// ServerFor returns the command server whose base URL (or ready URL) has
// the scheme and host of rawURL: a benchmark that loads
// "${server.app.url}/path" loads server app.
func (p *Pool) ServerFor(rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", false
	}
	names := make([]string, 0, len(p.defs))
	for name := range p.defs {
		names = append(names, name)
	}
	sort.Strings(names) // the same answer every time if two servers share a host
	for _, name := range names {
		def := p.defs[name]
		for _, s := range []string{def.URL, def.Ready} {
			if v, err := url.Parse(s); err == nil && s != "" && v.Scheme == u.Scheme && v.Host == u.Host {
				return name, true
			}
		}
	}
	return "", false
}

// Close stops every running server, all at once so that the slowest grace
// period bounds the wait, and removes a temp dir the pool made.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	running := p.running
	p.running = map[string]*Process{}
	p.mu.Unlock()

	var wg sync.WaitGroup
	errs := make([]error, 0, len(running))
	var mu sync.Mutex
	for _, pr := range running {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := pr.Stop(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if p.ownedDir {
		if err := os.RemoveAll(p.tempDir); err != nil {
			errs = append(errs, fmt.Errorf("remove temp dir: %w", err))
		}
	}
	return errors.Join(errs...)
}
