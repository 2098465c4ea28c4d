package ops

import (
	"context"
	"strings"
	"testing"

	"github.com/specrun/specrun/param"
)

func TestProcessSpawnReportsChildUsage(t *testing.T) {
	// sh runs a loop long enough to be charged CPU time.
	op := prepare(t, "process.spawn", param.Values{"command": []string{"sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"}})
	s, err := op.Run(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if s.Metrics["cpu_ns"] <= 0 || s.Metrics["cpu_ns"] != s.Metrics["user_ns"]+s.Metrics["sys_ns"] {
		t.Errorf("cpu_ns = %v, user_ns = %v, sys_ns = %v: want a positive sum", s.Metrics["cpu_ns"], s.Metrics["user_ns"], s.Metrics["sys_ns"])
	}
	if s.Metrics["max_rss_bytes"] < 100<<10 {
		t.Errorf("max_rss_bytes = %v, want a plausible resident set", s.Metrics["max_rss_bytes"])
	}
}

func TestProcessSpawnFailures(t *testing.T) {
	if _, err := newOp("process.spawn", param.Values{"command": []string{"specrun-no-such-program"}}, nil); err == nil ||
		!strings.Contains(err.Error(), "find command") {
		t.Errorf("missing program: err = %v, want a find error", err)
	}
	if _, err := newOp("process.spawn", param.Values{"command": []string{}}, nil); err == nil {
		t.Error("empty command: no error")
	}
	op := prepare(t, "process.spawn", param.Values{"command": []string{"false"}})
	if _, err := op.Run(context.Background(), 1); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Errorf("false: err = %v, want exit status 1", err)
	}
}
