package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

var errInterrupted = errors.New("interrupted")

// call runs f in a goroutine of its own with what is left of the
// instance's timeout, so that an op that ignores its context cannot hold up
// the suite: past the deadline (or a cancellation) and a grace period, the
// runner stops waiting and moves on. f hands back its result rather than
// setting the runner's state, since an abandoned f may still finish later.
// A panic in f becomes an error.
//
// When f is abandoned and later succeeds, late (if not nil) receives what
// it returned, so that an op prepared too late is still closed.
func call[T any](r *runner, in *instance, f func(ctx context.Context) (T, error), late func(T)) (T, error) {
	var zero T
	if in.budget <= 0 {
		return zero, r.timedOut(in)
	}
	r.checkStrays(in)
	ctx, cancel := context.WithTimeout(r.ctx, in.budget)
	defer cancel()
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1) // buffered: an abandoned call still exits
	start := time.Now()
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- outcome{err: fmt.Errorf("panic: %v", v)}
			}
		}()
		v, err := f(ctx)
		done <- outcome{v, err}
	}()

	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		grace := time.NewTimer(r.cfg.Grace)
		select {
		case o = <-done:
		case <-grace.C:
			o.err = ctx.Err()
			returned := r.strays.add(in.b.Name)
			go func() {
				o := <-done
				returned()
				if late != nil && o.err == nil {
					late(o.v)
				}
			}()
		}
		grace.Stop()
	}
	in.budget -= time.Since(start)
	switch {
	case r.ctx.Err() != nil:
		return o.v, errInterrupted
	case ctx.Err() != nil && o.err != nil:
		// Whatever the op said, it failed because its time was up.
		return o.v, r.timedOut(in)
	}
	return o.v, o.err
}

func (r *runner) timedOut(in *instance) error {
	return fmt.Errorf("timed out after %v", in.b.Timeout)
}

// close closes an op in a goroutine of its own, with a time limit of its
// own: the benchmark's may be spent, or the run cancelled, and resources
// must be released however the benchmark ended.
func (r *runner) close(name string, c io.Closer) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- fmt.Errorf("panic: %v", v)
			}
		}()
		done <- c.Close()
	}()
	limit := time.NewTimer(5 * r.cfg.Grace)
	defer limit.Stop()
	select {
	case err := <-done:
		return err
	case <-limit.C:
		returned := r.strays.add(name)
		go func() { <-done; returned() }()
		return fmt.Errorf("did not return within %v", 5*r.cfg.Grace)
	}
}

// strays are the op calls the runner stopped waiting for that have not
// returned yet. An op that ignores its context keeps a core busy, so what
// is timed beside it is timed on a busier machine.
type strays struct {
	mu      sync.Mutex
	running map[string]int      // benchmark → its abandoned calls still running
	beside  map[string][]string // benchmark → the instances timed while it ran
}

// add records an abandoned call of benchmark name; returned is to be
// called when the call finally returns.
func (s *strays) add(name string) (returned func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == nil {
		s.running = map[string]int{}
	}
	s.running[name]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.running[name]--; s.running[name] == 0 {
			delete(s.running, name)
		}
	}
}

// checkStrays marks in as timed beside every op still running past its
// timeout, in the result and in the warnings at the end of the run.
func (r *runner) checkStrays(in *instance) {
	s := &r.strays
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.running {
		if name == in.b.Name || slices.Contains(in.res.ContaminatedBy, name) {
			continue
		}
		in.res.ContaminatedBy = append(in.res.ContaminatedBy, name)
		slices.Sort(in.res.ContaminatedBy)
		if s.beside == nil {
			s.beside = map[string][]string{}
		}
		s.beside[name] = append(s.beside[name], in.b.Name)
	}
}

// strayWarnings name each op that kept running past its timeout and what
// was timed beside it.
func (r *runner) strayWarnings() {
	const shown = 5
	names := slices.Sorted(maps.Keys(r.strays.beside))
	for _, name := range names {
		beside := r.strays.beside[name]
		list := strings.Join(beside[:min(len(beside), shown)], ", ")
		if len(beside) > shown {
			list += fmt.Sprintf(" and %d more", len(beside)-shown)
		}
		r.warn(fmt.Sprintf("%s: its op kept running after its timeout (it ignores cancellation), so the benchmarks timed beside it are suspect: %s", name, list))
	}
}
