package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/runner"
	"github.com/specrun/specrun/spec"
)

// TestLaunchKeepsTheShard checks that a launch of `run --shard I/N` runs
// its http phases with the shard's part of the load, as the parent would,
// and refuses a spec that changed since the parent loaded it.
func TestLaunchKeepsTheShard(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.hcl")
	src := `suite "s" {
  repeat = 2
  warmup = "0s"
}
benchmark "h" {
  op          = "http"
  url         = "http://127.0.0.1:9/"
  concurrency = 4
  requests    = 4
  launches    = 2
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, diags := spec.Load([]string{path}, spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	order := launchOrder{Paths: []string{path}, SHA256: plan.SHA256, Scale: 1, Shard: "1/2",
		Launch: runner.Launch{Index: 1, Count: 2, Runs: map[string]int{"h": 1}}, Result: filepath.Join(dir, "r.json")}
	orderFile := filepath.Join(dir, "order.json")
	write := func() {
		data, _ := json.Marshal(order)
		if err := os.WriteFile(orderFile, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write()
	if code := launchCmd([]string{orderFile}, io.Discard); code != exitOK {
		t.Fatalf("launch exited %d", code)
	}
	r, err := results.ReadFile(order.Result)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Benchmarks) != 1 {
		t.Fatalf("%d benchmarks, want h", len(r.Benchmarks))
	}
	if c, _ := r.Benchmarks[0].ParamNumber("concurrency"); c != 2 {
		t.Errorf("shard 1/2 of concurrency 4 ran %v connections, want 2", c)
	}

	order.SHA256, order.Result = "0123", filepath.Join(dir, "r2.json")
	write()
	var stderr strings.Builder
	if code := launchCmd([]string{orderFile}, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "the spec changed on disk") {
		t.Errorf("a changed spec: exit %d, %q", code, stderr.String())
	}
}
