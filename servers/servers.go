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
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/specrun/specrun/internal/procfs"
	"github.com/specrun/specrun/internal/procgroup"
	"github.com/specrun/specrun/spec"
)

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
// HTTP request, or, for a tcp:// ready address, accepts a connection.
// self runs specrun (builtin servers re-execute it as
// `specrun serve`); of the server's output, the end is kept for messages.
// On failure nothing is left running. s is as spec.Load made it: its
// ready timeout, stop signal and grace are settled there, and taken as
// they are.
func Start(ctx context.Context, s *spec.Server, self []string) (*Process, error) {
	sig, ok := spec.LookupStopSignal(s.StopSignal)
	if !ok {
		return nil, fmt.Errorf("start server %q: unknown stop signal %q", s.Name, s.StopSignal)
	}
	if s.ReadyTimeout <= 0 {
		return nil, fmt.Errorf("start server %q: ready timeout %v is not positive", s.Name, s.ReadyTimeout)
	}
	p := &Process{Name: s.Name, URL: s.URL, sig: sig, grace: s.Grace, done: make(chan struct{})}
	timeout := s.ReadyTimeout

	var argv []string
	if s.Builtin != "" {
		if len(self) == 0 {
			return nil, fmt.Errorf("start server %q: no specrun executable to run `specrun serve`", s.Name)
		}
		// The size always goes down, so that body_size = 0 serves an
		// empty page rather than serve's default.
		argv = append(append([]string{}, self...), "serve", "--addr", "127.0.0.1:0", "--work", s.Work.String(),
			"--body-size", strconv.FormatInt(s.BodySize, 10))
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
		if strings.HasPrefix(ready, "tcp://") {
			err = p.pollTCP(ctx, strings.TrimPrefix(ready, "tcp://"), timeout)
		} else {
			err = p.poll(ctx, ready, timeout)
		}
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
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return fmt.Errorf("poll ready URL: %w", err)
	}
	return p.await(ctx, timeout, target+" did not answer", "something else answered "+target, func() error {
		resp, err := client.Do(req) // a GET without a body can be sent again
		if err == nil {
			resp.Body.Close() // any answer means it serves
		}
		return err
	})
}

// pollTCP connects to addr until a connection is accepted, the server
// exits, or timeout passes: the readiness of a server that does not speak
// HTTP (memcached, a database).
func (p *Process) pollTCP(ctx context.Context, addr string, timeout time.Duration) error {
	var dialer net.Dialer
	return p.await(ctx, timeout, "nothing accepted a connection on "+addr, "something else accepted a connection on "+addr, func() error {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		conn, err := dialer.DialContext(dctx, "tcp", addr)
		if err == nil {
			conn.Close()
		}
		return err
	})
}

// await calls try, backing off from 10 ms to 200 ms between tries, until
// it succeeds, the server exits, ctx ends or timeout passes. A success
// after the server exited came from another process.
func (p *Process) await(ctx context.Context, timeout time.Duration, silent, impostor string, try func() error) error {
	deadline := time.Now().Add(timeout)
	wait := 10 * time.Millisecond
	for {
		err := try()
		if err == nil {
			if p.Exited() {
				return fmt.Errorf("exited before it was ready%s, and %s", p.exitNote(), impostor)
			}
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("exited before it was ready%s", p.exitNote())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %s: %w", timeout, silent, err)
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
