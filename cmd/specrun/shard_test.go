package main

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/specrun/specrun/results"
)

func TestShareOfAddsUpExactly(t *testing.T) {
	for _, total := range []int64{3, 10, 30, 1000, 1001, 99999} {
		for n := 1; n <= 7 && int64(n) <= total; n++ {
			var sum, lo, hi int64
			for i := range n {
				p := shareOf(total, i, n)
				sum += p
				if i == 0 || p < lo {
					lo = p
				}
				hi = max(hi, p)
			}
			if sum != total || hi-lo > 1 {
				t.Errorf("shares of %d over %d: sum %d, from %d to %d", total, n, sum, lo, hi)
			}
		}
	}
}

// TestShardsMergeExactly runs three shards of one spec as three specrun
// processes against one loopback server, started together, and merges
// them.
func TestShardsMergeExactly(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello"))
	}))
	defer ts.Close()
	dir := t.TempDir()
	specFile := filepath.Join(dir, "load.hcl")
	const requests = 301 // not a multiple of 3
	src := fmt.Sprintf(`suite "shards" {
  repeat = 2
}

benchmark "page" {
  op          = "http"
  url         = %q
  requests    = %d
  concurrency = 6
}

benchmark "sum" {
  op         = "noop"
  iterations = 1000
}

benchmark "everywhere" {
  op          = "noop"
  iterations  = 1000
  every_shard = true
}
`, ts.URL, requests)
	if err := os.WriteFile(specFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "specrun") // testscript.Main runs the CLI under this name
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	cmds := make([]*exec.Cmd, 3)
	outs := make([]bytes.Buffer, 3)
	for i := range cmds {
		cmds[i] = exec.Command(bin, "run", "--no-progress", "--shard", fmt.Sprintf("%d/3", i), "--start-at", start,
			"--label", fmt.Sprintf("gen%d", i), "--result", filepath.Join(dir, fmt.Sprintf("shard%d.json", i)), specFile)
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	shards := make([]*results.Result, 3)
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i].String())
		}
		if shards[i], err = results.ReadFile(filepath.Join(dir, fmt.Sprintf("shard%d.json", i))); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(shards[1].Benchmarks); n != 2 {
		t.Errorf("shard 1 ran %d benchmarks, want the http one and the every_shard one", n)
	}

	merged := filepath.Join(dir, "merged.json")
	var stdout, stderr bytes.Buffer
	args := []string{"merge", "--result", merged}
	for i := range shards {
		args = append(args, filepath.Join(dir, fmt.Sprintf("shard%d.json", i)))
	}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("merge exited %d: %s", code, stderr.String())
	}
	m, err := results.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Shards) != 3 || m.Shards[2].Label != "gen2" || m.Shards[2].Index != 2 {
		t.Errorf("merged result's shards = %+v", m.Shards)
	}
	var page *results.Benchmark
	for i := range m.Benchmarks {
		if m.Benchmarks[i].Benchmark == "page" {
			page = &m.Benchmarks[i]
		}
	}
	if page == nil || len(page.Runs) != 2 || len(m.Benchmarks) != 3 {
		t.Fatalf("merged benchmarks: %+v", m.Benchmarks)
	}
	for _, b := range m.Benchmarks {
		if want := map[string]int{"page": 2, "sum": 2, "everywhere": 6}[b.Benchmark]; len(b.Runs) != want {
			t.Errorf("merged %s has %d runs, want %d", b.Name, len(b.Runs), want)
		}
	}
	if c, _ := page.ParamNumber("concurrency"); c != 6 {
		t.Errorf("merged concurrency = %v, want 6", c)
	}
	for k, run := range page.Runs {
		if got := run.Metrics["requests"]; got != requests || run.Iterations != requests {
			t.Errorf("run %d: %v requests, %d iterations; want %d, the unsharded count", k+1, got, run.Iterations, requests)
		}
		// One histogram holding every shard's samples, recorded afresh.
		all := hdrhistogram.New(1, int64(time.Hour), 3)
		var lo, hi time.Time
		for i, s := range shards {
			r := s.Benchmarks[0].Runs[k]
			h, err := results.DecodeHistogram(r.Histograms["latency_ns"])
			if err != nil {
				t.Fatalf("shard %d: %v", i, err)
			}
			for _, bar := range h.Distribution() {
				if bar.Count > 0 {
					all.RecordValues(bar.From, bar.Count)
				}
			}
			end := r.StartedAt.Add(time.Duration(r.TotalNs))
			if i == 0 || r.StartedAt.Before(lo) {
				lo = *r.StartedAt
			}
			if end.After(hi) {
				hi = end
			}
		}
		if all.TotalCount() != requests {
			t.Errorf("run %d: the shards' histograms hold %d samples, want %d", k+1, all.TotalCount(), requests)
		}
		for q, name := range map[float64]string{50: "latency_p50_ns", 90: "latency_p90_ns", 99: "latency_p99_ns", 99.9: "latency_p999_ns"} {
			if want := float64(all.ValueAtQuantile(q)); run.Metrics[name] != want {
				t.Errorf("run %d: %s = %v, want %v from all samples", k+1, name, run.Metrics[name], want)
			}
		}
		window := hi.Sub(lo).Seconds()
		if want := requests / window; math.Abs(run.Metrics["requests_per_sec"]-want) > 1e-9*want {
			t.Errorf("run %d: requests_per_sec = %v, want %v over the common window of %v s", k+1, run.Metrics["requests_per_sec"], want, window)
		}
	}
	stdout.Reset()
	if code := run([]string{"check", merged}, &stdout, &stderr); code != 0 {
		t.Errorf("check on the merged result exited %d: %s", code, stderr.String())
	}
	if code := run([]string{"report", merged}, &stdout, &stderr); code != 0 {
		t.Errorf("report on the merged result exited %d: %s", code, stderr.String())
	}

	// Refusals: a missing index, a shard of another spec.
	refuse := func(want string, files ...string) {
		t.Helper()
		var out, errs bytes.Buffer
		code := run(append([]string{"merge", "--result", filepath.Join(dir, "bad.json")}, files...), &out, &errs)
		if code != exitUsage || !strings.Contains(errs.String(), want) {
			t.Errorf("merge %v: exit %d, %q; want exit 2 saying %q", files, code, errs.String(), want)
		}
	}
	shard := func(i int) string { return filepath.Join(dir, fmt.Sprintf("shard%d.json", i)) }
	refuse("shard 1 of 3 missing", shard(0), shard(2))
	other := *shards[1]
	other.Spec.SHA256 = strings.Repeat("0", 64)
	otherFile := filepath.Join(dir, "other.json")
	if err := results.WriteFile(otherFile, &other, false); err != nil {
		t.Fatal(err)
	}
	refuse("shards of different specs do not merge", shard(0), otherFile, shard(2))
	refuse("both shard 0/3", shard(0), shard(0), shard(2))

	// A pod's log: warnings on stderr around the JSON on stdout.
	data, err := os.ReadFile(shard(1))
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "pod1.log")
	data = append(append([]byte("specrun: warning: the machine is busy\n"), data...), "specrun: warning: after\n"...)
	if err := os.WriteFile(log, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"merge", "--result", filepath.Join(dir, "fromlogs.json"), shard(0), log, shard(2)}, &stdout, &stderr); code != 0 {
		t.Errorf("merge of a pod's log exited %d: %s", code, stderr.String())
	}
}

