// Package runner is specrun's harness: it prepares each benchmark instance of
// a Plan, calibrates or fixes its iteration count, warms it up, times its
// repeated runs and hands the outcomes to results. It knows no HCL and no
// output formats.
package runner

import (
	"regexp"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/spec"
)

// Config adjusts a run without editing the spec. The zero value runs the
// plan as written.
type Config struct {
	Filter *regexp.Regexp // instance names to run; nil runs all
	Scale  float64        // multiplies fixed iteration counts (never below 1); 0 means 1
	Repeat int            // overrides every benchmark's repeat when > 0
	Env    ops.Env        // servers and the temp dir; nil gives a private temp dir and no servers
	// Observer is told of progress (benchmark k of n, run r of R); nil is silent.
	Observer Observer
}

// Observer follows a run's progress.
type Observer interface {
	BenchmarkStart(b *spec.Benchmark, index, total int)
	RunDone(b *spec.Benchmark, run, runs int)
	BenchmarkDone(b *spec.Benchmark, err error)
}
