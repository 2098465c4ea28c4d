package ops

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestThreadCreatesAndEndsThreads records the OS thread each iteration
// ends, then checks in /proc that they were all distinct threads of this
// process and that none of them lives on.
func TestThreadCreatesAndEndsThreads(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc/self/task")
	}
	var (
		mu   sync.Mutex
		tids []int
	)
	onThread = func() {
		tid := syscall.Gettid()
		if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid)); err != nil {
			t.Errorf("thread %d is not in /proc/self/task: %v", tid, err)
		}
		mu.Lock()
		tids = append(tids, tid)
		mu.Unlock()
	}
	defer func() { onThread = nil }()

	before := map[int]bool{}
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		tid, _ := strconv.Atoi(e.Name())
		before[tid] = true
	}

	const n = 20
	if _, err := prepare(t, "thread", nil).Run(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	// Each ended thread is gone for good, so beyond the threads that
	// existed before, every iteration must have run on a new one.
	created := 0
	for _, tid := range tids {
		if !before[tid] {
			created++
		}
	}
	if created < n-len(before) {
		t.Errorf("only %d of %d iterations ran on threads created during the run (%d existed before)", created, n, len(before))
	}
	seen := map[int]bool{}
	for _, tid := range tids {
		seen[tid] = true
	}
	if len(tids) != n || len(seen) != n {
		t.Fatalf("%d iterations ran on %d distinct threads, want %d on %d", len(tids), len(seen), n, n)
	}
	// A thread's exit follows its goroutine's by a little; give it time.
	deadline := time.Now().Add(5 * time.Second)
	for _, tid := range tids {
		if tid == os.Getpid() {
			continue // the main thread: Go parks it for good rather than end it
		}
		for {
			_, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid))
			if errors.Is(err, os.ErrNotExist) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("thread %d still exists after the op returned", tid)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

func TestLongOpsStopWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"goroutine", "thread", "chan.pingpong", "timer.zero", "file.read", "file.write", "process.spawn"} {
		s, err := prepare(t, name, nil).Run(ctx, 1<<40)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
		if s.N != 0 {
			t.Errorf("%s: did %d iterations after cancellation, want 0", name, s.N)
		}
	}
}
