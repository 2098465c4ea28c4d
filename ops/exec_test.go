package ops

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specrun/specrun/internal/procgroup"
	"github.com/specrun/specrun/param"
)

// TestMain lets the test binary stand in for a child of known size: with
// SPECRUN_TEST_ALLOC_MB set it touches that many MiB and exits.
func TestMain(m *testing.M) {
	if mb := os.Getenv("SPECRUN_TEST_ALLOC_MB"); mb != "" {
		n, _ := strconv.Atoi(mb)
		buf := make([]byte, n<<20)
		for i := 0; i < len(buf); i += 4096 {
			buf[i] = 1
		}
		runtime.KeepAlive(buf)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func newExecOp(t *testing.T, p param.Values) *execOp {
	t.Helper()
	op, err := newExec(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { op.(*execOp).Close() })
	return op.(*execOp)
}

// The peak memory is the command's and its children's, from the timed
// executions themselves, not specrun's (rusage would charge specrun's
// address space to a child Go starts).
func TestExecPeakMemoryIsTheCommands(t *testing.T) {
	if g := procgroup.New("probe", procgroup.Options{Memory: true}); true {
		_, ok := g.MemoryPeak()
		g.Close()
		if !ok {
			t.Skip("no memory cgroup here: max_rss_bytes is not reported")
		}
	}
	// Hold 100 MiB in the parent: rusage would charge it to the child.
	ballast := make([]byte, 100<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	defer runtime.KeepAlive(ballast)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The 50 MiB are touched by a child of the command: a shell that waits.
	op := newExecOp(t, param.Values{"shell": "'" + self + "'; true", "env": map[string]string{"SPECRUN_TEST_ALLOC_MB": "50"}})
	s, err := op.Run(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Metrics["max_rss_bytes"] / (1 << 20)
	if got < 50 || got > 90 && !raceEnabled || got > 150 {
		t.Errorf("max_rss_bytes = %.1f MiB for a grandchild touching 50 MiB (parent holds 100 MiB), want 50..90", got)
	}

	op = newExecOp(t, param.Values{"command": []string{"/bin/true"}})
	if s, err = op.Run(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Metrics["max_rss_bytes"]; !ok || got/(1<<20) > 8 {
		t.Errorf("max_rss_bytes of /bin/true = %.1f MiB (reported %v), want at most 8", got/(1<<20), ok)
	}
}

func TestExecMetrics(t *testing.T) {
	op := newExecOp(t, param.Values{"command": []string{"/bin/true"}})
	s, err := op.Run(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if s.Elapsed <= 0 {
		t.Errorf("Elapsed = %v, want > 0", s.Elapsed)
	}
	if got, want := s.Metrics["wall_ns"], float64(s.Elapsed)/5; got != want {
		t.Errorf("wall_ns = %v, want Elapsed/5 = %v", got, want)
	}
	if s.Metrics["cpu_ns"] != s.Metrics["user_ns"]+s.Metrics["sys_ns"] {
		t.Errorf("cpu_ns %v != user_ns %v + sys_ns %v", s.Metrics["cpu_ns"], s.Metrics["user_ns"], s.Metrics["sys_ns"])
	}
	if s.Metrics["exit_code"] != 0 {
		t.Errorf("exit_code = %v, want 0", s.Metrics["exit_code"])
	}
	if sd := s.Metrics["wall_stddev_ns"]; sd <= 0 || sd > float64(s.Elapsed) {
		t.Errorf("wall_stddev_ns = %v, want in (0, %v]", sd, s.Elapsed)
	}
}

func TestExecFailures(t *testing.T) {
	_, err := newExec(param.Values{"command": []string{"specrun-no-such-command"}}, nil)
	if err == nil || !strings.Contains(err.Error(), `"specrun-no-such-command"`) {
		t.Errorf("missing command: err = %v, want one naming the command", err)
	}
	if _, err := newExec(param.Values{}, nil); err == nil {
		t.Error("neither command nor shell: err = nil")
	}
	if _, err := newExec(param.Values{"command": []string{"true"}, "shell": "true"}, nil); err == nil {
		t.Error("both command and shell: err = nil")
	}

	op := newExecOp(t, param.Values{"command": []string{"false"}})
	_, err = op.Run(context.Background(), 3)
	if err == nil || !strings.Contains(err.Error(), `"false" exited with status 1`) {
		t.Errorf("non-zero exit: err = %v, want one naming the command and status", err)
	}

	op = newExecOp(t, param.Values{"shell": "exit 3", "ignore_failure": true})
	s, err := op.Run(context.Background(), 2)
	if err != nil {
		t.Fatalf("ignore_failure: %v", err)
	}
	if s.Metrics["exit_code"] != 3 {
		t.Errorf("ignore_failure: exit_code = %v, want 3", s.Metrics["exit_code"])
	}

	if _, err := newExec(param.Values{"command": []string{"true"}, "setup": "exit 7"}, nil); err == nil ||
		!strings.Contains(err.Error(), "setup") {
		t.Errorf("failing setup: err = %v, want one naming setup", err)
	}
}

func TestExecShellStartupIsSubtracted(t *testing.T) {
	op := newExecOp(t, param.Values{"shell": ":"})
	if op.shellCost.Wall <= 0 {
		t.Fatalf("shell start-up = %v, want > 0", op.shellCost.Wall)
	}
	// The subtraction, free of the machine's timing noise: a start-up
	// longer than any execution leaves nothing (but never a negative time,
	// and never a zero Elapsed, which would hand timing back to the
	// harness), and no start-up leaves each execution's whole time.
	op.shellCost = childUsage{Wall: time.Hour, User: time.Hour, Sys: time.Hour}
	s, err := op.Run(context.Background(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if s.Metrics["wall_ns"] != 0 || s.Metrics["cpu_ns"] != 0 || s.Elapsed <= 0 {
		t.Errorf("with an hour's start-up: wall_ns %v, cpu_ns %v, Elapsed %v; want 0, 0 and above 0",
			s.Metrics["wall_ns"], s.Metrics["cpu_ns"], s.Elapsed)
	}
	op.shellCost = childUsage{}
	if s, err = op.Run(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	if s.Metrics["wall_ns"] <= 0 || math.Abs(float64(s.Elapsed)-3*s.Metrics["wall_ns"]) > 3 {
		t.Errorf("with no start-up: wall_ns %v, Elapsed %v; want a positive wall_ns, three times it elapsed",
			s.Metrics["wall_ns"], s.Elapsed)
	}
}

func TestExecSetupPrepareCleanupStdin(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	op, err := newExec(param.Values{
		"shell":   `read x; [ "$x" = hello ] && echo run >> log`,
		"dir":     dir,
		"stdin":   in,
		"setup":   "echo setup > log",
		"prepare": "echo prepare >> log",
		"cleanup": "echo cleanup >> log",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Run(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if err := op.(*execOp).Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// prepare runs before every execution, and there is no execution but
	// the timed ones: the peak memory comes from those.
	want := "setup\nprepare\nrun\nprepare\nrun\ncleanup\n"
	if string(b) != want {
		t.Errorf("log = %q, want %q", b, want)
	}
}

func TestExecCancel(t *testing.T) {
	op := newExecOp(t, param.Values{"command": []string{"sleep", "10"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := op.Run(ctx, 1); err == nil {
		t.Error("cancelled run: err = nil")
	}
}

// BenchmarkExecTrue is one run of /bin/true in the exec op, peak memory
// included; bench/exec.sh compares it with hyperfine -N.
func BenchmarkExecTrue(b *testing.B) {
	op, err := newExec(param.Values{"command": []string{"/bin/true"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer op.(*execOp).Close()
	b.ResetTimer()
	s, err := op.Run(context.Background(), int64(b.N))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(s.Metrics["max_rss_bytes"], "max_rss_bytes")
}

// BenchmarkSpawnTrue compares a contained spawn of /bin/true (the exec
// op's: its own process group and cgroup, the memory peak reset and read,
// leftovers killed) with a bare os.StartProcess, alternating them so that a
// busy machine's drift hits both alike; it reports the median of each and
// their ratio.
func BenchmarkSpawnTrue(b *testing.B) {
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	files := []*os.File{devNull, devNull, devNull}
	s := &spawnSpec{path: "/bin/true", argv: []string{"true"}, files: files}
	g := procgroup.New("bench", procgroup.Options{Memory: true})
	defer g.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	leave, err := g.Enter()
	if err != nil {
		b.Fatal(err)
	}
	defer leave()
	var contained, bare []float64
	for b.Loop() {
		t0 := time.Now()
		if _, err := spawn(context.Background(), s, g); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{Files: files})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			b.Fatal(err)
		}
		contained = append(contained, float64(t1.Sub(t0)))
		bare = append(bare, float64(time.Since(t1)))
	}
	slices.Sort(contained)
	slices.Sort(bare)
	mc, mb := contained[len(contained)/2], bare[len(bare)/2]
	b.ReportMetric(mc, "contained-ns")
	b.ReportMetric(mb, "bare-ns")
	b.ReportMetric(mc/mb, "contained/bare")
}

// TestExecWarnsOfATimeBelowTheShells: a shell command that costs less than
// the shell's own start-up is mostly the noise of the subtraction, and the
// run says so; one well above it does not.
func TestExecWarnsOfATimeBelowTheShells(t *testing.T) {
	for _, tc := range []struct {
		perRun, shell time.Duration
		warn          bool
	}{
		{time.Microsecond, time.Millisecond, true},
		{999 * time.Microsecond, time.Millisecond, true},
		{time.Millisecond, time.Millisecond, false},
		{50 * time.Millisecond, time.Millisecond, false},
		{time.Microsecond, 0, false}, // no shell
	} {
		w := shellNoise(`shell ":"`, tc.perRun, tc.shell)
		if (w != "") != tc.warn || tc.warn && !strings.Contains(w, "beyond the shell's own start-up of 1ms") {
			t.Errorf("shellNoise(%v, %v) = %q, want a warning: %v", tc.perRun, tc.shell, w, tc.warn)
		}
	}
	// A run carries it: with a start-up longer than any run, every run is
	// under it; sleep 0.05 is far above any shell's start-up.
	op := newExecOp(t, param.Values{"command": []string{"/bin/true"}})
	op.shellCost.Wall = time.Hour
	s, err := op.Run(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "beyond the shell's own start-up of 1h0m0s") {
		t.Errorf("a run under the shell's start-up: warnings %q, want one about it", s.Warnings)
	}
	op = newExecOp(t, param.Values{"shell": "sleep 0.05"})
	if s, err = op.Run(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("shell \"sleep 0.05\": warnings %q, want none", s.Warnings)
	}
}
