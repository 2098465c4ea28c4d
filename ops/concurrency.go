package ops

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

func init() {
	Register(&Def{
		Name: "goroutine",
		Doc: "One iteration starts a goroutine that increments a counter and signals a WaitGroup, " +
			"and waits for it: spawn, schedule, run, exit, join.",
		Classic: "pthread create/join (Go's lightweight analog)",
		New:     stateless(runGoroutine),
	})
	Register(&Def{
		Name: "thread",
		Doc: "One iteration starts a goroutine that locks itself to its OS thread and exits still " +
			"locked, so the runtime terminates that thread; the waiting goroutine then runs on another " +
			"thread, which the runtime creates (clone(2)) once no idle one is left. In steady state: " +
			"one OS thread created and one ended per iteration, joined by a WaitGroup. (Should an " +
			"iteration land on the process's main thread, Go parks that thread for good instead.)",
		Classic: "pthread create/join",
		New:     stateless(runThread),
	})
	Register(&Def{
		Name: "chan.pingpong",
		Doc: "One iteration is a round trip over unbuffered channels: send a value to a partner " +
			"goroutine (started once per run) and receive its reply; two goroutine handoffs.",
		Classic: "inter-thread message round trip (no row of its own)",
		New:     stateless(runChanPingPong),
	})
	Register(&Def{
		Name:    "mutex",
		Doc:     "One iteration locks and unlocks an uncontended sync.Mutex around an increment.",
		Classic: "pthread mutex lock/unlock (no row of its own)",
		New:     stateless(runMutex),
	})
	Register(&Def{
		Name:    "atomic.add",
		Doc:     "One iteration is one atomic add (LOCK XADD on amd64) to an uncontended int64.",
		Classic: "OSAtomicAdd (no row of its own)",
		New:     stateless(runAtomicAdd),
	})
	Register(&Def{
		Name: "timer.zero",
		Doc: "One iteration arms a zero-delay timer (time.AfterFunc(0, f)) whose callback, run on " +
			"its own goroutine, signals a channel that the iteration waits on.",
		Classic: "Zero-second delayed perform",
		New:     stateless(runTimerZero),
	})
}

// sinkCounter is only ever updated atomically: goroutines of several
// iterations may touch it.
var sinkCounter int64

func runGoroutine(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	var wg sync.WaitGroup
	for i := int64(0); i < n; i++ {
		// Checking every 256 iterations keeps the select out of the figure.
		if i&255 == 0 && stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		wg.Add(1)
		go func() {
			atomic.AddInt64(&sinkCounter, 1)
			wg.Done()
		}()
		wg.Wait()
	}
	return Sample{}, nil
}

// onThread, when set by a test, runs on each thread that the thread op
// is about to end, so the test can record which threads those were.
var onThread func()

func runThread(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	var wg sync.WaitGroup
	for i := int64(0); i < n; i++ {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Exiting without UnlockOSThread makes the runtime end the thread.
			runtime.LockOSThread()
			if onThread != nil {
				onThread()
			}
		}()
		wg.Wait()
	}
	return Sample{}, nil
}

func runChanPingPong(ctx context.Context, n int64) (Sample, error) {
	ping, pong := make(chan int64), make(chan int64)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
	}()
	defer close(ping)
	done := ctx.Done()
	var acc int64
	for i := int64(0); i < n; i++ {
		if i&255 == 0 && stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		ping <- i
		acc += <-pong
	}
	sinkInt = acc
	return Sample{}, nil
}

var (
	mu           sync.Mutex
	mutexCounter int64 // guarded by mu
)

func runMutex(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			mu.Lock()
			mutexCounter++
			mu.Unlock()
		}
	}
	return Sample{}, nil
}

func runAtomicAdd(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			atomic.AddInt64(&sinkCounter, 1)
		}
	}
	return Sample{}, nil
}

func runTimerZero(ctx context.Context, n int64) (Sample, error) {
	fired := make(chan struct{})
	signal := func() { fired <- struct{}{} }
	done := ctx.Done()
	for i := int64(0); i < n; i++ {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		time.AfterFunc(0, signal)
		<-fired
	}
	return Sample{}, nil
}
