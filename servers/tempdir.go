package servers

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/specrun/specrun/internal/procfs"
)

// ownerFile marks a run's temp dir as specrun's, with the pid and start
// time of the process that made it: a later run removes the dir once that
// process is gone (killed with SIGKILL, it could not remove it itself).
const ownerFile = ".specrun-owner"

const tempPrefix = "specrun-"

// makeRunDir makes a run's temp dir in parent ("" for the system's),
// after removing those of dead runs there.
func makeRunDir(parent string) (string, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	removeStaleRunDirs(parent)
	d, err := os.MkdirTemp(parent, tempPrefix)
	if err != nil {
		return "", fmt.Errorf("make temp dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(d, ownerFile), []byte(owner(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(d)
		return "", fmt.Errorf("make temp dir: %w", err)
	}
	return d, nil
}

// owner names the process pid as "PID START", or "PID" where its start
// time is unknown.
func owner(pid int) string {
	if p, err := procfs.Stat(pid); err == nil {
		return strconv.Itoa(pid) + " " + strconv.FormatUint(p.Start, 10)
	}
	return strconv.Itoa(pid)
}

// removeStaleRunDirs removes the temp dirs in parent that specrun made
// (they hold ownerFile) for a process that no longer runs. Nothing else is
// touched: a dir without the marker, or whose owner cannot be read, stays.
func removeStaleRunDirs(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 0 {
			continue
		}
		if ownerAlive(pid, f[1:]) {
			continue
		}
		os.RemoveAll(dir)
	}
}

// ownerAlive reports whether the process pid still runs and, when its
// start time was recorded, is the same process (a pid is reused).
func ownerAlive(pid int, start []string) bool {
	p, err := procfs.Stat(pid)
	if err != nil {
		_, statErr := os.Stat("/proc/self")
		return statErr != nil // without /proc, assume alive: never remove what may be in use
	}
	if !p.Alive() {
		return false
	}
	return len(start) == 0 || start[0] == strconv.FormatUint(p.Start, 10)
}
