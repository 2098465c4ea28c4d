//go:build linux

package procgroup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/specrun/specrun/internal/procfs"
)

// hierarchy is one cgroup tree specrun may make groups in: the unified
// (v2) tree, or v1's memory tree.
type hierarchy struct {
	v2   bool
	home string // specrun's own cgroup in it, a directory
	base string // home/specrun-PID-START, where this run's groups go; "" until made
}

var (
	setupOnce sync.Once
	v2Tree    *hierarchy // nil where not writable
	memTree   *hierarchy // v1 memory; nil where not mounted or not writable
	baseMu    sync.Mutex
	seq       atomic.Int64
)

// runDirPrefix starts the name of a run's directory in a cgroup tree: the
// owner's pid and start time follow, so a later run can tell a dead
// owner's directory from a live one's.
const runDirPrefix = "specrun-"

// discover finds the cgroup trees and specrun's place in each, and removes
// what dead runs left there.
func discover() {
	if os.Getenv(NoCgroupsEnv) != "" {
		return
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return
	}
	var v2Mount, memMount string
	for line := range strings.Lines(string(mounts)) {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPEROPTIONS
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || f[3] != "/" {
			continue // a bind mount of a subtree: specrun's path in it is unknown
		}
		switch {
		case g[0] == "cgroup2" && v2Mount == "":
			v2Mount = f[4]
		case g[0] == "cgroup" && hasOption(g[2], "memory") && memMount == "":
			memMount = f[4]
		}
	}
	for line := range strings.Lines(string(own)) {
		// ID:CONTROLLERS:PATH; v2's is "0::PATH".
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "" && v2Mount != "":
			v2Tree = usable(&hierarchy{v2: true, home: filepath.Join(v2Mount, parts[2])})
		case hasOption(parts[1], "memory") && memMount != "":
			memTree = usable(&hierarchy{home: filepath.Join(memMount, parts[2])})
		}
	}
}

func hasOption(list, opt string) bool {
	for o := range strings.SplitSeq(list, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// usable cleans up after dead runs in h and reports whether specrun may
// make cgroups there (nil if not).
func usable(h *hierarchy) *hierarchy {
	if st, err := os.Stat(h.home); err != nil || !st.IsDir() {
		return nil
	}
	removeStale(h.home)
	probe := filepath.Join(h.home, runDirPrefix+"probe-"+strconv.Itoa(self))
	if err := os.Mkdir(probe, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil
	}
	if err := syscall.Rmdir(probe); err != nil {
		return nil
	}
	return h
}

// runDirName is this process's directory name in a cgroup tree.
func runDirName() string {
	start := uint64(0)
	if p, err := procfs.Stat(self); err == nil {
		start = p.Start
	}
	return fmt.Sprintf("%s%d-%d", runDirPrefix, self, start)
}

// removeStale kills what is left in the run directories of dead specrun
// processes under home, and removes the directories.
func removeStale(home string) {
	entries, err := os.ReadDir(home)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, start, ok := parseRunDir(e.Name())
		if !ok || !e.IsDir() {
			continue
		}
		if p, err := procfs.Stat(pid); err == nil && p.Start == start {
			continue // its owner is alive
		}
		dir := filepath.Join(home, e.Name())
		groups, _ := os.ReadDir(dir)
		for _, g := range groups {
			if g.IsDir() {
				removeDir(filepath.Join(dir, g.Name()), true)
			}
		}
		syscall.Rmdir(dir)
	}
}

func parseRunDir(name string) (pid int, start uint64, ok bool) {
	rest, ok := strings.CutPrefix(name, runDirPrefix)
	if !ok {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(a)
	start, err2 := strconv.ParseUint(b, 10, 64)
	return pid, start, err1 == nil && err2 == nil
}

// removeDir kills the processes of the cgroup dir (when kill is set) and
// removes it, waiting up to KillWait for them to be gone. The groups below
// it go first: a specrun that one of its commands ran makes its run
// directory there, and the kernel refuses to remove a cgroup with children.
func removeDir(dir string, kill bool) error {
	if kill {
		os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) // v2: the whole subtree
	}
	err := waitEmpty(dir, kill)
	if err != nil {
		return err
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			if err := removeDir(filepath.Join(dir, e.Name()), kill); err != nil {
				return err
			}
		}
	}
	// A zombie keeps a cgroup busy until its parent reaps it, which the
	// parent (specrun's waiter, or init for an orphan) does soon.
	deadline := nowPlus(KillWait)
	for {
		err := syscall.Rmdir(dir)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || pastDeadline(deadline) {
			return fmt.Errorf("remove cgroup %s: %w", dir, err)
		}
		sleepBrief()
	}
}

// cgroup is one group's directories: in the v2 tree for containment, and
// in v1's memory tree for the memory peak (or for containment, where there
// is no v2 tree).
type cgroup struct {
	v2, v1 string
	fd     int // v2 directory, for CLONE_INTO_CGROUP; -1 without
	tasks  string
	home   string // v1 memory: specrun's own tasks file, to leave the group's

	peak, usage *os.File // memory peak and current usage; nil without memory
	baseline    int64
}

