//go:build linux

package ops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/specrun/specrun/param"
)

// mountTmpfs mounts a tmpfs of the given options on a fresh directory, or
// skips the test where that needs a root this process is not.
func mountTmpfs(t *testing.T, opts string, flags uintptr) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	if flags != 0 {
		// Read-only stops root, which a 0555 mode does not.
		if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT|flags, opts); err != nil {
			t.Skipf("cannot remount the tmpfs: %v", err)
		}
	}
	return dir
}

func TestFileOpsOnAFullDir(t *testing.T) {
	dir := mountTmpfs(t, "size=64k", 0)
	for _, name := range []string{"file.read", "file.write"} {
		_, err := newOp(name, param.Values{"dir": dir, "size": int64(16 << 20)}, nil)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s of 16MB into 64k: err = %v, want ENOSPC", name, err)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%s: left %v in the full dir", name, left)
		}
	}
}

// TestAtomicWriteFillsTheDirDuringARun: the target fits but the target and
// its temporary do not, so the first timed iteration fails, with ENOSPC,
// and Close still removes both.
func TestAtomicWriteFillsTheDirDuringARun(t *testing.T) {
	dir := mountTmpfs(t, "size=64k", 0)
	op, err := newOp("file.write", param.Values{"dir": dir, "size": int64(40 << 10), "atomic": true}, nil)
	if err != nil {
		t.Fatalf("prepare a 40k write into 64k: %v", err)
	}
	s, err := op.Run(context.Background(), 5)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Run: err = %v, want ENOSPC", err)
	}
	if s.N != 0 {
		t.Errorf("Run: %d iterations done, want 0", s.N)
	}
	closeOp(t, op)
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left %v after Close", left)
	}
}

func TestFileOpsOnAReadOnlyDir(t *testing.T) {
	dir := mountTmpfs(t, "size=64k", syscall.MS_RDONLY)
	for _, name := range []string{"file.read", "file.write"} {
		_, err := newOp(name, param.Values{"dir": dir}, nil)
		if !errors.Is(err, syscall.EROFS) {
			t.Errorf("%s into a read-only dir: err = %v, want EROFS", name, err)
		}
	}
}

// TestFileOpsDoNotFollowASymlinkOut: a file of the op's name that is a
// symlink leading out of dir is refused, and its target is untouched.
func TestFileOpsDoNotFollowASymlinkOut(t *testing.T) {
	dir, outside := symlinkOut(t, "link")
	for _, set := range []param.Values{
		{"dir": dir, "name": "link"},
		{"dir": dir, "name": "link", "atomic": true},
	} {
		for _, name := range []string{"file.read", "file.write"} {
			if name == "file.read" && set["atomic"] != nil {
				continue
			}
			op, err := newOp(name, set, nil)
			if err == nil {
				op.Run(context.Background(), 1)
				closeOp(t, op)
				t.Errorf("%s %v: no error for a symlink out of dir", name, set)
			}
			if got, _ := os.ReadFile(outside); string(got) != "precious" {
				t.Fatalf("%s %v: the file outside dir now holds %q", name, set, got)
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "link")); err != nil {
		t.Errorf("the symlink is gone: %v", err)
	}
}

// TestFileNamesWithOddBytes: names that are not a plain file name are
// refused before anything is created.
func TestFileNamesWithOddBytes(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "inner")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a\x00b", "../inner/../../x", "./x/..", "..\x00"} {
		for _, op := range []string{"file.read", "file.write"} {
			if o, err := newOp(op, param.Values{"dir": dir, "name": name}, nil); err == nil {
				closeOp(t, o)
				t.Errorf("%s name=%q: no error", op, name)
			}
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("parent holds %v, want only inner", entries)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("inner holds %v, want nothing", entries)
	}
}

// TestAtomicWriteDoesNotFollowASymlinkedTemp: the temporary file of an
// atomic write is a name in dir too; a symlink there leading out of dir
// must not be written through.
func TestAtomicWriteDoesNotFollowASymlinkedTemp(t *testing.T) {
	dir, outside := symlinkOut(t, ".specrun-file.dat.tmp")
	op, err := newOp("file.write", param.Values{"dir": dir, "atomic": true, "size": int64(100)}, nil)
	if err == nil {
		op.Run(context.Background(), 1)
		closeOp(t, op)
	}
	if got, _ := os.ReadFile(outside); string(got) != "precious" {
		t.Errorf("the file outside dir now holds %q", got)
	}
}

// symlinkOut makes a dir holding a symlink called name that leads out of it,
// to a file holding "precious".
func symlinkOut(t *testing.T, name string) (dir, outside string) {
	t.Helper()
	parent := t.TempDir()
	dir = filepath.Join(parent, "inner")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	outside = filepath.Join(parent, "outside.txt")
	if err := os.WriteFile(outside, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	return dir, outside
}

// TestFileWriteDoesNotFollowASymlinkSwappedIn: while the op runs, its file
// is replaced again and again by a symlink leading out of dir. Iterations
// may fail, but nothing outside dir is written.
func TestFileWriteDoesNotFollowASymlinkSwappedIn(t *testing.T) {
	for _, atomic := range []bool{false, true} {
		dir, outside := symlinkOut(t, "planted")
		op, err := newOp("file.write", param.Values{"dir": dir, "atomic": atomic}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The swaps run beside the iterations until both have done their share.
		swapped := make(chan struct{})
		go func() {
			defer close(swapped)
			for range 500 {
				os.Symlink(outside, filepath.Join(dir, "swap"))
				os.Rename(filepath.Join(dir, "swap"), filepath.Join(dir, "specrun-file.dat"))
			}
		}()
		for done := false; !done; {
			select {
			case <-swapped:
				done = true
			default:
				op.Run(context.Background(), 5)
			}
		}
		closeOp(t, op)
		if got, _ := os.ReadFile(outside); string(got) != "precious" {
			t.Errorf("atomic=%v: the file outside dir now holds %q", atomic, got)
		}
	}
}

// TestFileOpsKeepTheirDirWhenItIsSwapped: dir is opened once; a symlink
// put in place of dir's path during the run leads nowhere.
func TestFileOpsKeepTheirDirWhenItIsSwapped(t *testing.T) {
	for _, name := range []string{"file.read", "file.write"} {
		parent := t.TempDir()
		dir, elsewhere := filepath.Join(parent, "dir"), filepath.Join(parent, "elsewhere")
		for _, d := range []string{dir, elsewhere} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		op, err := newOp(name, param.Values{"dir": dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(dir, dir+".moved"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, dir); err != nil {
			t.Fatal(err)
		}
		if _, err := op.Run(context.Background(), 3); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		closeOp(t, op)
		for _, d := range []string{elsewhere, dir + ".moved"} {
			if entries, _ := os.ReadDir(d); len(entries) != 0 {
				t.Errorf("%s: %s holds %v", name, d, entries)
			}
		}
	}
}

// TestFileOpsFailOnAFIFOSwappedIn: a FIFO put in place of the op's file
// fails the iteration; it does not block the op where no deadline reaches.
func TestFileOpsFailOnAFIFOSwappedIn(t *testing.T) {
	for _, name := range []string{"file.read", "file.write"} {
		dir := t.TempDir()
		op, err := newOp(name, param.Values{"dir": dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "specrun-file.dat")
		os.Remove(path)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := op.Run(context.Background(), 1); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: no error from a FIFO", name)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: blocked on a FIFO", name)
		}
		closeOp(t, op)
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s: the FIFO is gone or changed: %v %v", name, fi, err)
		}
	}
}
