//go:build linux

package ops

import (
	"context"
	"fmt"
	"syscall"
	"time"
	"unsafe"

	"github.com/specrun/specrun/param"
)

// The clock ops mirror the C calls of the timer write-up. On linux/amd64,
// glibc's time(), gettimeofday() and clock_gettime() for the real-time and
// monotonic clocks go through the vDSO (no kernel entry); getpid() enters
// the kernel (glibc stopped caching the pid in 2.25). Each op says which
// path it takes.

// clockIDs maps the clock parameter to clock_gettime clock ids.
var clockIDs = map[string]uintptr{
	"monotonic": 1, // CLOCK_MONOTONIC
	"realtime":  0, // CLOCK_REALTIME
	"process":   2, // CLOCK_PROCESS_CPUTIME_ID
}

func init() {
	Register(&Def{
		Name: "syscall.getpid",
		Doc: "One iteration is one getpid(2) system call through syscall.Getpid, a raw SYSCALL " +
			"instruction with no caching: the cheapest real kernel entry and exit.",
		Classic: "getpid()",
		New:     stateless(runGetpid),
	})
	Register(&Def{
		Name: "clock.time",
		Doc: "One iteration is one syscall.Time call: Go's time(2), which on linux/amd64 calls the " +
			"vDSO's gettimeofday and truncates the result to seconds. That is a full clock read, " +
			"several times dearer than glibc's time(), which returns a seconds value the kernel keeps " +
			"(c.time, in a libc build, times that call). On other architectures it may be a real " +
			"system call.",
		Classic: "time() as Go calls it (gettimeofday truncated to seconds, not libc's cached time(); see c.time)",
		New:     stateless(runTime),
	})
	Register(&Def{
		Name: "clock.gettimeofday",
		Doc: "One iteration is one syscall.Gettimeofday call, which on linux/amd64 calls the vDSO " +
			"(no kernel entry), as glibc's gettimeofday() does.",
		Classic: "gettimeofday()",
		New:     stateless(runGettimeofday),
	})
	Register(&Def{
		Name: "clock.gettime",
		Doc: "One iteration is one clock_gettime(2) system call for the chosen clock, made with a raw " +
			"SYSCALL instruction: it always enters the kernel, unlike glibc, which serves the " +
			"monotonic and real-time clocks from the vDSO (time.now is that path). The process " +
			"CPU clock has no vDSO path, so for it this is what C pays too.",
		Classic: "clock_gettime()",
		Params: []param.Param{{
			Name: "clock", Type: param.String, Default: "monotonic",
			Enum: []string{"monotonic", "realtime", "process"},
			Doc:  "CLOCK_MONOTONIC, CLOCK_REALTIME or CLOCK_PROCESS_CPUTIME_ID",
		}},
		New: newClockGettime,
	})
	Register(&Def{
		Name: "time.now",
		Doc: "One iteration is one time.Now call: Go reads the real-time and monotonic clocks " +
			"through the vDSO's clock_gettime, with no kernel entry.",
		Classic: "clock_gettime() through the vDSO",
		New:     stateless(runTimeNow),
	})
}

func runGetpid(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			acc += int64(syscall.Getpid())
		}
	}
	sinkInt = acc
	return Sample{}, nil
}

func runTime(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			t, err := syscall.Time(nil)
			if err != nil {
				return Sample{N: i}, fmt.Errorf("call time: %w", err)
			}
			acc += int64(t)
		}
	}
	sinkInt = acc
	return Sample{}, nil
}

func runGettimeofday(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	var tv syscall.Timeval
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			if err := syscall.Gettimeofday(&tv); err != nil {
				return Sample{N: i}, fmt.Errorf("call gettimeofday: %w", err)
			}
			acc += int64(tv.Usec)
		}
	}
	sinkInt = acc
	return Sample{}, nil
}

func newClockGettime(p param.Values, _ Env) (Op, error) {
	name := p.String("clock")
	id, ok := clockIDs[name]
	if !ok {
		return nil, fmt.Errorf("clock.gettime: unknown clock %q (want monotonic, realtime or process)", name)
	}
	return Func(func(ctx context.Context, n int64) (Sample, error) {
		return runClockGettime(ctx, id, n)
	}), nil
}

func runClockGettime(ctx context.Context, id uintptr, n int64) (Sample, error) {
	done := ctx.Done()
	var ts syscall.Timespec
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			// RawSyscall, not Syscall: like C, no scheduler hand-off around a call that never blocks.
			if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, id, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
				return Sample{N: i}, fmt.Errorf("call clock_gettime: %w", e)
			}
			acc += int64(ts.Nsec)
		}
	}
	sinkInt = acc
	return Sample{}, nil
}

func runTimeNow(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			acc += int64(time.Now().Nanosecond())
		}
	}
	sinkInt = acc
	return Sample{}, nil
}
