// Command runscale times `specrun run` of suites of n trivial instances (a
// matrix of noop benchmarks, 1000 iterations, repeat 3, no warm-up) and
// prints how much of the wall time is specrun's own: per instance, the
// wall time less the timed work the result records, and the same between
// the smallest and the largest suite, which leaves out start-up. It exits
// 1 if the marginal overhead exceeds -limit per instance.
//
// Run it from the repository root: go run ./bench/runscale
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

const specSource = `
suite "scale" {
  repeat = 3
  warmup = "0s"
}

benchmark "noop" {
  op         = "noop"
  iterations = 1000
  matrix {
    i = [%s]
  }
}
`

func main() {
	specrun := flag.String("specrun", "", "the specrun `BINARY` to time; default: build ./cmd/specrun")
	sizes := flag.String("sizes", "100,1000,10000", "comma-separated instance `COUNTS`")
	limit := flag.Duration("limit", time.Millisecond, "the most specrun's own time per instance may be, between the smallest and the largest suite")
	flag.Parse()
	if err := run(*specrun, *sizes, *limit); err != nil {
		fmt.Fprintf(os.Stderr, "runscale: %v\n", err)
		os.Exit(1)
	}
}

type row struct {
	n          int
	wall, work time.Duration
}

func run(specrun, sizes string, limit time.Duration) error {
	dir, err := os.MkdirTemp("", "runscale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if specrun == "" {
		specrun = filepath.Join(dir, "specrun")
		build := exec.Command("go", "build", "-o", specrun, "./cmd/specrun")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build specrun (run from the repository root): %w", err)
		}
	}
	var rows []row
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-sizes: %q is not a count", f)
		}
		r, err := timeRun(specrun, dir, n)
		if err != nil {
			return fmt.Errorf("n=%d: %w", n, err)
		}
		rows = append(rows, r)
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "instances\twall s\ttimed work s\tspecrun's own per instance ms\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%.2f\t%.3f\t%.3f\t\n", r.n, r.wall.Seconds(), r.work.Seconds(), perInstance(r.wall-r.work, r.n))
	}
	tw.Flush()
	if len(rows) < 2 {
		return nil
	}
	first, last := rows[0], rows[len(rows)-1]
	marginal := time.Duration(float64((last.wall-last.work)-(first.wall-first.work)) / float64(last.n-first.n))
	fmt.Printf("\nmarginal: %.3f ms per instance from %d to %d instances (limit %v)\n", perInstance(marginal, 1), first.n, last.n, limit)
	if marginal > limit {
		return fmt.Errorf("specrun's own time per instance, %v, exceeds %v", marginal, limit)
	}
	return nil
}

func perInstance(d time.Duration, n int) float64 { return d.Seconds() * 1e3 / float64(n) }

// timeRun runs a suite of n instances and returns its wall time and the
// timed work its result records.
func timeRun(specrun, dir string, n int) (row, error) {
	values := make([]string, n)
	for i := range values {
		values[i] = strconv.Itoa(i)
	}
	path := filepath.Join(dir, fmt.Sprintf("scale%d.hcl", n))
	if err := os.WriteFile(path, fmt.Appendf(nil, specSource, strings.Join(values, ", ")), 0o644); err != nil {
		return row{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(specrun, "run", "--no-progress", "--format", "json", "--out", filepath.Join(dir, "out"), path)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return row{}, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	var result struct {
		Benchmarks []struct {
			Runs []struct {
				TotalNs int64 `json:"total_ns"`
			} `json:"runs"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &result); err != nil {
		return row{}, fmt.Errorf("read the result: %w", err)
	}
	if len(result.Benchmarks) != n {
		return row{}, fmt.Errorf("the result has %d benchmarks, want %d", len(result.Benchmarks), n)
	}
	var work time.Duration
	for _, b := range result.Benchmarks {
		for _, r := range b.Runs {
			work += time.Duration(r.TotalNs)
		}
	}
	return row{n: n, wall: wall, work: work}, nil
}
