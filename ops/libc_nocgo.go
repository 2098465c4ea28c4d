//go:build !cgo || !(specrun_libc || specrun_cmalloc)

package ops

import (
	"fmt"

	"github.com/specrun/specrun/param"
)

func init() {
	notBuilt := func(name string) func(param.Values, Env) (Op, error) {
		return func(param.Values, Env) (Op, error) { return nil, fmt.Errorf("%s: %w", name, errNoLibc) }
	}
	registerLibc(false, notBuilt("c.malloc"), notBuilt("c.time"))
}
