package main

import (
	_ "embed"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/specrun/specrun/results"
)

//go:embed csrc/classic.c
var classicC string

// classicScale is the classic reproduction's --scale at -scale 1: the
// write-up's counts take minutes here, and ranks need no more.
const classicScale = 0.1

// classic runs examples/common-operations.hcl (and its libc variant's
// malloc/free rows, where the libc build exists) beside the C program, in
// interleaved rounds; prints the write-up's Time per (ns) beside specrun's
// with Spearman's rank correlation, then the rows that have a C analog.
func classic(e *env) error {
	f, err := os.Open(filepath.Join(e.repo, classicSpec))
	if err != nil {
		return err
	}
	table, err := readClassicTable(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", classicSpec, err)
	}
	cbin, cerr := e.gcc("classic", classicC)
	if _, skip := cerr.(errSkip); cerr != nil && !skip {
		return cerr
	}
	scale := strconv.FormatFloat(classicScale*e.scale, 'g', 6, 64)

	goNs, libcNs, cNs, i386Ns := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	labels := map[string]string{}
	read := func(r *results.Result, into map[string][]float64, named bool) error {
		for _, b := range r.Benchmarks {
			if b.Error != "" {
				return fmt.Errorf("%s: %s", b.Name, b.Error)
			}
			if named {
				labels[b.Name] = b.Label
			}
			for _, run := range b.Runs {
				into[b.Name] = append(into[b.Name], run.NsPerOp)
			}
		}
		return nil
	}
	steps := []func() error{func() error {
		r, err := e.run(e.specrun, "specrun", "--repeat", "1", "--scale", scale, classicSpec)
		if err == nil {
			err = read(r, goNs, true)
		}
		return err
	}}
	if e.libc != "" {
		steps = append(steps, func() error {
			r, err := e.run(e.libc, "specrun-libc", "--repeat", "1", "--scale", scale,
				"--var", "libc=true", "--filter", "^alloc/", classicSpec)
			if err == nil {
				err = read(r, libcNs, false)
			}
			return err
		})
	}
	if e.i386 != "" {
		steps = append(steps, func() error {
			r, err := e.run(e.i386, "specrun-386", "--repeat", "1", "--scale", scale, classicSpec)
			if err == nil {
				err = read(r, i386Ns, false)
			}
			return err
		})
	}
	if cbin != "" {
		steps = append(steps, func() error {
			out, err := exec.Command(cbin, scale).Output()
			if err != nil {
				return fmt.Errorf("%s: %w", cbin, err)
			}
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				name, v, _ := strings.Cut(l, " ")
				ns, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return fmt.Errorf("%s: %q: %w", cbin, l, err)
				}
				cNs[name] = append(cNs[name], ns)
			}
			return nil
		})
	}
	for round := range e.rounds {
		for i := range steps { // each round starts one step later
			if err := steps[(i+round)%len(steps)](); err != nil {
				return err
			}
		}
	}

	w := e.out
	fmt.Fprintf(w, "`specrun run --repeat 1 --scale %s %s`", scale, classicSpec)
	if e.libc != "" {
		fmt.Fprintf(w, " and, in the libc build, `--var libc=true --filter '^alloc/'`")
	}
	if e.i386 != "" {
		fmt.Fprintf(w, ", the GOARCH=386 build")
	}
	if cbin != "" {
		fmt.Fprintf(w, " beside `classic %s` (bench/writeups/csrc/classic.c, gcc -O2)", scale)
	}
	fmt.Fprintf(w, ", %s, rotating which goes first; medians of the rounds.\n\n", e.roundsText())

	fmt.Fprintln(w, "The write-up's rows (Leopard, 32-bit) and the instances that stand for them (the table in the example's header):")
	fmt.Fprintln(w)
	header := "| Write-up row | write-up ns | rank | specrun instance | specrun ns | rank |"
	if len(libcNs) > 0 {
		header += " libc variant ns |"
	}
	if len(i386Ns) > 0 {
		header += " 386 ns | rank |"
	}
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, strings.Repeat("|---", strings.Count(header, "|")-1)+"|")
	var ref, got, gotLibc, got386 []float64
	var shown []classicRow
	for _, r := range table {
		if r.Row == "-" || r.Instance == "-" || len(goNs[r.Instance]) == 0 {
			continue
		}
		shown = append(shown, r)
		ref = append(ref, r.NS)
		got = append(got, median(goNs[r.Instance]))
		v := median(goNs[r.Instance])
		if l := libcNs[r.Instance]; len(l) > 0 {
			v = median(l)
		}
		gotLibc = append(gotLibc, v)
		got386 = append(got386, median(i386Ns[r.Instance]))
	}
	refRank, gotRank, rank386 := ranks(ref), ranks(got), ranks(got386)
	for i, r := range shown {
		line := fmt.Sprintf("| %s | %s | %g | %s | %s | %g |", r.Row, ns(r.NS), refRank[i], r.Instance, ns(got[i]), gotRank[i])
		if len(libcNs) > 0 {
			cell := ""
			if l := libcNs[r.Instance]; len(l) > 0 {
				cell = ns(median(l))
			}
			line += " " + cell + " |"
		}
		if len(i386Ns) > 0 {
			line += fmt.Sprintf(" %s | %g |", ns(got386[i]), rank386[i])
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	var none []string
	for _, r := range table {
		if r.Instance == "-" {
			none = append(none, r.Row)
		}
	}
	fmt.Fprintf(w, "Spearman's rho over these %d rows: **%.3f**", len(shown), spearman(ref, got))
	if len(libcNs) > 0 {
		fmt.Fprintf(w, "; with the malloc/free rows as C's (c.malloc): **%.3f**", spearman(ref, gotLibc))
	}
	if len(i386Ns) > 0 {
		fmt.Fprintf(w, "; the 386 build: **%.3f**", spearman(ref, got386))
	} else if e.i386Why != "" {
		fmt.Fprintf(w, "; no 386 build: %s", e.i386Why)
	}
	fmt.Fprintf(w, ". No analog: %s.\n\n", strings.Join(none, ", "))

	if cbin == "" {
		fmt.Fprintf(w, "No C comparison: %s.\n", cerr)
		return nil
	}
	fmt.Fprintln(w, "The rows with a C analog, ns per operation:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| specrun row | op | specrun ns | spread | C ns | spread | specrun / C |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|")
	for _, r := range table {
		c := cNs[r.Instance]
		if len(c) == 0 {
			continue
		}
		for _, side := range []struct {
			op string
			v  []float64
		}{{"Go", goNs[r.Instance]}, {"c.malloc", libcNs[r.Instance]}} {
			if len(side.v) == 0 {
				continue
			}
			label := labels[r.Instance]
			if side.op != "Go" {
				label = r.Row // the libc variant's label
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", label, side.op, ns(median(side.v)), spread(side.v),
				ns(median(c)), spread(c), ratio(median(side.v), median(c)))
		}
	}
	return nil
}

// ns prints nanoseconds with three significant digits, one decimal at least.
func ns(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v >= 1000:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
