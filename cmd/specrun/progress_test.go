package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/specrun/specrun/spec"
)

func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, start: time.Now().Add(-90 * time.Second)}
	b := &spec.Benchmark{Name: "memcpy/size=16B"}

	p.BenchmarkStart(b, 2, 4)
	if got, want := buf.String(), "\r[2/4] memcpy/size=16B  calibrating  1:30, ~4:30 left"; got != want {
		t.Errorf("after start: %q, want %q", got, want)
	}
	buf.Reset()
	p.RunDone(b, 1, 2)
	if got, want := buf.String(), "\r[2/4] memcpy/size=16B  run 1/2  1:30, ~2:30 left    "; got != want { // blanks the rest of the longer line before
		t.Errorf("after a run: %q, want %q", got, want)
	}
	buf.Reset()
	p.finish()
	p.finish()
	if got := buf.String(); got != "\r"+strings.Repeat(" ", 48)+"\r" {
		t.Errorf("finish wrote %q, want the line cleared once", got)
	}
	p.RunDone(b, 2, 2)
	if got := buf.String(); strings.Contains(got, "run 2/2") {
		t.Errorf("drew after finish: %q", got)
	}
}

func TestNoProgressOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	if p := newProgress(&buf); p != nil {
		t.Error("newProgress drew on a writer that is not a terminal")
	}
	var nilProgress *progress
	nilProgress.finish() // must not panic
}

// TestProgressInterleaved: a group of interleaved instances is started as
// a whole and then run round by round; the estimate counts each member's
// finished runs, not the last one started as if the others were done, and
// its runs left at the pace of its runs, not of the time elapsed, which
// holds the calibration of every member.
func TestProgressInterleaved(t *testing.T) {
	var buf bytes.Buffer
	start := time.Now()
	now := start
	p := &progress{w: &buf, start: start, now: func() time.Time { return now }}
	var group []*spec.Benchmark
	for _, name := range []string{"gzip/level=1", "gzip/level=6", "gzip/level=9", "zstd"} {
		group = append(group, &spec.Benchmark{Name: name})
	}
	for i, b := range group {
		p.BenchmarkStart(b, i+1, 4)
		now = now.Add(15 * time.Second) // calibrating: a minute for the four
	}
	buf.Reset()
	p.RunDone(group[0], 1, 10)
	// One run of forty: at the pace of the time elapsed, 39 more minutes.
	if got, want := buf.String(), "\r[1/4] gzip/level=1  run 1/10  1:00, ~39:00 left"; !strings.HasPrefix(got, want) {
		t.Errorf("after the first run: %q, want %q", got, want)
	}
	// Each run takes 1.5 s; after a round of four, 36 runs are left.
	for _, b := range group[1:] {
		now = now.Add(1500 * time.Millisecond)
		buf.Reset()
		p.RunDone(b, 1, 10)
	}
	if got, want := buf.String(), "\r[4/4] zstd  run 1/10  1:05, ~0:54 left"; !strings.HasPrefix(got, want) {
		t.Errorf("after the first round: %q, want %q", got, want)
	}
	now = now.Add(1500 * time.Millisecond)
	buf.Reset()
	p.RunDone(group[0], 2, 10)
	if got, want := buf.String(), "\r[1/4] gzip/level=1  run 2/10  1:06, ~0:53 left"; !strings.HasPrefix(got, want) {
		t.Errorf("a run of the first member: %q, want it named as [1/4]", got)
	}
}

// The benchmarks after a group are estimated at the suite's pace so far,
// calibration and all, as they will calibrate too.
func TestProgressAfterGroup(t *testing.T) {
	var buf bytes.Buffer
	start := time.Now()
	now := start
	p := &progress{w: &buf, start: start, now: func() time.Time { return now }}
	b := &spec.Benchmark{Name: "first"}
	p.BenchmarkStart(b, 1, 3)
	now = now.Add(8 * time.Second)
	p.RunDone(b, 1, 2)
	now = now.Add(2 * time.Second)
	buf.Reset()
	p.RunDone(b, 2, 2)
	// No run left in the group; two benchmarks after it at 10 s each.
	if got, want := buf.String(), "\r[1/3] first  run 2/2  0:10, ~0:20 left"; !strings.HasPrefix(got, want) {
		t.Errorf("after the first benchmark: %q, want %q", got, want)
	}
}
