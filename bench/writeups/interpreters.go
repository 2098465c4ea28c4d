package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	interpretersSpec = "examples/interpreters/interpreters.hcl"
	cpython          = "/usr/bin/python3" // the spec's default, Debian's
	// Ports of the servers ab loads, beside the spec's 8091, 8092 and 11311.
	abMemcachedPort = 11312
	abPortA         = 8093
	abPortB         = 8094
	abRequests      = 1000
	abConcurrency   = 10
	clockTicks      = 100 // USER_HZ: /proc/PID/stat's utime and stime unit
)

// phase is one load phase's figures, from specrun or from ab and /proc.
type phase struct {
	rps, total, html, failed, cpuSec, rssMiB float64
}

// interpreters compares examples/interpreters with ab and /proc in
// interleaved rounds that treat both sides alike: each round, specrun runs
// the spec once (its own fresh servers, its 100 ms warm-up, one phase per
// build), and this program starts the same stack afresh (memcached, app.py
// under each interpreter), warms each server up the same way and loads it
// with ab -n 1000 -c 10, reading utime+stime and VmHWM from /proc around
// the phase. It prints the medians of both sides with their ratios.
func interpreters(e *env) error {
	tools := map[string]string{}
	for _, t := range []string{"memcached", "pypy3", "ab"} {
		p, err := exec.LookPath(t)
		if err != nil {
			return errSkip{fmt.Sprintf("no %s (examples/interpreters/run.sh --ab installs it)", t)}
		}
		tools[t] = p
	}
	if _, err := os.Stat(cpython); err != nil {
		return errSkip{"no " + cpython}
	}
	builds := []build{{"A", cpython, "cpython", abPortA}, {"B", tools["pypy3"], "pypy", abPortB}}

	specPhases, abPhases := map[string][]phase{}, map[string][]phase{}
	// Before its phase each ab server gets as many requests as specrun's
	// warm-up sent the same build in the last round: what a JIT has seen
	// matters more than for how long.
	warmups := map[string]int64{}
	abOut := map[string]string{}
	var versions map[string]string
	specSide := func() error {
		r, err := e.run(e.specrun, "specrun", "--repeat", "1",
			"--var", "memcached="+tools["memcached"], "--var", "pypy="+tools["pypy3"],
			"--var", "cpython="+cpython, "--var", fmt.Sprintf("requests=%d", abRequests), interpretersSpec)
		if err != nil {
			return err
		}
		versions = r.Environment.Servers
		for _, b := range r.Benchmarks {
			if b.Error != "" {
				return fmt.Errorf("%s: %s", b.Name, b.Error)
			}
			name := strings.TrimPrefix(b.Name, "page/build=")
			warmups[name] = 0
			for _, run := range b.Warmups {
				warmups[name] += run.Iterations
			}
			for _, run := range b.Runs {
				m := run.Metrics
				specPhases[name] = append(specPhases[name], phase{
					rps: m["requests_per_sec"], total: m["total_bytes"], html: m["body_bytes"], failed: m["failed"],
					cpuSec: m["server_cpu_ns"] / 1e9, rssMiB: m["server_own_max_rss_bytes"] / (1 << 20),
				})
			}
		}
		return nil
	}
	abSide := func() error {
		phases, out, err := abRound(e.repo, tools, builds, warmups)
		for name, p := range phases {
			abPhases[name] = append(abPhases[name], p)
		}
		for name, o := range out {
			abOut[name] = o
		}
		return err
	}
	for round := range e.rounds {
		first, second := specSide, abSide
		if round%2 == 1 {
			first, second = abSide, specSide
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
	}

	w := e.out
	fmt.Fprintf(w, "%s, alternating which side goes first. specrun: `specrun run --repeat 1 %s`, its servers started afresh, "+
		"its warm-up, one phase of %d requests at concurrency %d per build, a connection per request. ",
		e.roundsText(), interpretersSpec, abRequests, abConcurrency)
	fmt.Fprintf(w, "ab: the same app.py under the same interpreters and a memcached of its own, started afresh, "+
		"as many warm-up requests as specrun's warm-up sent (ab, at concurrency 10 or fewer), then `ab -n %d -c %d` per build; server CPU is utime+stime from /proc/PID/stat around the phase, "+
		"peak RSS is VmHWM from /proc/PID/status after it. Medians of the rounds.\n\n", abRequests, abConcurrency)
	for _, b := range builds {
		fmt.Fprintf(w, "- build %s: %s\n", b.name, versions[b.server])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| figure | A specrun | A ab, /proc | A ratio | B specrun | B ab, /proc | B ratio |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|")
	figures := []struct {
		name   string
		of     func(phase) float64
		format string
	}{
		{"requests/s", func(p phase) float64 { return p.rps }, "%.1f"},
		{"total bytes", func(p phase) float64 { return p.total }, "%.0f"},
		{"HTML bytes", func(p phase) float64 { return p.html }, "%.0f"},
		{"failed requests", func(p phase) float64 { return p.failed }, "%.0f"},
		{"server CPU s per phase (utime+stime)", func(p phase) float64 { return p.cpuSec }, "%.2f"},
		{"server peak RSS MiB (main process, VmHWM)", func(p phase) float64 { return p.rssMiB }, "%.1f"},
	}
	med := func(phases map[string][]phase, build string, of func(phase) float64) float64 {
		var xs []float64
		for _, p := range phases[build] {
			xs = append(xs, of(p))
		}
		return median(xs)
	}
	for _, f := range figures {
		fmt.Fprintf(w, "| %s |", f.name)
		for _, b := range builds {
			s, a := med(specPhases, b.name, f.of), med(abPhases, b.name, f.of)
			agree := ratio(s, a)
			if s == a {
				agree = "equal"
			}
			fmt.Fprintf(w, " "+f.format+" | "+f.format+" | %s |", s, a, agree)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The write-up's sentence, B against A, from each side:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| B vs A | specrun | ab, /proc |")
	fmt.Fprintln(w, "|---|--:|--:|")
	change := func(phases map[string][]phase, of func(phase) float64) string {
		return fmt.Sprintf("%+.0f%%", 100*(med(phases, "B", of)/med(phases, "A", of)-1))
	}
	for _, f := range []struct {
		name string
		of   func(phase) float64
	}{
		{"requests/s", func(p phase) float64 { return p.rps }},
		// Every phase has abRequests requests: CPU per phase compares as per request.
		{"server CPU per request", func(p phase) float64 { return p.cpuSec }},
		{"peak RSS", func(p phase) float64 { return p.rssMiB }},
	} {
		fmt.Fprintf(w, "| %s | %s | %s |\n", f.name, change(specPhases, f.of), change(abPhases, f.of))
	}
	for _, b := range builds {
		fmt.Fprintf(w, "\nab's output, last round, build %s:\n\n```\n%s```\n", b.name, abSummary(abOut[b.name]))
	}
	return nil
}

type build struct {
	name, python, server string
	port                 int
}

// abRound starts memcached and app.py under each build's interpreter,
// warms each server up, loads it with ab, and stops them all; it returns
// each build's phase and ab's output.
func abRound(repo string, tools map[string]string, builds []build, warmups map[string]int64) (map[string]phase, map[string]string, error) {
	var procs []*exec.Cmd
	defer func() {
		for _, p := range procs {
			syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			p.Wait()
		}
	}()
	start := func(args ...string) (*exec.Cmd, error) {
		c := exec.Command(args[0], args[1:]...)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			return nil, err
		}
		procs = append(procs, c)
		return c, nil
	}
	mcArgs := []string{tools["memcached"], "-l", "127.0.0.1", "-p", strconv.Itoa(abMemcachedPort), "-U", "0", "-t", "2"}
	if os.Geteuid() == 0 {
		mcArgs = append(mcArgs, "-u", "nobody") // memcached refuses root without it
	}
	if _, err := start(mcArgs...); err != nil {
		return nil, nil, err
	}
	mcAddr := fmt.Sprintf("127.0.0.1:%d", abMemcachedPort)
	if err := await(func() error {
		c, err := net.Dial("tcp", mcAddr)
		if err == nil {
			c.Close()
		}
		return err
	}); err != nil {
		return nil, nil, fmt.Errorf("memcached on %s: %w", mcAddr, err)
	}
	app := filepath.Join(repo, "examples", "interpreters", "app.py")
	servers, urls := map[string]*exec.Cmd{}, map[string]string{}
	for _, b := range builds {
		c, err := start(b.python, app, "--port", strconv.Itoa(b.port), "--memcached", mcAddr)
		if err != nil {
			return nil, nil, err
		}
		url := fmt.Sprintf("http://127.0.0.1:%d/", b.port)
		if err := await(func() error { return get(url) }); err != nil {
			return nil, nil, fmt.Errorf("build %s on %s: %w", b.name, url, err)
		}
		servers[b.name], urls[b.name] = c, url
	}
	// Both warm-ups, then both phases.
	for _, b := range builds {
		if n := warmups[b.name]; n > 0 {
			c := min(n, abConcurrency)
			if out, err := exec.Command(tools["ab"], "-n", strconv.FormatInt(n, 10), "-c", strconv.FormatInt(c, 10), urls[b.name]).CombinedOutput(); err != nil {
				return nil, nil, fmt.Errorf("warm up build %s: %w\n%s", b.name, err, out)
			}
		}
	}
	phases, outs := map[string]phase{}, map[string]string{}
	for _, b := range builds {
		pid := servers[b.name].Process.Pid
		before, err := cpuTicks(pid)
		if err != nil {
			return nil, nil, err
		}
		out, err := exec.Command(tools["ab"], "-n", strconv.Itoa(abRequests), "-c", strconv.Itoa(abConcurrency), urls[b.name]).Output()
		if err != nil {
			return nil, nil, fmt.Errorf("ab %s: %w\n%s", urls[b.name], err, out)
		}
		after, err := cpuTicks(pid)
		if err != nil {
			return nil, nil, err
		}
		hwm, err := vmHWM(pid)
		if err != nil {
			return nil, nil, err
		}
		p, err := parseAB(out)
		if err != nil {
			return nil, nil, err
		}
		p.cpuSec, p.rssMiB = float64(after-before)/clockTicks, hwm/(1<<20)
		phases[b.name], outs[b.name] = p, string(out)
	}
	return phases, outs, nil
}

// parseAB reads the figures of ab's report.
func parseAB(out []byte) (phase, error) {
	var p phase
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		x, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Requests per second":
			p.rps = x
		case "Total transferred":
			p.total = x
		case "HTML transferred":
			p.html = x
		case "Failed requests":
			p.failed = x
		default:
			continue
		}
		found++
	}
	if found != 4 {
		return p, fmt.Errorf("ab's output lacks requests/s, bytes or failures:\n%s", out)
	}
	return p, nil
}

// abSummary keeps ab's report from "Concurrency Level" to "Transfer rate".
func abSummary(out string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(l, "Concurrency Level") {
			in = true
		}
		if in {
			b.WriteString(l)
		}
		if strings.HasPrefix(l, "Transfer rate") {
			break
		}
	}
	return b.String()
}

// cpuTicks is utime+stime of pid, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command, which is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return utime + stime, nil
}

// vmHWM is the peak resident set of pid, in bytes.
func vmHWM(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			f := strings.Fields(v)
			kb, err := strconv.ParseFloat(f[0], 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmHWM", pid)
}

func get(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %s", resp.Status)
	}
	return nil
}

// await retries ready until it succeeds, for up to 30 seconds.
func await(ready func() error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := ready()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
