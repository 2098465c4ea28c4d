package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptedLaunchesLeaveNothing interrupts runs whose benchmarks are
// spread over launches while a launch's exec op runs a command (a
// grandchild of specrun). After one SIGINT the result holds what finished
// and is marked interrupted; a second SIGINT, sent while the parent waits
// for its launch to stop, quits at once. Either way no launch, no command
// it started and no file of the launches is left.
func TestInterruptedLaunchesLeaveNothing(t *testing.T) {
	const suite = `
suite "launched" {
  repeat = 2
  warmup = "0s"
}

benchmark "quick" {
  op         = "noop"
  iterations = 1000
  launches   = 2
}
`
	for _, c := range []struct {
		name     string
		src      string
		wait     []string
		signals  int
		stderrOf string
	}{
		{"once", suite + `
benchmark "sleep" {
  op         = "exec"
  command    = ["sleep", "31"]
  iterations = 1
  launches   = 2
}
`, []string{"31"}, 1, "stopping after writing what finished"},
		{"twice", suite + `
benchmark "sleep" {
  op         = "exec"
  command    = ["sleep", "32"]
  iterations = 1
  launches   = 2
}
`, []string{"32"}, 2, "again: quitting"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startSpecrun(t, c.src)
			p.waitFor(t, "specrun", launchCommand)
			p.waitFor(t, "sleep", c.wait...)
			time.Sleep(200 * time.Millisecond)
			p.record()
			p.signal(t, syscall.SIGINT)
			if c.signals == 2 {
				time.Sleep(20 * time.Millisecond) // while the parent waits for its launch to stop
				p.cmd.Process.Signal(syscall.SIGINT)
			}
			code := p.wait(t, 20*time.Second)
			stderr := p.stderr.String()
			if c.signals == 2 && !strings.Contains(stderr, c.stderrOf) && strings.Contains(stderr, "specrun: wrote") {
				// The first signal had ended the run when the second came:
				// it wrote what finished, and the second may have found
				// the signal handler gone.
				c.stderrOf = "stopping"
				if code == -1 {
					code = exitSIGINT
				}
			}
			if code != exitSIGINT {
				t.Errorf("exit status %d, want %d\nstderr:\n%s", code, exitSIGINT, stderr)
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") || !strings.Contains(stderr, c.stderrOf) {
				t.Errorf("stderr shows a Go panic, or not %q:\n%s", c.stderrOf, stderr)
			}
			if c.signals == 1 {
				r := p.result(t)
				if !r.Interrupted {
					t.Error("result not marked interrupted")
				}
				for _, b := range r.Benchmarks {
					if b.Name == "quick" && (len(b.Runs) != 1 || b.Runs[0].Launch != 1) {
						t.Errorf("quick: %d runs %+v; want launch 1's one run", len(b.Runs), b.Runs)
					}
				}
			}
			if left, _ := os.ReadDir(p.tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %v", left)
			}
			p.checkNoOrphans(t)
		})
	}
}
