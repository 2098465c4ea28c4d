package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/specrun/specrun/param"
)

func init() {
	Register(&Def{
		Name: "exec",
		Doc: "One iteration is one run of a command, from fork to exit, with its output discarded " +
			"(hyperfine's model); a `shell` command has the shell's own start-up subtracted. " +
			"Each timed run is preceded by one untimed, traced execution that measures the peak RSS.",
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
		},
		Metrics: []Metric{
			{Name: "wall_ns", Unit: "ns", Doc: "Wall time of one run (the shell's start-up subtracted)."},
			{Name: "wall_stddev_ns", Unit: "ns", Doc: "Standard deviation of the wall time of the run's executions (hyperfine's σ); 0 for one."},
			{Name: "user_ns", Unit: "ns", Doc: "User CPU time of one run; tick-apportioned for short children, see cpu_ns."},
			{Name: "sys_ns", Unit: "ns", Doc: "System CPU time of one run; tick-apportioned for short children, see cpu_ns."},
			{Name: "cpu_ns", Unit: "ns", Doc: "User plus system CPU time of one run: the reliable CPU figure for short children."},
			{Name: "max_rss_bytes", Unit: "bytes", Doc: "Peak resident set size of the command's own process (VmHWM at its exit), from the run's untimed, traced execution."},
			{Name: "exit_code", Unit: "count", Doc: "Exit status of the last run that failed, else 0; 128+N for a signal N."},
		},
		Interleave: true,
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
	prepare       string
	cleanup       string
	dir           string
	env           []string
	devNull       *os.File
	stdin         *os.File
}

func newExec(p param.Values, _ Env) (Op, error) {
	command, shell := p.Strings("command"), p.String("shell")
	if (len(command) == 0) == (shell == "") {
		return nil, errors.New("exec: set exactly one of command and shell")
	}
	o := &execOp{
		ignoreFailure: p.Bool("ignore_failure"),
		prepare:       p.String("prepare"),
		cleanup:       p.String("cleanup"),
		dir:           p.String("dir"),
		env:           environ(p.StringMap("env")),
	}
	var err error
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
	files := []*os.File{in, o.devNull, o.devNull}

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

	if setup := p.String("setup"); setup != "" {
		if err := o.runShell(context.Background(), "setup", setup); err != nil {
			o.Close()
			return nil, err
		}
	}
	if shell != "" {
		probe := spawnSpec{path: path, argv: []string{"/bin/sh", "-c", ""}, dir: o.dir, env: o.env, files: files}
		if o.shellCost, err = meanUsage(&probe, shellProbeRuns); err != nil {
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

// meanUsage runs s n times after one warm-up run and returns the mean usage.
func meanUsage(s *spawnSpec, n int) (childUsage, error) {
	var sum childUsage
	for i := -1; i < n; i++ {
		u, err := spawn(context.Background(), s, false)
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

// Run times n executions of the command. Before them, one more execution,
// traced and untimed, measures the command's own peak RSS: tracing adds two
// stops per child, which must not reach the timings (see spawn).
func (o *execOp) Run(ctx context.Context, n int64) (Sample, error) {
	if n <= 0 {
		return Sample{}, nil
	}
	probe, err := o.execute(ctx, true)
	if err != nil {
		return Sample{}, err
	}
	var wall, user, sys, cpu time.Duration
	var mean, m2 float64 // Welford's running mean and squared deviations of each execution's wall time
	exitCode := probe.ExitCode
	for i := int64(0); i < n; i++ {
		u, err := o.execute(ctx, false)
		if err != nil {
			return Sample{}, err
		}
		if u.ExitCode != 0 {
			exitCode = u.ExitCode
		}
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
	return Sample{
		Elapsed: max(wall, 1), // zero would hand the timing back to the harness, start-up and all
		Metrics: map[string]float64{
			"wall_ns":        per(wall),
			"wall_stddev_ns": stddev,
			"user_ns":        per(user),
			"sys_ns":         per(sys),
			"cpu_ns":         per(cpu),
			"max_rss_bytes":  float64(probe.MaxRSS),
			"exit_code":      float64(exitCode),
		},
	}, nil
}

// execute runs prepare, then the command once; a non-zero exit is an error
// unless ignore_failure is set.
func (o *execOp) execute(ctx context.Context, trace bool) (childUsage, error) {
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
	u, err := spawn(ctx, &o.cmd, trace)
	if err != nil {
		return childUsage{}, fmt.Errorf("exec: start %s: %w", o.name, err)
	}
	if u.ExitCode != 0 {
		if ctx.Err() != nil {
			return childUsage{}, ctx.Err()
		}
		if !o.ignoreFailure {
			return childUsage{}, fmt.Errorf("exec: %s exited with status %d (set ignore_failure = true to time it anyway)", o.name, u.ExitCode)
		}
	}
	return u, nil
}

// runShell runs a setup, prepare or cleanup command and fails with its
// output when it fails.
func (o *execOp) runShell(ctx context.Context, what, line string) error {
	c := exec.CommandContext(ctx, "/bin/sh", "-c", line)
	c.Dir, c.Env = o.dir, o.env
	out, err := c.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 500 {
			msg = "..." + msg[len(msg)-500:]
		}
		if msg != "" {
			msg = ": " + msg
		}
		return fmt.Errorf("exec: run %s %q: %w%s", what, line, err, msg)
	}
	return nil
}

// Close runs the cleanup command and releases the standard files.
func (o *execOp) Close() error {
	var err error
	if o.cleanup != "" {
		err = o.runShell(context.Background(), "cleanup", o.cleanup)
		o.cleanup = "" // once, even if the harness closes twice
	}
	for _, f := range []*os.File{o.stdin, o.devNull} {
		if f != nil {
			f.Close()
		}
	}
	o.stdin, o.devNull = nil, nil
	return err
}
