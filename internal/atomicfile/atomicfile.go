// Package atomicfile writes whole files so that a reader sees the old file,
// no file, or all of the new one, never a part, and so that an existing
// file is replaced only when the caller asks for it.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Options say what Write may do to a file that already exists.
type Options struct {
	// Overwrite replaces the content of an existing file. A symlink is
	// followed and its target rewritten; a file with other hard links is
	// rewritten in place, so that every name sees the new content. Without
	// Overwrite an existing name is an error wrapping fs.ErrExist, and the
	// file is left as it was.
	Overwrite bool
	// KeepMode gives the new content the permissions of the file it
	// replaces rather than Mode.
	KeepMode bool
	// Mode is the permissions of a new file; 0 means 0o644.
	Mode fs.FileMode
}

// maxTempBase bounds how much of the final name a temporary file's name
// repeats, so that a name near the file system's limit still has room for
// the temporary's prefix and random suffix.
const maxTempBase = 64

// Write writes data to path through a temporary file in the same
// directory, created exclusively under a random name: write, fsync, then a
// hard link to path (which fails atomically on an existing name) or, with
// Overwrite, a rename over it; then the directory is fsynced so that the
// new name survives a crash. On any failure the temporary file is removed.
func Write(path string, data []byte, o Options) error {
	if err := write(path, data, o); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func write(path string, data []byte, o Options) (err error) {
	mode := o.Mode
	if mode == 0 {
		mode = 0o644
	}
	var inPlace bool
	if o.Overwrite {
		target, info, err := existing(path)
		if err != nil {
			return err
		}
		path = target
		if info != nil {
			if !info.Mode().IsRegular() {
				return fmt.Errorf("%s is not a regular file", path)
			}
			if o.KeepMode {
				mode = info.Mode().Perm()
			}
			inPlace = links(info) > 1
		}
	}

	dir := filepath.Dir(path)
	f, err := createTemp(dir, filepath.Base(path))
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if err = f.Close(); err != nil {
		return err
	}
	switch {
	case inPlace:
		// A rename would split the links; the complete new content stays
		// in tmp until the rewrite is through.
		if err = rewrite(path, data); err != nil {
			return err
		}
		return os.Remove(tmp)
	case o.Overwrite:
		if err = os.Rename(tmp, path); err != nil {
			return err
		}
	default:
		if err = linkNew(tmp, path); err != nil {
			return err
		}
	}
	if err = syncDir(dir); err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}

// Probe checks that Write can create a file in dir: that dir is a
// directory where a file can be created, written and synced. It leaves
// nothing behind.
func Probe(dir string) error {
	f, err := createTemp(dir, "probe")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write([]byte{'\n'})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// createTemp creates a file of a name no one else uses (O_EXCL with a
// random suffix) beside base, hidden by a leading dot.
func createTemp(dir, base string) (*os.File, error) {
	if len(base) > maxTempBase {
		base = base[:maxTempBase]
	}
	return os.CreateTemp(dir, "."+base+".tmp-*")
}

// existing resolves path through symlinks to the file Write replaces, and
// its FileInfo; info is nil when there is no such file yet.
func existing(path string) (target string, info fs.FileInfo, err error) {
	target, err = filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			// A dangling symlink: writing through it could create a file
			// anywhere, so it is refused rather than replaced.
			return "", nil, fmt.Errorf("%s is a symlink to a missing file", path)
		}
		return path, nil, nil
	case err != nil:
		return "", nil, err
	}
	info, err = os.Stat(target)
	if err != nil {
		return "", nil, err
	}
	return target, info, nil
}

// rewrite replaces the content of the existing file at path in place.
func rewrite(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// linkNew gives tmp the name path unless path exists. A hard link fails on
// an existing name atomically, where a check before a rename would race;
// on a file system without hard links it falls back to exactly that.
func linkNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil {
		return os.Remove(tmp)
	}
	if errors.Is(err, fs.ErrExist) {
		return fs.ErrExist
	}
	if _, serr := os.Lstat(path); serr == nil {
		return fs.ErrExist
	}
	return os.Rename(tmp, path)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
