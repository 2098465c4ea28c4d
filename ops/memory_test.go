package ops

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/specrun/specrun/param"
)

func TestSizedOpsRejectNonPositiveSize(t *testing.T) {
	for _, name := range []string{"memcpy", "alloc", "file.read", "file.write"} {
		for _, size := range []int64{0, -1} {
			_, err := newOp(name, param.Values{"size": size}, catalogEnv{dir: t.TempDir()})
			if err == nil || !strings.Contains(err.Error(), "size must be positive") {
				t.Errorf("%s size=%d: err = %v, want a size error", name, size, err)
			}
		}
	}
}

func TestMemcpyCopiesSize(t *testing.T) {
	sinkBytes = nil
	if _, err := prepare(t, "memcpy", param.Values{"size": int64(1 << 20)}).Run(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	last := 1<<20 - 1
	if len(sinkBytes) != 1<<20 || sinkBytes[last] != byte(last) {
		t.Errorf("destination holds %d bytes, last %d: the copy did not happen", len(sinkBytes), sinkBytes[len(sinkBytes)-1])
	}
}

func TestAllocReportsGC(t *testing.T) {
	// After a collection the heap goal is about twice the live heap (small
	// here), so 256 MiB in 1 MiB pieces must set the collector off inside
	// the op, and the op must say so.
	runtime.GC()
	s, err := prepare(t, "alloc", param.Values{"size": int64(1 << 20)}).Run(context.Background(), 256)
	if err != nil {
		t.Fatal(err)
	}
	if s.Metrics["gc_cycles"] < 1 {
		t.Errorf("gc_cycles = %v after allocating 256 MiB, want at least 1", s.Metrics["gc_cycles"])
	}
	if len(sinkBytes) != 1<<20 {
		t.Errorf("last allocation is %d bytes, want 1 MiB", len(sinkBytes))
	}
}
