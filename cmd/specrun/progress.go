package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/specrun/specrun/runner"
	"github.com/specrun/specrun/spec"
)

// progress is a one-line status on a terminal: benchmark k of n, its name,
// run r of R, time elapsed and an estimate of what is left. It redraws only
// when the runner reports, between timed runs: a redraw on a timer would
// wake a goroutine and allocate inside the runs it reports on.
//
// It is a hand-written line rather than a progress bar library: the unit of
// work (k of n benchmarks, r of R runs, with calibration of unknown length
// between) is not one counter that a bar fills, and one \r line needs no
// dependency.
type progress struct {
	w     io.Writer
	start time.Time

	mu        sync.Mutex
	name      string
	k, n      int
	run, runs int
	stopped   bool
	lastWidth int

	// The group being run: instances that interleave are all started,
	// then run round by round, so the share done is the benchmarks before
	// the group plus each member's finished share of its runs.
	starting bool            // the last event was a BenchmarkStart
	before   int             // benchmarks before the group
	group    map[string]part // the group's members
}

// part is a group member's place in the suite and its share done.
type part struct {
	index int
	done  float64
}

var _ runner.Observer = (*progress)(nil)

// newProgress returns a progress line on stderr, or nil when stderr is not
// a terminal: logs and CI get no carriage returns.
func newProgress(stderr io.Writer) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{w: stderr, start: time.Now()}
}

// BenchmarkStart implements runner.Observer.
func (p *progress) BenchmarkStart(b *spec.Benchmark, index, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.starting {
		p.starting, p.before, p.group = true, index-1, map[string]part{}
	}
	p.group[b.Name] = part{index: index}
	p.name, p.k, p.n, p.run, p.runs = b.Name, index, total, 0, 0
	p.draw()
}

// RunDone implements runner.Observer.
func (p *progress) RunDone(b *spec.Benchmark, run, runs int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.starting = false
	m := p.group[b.Name]
	m.done = float64(run) / float64(runs)
	p.group[b.Name] = m
	p.name, p.k, p.run, p.runs = b.Name, m.index, run, runs
	p.draw()
}

// BenchmarkDone implements runner.Observer.
func (p *progress) BenchmarkDone(b *spec.Benchmark, _ error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.starting = false
	if m, ok := p.group[b.Name]; ok {
		m.done = 1
		p.group[b.Name] = m
	}
}

// draw rewrites the line; the caller holds mu.
func (p *progress) draw() {
	if p.stopped || p.n == 0 {
		return
	}
	elapsed := time.Since(p.start)
	line := fmt.Sprintf("[%d/%d] %s", p.k, p.n, p.name)
	if p.runs > 0 {
		line += fmt.Sprintf("  run %d/%d", p.run, p.runs)
	} else {
		line += "  calibrating"
	}
	line += "  " + clock(elapsed)
	done := float64(p.before)
	for _, m := range p.group {
		done += m.done
	}
	if done > 0 {
		left := time.Duration(float64(elapsed) * (float64(p.n) - done) / done)
		line += ", ~" + clock(left) + " left"
	}
	pad := max(p.lastWidth-len(line), 0)
	p.lastWidth = len(line)
	fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
}

// finish clears the line; it is safe to call more than once, and on nil.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	fmt.Fprintf(p.w, "\r%*s\r", p.lastWidth, "")
}

func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
