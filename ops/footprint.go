package ops

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/specrun/specrun/internal/procfs"
	"github.com/specrun/specrun/param"
)

// The memory an instance may take, read when asked; tests replace them.
// Each says what bounds it: the machine, or the process's address-space
// limit (ulimit -v), under which Go's out-of-memory is as fatal.
var (
	machineTotal     = func() (int64, string, error) { return memoryLimit(false) }
	machineAvailable = func() (int64, string, error) { return memoryLimit(true) }
)

// memoryLimit is MemTotal (or, now, MemAvailable), or the room under
// RLIMIT_AS when that is smaller: its whole size for the plan, what this
// process has not yet mapped of it for a run.
func memoryLimit(now bool) (int64, string, error) {
	m, err := procfs.MemInfo()
	if err != nil {
		return 0, "", err
	}
	have, what := m.Total, "of memory this machine has"
	if now {
		have, what = m.Available, "of memory available now"
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) != nil || uint64(lim.Cur) >= uint64(math.MaxInt64) {
		return have, what, nil
	}
	room, roomWhat := int64(lim.Cur), "of address space that ulimit -v allows"
	if now {
		used, err := mappedBytes()
		if err != nil {
			return have, what, nil
		}
		room, roomWhat = room-used, "of address space left under ulimit -v"
	}
	if room < have {
		return max(room, 1), roomWhat, nil
	}
	return have, what, nil
}

// mappedBytes is this process's virtual size, the first field of
// /proc/self/statm, in pages.
func mappedBytes() (int64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, errors.New("read /proc/self/statm: empty")
	}
	pages, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read /proc/self/statm: %w", err)
	}
	return pages * int64(os.Getpagesize()), nil
}

// fits refuses p when d's footprint exceeds what limit reads. Memory that
// cannot be read refuses nothing: the check is a guard, and its absence
// must not stop a run.
func (d *Def) fits(p param.Values, limit func() (int64, string, error)) *ParamError {
	if d.Memory == nil {
		return nil
	}
	fp := d.Memory(p)
	have, what, err := limit()
	if err != nil || have <= 0 || fp.Bytes <= have {
		return nil
	}
	return &ParamError{Param: fp.Param, Summary: "Too large for this machine", Err: fmt.Errorf(
		"one instance of %s allocates %s (%s), more than the %s %s",
		d.Name, approxBytes(fp.Bytes), fp.What, approxBytes(have), what)}
}

// checkAvailable wraps an op's New so that an instance whose footprint
// exceeds the memory available now fails as its benchmark's error, before
// anything is allocated, instead of killing the run.
func checkAvailable(d *Def, next func(param.Values, Env) (Op, error)) func(param.Values, Env) (Op, error) {
	return func(p param.Values, env Env) (Op, error) {
		if perr := d.fits(p, machineAvailable); perr != nil {
			return nil, fmt.Errorf("%s: %s: %w", d.Name, perr.Param, perr.Err)
		}
		return next(p, env)
	}
}

// times is n*k, saturating at MaxInt64, for footprints of huge sizes.
func times(n, k int64) int64 {
	if n > 0 && k > math.MaxInt64/n {
		return math.MaxInt64
	}
	return n * k
}

// sizeFootprint is the Memory of an op that holds k buffers of size bytes.
func sizeFootprint(k int64, what string) func(param.Values) Footprint {
	return func(p param.Values) Footprint {
		return Footprint{Bytes: times(p.Size("size"), k), Param: "size", What: what}
	}
}

// approxBytes writes n to three figures in the 1024-based units that specs
// write sizes in: "1.5 GB".
func approxBytes(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB", "PB", "EB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.3g %s", f, units[i])
}
