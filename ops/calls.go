package ops

import (
	"context"

	"github.com/specrun/specrun/param"
)

func init() {
	Register(&Def{
		Name:    "noop",
		Doc:     "One iteration is one call of an empty, non-inlined function: the harness's floor.",
		Classic: "null function",
		New: func(param.Values, Env) (Op, error) {
			return Func(func(_ context.Context, n int64) (Sample, error) {
				for i := int64(0); i < n; i++ {
					nullFunc()
				}
				return Sample{}, nil
			}), nil
		},
	})
}

//go:noinline
func nullFunc() {}
