package ops

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/specrun/specrun/param"
)

func fileParams(verb string) []param.Param {
	return []param.Param{
		sizeParam(16, "bytes "+verb+" per iteration"),
		{Name: "dir", Type: param.String, Default: "",
			Doc: "directory to hold the file; empty means a fresh directory inside the run's temp dir, removed afterwards"},
		{Name: "name", Type: param.String, Default: "specrun-file.dat",
			Doc: "file name inside dir: one path element, never leaving dir, and never a symlink"},
	}
}

func init() {
	Register(&Def{
		Name: "file.read",
		Doc: "One iteration opens the file, reads its first size bytes into a buffer allocated before " +
			"the loop, and closes it. A file of that name already in dir is read as it is and left " +
			"untouched (it must be a regular file of at least size bytes); otherwise the op writes " +
			"one of size bytes before the runs and removes it afterwards. The page cache is warm: " +
			"this times the system calls and the copy, not the disk.",
		Classic: "Read 16-byte file; Read 16MB file",
		Params:  fileParams("read"),
		Check:   checkFile(false),
		Memory:  sizeFootprint(1, "a read buffer of size bytes"),
		New:     newFileRead,
	})
	writeParams := append(fileParams("written"),
		param.Param{Name: "atomic", Type: param.Bool, Default: false,
			Doc: "write a temporary file in dir (\".NAME.RANDOM.tmp\", created exclusively), then rename it over the target, as an atomic save does"},
		param.Param{Name: "fsync", Type: param.Bool, Default: false,
			Doc: "fsync the file before closing (and renaming) it, so the data reaches the disk"},
	)
	Register(&Def{
		Name: "file.write",
		Doc: "One iteration truncates the file and writes size bytes from a buffer filled before the " +
			"loop, optionally fsyncs, and closes it; with atomic it creates a temporary file beside it " +
			"instead, and renames that over the target. The op creates the file before the runs and " +
			"removes it afterwards; it refuses a name that already exists in dir, so it never " +
			"overwrites a file it did not create.",
		Classic: "Write 16-byte file; Write 16-byte file (atomic); Write 16MB file; Write 16MB file (atomic)",
		Params:  writeParams,
		Check:   checkFile(true),
		Memory:  sizeFootprint(1, "a buffer of size bytes to write"),
		New:     newFileWrite,
	})
}

// fileDir is the directory a file op works in, held open: every open,
// rename and remove is relative to it (openat) and refuses a symlink, so
// no swap of dir or of a file in it during the run leads a write outside.
// Close removes only what the op itself created: the whole directory when
// it made it, else each file it created, if that file is still the one it
// made.
type fileDir struct {
	path  string // as given, for messages
	fd    int
	made  bool
	owned map[string]heldFile // files the op created, by name
}

// fileID identifies a file across renames of its name.
type fileID struct {
	dev, ino uint64
	mode     uint32 // the S_IFMT bits
}

// heldFile is a file the op created, and a descriptor that keeps it.
type heldFile struct {
	fd int
	id fileID
}

// errExists is a file op's refusal to touch a file it did not create.
var errExists = errors.New("exists, and specrun only writes files it creates")

// openFileDir resolves the size, dir and name parameters. The name must be
// a single local path element, so that nothing a spec says can reach
// outside dir; a missing dir is an error here, before any run.
func openFileDir(op string, p param.Values, env Env) (d *fileDir, name string, size int64, err error) {
	if size, err = positiveSize(op, p); err != nil {
		return nil, "", 0, err
	}
	if name, err = fileName(p); err != nil {
		return nil, "", 0, fmt.Errorf("%s: %w", op, err)
	}
	d = &fileDir{path: p.String("dir"), owned: map[string]heldFile{}}
	if d.path == "" {
		parent := ""
		if env != nil {
			parent = env.TempDir()
		}
		if d.path, err = os.MkdirTemp(parent, "specrun-"+op+"-*"); err != nil {
			return nil, "", 0, fmt.Errorf("%s: make temp dir: %w", op, err)
		}
		d.made = true
	}
	// The dir itself may be a symlink the user chose; it is resolved once.
	if d.fd, err = openDir(d.path); err != nil {
		if d.made {
			os.RemoveAll(d.path)
		}
		return nil, "", 0, fmt.Errorf("%s: use dir: %w", op, err)
	}
	return d, name, size, nil
}

func openDir(path string) (int, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return fd, nil
}

// fileName returns the name parameter, if it is one plain file name.
func fileName(p param.Values) (string, error) {
	name := p.String("name")
	if name == "" || name == "." || !filepath.IsLocal(name) || filepath.Base(name) != name {
		return "", fmt.Errorf("name %q must be a single file name inside dir", name)
	}
	return name, nil
}

