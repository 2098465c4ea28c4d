package ops

import (
	"context"

	"github.com/specrun/specrun/param"
)

// The divisors live in package variables: the compiler cannot prove they
// never change, so it emits a real division instead of a multiply-by-
// reciprocal or a constant. The dividend changes every iteration, so the
// division cannot be hoisted, and the quotients are summed into a sink.
var (
	intDivisor   int64   = 7
	floatDivisor float64 = 7.0
	// chainDividend is c in the chain x = c / x: the square of its start
	// value, so x stays at 100000007 (27 bits) and never reaches zero.
	chainDividend int64 = chainStart * chainStart
)

const chainStart = 100000007

// sinkFloat keeps float results alive.
var sinkFloat float64

// dependentParam chooses what a division op times: independent divisions,
// which the divider overlaps (its throughput), or a chain in which each
// quotient is the next division's divisor (its latency).
var dependentParam = param.Param{Name: "dependent", Type: param.Bool, Default: false,
	Doc: "make each division wait for the last one's quotient, so an iteration times the divider's latency " +
		"instead of its throughput"}

func init() {
	Register(&Def{
		Name: "int.div",
		Doc: "One iteration is one 64-bit signed integer division (IDIV): by default independent " +
			"divisions, the divider's throughput; with dependent = true a chain, its latency. " +
			"Independent: the loop counter is divided by a divisor loaded from memory and the " +
			"quotients summed. Chained: each quotient divides a constant in the next iteration " +
			"(x = c / x: a 54-bit dividend, a 27-bit divisor).",
		Classic: "Integer division",
		Params:  []param.Param{dependentParam},
		New: func(p param.Values, _ Env) (Op, error) {
			if p.Bool("dependent") {
				return Func(runIntDivChain), nil
			}
			return Func(runIntDiv), nil
		},
	})
	Register(&Def{
		Name: "float.div",
		Doc: "One iteration is one float64 division (DIVSD): by default independent divisions, the " +
			"divider's throughput (the classic table's loop); with dependent = true a chain, its " +
			"latency. Independent: a running float counter is divided by a divisor loaded from " +
			"memory and the quotients summed. Chained: each quotient divides the divisor in the " +
			"next iteration (x = d / x).",
		Classic: "Floating-point division",
		Params:  []param.Param{dependentParam},
		New: func(p param.Values, _ Env) (Op, error) {
			if p.Bool("dependent") {
				return Func(runFloatDivChain), nil
			}
			return Func(runFloatDiv), nil
		},
	})
	Register(&Def{
		Name: "float.div_int",
		Doc: "One iteration converts the loop counter to float64, divides it by a float64 divisor " +
			"loaded from memory, and converts the quotient back to int64 (truncating), summing the " +
			"results: independent divisions, the divider's throughput.",
		Classic: "Float division with int conversion",
		New:     stateless(runFloatDivInt),
	})
}

func runIntDiv(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	d := intDivisor
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			acc += i / d
		}
	}
	sinkInt = acc
	return Sample{}, nil
}

func runFloatDiv(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	d := floatDivisor
	var acc, x float64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			x++
			acc += x / d
		}
	}
	sinkFloat = acc
	return Sample{}, nil
}

func runFloatDivInt(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	d := floatDivisor
	var acc int64
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			acc += int64(float64(i) / d)
		}
	}
	sinkInt = acc
	return Sample{}, nil
}

func runIntDivChain(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	c, x := chainDividend, int64(chainStart)
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			x = c / x
		}
	}
	sinkInt = x
	return Sample{}, nil
}

func runFloatDivChain(ctx context.Context, n int64) (Sample, error) {
	done := ctx.Done()
	d, x := floatDivisor, 3.0
	for i := int64(0); i < n; {
		if stopped(done) {
			return Sample{N: i}, ctx.Err()
		}
		// x alternates between 3 and d/3: normal numbers, no denormal slow path.
		for end := chunkEnd(i, n, chunk); i < end; i++ {
			x = d / x
		}
	}
	sinkFloat = x
	return Sample{}, nil
}
