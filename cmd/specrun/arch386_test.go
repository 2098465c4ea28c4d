//go:build linux && amd64

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The 386 build runs a tiny spec where the kernel can execute i386
// binaries (IA32 emulation); elsewhere the test says why it is skipped.
func Test386BuildRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds specrun for GOARCH=386; skipped with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "specrun-386")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOARCH=386", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("GOARCH=386 go build: %v\n%s", err, out)
	}
	if err := exec.Command(bin, "version").Run(); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && errors.Is(pe.Err, syscall.ENOEXEC) {
			t.Skip("this kernel cannot execute i386 binaries (no IA32 emulation): exec format error")
		}
		t.Fatalf("run the 386 build: %v", err)
	}
	spec := filepath.Join(dir, "tiny.hcl")
	os.WriteFile(spec, []byte("suite \"tiny\" {\n  repeat = 2\n}\n\nbenchmark \"null\" {\n  op         = \"noop\"\n  iterations = 1000\n}\n"), 0o644)
	out, err := exec.Command(bin, "run", "--out", dir, "--no-progress", spec).CombinedOutput()
	if err != nil {
		t.Fatalf("specrun-386 run: %v\n%s", err, out)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "tiny-*.json"))
	if len(matches) != 1 {
		t.Fatalf("specrun-386 wrote %d results, want 1:\n%s", len(matches), out)
	}
	b, _ := os.ReadFile(matches[0])
	if !strings.Contains(string(b), `"arch": "386"`) {
		t.Errorf("the 386 build's result does not record arch 386:\n%s", b)
	}
}
