package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/specrun/specrun/param"
)

func fileParams(verb string) []param.Param {
	return []param.Param{
		sizeParam(16, "bytes "+verb+" per iteration"),
		{Name: "dir", Type: param.String, Default: "",
			Doc: "directory to hold the file; empty means a fresh directory inside the run's temp dir, removed afterwards"},
		{Name: "name", Type: param.String, Default: "specrun-file.dat",
			Doc: "file name inside dir: one path element, never leaving dir"},
	}
}

func init() {
	Register(&Def{
		Name: "file.read",
		Doc: "One iteration opens an existing file of size bytes (written before the runs), reads " +
			"all of it into a buffer allocated before the loop, and closes it. The page cache is warm: " +
			"this times the system calls and the copy, not the disk.",
		Classic: "Read 16-byte file; Read 16MB file",
		Params:  fileParams("read"),
		New:     newFileRead,
	})
	writeParams := append(fileParams("written"),
		param.Param{Name: "atomic", Type: param.Bool, Default: false,
			Doc: "write a temporary file in dir, then rename it over the target, as an atomic save does"},
		param.Param{Name: "fsync", Type: param.Bool, Default: false,
			Doc: "fsync the file before closing (and renaming) it, so the data reaches the disk"},
	)
	Register(&Def{
		Name: "file.write",
		Doc: "One iteration creates or truncates the file (or, with atomic, a temporary file beside it), " +
			"writes size bytes from a buffer filled before the loop, optionally fsyncs, closes it, and " +
			"with atomic renames it over the target.",
		Classic: "Write 16-byte file; Write 16-byte file (atomic); Write 16MB file; Write 16MB file (atomic)",
		Params:  writeParams,
		New:     newFileWrite,
	})
}

// fileDir is the directory a file op works in and what to remove when the
// op is closed: the whole directory when the op made it, else its own files.
type fileDir struct {
	dir     string
	made    bool
	created []string
}

// openFileDir resolves the dir and name parameters. The name must be a
// single local path element, so that nothing a spec says can reach
// outside dir; a missing or unwritable dir is an error here, before any run.
func openFileDir(op string, p param.Values, env Env) (*fileDir, string, error) {
	name := p.String("name")
	if name == "" || name == "." || !filepath.IsLocal(name) || filepath.Base(name) != name {
		return nil, "", fmt.Errorf("%s: name %q must be a single file name inside dir", op, name)
	}
	if dir := p.String("dir"); dir != "" {
		fi, err := os.Stat(dir)
		if err != nil {
			return nil, "", fmt.Errorf("%s: use dir: %w", op, err)
		}
		if !fi.IsDir() {
			return nil, "", fmt.Errorf("%s: use dir: %s is not a directory", op, dir)
		}
		return &fileDir{dir: dir}, filepath.Join(dir, name), nil
	}
	parent := ""
	if env != nil {
		parent = env.TempDir()
	}
	dir, err := os.MkdirTemp(parent, "specrun-"+op+"-*")
	if err != nil {
		return nil, "", fmt.Errorf("%s: make temp dir: %w", op, err)
	}
	return &fileDir{dir: dir, made: true}, filepath.Join(dir, name), nil
}

// Close removes what the op made.
func (d *fileDir) Close() error {
	if d.made {
		return os.RemoveAll(d.dir)
	}
	var errs []error
	for _, path := range d.created {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeFile writes path with data, remembering it for Close. It refuses
// to replace anything but a regular file, which Close would then remove.
func (d *fileDir) writeFile(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s exists and is not a regular file", path)
	}
	d.created = append(d.created, path)
	return os.WriteFile(path, data, 0o644)
}

// claimTemp makes path, an atomic write's temporary, the op's own: a stale
// regular file of that name is removed, and anything else there (a
// symlink that could lead out of dir) is refused and left alone.
func (d *fileDir) claimTemp(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s exists and is not a regular file", path)
	default:
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("remove a stale temporary: %w", err)
		}
	}
	d.created = append(d.created, path)
	return nil
}

func filled(size int64) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}

type fileRead struct {
	*fileDir
	path string
	buf  []byte
}

func newFileRead(p param.Values, env Env) (Op, error) {
	size := p.Size("size")
	if size <= 0 {
		return nil, fmt.Errorf("file.read: size must be positive, got %d", size)
	}
	d, path, err := openFileDir("file.read", p, env)
	if err != nil {
		return nil, err
	}
	if err := d.writeFile(path, filled(size)); err != nil {
		d.Close()
		return nil, fmt.Errorf("file.read: write the file to read: %w", err)
	}
	return &fileRead{fileDir: d, path: path, buf: make([]byte, size)}, nil
}

func (r *fileRead) Run(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	for i := int64(0); i < n; i++ {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		if err := readWhole(r.path, r.buf); err != nil {
			return Sample{N: i}, fmt.Errorf("file.read: %w", err)
		}
	}
	sinkBytes = r.buf
	return Sample{}, nil
}

func readWhole(path string, buf []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if _, err := io.ReadFull(f, buf); err != nil {
		f.Close()
		return fmt.Errorf("read %s: %w", path, err)
	}
	return f.Close()
}

type fileWrite struct {
	*fileDir
	path, tmp     string
	atomic, fsync bool
	data          []byte
}

func newFileWrite(p param.Values, env Env) (Op, error) {
	size := p.Size("size")
	if size <= 0 {
		return nil, fmt.Errorf("file.write: size must be positive, got %d", size)
	}
	d, path, err := openFileDir("file.write", p, env)
	if err != nil {
		return nil, err
	}
	w := &fileWrite{
		fileDir: d,
		path:    path,
		tmp:     filepath.Join(d.dir, "."+filepath.Base(path)+".tmp"),
		atomic:  p.Bool("atomic"),
		fsync:   p.Bool("fsync"),
		data:    filled(size),
	}
	if w.atomic {
		if err := d.claimTemp(w.tmp); err != nil {
			d.Close()
			return nil, fmt.Errorf("file.write: %w", err)
		}
	}
	// One write now finds an unwritable dir before any run, and gives the
	// non-atomic iterations an existing file to truncate, as later ones see.
	if err := d.writeFile(path, w.data); err != nil {
		d.Close()
		return nil, fmt.Errorf("file.write: %w", err)
	}
	return w, nil
}

func (w *fileWrite) Run(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	for i := int64(0); i < n; i++ {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		if err := w.once(); err != nil {
			return Sample{N: i}, fmt.Errorf("file.write: %w", err)
		}
	}
	return Sample{}, nil
}

func (w *fileWrite) once() error {
	target, flags := w.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC
	if w.atomic {
		// The last iteration renamed the temporary away, so it is created
		// afresh; O_EXCL also refuses a symlink planted in its place.
		target, flags = w.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL
	}
	f, err := os.OpenFile(target, flags, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(w.data); err != nil {
		f.Close()
		return err
	}
	if w.fsync {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if w.atomic {
		return os.Rename(w.tmp, w.path)
	}
	return nil
}

var (
	_ io.Closer = (*fileRead)(nil)
	_ io.Closer = (*fileWrite)(nil)
)
