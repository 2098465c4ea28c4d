// Command sidebyside times specrun's built-in ops two ways in one run,
// interleaved op by op: through `specrun run` (the product's harness, read
// back from its JSON result) and through `go test -bench` of a benchmark
// that calls the very same op's Run(ctx, b.N). It prints both medians,
// their ratio, and the spread of each side's repeated runs.
//
//	go run ./bench/sidebyside [-min-time 200ms] [-repeat 5] [-rounds 1] [-filter REGEX]
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/specrun/specrun/results"
)

func main() {
	os.Exit(sidebyside(os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	minTime time.Duration
	repeat  int
	rounds  int
	filter  *regexp.Regexp
	keep    bool
}

func sidebyside(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sidebyside", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.DurationVar(&cfg.minTime, "min-time", 200*time.Millisecond, "time per run: specrun's min_time and go test's -benchtime")
	fs.IntVar(&cfg.repeat, "repeat", 5, "timed runs per op per side: specrun's repeat and go test's -count")
	fs.IntVar(&cfg.rounds, "rounds", 1, "passes over the ops; each pass swaps which side goes first")
	filter := fs.String("filter", "", "only the cases whose name matches this regexp")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the build and result directory and print its path")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *filter != "" {
		re, err := regexp.Compile(*filter)
		if err != nil {
			fmt.Fprintf(stderr, "sidebyside: -filter: %v\n", err)
			return 2
		}
		cfg.filter = re
	}
	if err := measure(cfg, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "sidebyside: %v\n", err)
		return 1
	}
	return 0
}

// sample is one side's measurement of one case: ns/op per timed run.
type sample []float64

type row struct {
	c                benchCase
	specrun, gotest  sample
	specErr, testErr error
	// rounds is the ratio of the two sides' medians in each round: its
	// range is the spread a single figure hides on a busy machine.
	rounds []float64
}

