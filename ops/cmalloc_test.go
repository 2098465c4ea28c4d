//go:build cgo && specrun_cmalloc

package ops

import (
	"context"
	"testing"

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
