//go:build cgo && (specrun_libc || specrun_cmalloc)

package ops

/*
#include <stdlib.h>
#include <time.h>

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

// timeCalls does n calls of time(NULL) and sums the results, so that no
// call can be dropped.
static long timeCalls(long n) {
	long acc = 0;
	for (long i = 0; i < n; i++) {
		acc += (long)time(NULL);
	}
	return acc;
}
*/
import "C"

import (
	"context"
	"errors"

	"github.com/specrun/specrun/param"
)

func init() {
	registerLibc(true, newCMalloc, stateless(runCTime))
}

func newCMalloc(p param.Values, _ Env) (Op, error) {
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
}

func runCTime(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		end := chunkEnd(i, n, chunk)
		acc += int64(C.timeCalls(C.long(end - i)))
		i = end
	}
	sinkInt = acc
	return Sample{}, nil
}
