package runner

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/specrun/specrun/ops"
	"github.com/specrun/specrun/spec"
)

// maxN bounds calibration, as testing.B's 1e9 does, but higher: specrun's
// iteration counts are int64 and a 0.3 ns op needs more than 1e9 to fill a
// second.
const maxN = 1e11

// fixedN is the iteration count of every run when the plan fixes one: the
// op's own count (an http phase's requests), or the spec's times Scale. A
// scaled count that an int64 cannot hold is an error, not a wrapped-around
// count.
func fixedN(b *spec.Benchmark, scale float64) (int64, error) {
	if b.Op.Iterations != nil {
		return max(b.Op.Iterations(b.Params), 1), nil
	}
	if b.Iterations <= 0 {
		return 0, nil
	}
	n := math.Round(float64(b.Iterations) * scale)
	if !(n < math.MaxInt64) { // NaN too
		return 0, fmt.Errorf("iterations %d scaled by %g is beyond the largest count, %d", b.Iterations, scale, int64(math.MaxInt64))
	}
	return max(int64(n), 1), nil
}

// minTime is how long a calibrated run lasts: the spec's min_time times
// Scale, so that --scale shortens a quick rerun of "auto" benchmarks too.
func minTime(b *spec.Benchmark, scale float64) (time.Duration, error) {
	d := math.Round(float64(b.MinTime) * scale)
	if !(d < math.MaxInt64) {
		return 0, fmt.Errorf("min_time %v scaled by %g is beyond the longest duration", b.MinTime, scale)
	}
	return max(time.Duration(d), 1), nil
}

// Check reports the first benchmark of plan that cfg selects whose
// iterations or min_time, scaled by cfg.Scale, cannot be represented, so
// that a caller can refuse the run before it starts; Run would record the
// same as that benchmark's error.
func Check(plan *spec.Plan, cfg Config) error {
	cfg = cfg.withDefaults()
	for _, b := range plan.Benchmarks {
		if b.Op == nil || (cfg.Filter != nil && !cfg.Filter.MatchString(b.Name)) {
			continue
		}
		if _, err := fixedN(b, cfg.Scale); err != nil {
			return fmt.Errorf("%s: %w", b.Name, err)
		}
		if _, err := minTime(b, cfg.Scale); err != nil {
			return fmt.Errorf("%s: %w", b.Name, err)
		}
	}
	return nil
}

// calibrate warms the op up and settles the iteration count. An op whose
// runs last a set time warms up once, for Warmup. With a fixed count,
// warm-up runs grow from one iteration towards it until Warmup is spent.
// With "auto", it is testing.B's launch: run once, then predict the n that
// fills MinTime and run again until a run lasts MinTime; those runs are the
// warm-up, topped up at the final n's pace if they took less than Warmup.
func (r *runner) calibrate(in *instance) error {
	fixed, err := fixedN(in.b, r.cfg.Scale)
	if err != nil {
		return err
	}
	if db, ok := in.op.(ops.DurationBound); ok {
		// Each run lasts its own duration: the warm-up is one short run.
		in.n = max(fixed, 1)
		if in.b.Warmup <= 0 {
			return nil
		}
		s, err := call(r, in, func(ctx context.Context) (ops.Sample, error) {
			return db.WarmUp(ctx, in.b.Warmup)
		}, nil)
		if err == nil {
			r.warmedUp(in, timing{n: s.N, elapsed: s.Elapsed, sample: s})
		}
		return err
	}
	if fixed > 0 {
		in.n = fixed
		if in.b.Warmup <= 0 {
			return nil
		}
		return r.warmUp(in, 1, fixed, in.b.Warmup)
	}
	goal, err := minTime(in.b, r.cfg.Scale)
	if err != nil {
		return err
	}
	n := int64(1)
	t, err := r.measure(in, n, false)
	spent := t.elapsed
	for err == nil && t.elapsed < goal && n < maxN {
		r.warmedUp(in, t)
		n = predictN(goal.Nanoseconds(), t.n, t.elapsed.Nanoseconds(), n)
		t, err = r.measure(in, n, false)
		spent += t.elapsed
	}
	if err != nil {
		return err
	}
	r.warmedUp(in, t)
	in.n = n
	left := in.b.Warmup - spent
	if first := min(fill(left, t, n), n); left > 0 && first > 0 {
		return r.warmUp(in, first, n, left)
	}
	return nil
}

// maxStill bounds warm-up runs during which the clock did not move; real
// runs take time and end the warm-up.
const maxStill = 1000

