// Command rss checks that specrun's 16MB ops and an http load phase do not
// grow memory across repeats. It runs a spec through runner.Run in this
// process, samples this process's resident set (and the builtin server's)
// after every run through the runner's Observer, prints one row per
// benchmark, and exits 1 if the resident set after the last run exceeds
// the one after the first by more than 25% + 8 MB.
//
// Run it from the repository root: go run ./bench/rss
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/specrun/specrun/runner"
	"github.com/specrun/specrun/servers"
	"github.com/specrun/specrun/spec"
)

// The allowed growth from run 1 to the last run: a fraction of run 1's
// figure plus a constant, as the Go heap's target moves in steps.
const (
	growthFraction = 0.25
	growthSlack    = 8 << 20
)

const specSource = `
suite "rss" {
  repeat = %[1]d
  warmup = "0s"
}

server "site" {
  builtin   = "static"
  body_size = 6041
}

benchmark "memcpy" {
  op         = "memcpy"
  size       = "16MB"
  iterations = 20
}

benchmark "alloc" {
  op         = "alloc"
  size       = "16MB"
  iterations = 10
}

benchmark "file_write" {
  op = "file.write"
  matrix {
    atomic = [false, true]
  }
  atomic     = param.atomic
  size       = "16MB"
  iterations = 4
}

benchmark "file_read" {
  op         = "file.read"
  size       = "16MB"
  iterations = 10
}

benchmark "http" {
  op          = "http"
  url         = "${server.site.url}/"
  requests    = %[2]d
  concurrency = 10
}
`

func main() {
	os.Exit(rss(os.Stdout, os.Stderr, os.Args[1:]))
}

func rss(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("rss", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repeat := fs.Int("repeat", 10, "timed runs of every benchmark")
	requests := fs.Int("requests", 20000, "requests per http load phase")
	specrun := fs.String("specrun", "", "the specrun `BINARY` that serves the builtin server (default: build ./cmd/specrun)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *repeat < 2 {
		fmt.Fprintln(stderr, "rss: -repeat must be at least 2")
		return 2
	}
	tmp, err := os.MkdirTemp("", "specrun-rss-*")
	if err != nil {
		fmt.Fprintf(stderr, "rss: %v\n", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	if *specrun == "" {
		*specrun = filepath.Join(tmp, "specrun")
		build := exec.Command("go", "build", "-o", *specrun, "./cmd/specrun")
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(stderr, "rss: build specrun (run this from the repository root): %v\n", err)
			return 2
		}
	}

	specPath := filepath.Join(tmp, "rss.hcl")
	if err := os.WriteFile(specPath, []byte(fmt.Sprintf(specSource, *repeat, *requests)), 0o644); err != nil {
		fmt.Fprintf(stderr, "rss: %v\n", err)
		return 2
	}
	plan, diags := spec.Load([]string{specPath}, spec.Options{})
	if diags.HasErrors() {
		fmt.Fprintf(stderr, "rss: load the spec: %v\n", diags)
		return 2
	}

	pool := servers.NewPool(plan.Servers, "")
	pool.Self = []string{*specrun}
	obs := &observer{rows: map[string]*row{}, pool: pool}
	started := time.Now()
	outcome := runner.Run(context.Background(), plan, runner.Config{Resources: pool, Observer: obs})
	if err := pool.Close(); err != nil {
		fmt.Fprintf(stderr, "rss: stop servers: %v\n", err)
	}
	failed := false
	for _, b := range outcome.Benchmarks {
		if b.Error != "" {
			fmt.Fprintf(stderr, "rss: %s: %s\n", b.Name, b.Error)
			failed = true
		}
	}

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "benchmark\tprocess\tRSS run 1 (MB)\tRSS run %d (MB)\tgrowth (MB)\tlimit (MB)\tverdict\t\n", *repeat)
	for _, name := range obs.order {
		r := obs.rows[name]
		for _, s := range []struct {
			who     string
			samples []int64
		}{{"specrun", r.self}, {"server", r.server}} {
			if len(s.samples) == 0 {
				continue
			}
			first, last := s.samples[0], s.samples[len(s.samples)-1]
			limit := int64(float64(first)*growthFraction) + growthSlack
			verdict := "ok"
			if len(s.samples) < *repeat {
				verdict = fmt.Sprintf("only %d runs", len(s.samples))
				failed = true
			} else if last-first > limit {
				verdict = "GREW"
				failed = true
			}
			fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%+.1f\t%.1f\t%s\t\n", name, s.who, mb(first), mb(last), mb(last-first), mb(limit), verdict)
		}
	}
	tw.Flush()
	fmt.Fprintf(stdout, "%d benchmarks, %d runs each, in %v\n", len(obs.order), *repeat, time.Since(started).Round(time.Second))
	if failed {
		return 1
	}
	return 0
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// row is one benchmark's resident sets after each run: this process's and,
// while one runs, the builtin server's.
type row struct {
	self, server []int64
}

// observer samples the resident sets after every run.
type observer struct {
	order []string
	rows  map[string]*row
	pool  *servers.Pool
}

var _ runner.Observer = (*observer)(nil)

func (o *observer) BenchmarkStart(b *spec.Benchmark, index, total int) {
	o.order = append(o.order, b.Name)
	o.rows[b.Name] = &row{}
}

func (o *observer) RunDone(b *spec.Benchmark, run, runs int) {
	r := o.rows[b.Name]
	if v, err := vmRSS(os.Getpid()); err == nil {
		r.self = append(r.self, v)
	}
	// Only the http benchmark loads the server; the others leave it idle
	// (or not yet started), so its figure says nothing about them.
	if b.Op != nil && b.Op.Name == "http" {
		// The http benchmark has started the server, so this only looks it up.
		if srv, err := o.pool.Server(context.Background(), "site"); err == nil {
			if v, err := vmRSS(srv.PID); err == nil {
				r.server = append(r.server, v)
			}
		}
	}
}

func (o *observer) BenchmarkDone(b *spec.Benchmark, err error) {}

// vmRSS is a process's resident set in bytes, from /proc/PID/status.
func vmRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("read VmRSS of %d: %w", pid, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("read VmRSS of %d: no VmRSS line", pid)
}
