package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specrun/specrun/results"
)

// TestRunSignals interrupts a run in this process: the finished benchmark
// and the interrupted one are written, marked, and nothing is left in the
// temp dir.
func TestRunSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks for seconds")
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, exitSIGINT}, {syscall.SIGTERM, exitSIGTERM}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir, tmp := privateTmp(t)
			specPath := filepath.Join(dir, "slow.hcl")
			src := `
suite "slow" {
  repeat = 1
  warmup = "0s"
}

benchmark "quick" {
  op         = "noop"
  iterations = 1000
}

benchmark "long" {
  op       = "noop"
  min_time = "3s"
}

benchmark "never" {
  op         = "noop"
  iterations = 1000
}
`
			if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			var stdout, stderr bytes.Buffer
			done := make(chan int)
			go func() {
				done <- run([]string{"run", "--no-progress", "--label", "box", "--out", out, specPath}, &stdout, &stderr)
			}()
			time.Sleep(1500 * time.Millisecond)
			if err := syscall.Kill(os.Getpid(), c.sig); err != nil {
				t.Fatal(err)
			}
			var code int
			select {
			case code = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("run did not stop after the signal")
			}
			if code != c.code {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", code, c.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "stopping after writing what finished") {
				t.Errorf("stderr does not say the run is stopping:\n%s", stderr.String())
			}

			matches, _ := filepath.Glob(filepath.Join(out, "*"))
			if len(matches) != 2 {
				t.Fatalf("output files %q, want the .json and the .md", matches)
			}
			r, err := results.ReadFile(strings.TrimSuffix(strings.TrimSuffix(matches[0], ".md"), ".json") + ".json")
			if err != nil {
				t.Fatal(err)
			}
			if !r.Interrupted {
				t.Error("result not marked interrupted")
			}
			var names []string
			for _, b := range r.Benchmarks {
				names = append(names, b.Name)
				if want := b.Name == "long"; b.Interrupted != want {
					t.Errorf("benchmark %s: interrupted = %v, want %v", b.Name, b.Interrupted, want)
				}
			}
			if strings.Join(names, " ") != "quick long" {
				t.Errorf("benchmarks %q, want quick and the interrupted long", names)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("left in the temp dir: %v", left)
			}
		})
	}
}

// TestRunLeavesNoFiles runs ops that open files, spawn processes and fail,
// in this process, and checks that the run gives back every descriptor and
// removes its temp dir.
func TestRunLeavesNoFiles(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc/self/fd")
	}
	dir, tmp := privateTmp(t)
	specPath := filepath.Join(dir, "files.hcl")
	src := `
suite "files" {
  repeat = 2
  warmup = "0s"
}

benchmark "write" {
  op = "file.write"
  matrix {
    atomic = [false, true]
  }
  atomic     = param.atomic
  iterations = 20
}

benchmark "read" {
  op         = "file.read"
  size       = "4KB"
  iterations = 20
}

benchmark "spawn" {
  op         = "process.spawn"
  iterations = 3
}

benchmark "fails" {
  op         = "exec"
  command    = ["false"]
  iterations = 1
}
`
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--no-progress", "--out", filepath.Join(dir, "out"), specPath}, &stdout, &stderr)
	if code != exitBenchError {
		t.Errorf("exit code %d, want %d (one benchmark fails)\nstderr:\n%s", code, exitBenchError, stderr.String())
	}
	if after := openFDs(t); after > before {
		t.Errorf("%d file descriptors open after the run, %d before", after, before)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temp dir: %v", left)
	}
}

// privateTmp points TMPDIR at an empty directory inside a fresh temporary
// one, and returns both, so that a test can check a run leaves nothing in it.
func privateTmp(t *testing.T) (dir, tmp string) {
	t.Helper()
	dir = t.TempDir()
	tmp = filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	return dir, tmp
}

func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestSecondSignalWaitsForWrite sends two signals while the result is
// being written: the processes are killed at once, but the exit waits until
// the write is through, so that no temporary file is left behind.
func TestSecondSignalWaitsForWrite(t *testing.T) {
	quit := make(chan struct{})
	exited := make(chan int, 1)
	w := newSignalWatch(func() {}, func() { close(quit) }, io.Discard, func(code int) {
		exited <- code
		runtime.Goexit() // as os.Exit would, end the watcher here
	})
	defer w.stop()
	w.whileWriting(func() {
		w.ch <- syscall.SIGINT
		w.ch <- syscall.SIGINT
		<-quit
		// The watcher is now waiting for the write; give it every chance
		// to exit too early.
		for range 100 {
			runtime.Gosched()
		}
		select {
		case code := <-exited:
			t.Errorf("exited with %d during the write", code)
		default:
		}
	})
	if code := <-exited; code != exitSIGINT {
		t.Errorf("exit code %d, want %d", code, exitSIGINT)
	}
}

// TestNoWriteStartsAfterSecondSignal sends the second signal while no
// file is being written (specrun waits out a server's grace). Killing the
// server ends that wait, and the run goes on towards writing its result
// while the watcher is still on its way to exit: that write must not start.
func TestNoWriteStartsAfterSecondSignal(t *testing.T) {
	exited := make(chan int, 1)
	wrote := false
	var w *signalWatch
	w = newSignalWatch(func() {}, func() {
		// Here quit has killed the server: the run's write comes now.
		w.whileWriting(func() { wrote = true })
	}, io.Discard, func(code int) {
		exited <- code
		runtime.Goexit()
	})
	defer w.stop()
	w.ch <- syscall.SIGINT
	w.ch <- syscall.SIGTERM
	if code := <-exited; code != exitSIGTERM {
		t.Errorf("exit code %d, want %d", code, exitSIGTERM)
	}
	if wrote {
		t.Error("a result was written after the second signal")
	}
}

