// Command writeups reproduces the three write-ups specrun grew out of and
// prints, for each, the table specrun gave beside the reference's:
//
//	timers        examples/timers.hcl beside a C program making the same
//	              calls (gcc -O2), 10 M calls each, three interleaved rounds
//	classic       examples/common-operations.hcl: Spearman's rank
//	              correlation with the write-up's Time per (ns), and the rows
//	              with a C analog beside a C program
//	interpreters  examples/interpreters beside ab -n 1000 -c 10 and /proc
//	              (utime+stime, VmHWM) against the same app and interpreters
//
// Run it from the repository root: go run ./bench/writeups [-scale F] [NAME...]
// (all three by default). Each is bounded to a few minutes, uses loopback
// only and installs nothing: a missing tool skips that reproduction with
// the reason. Output is Markdown, with the date, machine and load average.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/specrun/specrun/results"
)

// errSkip marks a reproduction this machine cannot run; its message says why.
type errSkip struct{ reason string }

func (e errSkip) Error() string { return e.reason }

type env struct {
	repo    string // the repository root
	tmp     string // binaries, C programs and results, removed at exit
	specrun string // the default build
	libc    string // the build with the libc ops; "" when it cannot be built
	libcWhy string // why libc is ""
	i386    string // with -386, the GOARCH=386 build; "" when this kernel cannot run it
	i386Why string // why i386 is "" with -386
	scale   float64
	rounds  int
	out     io.Writer
	log     io.Writer
	notes   []string // the spec assertions that did not pass, for the report
}

func main() { os.Exit(writeups(os.Args[1:], os.Stdout, os.Stderr)) }