func measure(cfg config, stdout, stderr io.Writer) error {
	work, err := os.MkdirTemp("", "sidebyside-")
	if err != nil {
		return fmt.Errorf("make work dir: %w", err)
	}
	if cfg.keep {
		fmt.Fprintf(stderr, "work dir: %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	specrunBin, testBin := filepath.Join(work, "specrun"), filepath.Join(work, "sidebyside.test")
	fmt.Fprintln(stderr, "building specrun and the benchmark binary...")
	if err := goCmd(root, stderr, "build", "-o", specrunBin, "./cmd/specrun"); err != nil {
		return err
	}
	if err := goCmd(root, stderr, "test", "-c", "-o", testBin, "./bench/sidebyside"); err != nil {
		return err
	}
	specPath := filepath.Join(work, "sidebyside.hcl")
	var selected []benchCase
	var spec strings.Builder
	fmt.Fprintf(&spec, "suite \"sidebyside\" {\n  repeat = %d\n  min_time = %q\n}\n\n", cfg.repeat, cfg.minTime)
	for _, c := range cases {
		if cfg.filter == nil || cfg.filter.MatchString(c.Name) {
			selected = append(selected, c)
			spec.WriteString(c.hcl())
		}
	}
	if err := os.WriteFile(specPath, []byte(spec.String()), 0o644); err != nil {
		return fmt.Errorf("write spec: %w", err)
	}

	rows := make([]row, len(selected))
	for i, c := range selected {
		rows[i].c = c
	}
	for round := range cfg.rounds {
		for i := range rows {
			r := &rows[i]
			fmt.Fprintf(stderr, "round %d/%d: %s\n", round+1, cfg.rounds, r.c.Name)
			sides := []func(){
				func() {
					s, err := runSpecrun(specrunBin, specPath, filepath.Join(work, "out"), r.c.Name)
					r.specrun, r.specErr = append(r.specrun, s...), errors.Join(r.specErr, err)
				},
				func() {
					s, err := runGoTest(testBin, r.c.Name, cfg)
					r.gotest, r.testErr = append(r.gotest, s...), errors.Join(r.testErr, err)
				},
			}
			// Swap the order every round and every other op, so neither
			// side always runs on the warmer (or more throttled) machine.
			if (round+i)%2 == 1 {
				sides[0], sides[1] = sides[1], sides[0]
			}
			ns, ng := len(r.specrun), len(r.gotest)
			for _, side := range sides {
				side()
			}
			if len(r.specrun) > ns && len(r.gotest) > ng {
				r.rounds = append(r.rounds, median(r.specrun[ns:])/median(r.gotest[ng:]))
			}
		}
	}
	return printTable(stdout, rows, cfg)
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func goCmd(dir string, stderr io.Writer, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// runSpecrun runs one benchmark of the spec through `specrun run` and reads
// its per-run ns/op from the JSON result.
func runSpecrun(bin, spec, out, name string) (sample, error) {
	os.RemoveAll(out)
	cmd := exec.Command(bin, "run", "--no-progress", "--out", out, "--filter", "^"+regexp.QuoteMeta(name)+"$", spec)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("specrun run %s: %w: %s", name, err, lastLine(stderr.String()))
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != 1 {
		return nil, fmt.Errorf("specrun run %s: want one JSON result in %s, found %d", name, out, len(files))
	}
	res, err := results.ReadFile(files[0])
	if err != nil {
		return nil, err
	}
	for _, b := range res.Benchmarks {
		if b.Name != name {
			continue
		}
		if b.Error != "" {
			return nil, fmt.Errorf("specrun %s: %s", name, b.Error)
		}
		var s sample
		for _, r := range b.Runs {
			s = append(s, r.NsPerOp)
		}
		return s, nil
	}
	return nil, fmt.Errorf("specrun run %s: benchmark missing from %s", name, files[0])
}

var benchLine = regexp.MustCompile(`^BenchmarkOps/(\S+?)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op`)

// runGoTest runs the case's sub-benchmark with go test's own harness.
func runGoTest(bin, name string, cfg config) (sample, error) {
	cmd := exec.Command(bin,
		"-test.run=^$",
		"-test.bench=^BenchmarkOps$/^"+regexp.QuoteMeta(name)+"$",
		"-test.benchtime="+cfg.minTime.String(),
		"-test.count="+strconv.Itoa(cfg.repeat))
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	err := cmd.Run()
	var s sample
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if m := benchLine.FindStringSubmatch(sc.Text()); m != nil && m[1] == name {
			v, _ := strconv.ParseFloat(m[2], 64)
			s = append(s, v)
		}
	}
	if err != nil || len(s) == 0 {
		return s, fmt.Errorf("go test -bench %s: %v: %s", name, err, lastLine(stdout.String()))
	}
	return s, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func median(s sample) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	c := slices.Clone(s)
	slices.Sort(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

func minimum(s sample) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	return slices.Min(s)
}

// cv is the coefficient of variation of s, in percent.
func cv(s sample) float64 {
	if len(s) < 2 {
		return math.NaN()
	}
	var sum float64
	for _, v := range s {
		sum += v
	}
	mean := sum / float64(len(s))
	var ss float64
	for _, v := range s {
		ss += (v - mean) * (v - mean)
	}
	return 100 * math.Sqrt(ss/float64(len(s)-1)) / mean
}

func printTable(w io.Writer, rows []row, cfg config) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "op\tspecrun ns/op\tgo test ns/op\tratio\tper round\tbound\tspecrun CV%%\tgo test CV%%\tcheck\tmin ratio\t\n")
	failed := 0
	for _, r := range rows {
		lo, hi := 0.9, 1.1
		if r.c.Noisy {
			lo, hi = 0.8, 1.25
		}
		a, b := median(r.specrun), median(r.gotest)
		ratio := a / b
		verdict := "ok"
		switch {
		case r.specErr != nil || r.testErr != nil:
			verdict = "ERROR"
		case !(ratio >= lo && ratio <= hi):
			verdict = "RATIO"
		case r.c.Name == "noop" && a > 1:
			verdict = "NOOP>1ns"
		case !r.c.Noisy && cv(r.specrun) > 3:
			verdict = "CV>3%"
		}
		if verdict != "ok" {
			failed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.2f-%.2f\t%.1f\t%.1f\t%s\t%s\t\n",
			r.c.Name, ns(a), ns(b), fmtRatio(ratio), fmtRange(r.rounds), lo, hi, cv(r.specrun), cv(r.gotest), verdict,
			fmtRatio(minimum(r.specrun)/minimum(r.gotest)))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print table: %w", err)
	}
	fmt.Fprintf(w, "\nmin_time/benchtime %s, repeat/count %d, rounds %d; medians over all runs of each side;\n"+
		"per round is the range of the ratio of the two sides' medians over the rounds.\n"+
		"min ratio compares the fastest runs: noise only ever adds time, so when it is near 1 and the\n"+
		"median ratio is not, the machine was busy, not the harness different.\n",
		cfg.minTime, cfg.repeat, cfg.rounds)
	for _, r := range rows {
		if r.specErr != nil {
			fmt.Fprintf(w, "%s: %v\n", r.c.Name, r.specErr)
		}
		if r.testErr != nil {
			fmt.Fprintf(w, "%s: %v\n", r.c.Name, r.testErr)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d ops outside their bounds", failed, len(rows))
	}
	return nil
}

func ns(v float64) string {
	switch {
	case math.IsNaN(v):
		return "N/A"
	case v < 100:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

// fmtRange writes the smallest and largest of rs, "[0.97..1.04]".
func fmtRange(rs []float64) string {
	if len(rs) == 0 {
		return "N/A"
	}
	return "[" + fmtRatio(slices.Min(rs)) + ".." + fmtRatio(slices.Max(rs)) + "]"
}

func fmtRatio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "N/A"
	}
	return strconv.FormatFloat(r, 'f', 3, 64)
}
