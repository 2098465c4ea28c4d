package servers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/spec"
)

// Pool is the servers of one run, and its temp dir: what the runner lends
// the ops (runner.Resources). A server starts when a benchmark first asks
// for it, and Close stops them all.
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