func TestShardFewerConnectionsThanShardsIsRefused(t *testing.T) {
	dir := t.TempDir()
	specFile := filepath.Join(dir, "small.hcl")
	src := "suite \"s\" {}\n\nbenchmark \"page\" {\n  op          = \"http\"\n  url         = \"http://127.0.0.1:1/\"\n  concurrency = 2\n}\n"
	if err := os.WriteFile(specFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--no-progress", "--shard", "0/3", "--out", dir, specFile}, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "concurrency = 2, fewer than the 3 shards") {
		t.Errorf("exit %d, %q", code, stderr.String())
	}
	for _, bad := range []string{"3/3", "1", "-1/2", "a/b", "0/0"} {
		code := run([]string{"run", "--shard", bad, specFile}, &stdout, &stderr)
		if code != exitUsage {
			t.Errorf("--shard %s: exit %d, want 2", bad, code)
		}
	}
}

// TestMergeSparesItsShards: a merged result is never written over a shard
// it reads, --force or not.
func TestMergeSparesItsShards(t *testing.T) {
	dir := t.TempDir()
	shard := filepath.Join(dir, "s0.json")
	const content = `{"schema":"specrun.results/v2"}`
	if err := os.WriteFile(shard, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"merge", "--force", "--result", shard, shard}, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "that is a shard merge reads") {
		t.Errorf("merge --result onto its shard: exit %d, stderr %q; want a usage error", code, stderr.String())
	}
	if data, _ := os.ReadFile(shard); string(data) != content {
		t.Errorf("the shard was replaced: %s", data)
	}
}
