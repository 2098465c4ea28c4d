package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lastStage is a Dockerfile's last stage (from its last FROM), its
// comments and blank lines dropped.
func lastStage(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stage []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "FROM "):
			stage = []string{line}
		default:
			stage = append(stage, line)
		}
	}
	return stage
}

// TestPrebuiltDockerfileMatches: the prebuilt Dockerfile makes the image
// the repository's Dockerfile makes, but for where the binary comes from.
func TestPrebuiltDockerfileMatches(t *testing.T) {
	want := lastStage(t, "../Dockerfile")
	got := lastStage(t, "Dockerfile.prebuilt")
	for i, line := range want {
		if strings.HasPrefix(line, "COPY --from=build ") {
			want[i] = "COPY specrun /specrun"
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Dockerfile.prebuilt's stage:\n%s\nthe Dockerfile's last stage:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if want[0] != "FROM scratch" {
		t.Errorf("the image is %q, want FROM scratch", want[0])
	}
}

// TestImageRunsASpec builds the image where a docker daemon answers (from
// a static binary: the golang image needs a registry) and runs a spec in
// it, the result on stdout as the Job's pods write it. Without a daemon it
// says so and skips.
func TestImageRunsASpec(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image")
	}
	docker, err := exec.LookPath("docker")
	if err != nil {
		t.Skip("no docker")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, docker, "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		t.Skipf("no docker daemon answers: %v: %s", err, firstLine(out))
	}
	dir := t.TempDir()
	build := exec.CommandContext(ctx, "go", "build", "-C", "..", "-o", filepath.Join(dir, "specrun"), "./cmd/specrun")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tag := fmt.Sprintf("specrun-test:%d", os.Getpid())
	if out, err := exec.CommandContext(ctx, docker, "build", "-q", "-f", "Dockerfile.prebuilt", "-t", tag, dir).CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
	defer exec.Command(docker, "rmi", "-f", tag).Run()

	specs := t.TempDir()
	spec := "benchmark \"noop\" {\n  op         = \"noop\"\n  iterations = 1000\n  repeat     = 2\n}\n"
	if err := os.WriteFile(filepath.Join(specs, "tiny.hcl"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.CommandContext(ctx, docker, "run", "--rm", "--network", "none", "-v", specs+":/spec:ro",
		tag, "run", "--no-progress", "--label", "pod", "--result", "-", "/spec/tiny.hcl")
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("docker run: %v\n%s", err, stderr.String())
	}
	var r struct {
		Schema     string `json:"schema"`
		Label      string `json:"label"`
		Benchmarks []struct {
			Name string            `json:"name"`
			Runs []json.RawMessage `json:"runs"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("the pod's stdout is not a result: %v\n%.300s", err, stdout.String())
	}
	if !strings.HasPrefix(r.Schema, "specrun.results/") || r.Label != "pod" || len(r.Benchmarks) != 1 || len(r.Benchmarks[0].Runs) != 2 {
		t.Errorf("result: schema %q, label %q, benchmarks %+v; want one benchmark with 2 runs, label pod", r.Schema, r.Label, r.Benchmarks)
	}
	out, err := exec.CommandContext(ctx, docker, "image", "inspect", "--format", "{{.Size}}", tag).Output()
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	fmt.Sscan(string(out), &size)
	if size <= 0 || size > 64<<20 {
		t.Errorf("image is %d bytes, want a small static image (under 64 MiB)", size)
	}
	t.Logf("image %s: %.1f MiB", tag, float64(size)/(1<<20))
}
