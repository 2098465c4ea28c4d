//go:build cgo && (specrun_libc || specrun_cmalloc)

package ops

import (
	"context"
	"testing"
	"time"

	"github.com/specrun/specrun/param"
)

func TestCMalloc(t *testing.T) {
	for _, size := range []int64{16, 16 << 20} {
		if _, err := prepare(t, "c.malloc", param.Values{"size": size}).Run(context.Background(), 10); err != nil {
			t.Errorf("size %d: %v", size, err)
		}
	}
	if _, err := newOp("c.malloc", param.Values{"size": int64(0)}, nil); err == nil {
		t.Error("size 0: no error")
	}
}

func TestCTimeSumsTheSeconds(t *testing.T) {
	before := time.Now().Unix()
	if _, err := prepare(t, "c.time", nil).Run(context.Background(), 10); err != nil {
		t.Fatal(err)
	}
	if after := time.Now().Unix(); sinkInt < 10*before || sinkInt > 10*after {
		t.Errorf("sum of 10 time() calls = %d, want between %d and %d", sinkInt, 10*before, 10*after)
	}
}
