package ops

import "context"

// The divisors live in package variables: the compiler cannot prove they
// never change, so it emits a real division instead of a multiply-by-
// reciprocal or a constant. The dividend changes every iteration, so the
// division cannot be hoisted, and the quotients are summed into a sink.
var (
	intDivisor   int64   = 7
	floatDivisor float64 = 7.0
)

// sinkFloat keeps float results alive.
var sinkFloat float64

func init() {
	Register(&Def{
		Name: "int.div",
		Doc: "One iteration is one 64-bit signed integer division (IDIV) of the loop counter by a " +
			"divisor loaded from memory, plus the add that sums the quotients.",
		Classic: "Integer division",
		New:     stateless(runIntDiv),
	})
	Register(&Def{
		Name: "float.div",
		Doc: "One iteration is one float64 division (DIVSD) of a running float counter by a divisor " +
			"loaded from memory, plus the adds that step the counter and sum the quotients.",
		Classic: "Floating-point division",
		New:     stateless(runFloatDiv),
	})
	Register(&Def{
		Name: "float.div_int",
		Doc: "One iteration converts the loop counter to float64, divides it by a float64 divisor " +
			"loaded from memory, and converts the quotient back to int64 (truncating), summing the results.",
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