func writeups(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("writeups", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scale := fs.Float64("scale", 1, "multiply the timers' 10 M calls and the classic counts (itself at --scale 0.1) by `F`")
	rounds := fs.Int("rounds", 3, "interleaved rounds of specrun and the reference, one run each per round")
	i386 := fs.Bool("386", false, "classic: also run a GOARCH=386 build, as the write-up's Leopard column was 32-bit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	names := fs.Args()
	if len(names) == 0 {
		names = []string{"timers", "classic", "interpreters"}
	}
	all := map[string]func(*env) error{"timers": timers, "classic": classic, "interpreters": interpreters}
	for _, n := range names {
		if all[n] == nil {
			fmt.Fprintf(stderr, "writeups: unknown reproduction %q (timers, classic, interpreters)\n", n)
			return 2
		}
	}
	repo, err := os.Getwd()
	if err == nil {
		_, err = os.Stat(filepath.Join(repo, "examples", "common-operations.hcl"))
	}
	if err != nil {
		fmt.Fprintln(stderr, "writeups: run it from the repository root:", err)
		return 2
	}
	tmp, err := os.MkdirTemp("", "writeups-")
	if err != nil {
		fmt.Fprintln(stderr, "writeups:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	e := &env{repo: repo, tmp: tmp, scale: *scale, rounds: max(*rounds, 1), out: stdout, log: stderr}
	// The libc build (cgo, some seconds more) is for timers and classic.
	libc := slices.ContainsFunc(names, func(n string) bool { return n != "interpreters" })
	if err := e.build(libc); err != nil {
		fmt.Fprintln(stderr, "writeups: build specrun:", err)
		return 1
	}
	if *i386 {
		e.build386()
	}
	status := 0
	for _, n := range names {
		fmt.Fprintf(stdout, "## %s\n\n", n)
		fmt.Fprintf(stdout, "%s; load average before: %s\n\n", machine(), loadavg())
		start := time.Now()
		err := all[n](e)
		if s, ok := err.(errSkip); ok {
			fmt.Fprintf(stdout, "Skipped: %s.\n\n", s.reason)
			continue
		}
		if err != nil {
			fmt.Fprintf(stderr, "writeups: %s: %v\n", n, err)
			status = 1
			continue
		}
		if len(e.notes) > 0 {
			fmt.Fprintf(stdout, "\nThe spec's assertions that did not pass in specrun's runs:\n\n")
			for _, n := range e.notes {
				fmt.Fprintf(stdout, "- %s\n", n)
			}
			e.notes = nil
		}
		fmt.Fprintf(stdout, "\n%s took %s; load average after: %s\n\n", n, time.Since(start).Round(time.Second), loadavg())
	}
	return status
}

// build builds specrun, and with libc the libc build where cgo and a C
// compiler work.
func (e *env) build(libc bool) error {
	e.specrun = filepath.Join(e.tmp, "specrun")
	if err := e.cmd("go", "build", "-o", e.specrun, "./cmd/specrun").Run(); err != nil {
		return err
	}
	if !libc {
		return nil
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		e.libcWhy = "no gcc: the libc build (CGO_ENABLED=1 go build -tags specrun_libc) needs a C compiler"
		return nil
	}
	bin := filepath.Join(e.tmp, "specrun-libc")
	c := e.cmd("go", "build", "-tags", "specrun_libc", "-o", bin, "./cmd/specrun")
	c.Env = append(os.Environ(), "CGO_ENABLED=1")
	var msg bytes.Buffer
	c.Stderr = &msg
	if err := c.Run(); err != nil {
		e.libcWhy = "the libc build failed: " + strings.TrimSpace(msg.String())
		return nil
	}
	e.libc = bin
	return nil
}

// build386 builds specrun for GOARCH=386 and checks that this kernel runs it.
func (e *env) build386() {
	bin := filepath.Join(e.tmp, "specrun-386")
	c := e.cmd("go", "build", "-o", bin, "./cmd/specrun")
	c.Env = append(os.Environ(), "GOARCH=386")
	if err := c.Run(); err != nil {
		e.i386Why = "the GOARCH=386 build failed: " + err.Error()
		return
	}
	if err := exec.Command(bin, "version").Run(); err != nil {
		e.i386Why = "this kernel cannot run the 386 build (no IA32 emulation): " + err.Error()
		return
	}
	e.i386 = bin
}

func (e *env) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir = e.repo
	c.Stderr = e.log
	return c
}

// gcc compiles the embedded C source src into the temporary directory.
func (e *env) gcc(name, src string) (string, error) {
	if _, err := exec.LookPath("gcc"); err != nil {
		return "", errSkip{"no gcc to compile the C program"}
	}
	c := filepath.Join(e.tmp, name+".c")
	bin := filepath.Join(e.tmp, name)
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		return "", err
	}
	// No vectorising: the loops stay one operation per iteration, as the
	// Go ops' are.
	if out, err := exec.Command("gcc", "-O2", "-fno-tree-vectorize", "-o", bin, c).CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcc %s: %v\n%s", name, err, out)
	}
	return bin, nil
}

// run runs specrun (bin) on a spec with args and returns its result. Exit
// status 1 (an assertion that did not pass) is no error once the result is
// written: the spec's assertions are not what a reproduction checks, and
// one that reads a benchmark --filter left out is an error. Those that did
// not pass in a run without --filter are noted for the report.
func (e *env) run(bin, label string, args ...string) (*results.Result, error) {
	path := filepath.Join(e.tmp, fmt.Sprintf("%s-%d.json", label, time.Now().UnixNano()))
	full := append([]string{"run", "--no-progress", "--label", label, "--result", path}, args...)
	c := e.cmd(bin, full...)
	c.Stdout = io.Discard
	var msg bytes.Buffer
	c.Stderr = &msg
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		if _, statErr := os.Stat(path); statErr == nil {
			err = nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("specrun %s: %v\n%s", strings.Join(full, " "), err, msg.String())
	}
	r, err := results.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(args, "--filter") {
		for _, a := range r.Assertions {
			if a.Verdict != results.Pass {
				e.notes = append(e.notes, fmt.Sprintf("assert %s: %s %s", a.Name, a.Verdict, a.Message))
			}
		}
	}
	return r, nil
}

func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := runtime.GOOS
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel += " " + strings.TrimSpace(string(b))
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s UTC, %s: %s, %s, %d CPUs, %s/%s",
		time.Now().UTC().Format("2006-01-02 15:04"), host, kernel, model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func (e *env) roundsText() string {
	if e.rounds == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", e.rounds)
}