// Close removes what the op made.
func (d *fileDir) Close() error {
	if d.fd < 0 {
		return nil
	}
	var errs []error
	for name, h := range d.owned {
		if d.made {
			unix.Close(h.fd) // the whole directory goes below
			continue
		}
		errs = append(errs, d.remove(name))
	}
	clear(d.owned)
	errs = append(errs, unix.Close(d.fd))
	d.fd = -1
	if d.made {
		errs = append(errs, os.RemoveAll(d.path))
	}
	return errors.Join(errs...)
}

// remove unlinks name if it is still the file the op created there.
func (d *fileDir) remove(name string) error {
	h, ok := d.owned[name]
	if !ok {
		return nil
	}
	delete(d.owned, name)
	defer unix.Close(h.fd)
	now, err := idAt(d.fd, name)
	if err != nil {
		if err == unix.ENOENT {
			return nil
		}
		return d.pathErr("stat", name, err)
	}
	if now != h.id {
		return nil // someone else's file now: not the op's to remove
	}
	if err := unix.Unlinkat(d.fd, name, 0); err != nil && err != unix.ENOENT {
		return d.pathErr("remove", name, err)
	}
	return nil
}

// create makes name with data, refusing any file already there, and
// holds it as the op's own.
func (d *fileDir) create(name string, data []byte) error {
	fd, err := unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err == unix.EEXIST {
		return d.pathErr("create", name, errExists)
	}
	if err != nil {
		return d.pathErr("create", name, err)
	}
	if err := d.hold(fd, name); err != nil {
		unix.Close(fd)
		return err
	}
	if err := writeAll(fd, data); err != nil {
		d.remove(name)
		return d.pathErr("write", name, err)
	}
	return nil
}

// hold keeps fd, open on the op's own file called name, until Close. While
// a descriptor holds an inode no other file can take its number, so the
// number tells the op's file from one put in its place.
func (d *fileDir) hold(fd int, name string) error {
	id, err := idOf(fd)
	if err != nil {
		return d.pathErr("stat", name, err)
	}
	if old, ok := d.owned[name]; ok {
		unix.Close(old.fd)
	}
	d.owned[name] = heldFile{fd: fd, id: id}
	return nil
}

// idAt identifies the file called name in the directory open as dirfd,
// without following a symlink.
func idAt(dirfd int, name string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fileID{}, err
	}
	return statID(&st), nil
}

// idOf identifies the open file fd.
func idOf(fd int) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fileID{}, err
	}
	return statID(&st), nil
}

func statID(st *unix.Stat_t) fileID {
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode) & unix.S_IFMT}
}

func (d *fileDir) pathErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	return &os.PathError{Op: op, Path: filepath.Join(d.path, name), Err: err}
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// existing reports how the file name in the directory open as dirfd
// stands: a regular file of the given length, or not there (ok false).
// Anything but a regular file (a symlink, a directory, a FIFO) is an error.
func existing(dirfd int, dir, name string) (size int64, ok bool, err error) {
	var st unix.Stat_t
	switch err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == unix.ENOENT:
		return 0, false, nil
	case err != nil:
		return 0, false, &os.PathError{Op: "stat", Path: filepath.Join(dir, name), Err: err}
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return 0, false, fmt.Errorf("%s exists and is not a regular file", filepath.Join(dir, name))
	}
	return st.Size, true, nil
}

// checkFile is the Check of both file ops: what a user's dir holds is
// known when the spec is loaded.
func checkFile(write bool) func(param.Values) []*ParamError {
	return func(p param.Values) []*ParamError {
		name, err := fileName(p)
		if err != nil {
			return []*ParamError{{Param: "name", Summary: "Invalid file name", Err: err}}
		}
		dir := p.String("dir")
		if dir == "" {
			return nil // a fresh temp dir holds nothing yet
		}
		dirfd, err := openDir(dir)
		if err != nil {
			return []*ParamError{{Param: "dir", Summary: "Cannot use dir", Err: err}}
		}
		defer unix.Close(dirfd)
		size, ok, err := existing(dirfd, dir, name)
		switch {
		case err != nil:
			return []*ParamError{{Param: "name", Summary: "Cannot use file", Err: err}}
		case ok && write:
			return []*ParamError{{Param: "name", Summary: "File exists", Err: fmt.Errorf(
				"%s already exists. file.write only writes a file it creates itself, and removes it afterwards; "+
					"name a file that does not exist, or leave dir unset to write in a temporary directory",
				filepath.Join(dir, name))}}
		case ok && size < p.Size("size"):
			return []*ParamError{{Param: "size", Summary: "File too short", Err: fmt.Errorf(
				"%s holds %d bytes, fewer than the size of %d bytes to read each iteration",
				filepath.Join(dir, name), size, p.Size("size"))}}
		}
		return nil
	}
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
	name string
	buf  []byte
}

