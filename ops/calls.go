package ops

import (
	"context"
	"reflect"
)

// The call ops time one call each. Every callee takes and returns a value
// that the loop accumulates and stores in sinkInt after the loop, so the
// compiler can neither drop the calls nor hoist them out of the loop. The
// callee is //go:noinline; calls through a func value, an interface or
// reflect are not inlined either, as the values live in package variables.

// sinkInt keeps integer results alive: a package-level store the compiler
// cannot prove unused.
var sinkInt int64

func init() {
	Register(&Def{
		Name: "noop",
		Doc: "One iteration is one pass of the op's counting loop with an empty body: no call, " +
			"no memory access. It is the floor under every op, and shows that the harness adds " +
			"nothing per iteration; call.direct adds a function call to it.",
		Classic: "null function (the loop alone; call.direct is the loop with the call)",
		New:     stateless(runNoop),
	})
	Register(&Def{
		Name: "call.direct",
		Doc: "One iteration is one direct call of a non-inlined function that adds one to its " +
			"argument and returns it; the loop sums the results. The baseline the dynamic calls " +
			"are compared with.",
		Classic: "null function (a plain C function call)",
		New:     stateless(runCallDirect),
	})
	Register(&Def{
		Name: "call.func_value",
		Doc: "One iteration is one call through a func value (an indirect call through a code pointer " +
			"loaded once before the loop) of a function that adds its argument to a constant.",
		Classic: "IMP-cached message send",
		New:     stateless(runCallFuncValue),
	})
	Register(&Def{
		Name: "call.interface",
		Doc: "One iteration is one interface method call (a dynamic dispatch through the itab) of a " +
			"method that adds its argument to a field; the dynamic type is hidden from the compiler, " +
			"so the call is not devirtualized.",
		Classic: "C++ virtual method call; Objective-C message send",
		New:     stateless(runCallInterface),
	})
	Register(&Def{
		Name: "call.reflect",
		Doc: "One iteration is one reflect.Value.Call of a one-argument, one-result function, " +
			"with the argument slice built before the loop: argument checks, the reflective " +
			"call frame, and the boxed result are all timed.",
		Classic: "NSInvocation message send",
		New:     stateless(runCallReflect),
	})
}

func runNoop(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		// Go keeps empty counted loops, so this is n increments and compares.
		for end := chunkEnd(i, n, chunk); i < end; i++ {
		}
	}
	return Sample{}, nil
}

func runCallDirect(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			acc += addOne(i)
		}
	}
	sinkInt = acc
	return Sample{}, nil
}

//go:noinline
func addOne(x int64) int64 { return x + 1 }

// funcValue is a package variable so that the compiler cannot see which
// function it holds and turn the indirect call into a direct one.
var funcValue = addOne

func runCallFuncValue(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	f := funcValue
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			acc += f(i)
		}
	}
	sinkInt = acc
	return Sample{}, nil
}

type adder interface{ Add(x int64) int64 }

type offset struct{ k int64 }

func (o *offset) Add(x int64) int64 { return x + o.k }

// dynamicAdder hides the concrete type behind a package variable, so the
// call in the loop stays an itab dispatch.
var dynamicAdder adder = &offset{k: 1}

func runCallInterface(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	a := dynamicAdder
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			acc += a.Add(i)
		}
	}
	sinkInt = acc
	return Sample{}, nil
}

var reflectAddOne = reflect.ValueOf(addOne)

func runCallReflect(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	fn := reflectAddOne
	args := []reflect.Value{reflect.ValueOf(int64(1))}
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			acc += fn.Call(args)[0].Int()
		}
	}
	sinkInt = acc
	return Sample{}, nil
}

// stopped reports whether done is closed. Ops whose iterations take
// microseconds check it every iteration; ns-scale ops check it once per
// chunk of iterations (chunkEnd), where its cost is lost in the work.
func stopped(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// chunk is how many iterations an ns-scale op runs between two looks at its
// context: about 20ms of the slowest of them (call.reflect), so that a
// timed-out op stops within that, while one select per 65536 iterations
// costs nothing measurable.
const chunk = 1 << 16

// chunkEnd is the end of the chunk of iterations that starts at i, of at
// most per iterations, for a loop of n.
func chunkEnd(i, n, per int64) int64 {
	if n-i > per {
		return i + per
	}
	return n
}

// chunkFor bounds the chunk of an op that touches size bytes per
// iteration (memcpy, alloc) to about 64MB of memory traffic.
func chunkFor(size int64) int64 {
	return max(1, min(chunk, (64<<20)/max(size, 1)))
}
