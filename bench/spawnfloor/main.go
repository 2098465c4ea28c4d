// Command spawnfloor times a command the plainest way Go can: a loop of
// syscall.ForkExec and wait4, with nothing else around it. bench/exec.sh
// runs it beside hyperfine and specrun's exec op, so that the spread Go's
// own process start-up brings is told apart from what specrun adds.
//
//	go run ./bench/spawnfloor -runs 200 /bin/true
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	runs := flag.Int("runs", 200, "executions to time")
	warmup := flag.Int("warmup", 50, "untimed executions first")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: spawnfloor [-runs N] [-warmup N] COMMAND [ARGS...]")
		os.Exit(2)
	}
	path, err := exec.LookPath(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "spawnfloor:", err)
		os.Exit(1)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "spawnfloor:", err)
		os.Exit(1)
	}
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{null.Fd(), null.Fd(), null.Fd()}}
	once := func() time.Duration {
		start := time.Now()
		pid, err := syscall.ForkExec(path, flag.Args(), attr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "spawnfloor:", err)
			os.Exit(1)
		}
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		return time.Since(start)
	}
	for range *warmup {
		once()
	}
	walls := make([]float64, *runs)
	for i := range walls {
		walls[i] = float64(once().Nanoseconds())
	}
	var sum, sq float64
	for _, w := range walls {
		sum += w
	}
	mean := sum / float64(len(walls))
	for _, w := range walls {
		sq += (w - mean) * (w - mean)
	}
	// The same two figures hyperfine reports, in microseconds.
	fmt.Printf("%.1f %.1f\n", mean/1e3, math.Sqrt(sq/float64(len(walls)-1))/1e3)
}
