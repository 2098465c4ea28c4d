//go:build linux

// Command staticwork checks that the builtin static server's work per
// request costs what was asked: it calibrates servers.Static for each
// -work, serves requests to it in this process, and prints the median CPU
// time and wall time per request beside the work asked for. It exits 1 when
// the median CPU time is off the work by more than a factor of 2 either way.
// The work is calibrated on an idle core's CPU clock: run it on a quiet
// machine, where CPU and wall time agree.
//
//	go run ./bench/staticwork -requests 200 -work 500us,2ms,10ms
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/specrun/specrun/servers"
)

func main() {
	requests := flag.Int("requests", 200, "requests timed for each work")
	works := flag.String("work", "500us,2ms,10ms", "comma-separated CPU `times` per request")
	flag.Parse()
	failed := false
	fmt.Printf("%-8s %12s %12s %8s\n", "work", "CPU/req", "wall/req", "CPU/work")
	for _, w := range strings.Split(*works, ",") {
		work, err := time.ParseDuration(w)
		if err != nil || work <= 0 {
			fmt.Fprintf(os.Stderr, "staticwork: -work %q: want positive durations\n", w)
			os.Exit(2)
		}
		cpu, wall := measure(work, *requests)
		ratio := float64(cpu) / float64(work)
		mark := ""
		if ratio < 0.5 || ratio > 2 {
			mark, failed = "  out of bounds (0.5-2)", true
		}
		fmt.Printf("%-8v %12v %12v %8.2f%s\n", work, cpu.Round(time.Microsecond), wall.Round(time.Microsecond), ratio, mark)
	}
	if failed {
		os.Exit(1)
	}
}

// measure serves n requests on one locked thread and returns the median CPU
// time and wall time of one.
func measure(work time.Duration, n int) (cpu, wall time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h := (&servers.Static{BodySize: 10, Work: work}).Handler()
	cpus := make([]time.Duration, n)
	walls := make([]time.Duration, n)
	for i := range n {
		c0, w0 := threadCPU(), time.Now()
		h.ServeHTTP(discard{}, nil)
		cpus[i], walls[i] = threadCPU()-c0, time.Since(w0)
	}
	slices.Sort(cpus)
	slices.Sort(walls)
	return cpus[n/2], walls[n/2]
}

// threadCPU is the calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID),
// which, unlike getrusage, is finer than the scheduler's tick.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
