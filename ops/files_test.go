package ops

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specrun/specrun/param"
)

func TestFileOpsRemoveTheirTempDirs(t *testing.T) {
	for _, name := range []string{"file.read", "file.write"} {
		parent := t.TempDir()
		op, err := newOp(name, nil, catalogEnv{dir: parent})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Run(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Errorf("%s: %d entries in the run's temp dir while prepared, want its own dir", name, len(entries))
		}
		if err := op.(interface{ Close() error }).Close(); err != nil {
			t.Fatal(err)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 0 {
			t.Errorf("%s: left %v in the run's temp dir", name, entries)
		}
	}
}

func TestFileOpsInAGivenDirLeaveTheDir(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, atomic := range []bool{false, true} {
		// fsync along with atomic: both paths of each flag run once.
		op, err := newOp("file.write", param.Values{"dir": dir, "atomic": atomic, "fsync": atomic, "size": int64(100)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Run(context.Background(), 3); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "specrun-file.dat"))
		if err != nil || !bytes.Equal(got, filled(100)) {
			t.Errorf("atomic=%v: target holds %q, %v; want the 100 bytes written", atomic, got, err)
		}
		if err := op.(interface{ Close() error }).Close(); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 || entries[0].Name() != "keep.txt" {
			t.Errorf("atomic=%v: dir holds %v after Close, want only keep.txt", atomic, entries)
		}
	}
}

func TestFileOpsRejectBadDirs(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{filepath.Join(t.TempDir(), "missing"), "no such file or directory"},
		{notDir, "not a directory"},
	} {
		for _, name := range []string{"file.read", "file.write"} {
			_, err := newOp(name, param.Values{"dir": tc.dir, "size": int64(16 << 20)}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s dir=%s: err = %v, want %q", name, tc.dir, err, tc.want)
			}
		}
	}
}

func TestFileOpsRejectUnwritableDir(t *testing.T) {
	// A read-only directory stops everyone but root; /proc stops root too.
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		if _, err := os.Stat("/proc/self"); err != nil {
			t.Skip("root, and no /proc to fail to write into")
		}
		dir = "/proc"
	} else {
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o700)
	}
	for _, name := range []string{"file.read", "file.write"} {
		_, err := newOp(name, param.Values{"dir": dir, "size": int64(16 << 20)}, nil)
		if err == nil {
			t.Errorf("%s in %s: no error", name, dir)
		}
	}
}

func TestFileNamesCannotEscapeDir(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "inner")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../escape", "a/../../escape", "/etc/passwd", "..", ".", "", "sub/file"} {
		for _, op := range []string{"file.read", "file.write"} {
			_, err := newOp(op, param.Values{"dir": dir, "name": name}, nil)
			if err == nil || !strings.Contains(err.Error(), "must be a single file name") {
				t.Errorf("%s name=%q: err = %v, want a name error", op, name, err)
			}
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("parent holds %v, want only inner", entries)
	}
}

func TestFileReadReadsTheFile(t *testing.T) {
	sinkBytes = nil
	if _, err := prepare(t, "file.read", param.Values{"size": int64(5000)}).Run(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sinkBytes, filled(5000)) {
		t.Error("the buffer does not hold the file's contents")
	}
}

func TestAtomicWriteRefusesAPlantedTemp(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ".specrun-file.dat.tmp")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if _, err := newOp("file.write", param.Values{"dir": dir, "atomic": true}, nil); err == nil ||
		!strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("err = %v, want a refusal of the symlinked temporary", err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "precious" {
		t.Errorf("the file outside dir now holds %q", got)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("the symlink was removed: %v", err)
	}
	// A stale regular temporary from an interrupted run is the op's own.
	os.Remove(link)
	if err := os.WriteFile(link, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	op := prepare(t, "file.write", param.Values{"dir": dir, "atomic": true})
	if _, err := op.Run(context.Background(), 2); err != nil {
		t.Errorf("over a stale temporary: %v", err)
	}
}
