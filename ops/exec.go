package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/specrun/specrun/internal/procgroup"
	"github.com/specrun/specrun/param"
)

func init() {
	Register(&Def{
		Name: "exec",
		Doc: "One iteration is one run of a command, from fork to exit, with its output discarded " +
			"(hyperfine's model); a `shell` command has the shell's own start-up subtracted. " +
			"Every command (the timed one, setup, prepare, cleanup) runs in its own process group and, " +
			"where specrun may make cgroups, its own cgroup: what a run of the command leaves behind is " +
			"killed when it exits, what setup and prepare leave when the benchmark ends. " +
			"A server's URL (server.NAME.url) in the command, shell, env, setup, prepare or cleanup keeps that " +
			"server running for the benchmark and reaches the command as its real URL.",
		Params: []param.Param{
			{Name: "command", Type: param.Strings, Doc: "The program and its arguments, run without a shell; set this or shell."},
			{Name: "shell", Type: param.String, Doc: "A command line run by /bin/sh -c; the start-up of `sh -c ''` is measured and subtracted."},
			{Name: "env", Type: param.StringMap, Doc: "Variables added to specrun's environment for every command."},
			{Name: "dir", Type: param.String, Doc: "Working directory of every command; default the current one."},
			{Name: "stdin", Type: param.String, Doc: "A file read as the command's standard input, from its start on every run; default /dev/null."},
			{Name: "setup", Type: param.String, Doc: "A shell command run once before the benchmark."},
			{Name: "prepare", Type: param.String, Doc: "A shell command run before every run of the command, untimed."},
			{Name: "cleanup", Type: param.String, Doc: "A shell command run once after the benchmark, however it ended."},
			{Name: "ignore_failure", Type: param.Bool, Default: false, Doc: "Time a command that exits non-zero rather than failing the benchmark."},
			{Name: "show_output", Type: param.Bool, Default: false, Doc: "Pass the output of the command (and of setup, prepare and cleanup) through to specrun's stdout and stderr, as hyperfine's --show-output; by default it is discarded and only the end of stderr is kept for an error."},
		},
		Metrics: []Metric{
			{Name: "wall_ns", Unit: "ns", Doc: "Wall time of one run (the shell's start-up subtracted)."},
			{Name: "wall_stddev_ns", Unit: "ns", Doc: "Standard deviation of the wall time of the run's executions (hyperfine's σ); 0 for one."},
			{Name: "user_ns", Unit: "ns", Doc: "User CPU time of one run; tick-apportioned for short children, see cpu_ns."},
			{Name: "sys_ns", Unit: "ns", Doc: "System CPU time of one run; tick-apportioned for short children, see cpu_ns."},
			{Name: "cpu_ns", Unit: "ns", Doc: "User plus system CPU time of one run: the reliable CPU figure for short children."},
			{Name: "max_rss_bytes", Unit: "bytes", Doc: "Peak memory of one execution, the command's children included, the largest over the run's executions: the most charged to the command's memory cgroup during the execution, above what the cgroup held at its start (cgroup v2 memory.peak, or v1 memory.max_usage_in_bytes). Taken from the timed executions themselves. A cgroup is charged for the anonymous memory and the page cache a command brings in, not for file pages already cached (a shared libc), so this reads below VmHWM or /usr/bin/time's maximum RSS for small commands. Not reported where specrun cannot make a memory cgroup (not root, no memory controller)."},
			{Name: "exit_code", Unit: "count", Neutral: true, Doc: "Exit status of the last run that failed, else 0; 128+N for a signal N."},
		},
		Interleave: true,
		Servers:    execServers,
		New:        newExec,
	})
}

// shellProbeRuns is how many times `sh -c ”` runs to measure the shell's
// start-up; hyperfine uses 50 for the same purpose.
const shellProbeRuns = 50

// childUsage is what one run of a child observed.
type childUsage struct {
	Wall      time.Duration
	User, Sys time.Duration
	MaxRSS    int64 // bytes
	ExitCode  int
}

// spawnSpec is a command ready to start: resolved path, arguments,
// environment and the three standard files.
type spawnSpec struct {
	path  string
	argv  []string
	dir   string
	env   []string
	files []*os.File // stdin, stdout, stderr
}

type execOp struct {
	name          string // the command as the user wrote it, for errors
	cmd           spawnSpec
	shellCost     childUsage // mean start-up of `sh -c ''`; zero without a shell
	ignoreFailure bool
	showOutput    bool
	prepare       string
	cleanup       string
	dir           string
	env           []string
	devNull       *os.File
	stdin         *os.File
	stderr        *procgroup.Output // the timed command's, unless show_output

	run *procgroup.Group // the timed command's executions
	aux *procgroup.Group // setup, prepare and cleanup, and what they leave running
}

