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
