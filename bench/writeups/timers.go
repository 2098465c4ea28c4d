package main

import (
	_ "embed"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
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

// timers runs each row of examples/timers.hcl (specrun run --filter) and
// the C program's same call in interleaved rounds, row by row, one run of
// each per round, and prints the seconds for the calls of each row beside
// C's, with the ratio of the medians.
func timers(e *env) error {
	cbin, err := e.gcc("timers", timersC)
	if err != nil {
		return err
	}
	calls := int64(10_000_000 * e.scale)
	scale := strconv.FormatFloat(e.scale, 'g', 6, 64)
	spec := "examples/timers.hcl"
	// Both keyed by the specrun row: C's time(NULL) is timed for each of
	// the two time() rows, beside it.
	sr, cr := map[string][]float64{}, map[string][]float64{}
	labels := map[string]string{}
	for round := range e.rounds {
		for i, row := range timersRows {
			bin, args := e.specrun, []string{"--filter", "^" + row.instance + "$"}
			if name, ok := strings.CutSuffix(row.instance, " (c.time)"); ok {
				if e.libc == "" {
					continue
				}
				bin, args = e.libc, []string{"--filter", "^" + name + "$", "--var", "libc=true"}
			}
			specrun := func() error {
				r, err := e.run(bin, "specrun", append([]string{"--repeat", "1", "--scale", scale}, append(args, spec)...)...)
				if err != nil {
					return err
				}
				if len(r.Benchmarks) != 1 {
					return fmt.Errorf("--filter %s: %d benchmarks", args[1], len(r.Benchmarks))
				}
				b := r.Benchmarks[0]
				if b.Error != "" {
					return fmt.Errorf("%s: %s", b.Name, b.Error)
				}
				labels[row.instance] = b.Label
				for _, run := range b.Runs {
					sr[row.instance] = append(sr[row.instance], run.NsPerOp*float64(calls)/1e9)
				}
				return nil
			}
			c := func() error {
				out, err := exec.Command(cbin, strconv.FormatInt(calls, 10), row.c).Output()
				if err != nil {
					return fmt.Errorf("%s: %w", cbin, err)
				}
				name, v, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
				s, err := strconv.ParseFloat(v, 64)
				if err != nil || name != row.c {
					return fmt.Errorf("%s %s: %q", cbin, row.c, out)
				}
				cr[row.instance] = append(cr[row.instance], s)
				return nil
			}
			first, second := specrun, c
			if (round+i)%2 == 1 {
				first, second = c, specrun
			}
			if err := first(); err != nil {
				return err
			}
			if err := second(); err != nil {
				return err
			}
		}
	}

	w := e.out
	fmt.Fprintf(w, "`specrun run --repeat 1 --scale %s --filter '^ROW$' %s` (for c.time, the libc build with `--var libc=true`)\n", scale, spec)
	fmt.Fprintf(w, "beside `timers %d CALL` (bench/writeups/csrc/timers.c, gcc -O2), row by row, %s, alternating which goes first.\n", calls, e.roundsText())
	fmt.Fprintf(w, "Seconds for %d calls: median of the rounds, and (max-min)/median.\n\n", calls)
	if e.libc == "" {
		fmt.Fprintf(w, "No c.time row: %s.\n\n", e.libcWhy)
	}
	fmt.Fprintln(w, "| specrun row | specrun s | spread | C call | C s | spread | specrun / C |")
	fmt.Fprintln(w, "|---|--:|--:|---|--:|--:|--:|")
	for _, row := range timersRows {
		s, cs := sr[row.instance], cr[row.instance]
		if len(s) == 0 || len(cs) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %.5f | %s | %s | %.5f | %s | %s |\n", labels[row.instance],
			median(s), spread(s), row.cCall, median(cs), spread(cs), ratio(median(s), median(cs)))
	}
	return nil
}