func newExec(p param.Values, env Env) (Op, error) {
	command, shell := p.Strings("command"), p.String("shell")
	if (len(command) == 0) == (shell == "") {
		return nil, errors.New("exec: set exactly one of command and shell")
	}
	url, err := serverURLs(env)
	if err != nil {
		return nil, err
	}
	command = slices.Clone(command)
	for i := range command {
		command[i] = url(command[i])
	}
	shell = url(shell)
	vars := map[string]string{}
	for k, v := range p.StringMap("env") {
		vars[k] = url(v)
	}
	o := &execOp{
		ignoreFailure: p.Bool("ignore_failure"),
		showOutput:    p.Bool("show_output"),
		prepare:       url(p.String("prepare")),
		cleanup:       url(p.String("cleanup")),
		dir:           p.String("dir"),
		env:           environ(vars),
		run:           procgroup.New("exec", procgroup.Options{Memory: true}),
		aux:           procgroup.New("exec setup", procgroup.Options{}),
	}
	if o.devNull, err = os.OpenFile(os.DevNull, os.O_RDWR, 0); err != nil {
		return nil, fmt.Errorf("exec: open %s: %w", os.DevNull, err)
	}
	in := o.devNull
	if path := p.String("stdin"); path != "" {
		if o.stdin, err = os.Open(path); err != nil {
			o.Close()
			return nil, fmt.Errorf("exec: open stdin: %w", err)
		}
		in = o.stdin
	}
	files := []*os.File{in, os.Stdout, os.Stderr}
	if !o.showOutput {
		if o.stderr, err = procgroup.NewOutput(nil); err != nil {
			o.Close()
			return nil, fmt.Errorf("exec: %w", err)
		}
		files = []*os.File{in, o.devNull, o.stderr.W}
	}

	argv := command
	if shell != "" {
		argv = []string{"/bin/sh", "-c", shell}
		o.name = fmt.Sprintf("shell %q", shell)
	} else {
		o.name = fmt.Sprintf("command %q", strings.Join(command, " "))
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		o.Close()
		return nil, fmt.Errorf("exec: find %s: %w", o.name, err)
	}
	o.cmd = spawnSpec{path: path, argv: argv, dir: o.dir, env: o.env, files: files}

	if setup := url(p.String("setup")); setup != "" {
		if err := o.runShell(envContext(env), "setup", setup); err != nil {
			o.Close()
			return nil, err
		}
	}
	if shell != "" {
		probe := spawnSpec{path: path, argv: []string{"/bin/sh", "-c", ""}, dir: o.dir, env: o.env, files: files}
		if o.shellCost, err = meanUsage(&probe, o.run, shellProbeRuns); err != nil {
			o.Close()
			return nil, fmt.Errorf("exec: measure the shell's start-up: %w", err)
		}
	}
	return o, nil
}

