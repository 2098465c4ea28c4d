package ops

import (
	"errors"

	"github.com/specrun/specrun/param"
)

// The libc ops call the C library through cgo, so that the classic tables'
// C rows can be timed as C pays them. They are built only with the
// specrun_libc tag (and cgo), so that the default build stays pure Go and
// cross-compiles; without it they are listed, and refused with the
// command that builds them.

// libcBuild is how to build a specrun that has the libc ops.
const libcBuild = "CGO_ENABLED=1 go build -tags specrun_libc ./cmd/specrun"

var errNoLibc = errors.New("this specrun is built without the libc ops; build one with " + libcBuild)

// registerLibc registers the libc ops with the constructors of this build;
// built says whether they are the real ones.
func registerLibc(built bool, newMalloc, newTime func(param.Values, Env) (Op, error)) {
	for _, d := range []*Def{{
		Name: "c.malloc",
		Doc: "One iteration is one C malloc of size bytes, a one-byte volatile store into it, and " +
			"free, in a loop written in C (one cgo call per chunk of up to 65536 iterations). Unlike " +
			"alloc, which times Go's garbage-collected allocation and the collector's share of it, " +
			"this is the C allocator's fast path: the freed block is reused at once.",
		Classic: "16 byte malloc/free; 16MB malloc/free (C's malloc and free, as the classic tables ran them)",
		Params:  []param.Param{sizeParam(16, "bytes allocated per iteration")},
		Memory:  sizeFootprint(1, "one malloc of size bytes"),
		New:     newMalloc,
	}, {
		Name: "c.time",
		Doc: "One iteration is one call of the C library's time(NULL), in a loop written in C (one " +
			"cgo call per chunk of up to 65536 iterations). glibc on linux/amd64 serves it from the " +
			"vDSO, which reads a seconds value the kernel keeps: the cost the classic time() row " +
			"measured, unlike clock.time.",
		Classic: "time()",
		New:     newTime,
	}} {
		if !built {
			d.Doc = "[not in this build: " + libcBuild + "] " + d.Doc
			d.Check = func(param.Values) []*ParamError {
				return []*ParamError{{Summary: "Op not built in", Err: errNoLibc}}
			}
		}
		Register(d)
	}
}