// TestResultNames gives runs of one suite, label and second names of their
// own, and --force the first name whatever exists.
func TestResultNames(t *testing.T) {
	dir := t.TempDir()
	started := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	names := resultNames{dir: dir, base: resultBase("suite", "box", started)}
	var got []string
	for range 3 {
		stem, err := names.free(0)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(stem))
		if err := os.WriteFile(stem+".json", nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A .md alone takes the name too.
	if err := os.WriteFile(names.stem(3)+".md", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stem, err := names.free(0)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, filepath.Base(stem))
	want := []string{"suite-box-20261201T080000Z", "suite-box-20261201T080000Z-2", "suite-box-20261201T080000Z-3", "suite-box-20261201T080000Z-5"}
	if !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	names.force = true
	if stem, _ := names.free(0); filepath.Base(stem) != want[0] {
		t.Errorf("with force: %s, want %s", filepath.Base(stem), want[0])
	}
	if long := resultBase(strings.Repeat("s", 300), strings.Repeat("l", 300), started); len(long) > 200 {
		t.Errorf("a 300-character suite and label give a %d-byte name", len(long))
	}
}

// TestRunRefusesControlCharsInLabel: a label ends up in every report, and
// a newline in it could forge a gobench line or a table row.
func TestRunRefusesControlCharsInLabel(t *testing.T) {
	dir, _ := privateTmp(t)
	specPath := filepath.Join(dir, "s.hcl")
	if err := os.WriteFile(specPath, []byte("benchmark \"n\" {\n  op = \"noop\"\n  iterations = 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"a\nBenchmarkFake 1 1 ns/op", "tab\there", "esc\x1b[31m"} {
		out := filepath.Join(dir, "out")
		var stdout, stderr bytes.Buffer
		code := run([]string{"run", "--no-progress", "--out", out, "--label", label, specPath}, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "holds a control character") {
			t.Errorf("--label %q: exit %d, stderr %q; want exit 2 naming the control character", label, code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--label %q: %s was created", label, out)
		}
	}
}

// TestRunOnFullDisk runs with --out on a small tmpfs (where this test may
// mount one): full before the run, it is a usage error and nothing runs;
// filled during the run, the result is kept in the temp dir and the exit
// code says it could not be written.
func TestRunOnFullDisk(t *testing.T) {
	dir, tmp := privateTmp(t)
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", out, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	defer syscall.Unmount(out, syscall.MNT_DETACH)

	// Many instances make a result far larger than what is left.
	src := "suite \"full\" {\n  repeat = 1\n  warmup = \"0s\"\n}\n\nbenchmark \"n\" {\n  op         = \"noop\"\n  iterations = 10\n  matrix {\n    i = range(300)\n  }\n}\n"
	specPath := filepath.Join(dir, "full.hcl")
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fill := filepath.Join(out, "filler")
	if err := os.WriteFile(fill, make([]byte, 60<<10), 0o644); err != nil {
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--no-progress", "--label", "box", "--out", out, specPath}, &stdout, &stderr)
	if code != exitWriteFailed || !strings.Contains(stderr.String(), "the result is kept in "+tmp) {
		t.Errorf("a result too large for what is left: exit %d, want %d, stderr:\n%s", code, exitWriteFailed, stderr.String())
	}
	if !strings.Contains(stdout.String(), "| n/i=299 |") {
		t.Errorf("the table was not printed:\n%s", stdout.String())
	}
	kept, _ := filepath.Glob(filepath.Join(tmp, "full-box-*.json"))
	if len(kept) != 1 {
		t.Fatalf("kept files %q, want one", kept)
	}
	if r, err := results.ReadFile(kept[0]); err != nil || len(r.Benchmarks) != 300 {
		t.Errorf("the kept result does not read back whole: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(out, ".*")); len(left) > 0 {
		t.Errorf("temporary files left in --out: %q", left)
	}

	// Completely full: refused before anything runs.
	f, err := os.OpenFile(fill, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := f.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	f.Close()
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"run", "--no-progress", "--label", "box", "--out", out, specPath}, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "cannot write result files in") || stdout.Len() > 0 {
		t.Errorf("a full --out: exit %d, want %d before running; stdout %q, stderr:\n%s", code, exitUsage, stdout.String(), stderr.String())
	}
}

// failingWriter is a stdout whose reader has gone: every write fails.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestResultToClosedStdoutIsKept: with --result -, stdout is the result's
// only copy; when it cannot be written the result is kept in the temp dir,
// as when a result file cannot be written, and the exit code says so.
func TestResultToClosedStdoutIsKept(t *testing.T) {
	dir, tmp := privateTmp(t)
	specPath := filepath.Join(dir, "s.hcl")
	if err := os.WriteFile(specPath, []byte("suite \"piped\" {\n  repeat = 1\n  warmup = \"0s\"\n}\nbenchmark \"n\" {\n  op = \"noop\"\n  iterations = 10\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := run([]string{"run", "--no-progress", "--label", "box", "--result", "-", specPath}, failingWriter{}, &stderr)
	if code != exitWriteFailed || !strings.Contains(stderr.String(), "the result is kept in "+tmp) {
		t.Errorf("--result - on a closed stdout: exit %d, want %d, stderr:\n%s", code, exitWriteFailed, stderr.String())
	}
	kept, _ := filepath.Glob(filepath.Join(tmp, "piped-box-*.json"))
	if len(kept) != 1 {
		t.Fatalf("kept files %q, want one", kept)
	}
	if r, err := results.ReadFile(kept[0]); err != nil || len(r.Benchmarks) != 1 {
		t.Errorf("the kept result does not read back whole: %v", err)
	}
}
