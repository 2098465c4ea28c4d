package servers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
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

	defs map[string]*spec.Server

	mu       sync.Mutex
	running  map[string]*Process
	wanted   map[string]bool   // servers a benchmark asked for and has not released
	versions map[string]string // each server's version command's output
	failed   map[string]error
	closed   atomic.Bool

	// killMu guards what Kill needs, which must not wait for mu: a start
	// holds mu while it waits for its server, and for the grace if it fails.
	killMu   sync.Mutex
	started  []*Process // every server this pool started, for Kill
	tempDir  string
	ownedDir bool // tempDir was made by the pool, and goes with it
}

// NewPool returns a pool of the plan's servers, keeping their logs in
// tempDir (the run's temp dir; "" makes a private one, removed by Close).
func NewPool(servers []*spec.Server, tempDir string) *Pool {
	p := &Pool{defs: map[string]*spec.Server{}, tempDir: tempDir,
		running: map[string]*Process{}, failed: map[string]error{},
		wanted: map[string]bool{}, versions: map[string]string{}}
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
	p.killMu.Lock()
	defer p.killMu.Unlock()
	if p.tempDir == "" {
		d, err := makeRunDir("")
		if err != nil {
			return "", err
		}
		p.tempDir, p.ownedDir = d, true
	}
	return p.tempDir, nil
}

// Server returns the named server, starting it on first use, after the
// servers it depends on. A server that failed to start is not tried again:
// every benchmark on it gets the error, as does every benchmark on a server
// that depends on it.
func (p *Pool) Server(ctx context.Context, name string) (ops.Server, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Context != nil {
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer stop()
		defer context.AfterFunc(p.Context, stop)()
	}
	pr, err := p.server(ctx, name)
	if err != nil {
		return ops.Server{}, err
	}
	p.wanted[name] = true
	return ops.Server{Name: name, URL: pr.URL, PID: pr.PID}, nil
}

// server returns the named server and starts it, and first what it depends
// on, where needed; p.mu is held.
func (p *Pool) server(ctx context.Context, name string) (*Process, error) {
	def, ok := p.defs[name]
	if !ok {
		return nil, fmt.Errorf("no server %q in this spec", name)
	}
	if pr, ok := p.running[name]; ok {
		if pr.Exited() {
			// A benchmark must not load whatever now answers on its port.
			err := fmt.Errorf("server %q exited%s before this benchmark%s", name, pr.exitNote(), pr.logTail())
			delete(p.running, name)
			p.failed[name] = err
			return nil, err
		}
		for _, dep := range def.DependsOn {
			if _, err := p.server(ctx, dep); err != nil {
				return nil, fmt.Errorf("server %q depends on server %q: %w", name, dep, err)
			}
		}
		return pr, nil
	}
	if err, ok := p.failed[name]; ok {
		return nil, err
	}
	if p.closed.Load() {
		return nil, fmt.Errorf("start server %q: the run is over", name)
	}
	for _, dep := range def.DependsOn {
		if _, err := p.server(ctx, dep); err != nil {
			err = fmt.Errorf("start server %q: it depends on server %q: %w", name, dep, err)
			p.failed[name] = err
			return nil, err
		}
	}
	self := p.Self
	if self == nil && def.Builtin != "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("start server %q: find specrun: %w", name, err)
		}
		self = []string{exe}
	}
	if def.Version != nil {
		if _, ok := p.versions[name]; !ok {
			p.versions[name] = Version(ctx, def)
		}
	}
	pr, err := Start(ctx, def, self)
	if err != nil {
		p.failed[name] = err
		return nil, err
	}
	p.running[name] = pr
	p.killMu.Lock()
	p.started = append(p.started, pr)
	p.killMu.Unlock()
	return pr, nil
}

// Versions is the output of each started server's version command, by
// server name, for the result's environment.
func (p *Pool) Versions() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.versions) == 0 {
		return nil
	}
	return maps.Clone(p.versions)
}

// StopServer stops one server once no benchmark left in the run loads it,
// and then each server it depended on that nothing running needs any more.
// A server that another running server depends on is stopped after that
// one.
func (p *Pool) StopServer(name string) error {
	p.mu.Lock()
	delete(p.wanted, name)
	idle := p.idle()
	for _, pr := range idle {
		delete(p.running, pr.Name)
	}
	p.mu.Unlock()
	var errs []error
	for _, pr := range idle {
		errs = append(errs, pr.Stop())
	}
	return errors.Join(errs...)
}

// idle lists the running servers that no benchmark wants and no running
// server depends on, those that depend on others first, so that stopping
// them in order stops every dependency after its dependents; p.mu is held.
func (p *Pool) idle() []*Process {
	left := maps.Clone(p.running)
	var out []*Process
	for {
		var wave []string
		for name := range left {
			if !p.wanted[name] && !p.needed(name, left) {
				wave = append(wave, name)
			}
		}
		if len(wave) == 0 {
			return out
		}
		sort.Strings(wave)
		for _, name := range wave {
			out = append(out, left[name])
			delete(left, name)
		}
	}
}

// needed reports whether a server in running depends on name.
func (p *Pool) needed(name string, running map[string]*Process) bool {
	for other := range running {
		if slices.Contains(p.defs[other].DependsOn, name) {
			return true
		}
	}
	return false
}

// Kill sends KILL to every server's process group at once, without a grace
// period or a wait, and removes a temp dir the pool made: the way out when
// specrun must exit now (a second Ctrl-C), even while Close or a start is
// waiting. A server still being started is not reached: procgroup.KillAll
// is.
func (p *Pool) Kill() {
	p.closed.Store(true)
	p.killMu.Lock()
	defer p.killMu.Unlock()
	for _, pr := range p.started {
		pr.group.Signal(syscall.SIGKILL)
	}
	if p.ownedDir {
		os.RemoveAll(p.tempDir)
	}
}

// Close stops every running server and removes a temp dir the pool made.
// Servers stop all at once, so that the slowest grace period bounds the
// wait, except that a server stops only after those that depend on it.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed.Store(true)
	running := p.running
	p.running = map[string]*Process{}
	p.mu.Unlock()

	var errs []error
	var mu sync.Mutex
	for len(running) > 0 {
		var wave []*Process
		for name, pr := range running {
			if !p.needed(name, running) {
				wave = append(wave, pr)
			}
		}
		if len(wave) == 0 { // a cycle, which spec.Load refuses: stop them all
			for _, pr := range running {
				wave = append(wave, pr)
			}
		}
		var wg sync.WaitGroup
		for _, pr := range wave {
			delete(running, pr.Name)
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
	}
	p.killMu.Lock()
	defer p.killMu.Unlock()
	if p.ownedDir {
		if err := os.RemoveAll(p.tempDir); err != nil {
			errs = append(errs, fmt.Errorf("remove temp dir: %w", err))
		}
	}
	return errors.Join(errs...)
}
