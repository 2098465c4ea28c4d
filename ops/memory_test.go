package ops

import (
	"context"
	"errors"
	"math"
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

// machineOf makes the machine's memory total and available for one test.
func machineOf(t *testing.T, total, available int64) {
	t.Helper()
	oldTotal, oldAvailable := machineTotal, machineAvailable
	machineTotal = func() (int64, string, error) { return total, "of memory this machine has", nil }
	machineAvailable = func() (int64, string, error) { return available, "of memory available now", nil }
	t.Cleanup(func() { machineTotal, machineAvailable = oldTotal, oldAvailable })
}

func TestSizedOpsDeclareWhatTheyAllocate(t *testing.T) {
	for _, tc := range []struct {
		op   string
		size int64
		want int64
	}{
		{"memcpy", 1 << 20, 2 << 20},
		{"alloc", 1 << 20, 2 << 20},
		{"file.read", 1 << 20, 1 << 20},
		{"file.write", 1 << 20, 1 << 20},
		{"memcpy", math.MaxInt64/2 + 1, math.MaxInt64},
		{"memcpy", math.MaxInt64, math.MaxInt64},
	} {
		def, _ := Lookup(tc.op)
		if def.Memory == nil {
			t.Fatalf("%s declares no Memory", tc.op)
		}
		fp := def.Memory(param.Values{"size": tc.size})
		if fp.Bytes != tc.want || fp.Param != "size" {
			t.Errorf("%s size=%d: footprint %+v, want %d bytes from size", tc.op, tc.size, fp, tc.want)
		}
	}
}

func TestATooLargeSizeIsRefusedBeforeItIsAllocated(t *testing.T) {
	machineOf(t, 64<<20, 8<<20)
	def, _ := Lookup("memcpy")
	// The plan refuses what cannot fit in the machine at all.
	errs := def.Validate(param.Values{"size": int64(40 << 20)})
	if len(errs) != 1 || errs[0].Param != "size" || !strings.Contains(errs[0].Err.Error(), "80 MB (two buffers of size bytes), more than the 64 MB") {
		t.Errorf("Validate of 2x40MB on 64MB: %v", errs)
	}
	if errs := def.Validate(param.Values{"size": int64(16 << 20)}); len(errs) != 0 {
		t.Errorf("Validate of 2x16MB on 64MB: %v", errs)
	}
	// New refuses what does not fit in what is available now.
	for _, name := range []string{"memcpy", "alloc", "file.read", "file.write"} {
		_, err := newOp(name, param.Values{"size": int64(16 << 20)}, catalogEnv{dir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "available now") {
			t.Errorf("%s of 16MB with 8MB available: err = %v", name, err)
		}
	}
	if _, err := newOp("memcpy", param.Values{"size": int64(1 << 20)}, nil); err != nil {
		t.Errorf("memcpy of 1MB with 8MB available: %v", err)
	}
}

func TestAMachineWhoseMemoryCannotBeReadRefusesNothing(t *testing.T) {
	old := machineTotal
	machineTotal = func() (int64, string, error) { return 0, "", errors.New("no /proc") }
	defer func() { machineTotal = old }()
	def, _ := Lookup("memcpy")
	if errs := def.Validate(param.Values{"size": int64(math.MaxInt64)}); len(errs) != 0 {
		t.Errorf("Validate: %v", errs)
	}
}