func newFileRead(p param.Values, env Env) (Op, error) {
	d, name, size, err := openFileDir("file.read", p, env)
	if err != nil {
		return nil, err
	}
	// A user's file is read as it is; only a missing one is written first.
	has, ok, err := existing(d.fd, d.path, name)
	switch {
	case err == nil && !ok:
		if err = d.create(name, filled(size)); err != nil {
			err = fmt.Errorf("write the file to read: %w", err)
		}
	case err == nil && has < size:
		err = fmt.Errorf("%s holds %d bytes, fewer than size (%d)", filepath.Join(d.path, name), has, size)
	}
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("file.read: %w", err)
	}
	return &fileRead{fileDir: d, name: name, buf: make([]byte, size)}, nil
}

func (r *fileRead) Run(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	for i := int64(0); i < n; i++ {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		if err := r.once(); err != nil {
			return Sample{N: i}, fmt.Errorf("file.read: %w", err)
		}
	}
	sinkBytes = r.buf
	return Sample{}, nil
}

// once reads the first len(buf) bytes of the file. O_NONBLOCK keeps a FIFO
// swapped in for the file from blocking the open; it changes nothing for a
// regular file.
func (r *fileRead) once() error {
	fd, err := unix.Openat(r.fd, r.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return r.pathErr("open", r.name, err)
	}
	for b := r.buf; len(b) > 0; {
		n, err := unix.Read(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err == nil && n == 0 {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			unix.Close(fd)
			return r.pathErr("read", r.name, err)
		}
		b = b[n:]
	}
	return r.pathErr("close", r.name, unix.Close(fd))
}

type fileWrite struct {
	*fileDir
	name, tmp     string
	atomic, fsync bool
	data          []byte
}

func newFileWrite(p param.Values, env Env) (Op, error) {
	d, name, size, err := openFileDir("file.write", p, env)
	if err != nil {
		return nil, err
	}
	w := &fileWrite{
		fileDir: d,
		name:    name,
		// A random part no user's file has; O_EXCL refuses one anyway.
		tmp:    "." + name + "." + randomSuffix() + ".tmp",
		atomic: p.Bool("atomic"),
		fsync:  p.Bool("fsync"),
		data:   filled(size),
	}
	// Creating the target now refuses a user's file, finds an unwritable
	// dir before any run, and gives the plain iterations a file to truncate.
	if err := d.create(name, w.data); err != nil {
		d.Close()
		return nil, fmt.Errorf("file.write: %w", err)
	}
	return w, nil
}

func randomSuffix() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (w *fileWrite) Run(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	var i int64
	var err error
	for ; i < n; i++ {
		if stopped(done) {
			err = ctx.Err()
			break
		}
		if err = w.once(); err != nil {
			err = fmt.Errorf("file.write: %w", err)
			break
		}
	}
	if w.atomic && i > 0 {
		// The target is now the last temporary renamed over it: one open
		// per run, outside the iterations, holds it as the op's own.
		if fd, serr := unix.Openat(w.fd, w.name, holdFlags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); serr == nil {
			if w.hold(fd, w.name) != nil {
				unix.Close(fd)
			}
		}
	}
	if err != nil {
		return Sample{N: i}, err
	}
	return Sample{}, nil
}

// once is one iteration. The plain write truncates the op's own file; the
// atomic one creates its temporary afresh each time (the last iteration
// renamed it away), and removes it if any step fails.
func (w *fileWrite) once() error {
	name, flags := w.name, unix.O_WRONLY|unix.O_TRUNC
	if w.atomic {
		name, flags = w.tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL
	}
	// O_NONBLOCK: a FIFO swapped in for the file fails the open instead of
	// blocking it; for a regular file it changes nothing.
	fd, err := unix.Openat(w.fd, name, flags|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return w.pathErr("open", name, err)
	}
	fail := func(op string, err error) error {
		unix.Close(fd)
		if w.atomic {
			unix.Unlinkat(w.fd, w.tmp, 0)
		}
		return w.pathErr(op, name, err)
	}
	if err := writeAll(fd, w.data); err != nil {
		return fail("write", err)
	}
	if w.fsync {
		if err := unix.Fsync(fd); err != nil {
			return fail("fsync", err)
		}
	}
	if err := unix.Close(fd); err != nil {
		return fail("close", err)
	}
	if w.atomic {
		if err := unix.Renameat(w.fd, w.tmp, w.fd, w.name); err != nil {
			unix.Unlinkat(w.fd, w.tmp, 0)
			return w.pathErr("rename", w.tmp, err)
		}
	}
	return nil
}

var (
	_ io.Closer = (*fileRead)(nil)
	_ io.Closer = (*fileWrite)(nil)
)
