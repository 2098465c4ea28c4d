package ops

import (
	"context"
	"os"
	"testing"

	"github.com/specrun/specrun/param"
)

func TestClockGettimeClocks(t *testing.T) {
	for _, clock := range []string{"monotonic", "realtime", "process"} {
		if _, err := prepare(t, "clock.gettime", param.Values{"clock": clock}).Run(context.Background(), 10); err != nil {
			t.Errorf("%s: %v", clock, err)
		}
	}
	if _, err := newOp("clock.gettime", param.Values{"clock": "sundial"}, nil); err == nil {
		t.Error("clock sundial: no error")
	}
}

func TestGetpidEntersTheKernelForThePID(t *testing.T) {
	const n = 10
	if _, err := prepare(t, "syscall.getpid", nil).Run(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	if want := int64(n * os.Getpid()); sinkInt != want {
		t.Errorf("sum of pids = %d, want %d", sinkInt, want)
	}
}
