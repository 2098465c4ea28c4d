package ops

import (
	"cmp"
	"context"
	"fmt"
	"runtime/metrics"
	"sync"

	"github.com/specrun/specrun/param"
)

// sinkBytes and sinkObject make allocations escape to the heap and keep
// the last one reachable, so the compiler cannot stack-allocate or drop them.
var (
	sinkBytes  []byte
	sinkObject *object
)

func sizeParam(def int64, doc string) param.Param {
	return param.Param{Name: "size", Type: param.Size, Default: def, Unit: "bytes", Doc: doc, Positive: true}
}

// positiveSize returns the size parameter. spec refuses a size below one
// byte; this keeps a caller that skipped spec from a negative make.
func positiveSize(op string, p param.Values) (int64, error) {
	size := p.Size("size")
	if size <= 0 {
		return 0, fmt.Errorf("%s: size must be positive, got %d", op, size)
	}
	return size, nil
}

// gcMetrics are the figures alloc reports: allocation's cost in Go is
// partly paid later by the collector, so the op says how much of it fell
// inside the run.
var gcMetrics = []Metric{
	{Name: "gc_cycles", Unit: "count", Doc: "garbage collections completed during the run"},
	{Name: "gc_cpu_ns_per_op", Unit: "ns", Doc: "GC CPU time during the run (all threads, runtime/metrics estimate) divided by the iterations; wall time already includes whatever the collector took from this goroutine"},
}

func init() {
	Register(&Def{
		Name: "memcpy",
		Doc: "One iteration copies size bytes between two heap buffers allocated before the loop " +
			"(Go's copy, which calls runtime.memmove).",
		Classic: "16 byte memcpy; 1MB memcpy",
		Params:  []param.Param{sizeParam(16, "bytes copied per iteration")},
		Memory:  sizeFootprint(2, "two buffers of size bytes"),
		New:     newMemcpy,
	})
	Register(&Def{
		Name: "alloc",
		Doc: "One iteration allocates a zeroed []byte of size bytes on the heap (it escapes to a " +
			"package variable) and drops the previous one; the garbage collector's share of the cost " +
			"falls inside the timed runs and is reported. Large sizes also pay for page faults when " +
			"the heap takes fresh memory from the OS, so their first run is slow: warm up. This is " +
			"Go's garbage-collected allocation, not C's malloc and free: c.malloc (a libc build) is that.",
		Classic: "16 byte malloc/free; 16MB malloc/free (as Go allocates: zeroed, collected later; c.malloc is C's)",
		Params:  []param.Param{sizeParam(16, "bytes allocated per iteration")},
		Metrics: gcMetrics,
		// The collector lets the heap grow to twice the live one (GOGC=100).
		Memory: sizeFootprint(2, "size bytes per iteration, and as much again of garbage between collections"),
		New:    newAlloc,
	})
	Register(&Def{
		Name: "alloc.object",
		Doc: "One iteration allocates a 48-byte struct on the heap, initialises its fields " +
			"(two ints, a pointer, a string), and drops the previous one to the garbage collector.",
		Classic: "NSObject alloc/init/release",
		Metrics: gcMetrics,
		New:     stateless(runAllocObject),
	})
	Register(&Def{
		Name: "pool",
		Doc: "One iteration gets a 64-byte buffer from a sync.Pool (allocating only when the pool is " +
			"empty), writes one byte of it, and puts it back.",
		Classic: "NSAutoreleasePool alloc/init/release",
		New: func(param.Values, Env) (Op, error) {
			p := &sync.Pool{New: func() any { return new([64]byte) }}
			return Func(func(ctx context.Context, n int64) (Sample, error) {
				return runPool(ctx, p, n)
			}), nil
		},
	})
}

func newMemcpy(p param.Values, _ Env) (Op, error) {
	size, err := positiveSize("memcpy", p)
	if err != nil {
		return nil, err
	}
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	per := chunkFor(size)
	return Func(func(ctx context.Context, n int64) (Sample, error) {
		return runMemcpy(ctx, dst, src, n, per)
	}), nil
}

func runMemcpy(ctx context.Context, dst, src []byte, n, per int64) (Sample, error) {
	done := ctx.Done()
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		end := chunkEnd(i, n, per)
		copies(dst, src, end-i)
		i = end
	}
	sinkBytes = dst
	return Sample{}, nil
}

// copies is the timed loop, kept apart from the chunking around it: the
// copy is a call, after which the loop reloads what it keeps, and in a
// function of its own that is only dst, src and the count.
//
//go:noinline
func copies(dst, src []byte, k int64) {
	for j := int64(0); j < k; j++ {
		copy(dst, src)
	}
}

func newAlloc(p param.Values, _ Env) (Op, error) {
	size, err := positiveSize("alloc", p)
	if err != nil {
		return nil, err
	}
	per := chunkFor(size)
	return Func(func(ctx context.Context, n int64) (Sample, error) {
		before := readGC()
		s, err := runAlloc(ctx, int(size), n, per)
		s.Metrics = readGC().since(before, cmp.Or(s.N, n))
		return s, err
	}), nil
}

func runAlloc(ctx context.Context, size int, n, per int64) (Sample, error) {
	done := ctx.Done()
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		end := chunkEnd(i, n, per)
		allocs(size, end-i)
		i = end
	}
	return Sample{}, nil
}

// allocs is alloc's timed loop, apart from the chunking as copies is.
//
//go:noinline
func allocs(size int, k int64) {
	for j := int64(0); j < k; j++ {
		sinkBytes = make([]byte, size)
	}
}

// object stands for a small object with a few fields set by its
// initialiser: 48 bytes on 64-bit platforms.
type object struct {
	id, gen int64
	next    *object
	name    string
	flags   uint64
}

var objectName = "object"

func runAllocObject(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	before := readGC()
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			sinkObject = &object{id: i, gen: 1, name: objectName, flags: 3}
		}
	}
	return Sample{Metrics: readGC().since(before, n)}, nil
}

func runPool(ctx context.Context, p *sync.Pool, n int64) (Sample, error) {
	done := ctx.Done()
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			b := p.Get().(*[64]byte)
			b[0]++
			p.Put(b)
		}
	}
	return Sample{}, nil
}

// gcState is a reading of the collector's counters.
type gcState struct {
	cycles uint64
	cpu    float64 // seconds
}

var gcSamples = []metrics.Sample{
	{Name: "/gc/cycles/total:gc-cycles"},
	{Name: "/cpu/classes/gc/total:cpu-seconds"},
}

// readGC reads the collector's counters without stopping the world, as
// runtime.ReadMemStats would; two readings per run cost microseconds.
func readGC() gcState {
	s := make([]metrics.Sample, len(gcSamples))
	copy(s, gcSamples)
	metrics.Read(s)
	var g gcState
	if s[0].Value.Kind() == metrics.KindUint64 {
		g.cycles = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindFloat64 {
		g.cpu = s[1].Value.Float64()
	}
	return g
}

func (g gcState) since(before gcState, n int64) map[string]float64 {
	m := map[string]float64{"gc_cycles": float64(g.cycles - before.cycles)}
	if n > 0 {
		m["gc_cpu_ns_per_op"] = (g.cpu - before.cpu) * 1e9 / float64(n)
	}
	return m
}