// warmUp runs the op, untimed, until d has passed: from first iterations,
// each later run sized to fill what is left at the pace of the last one,
// growing at most 100x a step and never beyond most. It stops within
// d/20 of d, or when even one iteration would overshoot d by more than it
// falls short, so that a warm-up lasts what it was set to.
func (r *runner) warmUp(in *instance, first, most int64, d time.Duration) error {
	start := r.cfg.now()
	for n, still := first, 0; n > 0 && still < maxStill; {
		t, err := r.measure(in, n, false)
		if err != nil {
			return err
		}
		r.warmedUp(in, t)
		left := d - r.cfg.now().Sub(start)
		if left <= d/20 {
			return nil
		}
		if t.elapsed > 0 {
			still = 0
		} else {
			still++
		}
		n = min(fill(left, t, n), most)
	}
	return nil
}

// fill is the number of iterations that would last d at the pace of run t,
// to the nearest, growing at most 100x from last (the pace of a short run
// overstates the cost of a long one less than the reverse).
func fill(d time.Duration, t timing, last int64) int64 {
	grown := min(float64(last)*100, maxN)
	if t.elapsed <= 0 {
		return int64(grown)
	}
	return int64(min(math.Round(float64(d)*float64(t.n)/float64(t.elapsed)), grown))
}

// predictN is testing.B's: the n that would fill goalns at the last run's
// pace, multiplied before dividing, plus 20%, growing at most 100x and at
// least by one.
func predictN(goalns, prevIters, prevns, last int64) int64 {
	if prevns == 0 {
		prevns = 1 // round up so that a run too fast to see still grows
	}
	var n int64
	if prevIters > 0 && goalns > math.MaxInt64/prevIters {
		n = int64(float64(goalns) * float64(prevIters) / float64(prevns))
	} else {
		n = goalns * prevIters / prevns
	}
	n += n / 5
	n = min(n, 100*last)
	n = max(n, last+1)
	return min(n, maxN)
}

// timing is what one call of Run observed.
type timing struct {
	n       int64
	elapsed time.Duration
	sample  ops.Sample
	bytes   uint64 // allocated during the run
	allocs  uint64
}

// measure runs n iterations and times them. Before a timed run the
// garbage collector may run (see collector), and the allocation counters
// are read around it, outside the timed region; warm-up and calibration
// runs skip both, which stop the world.
func (r *runner) measure(in *instance, n int64, timed bool) (timing, error) {
	expect := uint64(in.bytesPerOp * float64(n))
	t, err := call(r, in, func(ctx context.Context) (timing, error) {
		var before, after runtime.MemStats
		if timed {
			r.gc.beforeRun(expect, &before)
		}
		start := r.cfg.now()
		s, err := in.op.Run(ctx, n)
		elapsed := r.cfg.now().Sub(start)
		if timed {
			runtime.ReadMemStats(&after)
		}
		if err != nil {
			return timing{}, err
		}
		t := timing{n: n, elapsed: elapsed, sample: s,
			bytes: after.TotalAlloc - before.TotalAlloc, allocs: after.Mallocs - before.Mallocs}
		if s.N > 0 {
			t.n = s.N
		}
		if s.Elapsed > 0 {
			t.elapsed = s.Elapsed
		}
		return t, nil
	}, nil)
	if err == nil && t.n <= 0 {
		err = fmt.Errorf("op did no iterations")
	}
	if err == nil && timed {
		in.bytesPerOp = float64(t.bytes) / float64(t.n)
	}
	return t, err
}

// gcSlack is the garbage below which a collection before a timed run is
// never worth its cost.
const gcSlack = 1 << 20

// collector runs the garbage collector before a timed run when garbage
// could otherwise be collected on the run's time, as testing.B does before
// every run, but not when there is too little garbage for that: a forced
// collection marks the whole live heap, which holds every finished result,
// so collecting before every run makes a suite quadratic in its instances.
type collector struct {
	live atomic.Uint64 // heap in use after the last forced collection
}

// beforeRun collects when the garbage since the last forced collection
// exceeds a quarter of the live heap (and gcSlack), or when the run is
// expected to allocate more than the heap has room for before the next
// collection; either way ms is left describing the heap as the run starts.
func (c *collector) beforeRun(expect uint64, ms *runtime.MemStats) {
	runtime.ReadMemStats(ms)
	live := c.live.Load()
	garbage := ms.HeapAlloc - min(live, ms.HeapAlloc)
	room := ms.NextGC - min(ms.NextGC, ms.HeapAlloc)
	if garbage <= max(gcSlack, live/4) && expect < room {
		return
	}
	runtime.GC()
	runtime.ReadMemStats(ms)
	c.live.Store(ms.HeapAlloc)
}
