package main

import (
	_ "embed"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/specrun/specrun/results"
)

//go:embed csrc/timers.c
var timersC string

// timersRows pairs each row specrun prints for examples/timers.hcl with the
// C program's call that makes the same one. "time (c.time)" is the time()
// row of the libc build with var.libc.
var timersRows = []struct{ instance, c, cCall string }{
	{"null_function", "null_function", "a non-inlined function"},
	{"getpid", "getpid", "getpid()"},
	{"time", "time", "time(NULL)"},
	{"time (c.time)", "time", "time(NULL)"},
	{"gettimeofday", "gettimeofday", "gettimeofday()"},
	{"clock_gettime", "clock_gettime_syscall", "syscall(SYS_clock_gettime, CLOCK_MONOTONIC)"},
	{"time_now", "realtime_monotonic", "clock_gettime REALTIME + MONOTONIC (vDSO)"},
}

// timers runs examples/timers.hcl and the C program in interleaved rounds,
// one run of each per round, and prints the seconds for the calls of each
// row beside C's, with the ratio of the medians.
func timers(e *env) error {
	cbin, err := e.gcc("timers", timersC)
	if err != nil {
		return err
	}
	calls := int64(10_000_000 * e.scale)
	scale := strconv.FormatFloat(e.scale, 'g', 6, 64)
	spec := "examples/timers.hcl"
	sr, cr := map[string][]float64{}, map[string][]float64{}
	labels := map[string]string{}
	seconds := func(r *results.Result, suffix string) error {
		for _, b := range r.Benchmarks {
			if b.Error != "" {
				return fmt.Errorf("%s: %s", b.Name, b.Error)
			}
			name := b.Name + suffix
			labels[name] = b.Label
			for _, run := range b.Runs {
				sr[name] = append(sr[name], run.NsPerOp*float64(calls)/1e9)
			}
		}
		return nil
	}
	specrun := func() error {
		r, err := e.run(e.specrun, "specrun", "--repeat", "1", "--scale", scale, spec)
		if err == nil {
			err = seconds(r, "")
		}
		if err != nil || e.libc == "" {
			return err
		}
		r, err = e.run(e.libc, "specrun-libc", "--repeat", "1", "--scale", scale,
			"--var", "libc=true", "--filter", "^time$", spec)
		if err == nil {
			err = seconds(r, " (c.time)")
		}
		return err
	}
	c := func() error {
		out, err := exec.Command(cbin, strconv.FormatInt(calls, 10)).Output()
		if err != nil {
			return fmt.Errorf("%s: %w", cbin, err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			name, v, _ := strings.Cut(l, " ")
			s, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%s: %q: %w", cbin, l, err)
			}
			cr[name] = append(cr[name], s)
		}
		return nil
	}
	for round := range e.rounds {
		first, second := specrun, c
		if round%2 == 1 {
			first, second = c, specrun
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
	}

	w := e.out
	fmt.Fprintf(w, "`specrun run --repeat 1 --scale %s %s` (and, in the libc build, `--var libc=true --filter '^time$'`)\n", scale, spec)
	fmt.Fprintf(w, "beside `timers %d` (bench/writeups/csrc/timers.c, gcc -O2), %s, alternating which goes first.\n", calls, e.roundsText())
	fmt.Fprintf(w, "Seconds for %d calls: median of the rounds, and (max-min)/median.\n\n", calls)
	if e.libc == "" {
		fmt.Fprintf(w, "No c.time row: %s.\n\n", e.libcWhy)
	}
	fmt.Fprintln(w, "| specrun row | specrun s | spread | C call | C s | spread | specrun / C |")
	fmt.Fprintln(w, "|---|--:|--:|---|--:|--:|--:|")
	for _, row := range timersRows {
		s, cs := sr[row.instance], cr[row.c]
		if len(s) == 0 || len(cs) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %.5f | %s | %s | %.5f | %s | %s |\n", labels[row.instance],
			median(s), spread(s), row.cCall, median(cs), spread(cs), ratio(median(s), median(cs)))
	}
	return nil
}
