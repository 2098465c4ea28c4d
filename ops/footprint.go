package ops

import (
	"fmt"
	"math"

	"github.com/specrun/specrun/internal/procfs"
	"github.com/specrun/specrun/param"
)

// The machine's memory, read when asked; tests replace them.
var (
	machineTotal     = func() (int64, error) { m, err := procfs.MemInfo(); return m.Total, err }
	machineAvailable = func() (int64, error) { m, err := procfs.MemInfo(); return m.Available, err }
)

// fits refuses p when d's footprint exceeds what limit reads. A machine
// whose memory cannot be read refuses nothing: the check is a guard, and
// its absence must not stop a run.
func (d *Def) fits(p param.Values, limit func() (int64, error), of string) *ParamError {
	if d.Memory == nil {
		return nil
	}
	fp := d.Memory(p)
	have, err := limit()
	if err != nil || have <= 0 || fp.Bytes <= have {
		return nil
	}
	return &ParamError{Param: fp.Param, Summary: "Too large for this machine", Err: fmt.Errorf(
		"one instance of %s allocates %s (%s), more than the %s of memory %s",
		d.Name, approxBytes(fp.Bytes), fp.What, approxBytes(have), of)}
}

// checkAvailable wraps an op's New so that an instance whose footprint
// exceeds the memory available now fails as its benchmark's error, before
// anything is allocated, instead of killing the run.
func checkAvailable(d *Def, next func(param.Values, Env) (Op, error)) func(param.Values, Env) (Op, error) {
	return func(p param.Values, env Env) (Op, error) {
		if perr := d.fits(p, machineAvailable, "available now"); perr != nil {
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