// environ is specrun's environment with extra set on top, in a stable order.
func environ(extra map[string]string) []string {
	env := os.Environ()
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// meanUsage runs s n times in g after one warm-up run and returns the mean usage.
func meanUsage(s *spawnSpec, g *procgroup.Group, n int) (childUsage, error) {
	var sum childUsage
	for i := -1; i < n; i++ {
		u, err := spawn(context.Background(), s, g)
		if err != nil {
			return childUsage{}, err
		}
		if u.ExitCode != 0 {
			return childUsage{}, fmt.Errorf("%s exited with status %d", strings.Join(s.argv, " "), u.ExitCode)
		}
		if i >= 0 {
			sum.Wall += u.Wall
			sum.User += u.User
			sum.Sys += u.Sys
		}
	}
	d := time.Duration(n)
	return childUsage{Wall: sum.Wall / d, User: sum.User / d, Sys: sum.Sys / d}, nil
}

// Run times n executions of the command. The peak memory comes from the
// same executions, through the group's memory cgroup: the thread that
// starts them sits in that cgroup for the run (where it is a v1 cgroup,
// children are born in their parent thread's).
func (o *execOp) Run(ctx context.Context, n int64) (Sample, error) {
	if n <= 0 {
		return Sample{}, nil
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	leave, err := o.run.Enter()
	if err != nil {
		return Sample{}, fmt.Errorf("exec: %w", err)
	}
	defer leave()

	var wall, user, sys, cpu time.Duration
	var mean, m2 float64 // Welford's running mean and squared deviations of each execution's wall time
	var exitCode int
	var peak int64
	for i := int64(0); i < n; i++ {
		u, err := o.execute(ctx)
		if err != nil {
			return Sample{}, err
		}
		if u.ExitCode != 0 {
			exitCode = u.ExitCode
		}
		peak = max(peak, u.MaxRSS)
		w := max(u.Wall-o.shellCost.Wall, 0)
		wall += w
		d := float64(w) - mean
		mean += d / float64(i+1)
		m2 += d * (float64(w) - mean)
		user += max(u.User-o.shellCost.User, 0)
		sys += max(u.Sys-o.shellCost.Sys, 0)
		cpu += max(u.User+u.Sys-o.shellCost.User-o.shellCost.Sys, 0)
	}
	per := func(d time.Duration) float64 { return float64(d) / float64(n) }
	var stddev float64
	if n > 1 {
		stddev = math.Sqrt(m2 / float64(n-1))
	}
	metrics := map[string]float64{
		"wall_ns":        per(wall),
		"wall_stddev_ns": stddev,
		"user_ns":        per(user),
		"sys_ns":         per(sys),
		"cpu_ns":         per(cpu),
		"exit_code":      float64(exitCode),
	}
	if _, ok := o.run.MemoryPeak(); ok {
		metrics["max_rss_bytes"] = float64(peak)
	}
	var warnings []string
	if w := shellNoise(o.name, time.Duration(per(wall)), o.shellCost.Wall); w != "" {
		warnings = append(warnings, w)
	}
	return Sample{
		Elapsed:  max(wall, 1), // zero would hand the timing back to the harness, start-up and all
		Metrics:  metrics,
		Warnings: warnings,
	}, nil
}

// shellNoise is the warning for a shell command whose time per run,
// beyond the shell's start-up (which is subtracted), is less than that
// start-up: the difference of two close figures is mostly their noise, as
// hyperfine warns below 5 ms. "" when there is no shell or no doubt.
func shellNoise(name string, perRun, shell time.Duration) string {
	if shell <= 0 || perRun >= shell {
		return ""
	}
	return fmt.Sprintf("%s took %v a run beyond the shell's own start-up of %v, which is subtracted: "+
		"so small a difference is mostly noise; time it as command = [...], without a shell",
		name, perRun.Round(time.Microsecond), shell.Round(time.Microsecond))
}

// execute runs prepare, then the command once; a non-zero exit is an error
// unless ignore_failure is set.
func (o *execOp) execute(ctx context.Context) (childUsage, error) {
	if err := ctx.Err(); err != nil {
		return childUsage{}, err
	}
	if o.prepare != "" {
		if err := o.runShell(ctx, "prepare", o.prepare); err != nil {
			return childUsage{}, err
		}
	}
	if o.stdin != nil {
		if _, err := o.stdin.Seek(0, io.SeekStart); err != nil {
			return childUsage{}, fmt.Errorf("exec: rewind stdin: %w", err)
		}
	}
	if o.stderr != nil {
		o.stderr.Tail.Reset()
	}
	u, err := spawn(ctx, &o.cmd, o.run)
	if err != nil {
		return childUsage{}, fmt.Errorf("exec: start %s: %w", o.name, err)
	}
	if u.ExitCode != 0 {
		if ctx.Err() != nil {
			return childUsage{}, ctx.Err()
		}
		if !o.ignoreFailure {
			msg := " (set ignore_failure = true to time it anyway, show_output = true to see its output)"
			if o.stderr != nil {
				msg += withOutput("stderr", o.stderr.Last(errTailLines))
			}
			return childUsage{}, fmt.Errorf("exec: %s exited with status %d%s", o.name, u.ExitCode, msg)
		}
	}
	return u, nil
}

// runShell runs a setup, prepare or cleanup command in the aux group and
// fails with the end of its output when it fails. What it leaves running
// (a server that setup starts) lives until the benchmark ends.
func (o *execOp) runShell(ctx context.Context, what, line string) error {
	var through io.Writer
	if o.showOutput {
		through = os.Stderr
	}
	out, err := procgroup.NewOutput(through)
	if err != nil {
		return fmt.Errorf("exec: run %s %q: %w", what, line, err)
	}
	defer out.Close()
	c := exec.Command("/bin/sh", "-c", line)
	c.Dir, c.Env = o.dir, o.env
	c.Stdout, c.Stderr = out.W, out.W
	if err := o.aux.Start(c); err != nil {
		return fmt.Errorf("exec: run %s %q: %w", what, line, err)
	}
	out.CloseWrite()
	stop := context.AfterFunc(ctx, func() { o.aux.Signal(syscall.SIGKILL) })
	err = c.Wait()
	stop()
	o.aux.Reaped(c.Process.Pid)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("exec: run %s %q: %w%s", what, line, err, withOutput("output", out.Last(errTailLines)))
	}
	return nil
}

// errTailLines is how many of a failing command's last lines of output its
// error carries.
const errTailLines = 10

// withOutput appends the end of a command's output to an error message.
func withOutput(what, out string) string {
	if out == "" {
		return ""
	}
	return "; its " + what + " ends:\n" + out
}

// Close runs the cleanup command, kills what the benchmark's commands left
// running, and releases the standard files.
func (o *execOp) Close() error {
	var err error
	if o.cleanup != "" {
		err = o.runShell(context.Background(), "cleanup", o.cleanup)
		o.cleanup = "" // once, even if the harness closes twice
	}
	err = errors.Join(err, o.aux.Close(), o.run.Close())
	if o.stderr != nil {
		o.stderr.Close()
		o.stderr = nil
	}
	for _, f := range []*os.File{o.stdin, o.devNull} {
		if f != nil {
			f.Close()
		}
	}
	o.stdin, o.devNull = nil, nil
	return err
}
