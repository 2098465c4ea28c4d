package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := Write(path, []byte("new"), Options{}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, "new", 0o644)
	checkOnly(t, dir, "r.json")

	if err := Write(filepath.Join(dir, "x"), []byte("x"), Options{Mode: 0o600}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, filepath.Join(dir, "x"), "x", 0o600)
}

func TestWriteRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	put(t, path, "precious", 0o644)
	if err := os.Symlink("nowhere", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"r.json", "dangling"} {
		err := Write(filepath.Join(dir, name), []byte("new"), Options{})
		if !errors.Is(err, fs.ErrExist) {
			t.Errorf("Write over %s: err = %v, want fs.ErrExist", name, err)
		}
	}
	checkFile(t, path, "precious", 0o644)
	checkOnly(t, dir, "dangling", "r.json")
}

func TestWriteOverwrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "spec.hcl")
	put(t, path, "old", 0o640)
	if err := Write(path, []byte("new"), Options{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, "new", 0o644)
	if err := Write(path, []byte("newer"), Options{Overwrite: true, KeepMode: true, Mode: 0o600}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, "newer", 0o644)
	checkOnly(t, dir, "spec.hcl")
}

// TestWriteKeepsLinks rewrites a file through a symlink and through one of
// its hard links: the links stay links, every name sees the new content,
// and the mode is kept.
func TestWriteKeepsLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "shared", "real.hcl")
	if err := os.Mkdir(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	put(t, real, "old", 0o600)
	link := filepath.Join(dir, "link.hcl")
	if err := os.Symlink(filepath.Join("shared", "real.hcl"), link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.hcl")
	if err := os.Link(real, hard); err != nil {
		t.Fatal(err)
	}

	if err := Write(link, []byte("via symlink"), Options{Overwrite: true, KeepMode: true}); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link.hcl is no longer a symlink (%v, %v)", info, err)
	}
	for _, p := range []string{real, hard, link} {
		checkFile(t, p, "via symlink", 0o600)
	}

	if err := Write(hard, []byte("via hard link"), Options{Overwrite: true, KeepMode: true}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{real, hard, link} {
		checkFile(t, p, "via hard link", 0o600)
	}
	checkOnly(t, dir, "hard.hcl", "link.hcl", "shared")
	checkOnly(t, filepath.Dir(real), "real.hcl")
}

func TestWriteFailureLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{}, {Overwrite: true}} {
		if err := Write(filepath.Join(dir, "taken"), []byte("x"), o); err == nil {
			t.Errorf("Write %+v onto a directory succeeded", o)
		}
	}
	if err := Write(filepath.Join(dir, "nosuchdir", "f"), []byte("x"), Options{}); err == nil {
		t.Error("Write into a missing directory succeeded")
	}
	checkOnly(t, dir, "taken")
}

// TestWriteLongName writes a file whose name is near the usual 255-byte
// limit: the temporary file's name must not be the one that is too long.
func TestWriteLongName(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("n", 250) + ".json"
	if err := Write(filepath.Join(dir, name), []byte("x"), Options{}); err != nil {
		t.Fatal(err)
	}
	checkOnly(t, dir, name)
}

func TestProbe(t *testing.T) {
	dir := t.TempDir()
	if err := Probe(dir); err != nil {
		t.Fatal(err)
	}
	checkOnly(t, dir)
	if err := Probe(filepath.Join(dir, "missing")); err == nil {
		t.Error("Probe of a missing directory succeeded")
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := Probe(ro); err == nil {
			t.Error("Probe of a read-only directory succeeded")
		}
	}
}

func put(t *testing.T, path, data string, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func checkFile(t *testing.T, path, want string, mode fs.FileMode) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != want {
		t.Errorf("%s holds %q, want %q", path, data, want)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != mode {
		t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), mode)
	}
}

func checkOnly(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s holds %q, want %q", dir, got, want)
	}
}