func newCgroup(name string, opts Options) *cgroup {
	setupOnce.Do(discover)
	if v2Tree == nil && memTree == nil {
		return nil
	}
	dirName := fmt.Sprintf("%d-%s", seq.Add(1), sanitize(name))
	c := &cgroup{fd: -1}
	if v2Tree != nil {
		if dir, err := makeGroupDir(v2Tree, dirName); err == nil {
			if fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0); err == nil {
				c.v2, c.fd = dir, fd
			} else {
				syscall.Rmdir(dir)
			}
		}
	}
	if c.v2 != "" && opts.Memory {
		c.openMemory(c.v2, "memory.peak", "memory.current")
	}
	if memTree != nil && (c.v2 == "" || (opts.Memory && c.peak == nil)) {
		if dir, err := makeGroupDir(memTree, dirName); err == nil {
			c.v1, c.tasks, c.home = dir, filepath.Join(dir, "tasks"), filepath.Join(memTree.home, "tasks")
			if opts.Memory && c.peak == nil {
				c.openMemory(dir, "memory.max_usage_in_bytes", "memory.usage_in_bytes")
			}
		}
	}
	if c.v2 == "" && c.v1 == "" {
		return nil
	}
	return c
}

func makeGroupDir(h *hierarchy, name string) (string, error) {
	baseMu.Lock()
	defer baseMu.Unlock()
	if h.base == "" {
		h.base = filepath.Join(h.home, runDirName())
	}
	if err := os.Mkdir(h.base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	dir := filepath.Join(h.base, name)
	return dir, os.Mkdir(dir, 0o755)
}

func (c *cgroup) openMemory(dir, peak, usage string) {
	p, err := os.OpenFile(filepath.Join(dir, peak), os.O_RDWR, 0)
	if err != nil {
		return
	}
	u, err := os.Open(filepath.Join(dir, usage))
	if err != nil {
		p.Close()
		return
	}
	c.peak, c.usage = p, u
}

func (c *cgroup) kind() string {
	switch {
	case c.v2 != "" && c.v1 != "":
		return "cgroup v2, memory in cgroup v1"
	case c.v2 != "":
		return "cgroup v2"
	default:
		return "cgroup v1"
	}
}

// kill kills every process in the cgroup at once where the kernel offers it
// (v2's cgroup.kill); elsewhere the caller signals the members one by one.
func (c *cgroup) kill() {
	if c.v2 != "" {
		os.WriteFile(filepath.Join(c.v2, "cgroup.kill"), []byte("1"), 0)
	}
}

// procs lists the processes in the cgroup, specrun itself left out (a
// thread of specrun sits in a v1 group while it starts a child there).
func (c *cgroup) procs() []int {
	dir := c.v2
	if dir == "" {
		dir = c.v1
	}
	return readProcs(dir)
}

func readProcs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for line := range bytes.Lines(b) {
		if pid, err := strconv.Atoi(string(bytes.TrimSpace(line))); err == nil && pid != self {
			if p, err := procfs.Stat(pid); err == nil && p.Alive() {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func waitEmpty(dir string, kill bool) error {
	deadline := nowPlus(KillWait)
	for {
		pids := readProcs(dir)
		if len(pids) == 0 {
			return nil
		}
		if !kill || pastDeadline(deadline) {
			return fmt.Errorf("cgroup %s: %d processes left", dir, len(pids))
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		sleepBrief()
	}
}

func (c *cgroup) remove() error {
	if c.peak != nil {
		c.peak.Close()
		c.usage.Close()
	}
	if c.fd >= 0 {
		syscall.Close(c.fd)
		c.fd = -1
	}
	var errs []error
	for _, dir := range []string{c.v2, c.v1} {
		if dir != "" {
			errs = append(errs, removeDir(dir, true))
		}
	}
	return errors.Join(errs...)
}

// enter moves the calling thread into the v1 group, so that the children
// it forks are born there; leave moves it back.
func (c *cgroup) enter() (leave func(), err error) {
	if c.tasks == "" {
		return func() {}, nil
	}
	tid := []byte(strconv.Itoa(syscall.Gettid()))
	if err := os.WriteFile(c.tasks, tid, 0); err != nil {
		return nil, fmt.Errorf("enter cgroup %s: %w", c.v1, err)
	}
	return func() { os.WriteFile(c.home, tid, 0) }, nil
}

// resetPeak starts a new memory peak: v1's max_usage_in_bytes is reset by
// writing 0, v2's memory.peak by any write (its peak is then the writer's
// file's own, Linux 6.12 on). What the cgroup held already (page cache of
// earlier runs) is the baseline that Peak subtracts.
func (c *cgroup) resetPeak() {
	if c.peak == nil {
		return
	}
	c.peak.WriteAt([]byte("0"), 0)
	c.baseline = readInt(c.usage)
}

func (c *cgroup) memoryPeak() (int64, bool) {
	if c.peak == nil {
		return 0, false
	}
	return max(readInt(c.peak)-c.baseline, 0), true
}

func readInt(f *os.File) int64 {
	var buf [32]byte
	n, _ := f.ReadAt(buf[:], 0)
	v, err := strconv.ParseInt(string(bytes.TrimSpace(buf[:n])), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// sanitize makes name safe as a cgroup directory name.
func sanitize(name string) string {
	s := strings.Map(func(r rune) rune {
		if r == '/' || r == 0 || r == '\n' || r == ' ' {
			return '_'
		}
		return r
	}, name)
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// removeRunDirs removes this run's directories once no group is left in
// them.
func removeRunDirs() {
	for _, h := range []*hierarchy{v2Tree, memTree} {
		if h != nil && h.base != "" {
			syscall.Rmdir(h.base)
		}
	}
}
