package ops

import (
	"bytes"
	"context"
	"errors"
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

// TestAtomicWriteLeavesFilesOfAnyTempName: files named as the temporary
// of an older specrun are a user's: the op writes its own temporary beside
// them and leaves them, a symlink out of dir included, as they were.
func TestAtomicWriteLeavesFilesOfAnyTempName(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ".specrun-file.dat.tmp")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".out.dat.tmp")
	if err := os.WriteFile(stale, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"specrun-file.dat", "out.dat"} {
		op, err := newOp("file.write", param.Values{"dir": dir, "name": name, "atomic": true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Run(context.Background(), 3); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		closeOp(t, op)
	}
	if got, _ := os.ReadFile(outside); string(got) != "precious" {
		t.Errorf("the file outside dir now holds %q", got)
	}
	if got, err := os.Readlink(link); err != nil || got != outside {
		t.Errorf("the symlink is %q, %v", got, err)
	}
	if got, _ := os.ReadFile(stale); string(got) != "mine" {
		t.Errorf("%s holds %q", stale, got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("dir holds %v, want the two files that were there", entries)
	}
}

// userFile writes a file the op did not create and returns its path and
// contents.
func userFile(t *testing.T, dir, name string) (string, []byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	data := []byte(strings.Repeat("precious user data\n", 20))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestFileReadReadsAUserFileAndLeavesIt(t *testing.T) {
	dir := t.TempDir()
	path, data := userFile(t, dir, "notes.txt")
	before, _ := os.Stat(path)
	sinkBytes = nil
	op, err := newOp("file.read", param.Values{"dir": dir, "name": "notes.txt", "size": int64(64)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Run(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sinkBytes, data[:64]) {
		t.Errorf("read %q, want the file's first 64 bytes", sinkBytes)
	}
	closeOp(t, op)
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after the op the file holds %q, %v", got, err)
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(before.ModTime()) || after.Mode() != before.Mode() {
		t.Errorf("the file changed: %v %v, was %v %v", after.ModTime(), after.Mode(), before.ModTime(), before.Mode())
	}
}

func TestFileReadRefusesAUserFileShorterThanSize(t *testing.T) {
	dir := t.TempDir()
	path, data := userFile(t, dir, "notes.txt")
	_, err := newOp("file.read", param.Values{"dir": dir, "name": "notes.txt", "size": int64(len(data) + 1)}, nil)
	if err == nil || !strings.Contains(err.Error(), "fewer than size") {
		t.Errorf("err = %v, want a refusal of a short file", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
		t.Errorf("the file now holds %q", got)
	}
}

func TestFileWriteRefusesAUserFile(t *testing.T) {
	for _, atomic := range []bool{false, true} {
		dir := t.TempDir()
		path, data := userFile(t, dir, "notes.txt")
		_, err := newOp("file.write", param.Values{"dir": dir, "name": "notes.txt", "atomic": atomic}, nil)
		if !errors.Is(err, errExists) {
			t.Errorf("atomic=%v: err = %v, want %v", atomic, err, errExists)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
			t.Errorf("atomic=%v: the file now holds %q", atomic, got)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("atomic=%v: dir holds %v", atomic, entries)
		}
	}
}

// TestFileOpsLeaveAFileSwappedInForTheirs: Close removes the op's file
// only while it is still the op's; a user's file put in its place stays.
func TestFileOpsLeaveAFileSwappedInForTheirs(t *testing.T) {
	for _, set := range []param.Values{
		{"op": "file.read"},
		{"op": "file.write"},
		{"op": "file.write", "atomic": true},
	} {
		dir := t.TempDir()
		name := set["op"].(string)
		delete(set, "op")
		set["dir"] = dir
		op, err := newOp(name, set, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Run(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
		mine := filepath.Join(t.TempDir(), "mine")
		userPath, data := userFile(t, filepath.Dir(mine), "mine")
		if err := os.Rename(userPath, filepath.Join(dir, "specrun-file.dat")); err != nil {
			t.Fatal(err)
		}
		closeOp(t, op)
		if got, _ := os.ReadFile(filepath.Join(dir, "specrun-file.dat")); !bytes.Equal(got, data) {
			t.Errorf("%s %v: the file swapped in now holds %q", name, set, got)
		}
	}
}

func TestFileOpsCheckTheDirBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	userFile(t, dir, "notes.txt")
	if err := os.Symlink("notes.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op    string
		set   param.Values
		param string
		want  string
	}{
		{"file.write", param.Values{"name": "notes.txt"}, "name", "already exists"},
		{"file.write", param.Values{"name": "notes.txt", "atomic": true}, "name", "already exists"},
		{"file.write", param.Values{"name": "link"}, "name", "not a regular file"},
		{"file.read", param.Values{"name": "link"}, "name", "not a regular file"},
		{"file.read", param.Values{"name": "notes.txt", "size": int64(1 << 20)}, "size", "fewer than the size"},
		{"file.read", param.Values{"dir": filepath.Join(dir, "notes.txt")}, "dir", "not a directory"},
		{"file.write", param.Values{"dir": filepath.Join(dir, "missing")}, "dir", "no such file"},
		{"file.read", param.Values{"name": "notes.txt"}, "", ""},
		{"file.write", param.Values{"name": "new.txt"}, "", ""},
		{"file.write", param.Values{"dir": "", "name": "notes.txt"}, "", ""},
	} {
		def, _ := Lookup(tc.op)
		set := param.Values{"dir": dir}
		for k, v := range tc.set {
			set[k] = v
		}
		errs := def.Validate(withDefaults(def, set))
		switch {
		case tc.want == "" && len(errs) > 0:
			t.Errorf("%s %v: %v, want no problem", tc.op, tc.set, errs)
		case tc.want == "":
		case len(errs) != 1 || errs[0].Param != tc.param || !strings.Contains(errs[0].Err.Error(), tc.want):
			t.Errorf("%s %v: %v, want one problem with %s saying %q", tc.op, tc.set, errs, tc.param, tc.want)
		}
	}
}

// TestFileOpsLeaveAUserFileThatReusedTheirInode: a file made where the
// op's file was removed may get the same inode number; it is still not
// the op's to remove.
func TestFileOpsLeaveAUserFileThatReusedTheirInode(t *testing.T) {
	for _, name := range []string{"file.read", "file.write"} {
		dir := t.TempDir()
		op, err := newOp(name, param.Values{"dir": dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "specrun-file.dat")
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		_, data := userFile(t, dir, "specrun-file.dat")
		closeOp(t, op)
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: the user's file holds %q, %v", name, got, err)
		}
	}
}

// TestFileOpsCloseWhatTheyHold: every descriptor a file op opened is
// closed by Close, whether it made its dir or was given one.
func TestFileOpsCloseWhatTheyHold(t *testing.T) {
	before := openFDs(t)
	for _, set := range []param.Values{
		{}, {"atomic": true}, {"dir": t.TempDir()}, {"dir": t.TempDir(), "atomic": true},
	} {
		for _, name := range []string{"file.read", "file.write"} {
			op, err := newOp(name, set, catalogEnv{dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := op.Run(context.Background(), 3); err != nil {
				t.Fatal(err)
			}
			closeOp(t, op)
		}
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open after the ops closed, %d before", after, before)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(entries)
}
