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
	now   func() time.Time // time.Now; a test's clock

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

	// The time between the group's finished runs: calibrating and warming
	// up come before a group's first run, so the runs left are estimated
	// at this pace rather than at the pace of the time elapsed, which
	// counts them.
	lastRun time.Time
	runTime time.Duration
	runGaps int
}

// part is a group member's place in the suite, its share done, and its
// runs done of how many.
type part struct {
	index     int
	done      float64
	run, runs int
}

var _ runner.Observer = (*progress)(nil)

// newProgress returns a progress line on stderr, or nil when stderr is not
// a terminal: logs and CI get no carriage returns.
func newProgress(stderr io.Writer) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{w: stderr, start: time.Now(), now: time.Now}
}

// BenchmarkStart implements runner.Observer.
func (p *progress) BenchmarkStart(b *spec.Benchmark, index, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.starting {
		p.starting, p.before, p.group = true, index-1, map[string]part{}
		p.lastRun, p.runTime, p.runGaps = time.Time{}, 0, 0
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
	m.done, m.run, m.runs = float64(run)/float64(runs), run, runs
	p.group[b.Name] = m
	now := p.clock()
	if !p.lastRun.IsZero() {
		p.runTime += now.Sub(p.lastRun)
		p.runGaps++
	}
	p.lastRun = now
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
	elapsed := p.clock().Sub(p.start)
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
		line += ", ~" + clock(p.left(elapsed, done)) + " left"
	}
	pad := max(p.lastWidth-len(line), 0)
	p.lastWidth = len(line)
	fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
}

// left estimates the time left: the group's runs left at the pace of its
// runs so far, and the benchmarks after it at the pace of the suite so
// far; before the group has two runs, everything at the suite's pace.
func (p *progress) left(elapsed time.Duration, done float64) time.Duration {
	perBenchmark := float64(elapsed) / done
	if p.runGaps == 0 {
		return time.Duration(perBenchmark * (float64(p.n) - done))
	}
	runsLeft := 0
	for _, m := range p.group {
		if m.runs == 0 {
			m.runs = p.runs // not run yet: as many as the last one reported
		}
		runsLeft += max(m.runs-m.run, 0)
	}
	after := float64(p.n - p.before - len(p.group))
	return p.runTime/time.Duration(p.runGaps)*time.Duration(runsLeft) + time.Duration(perBenchmark*after)
}

// clock is the time now.
func (p *progress) clock() time.Time {
	if p.now == nil {
		return time.Now()
	}
	return p.now()
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
