//go:build cgo && specrun_cmalloc

package ops

/*
#include <stdlib.h>

// mallocFree does n malloc/free pairs of size bytes. The loop is in C so
// that no cgo transition (tens of ns) is timed per iteration; the volatile
// store keeps the compiler from eliding the pair.
static int mallocFree(size_t size, long n) {
	for (long i = 0; i < n; i++) {
		char *p = malloc(size);
		if (p == NULL) {
			return -1;
		}
		*(volatile char *)p = (char)i;
		free(p);
	}
	return 0;
}
*/
import "C"

import (
	"context"
	"errors"

	"github.com/specrun/specrun/param"
)

// c.malloc is built only with -tags specrun_cmalloc (and cgo), so that the
// default build stays pure Go and cross-compiles.
func init() {
	Register(&Def{
		Name: "c.malloc",
		Doc: "One iteration is one C malloc of size bytes, a one-byte volatile store into it, " +
			"and free, in a loop written in C (one cgo call per chunk of up to 65536 iterations, not per iteration). " +
			"Built only with -tags specrun_cmalloc.",
		Classic: "16 byte malloc/free; 16MB malloc/free",
		Params:  []param.Param{sizeParam(16, "bytes allocated per iteration")},
		Memory:  sizeFootprint(1, "one malloc of size bytes"),
		New: func(p param.Values, _ Env) (Op, error) {
			size, err := positiveSize("c.malloc", p)
			if err != nil {
				return nil, err
			}
			per := chunkFor(size)
			return Func(func(ctx context.Context, n int64) (Sample, error) {
				// One cgo call per chunk: the context is seen between them.
				done := ctx.Done()
				for i := int64(0); i < n; {
					if stopped(done) {
						return Sample{N: i}, ctx.Err()
					}
					end := chunkEnd(i, n, per)
					if C.mallocFree(C.size_t(size), C.long(end-i)) != 0 {
						return Sample{N: i}, errors.New("c.malloc: malloc returned NULL")
					}
					i = end
				}
				return Sample{}, nil
			}), nil
		},
	})
}
