package results

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/specrun/specrun/metric"
)

// Metrics holds one figure per metric name per instance name:
// m["memcpy/size=16B"]["ns_per_op"], each the median over the instance's runs.
type Metrics map[string]map[string]float64

// Ref is one figure an assertion reads: a metric of an instance of the
// result, or of the baseline.
type Ref struct {
	Instance string // "memcpy/size=16B"
	Metric   string // "requests_per_sec"; empty when the value reads the whole instance
	Baseline bool
}

// Expectation is an assert block as results sees it: bounds, the figures
// it reads, and its value as a function of per-instance metrics.
type Expectation struct {
	Name        string
	Description string
	Min, Max    *float64
	// Threshold is the noise floor, a fraction: a value past a bound by
	// less than Threshold of the bound is never a failure.
	Threshold float64
	Refs      []Ref
	Value     func(cur, base Metrics) (float64, error)
}

// Resamples is how many bootstrap resamples Judge draws per assertion.
const Resamples = 2000

// Judge evaluates expectations against a result's runs and an optional
// baseline (nil when none was given). Each value is computed from the
// medians of the runs; its 95% interval comes from a bootstrap that
// resamples the runs of every referenced instance, seeded from the
// assertion's name so that the same data always gives the same verdict.
//
// An assertion that reads a benchmark run under a Sequential rule (one
// with Looks) is judged at the level of that rule's looks, so that its
// verdict keeps the rule's error rate however early the runs stopped.
func Judge(exps []Expectation, cur, base *Result) []Assertion {
	out := make([]Assertion, 0, len(exps))
	curMed, baseMed := Instances(cur), Instances(base)
	for _, e := range exps {
		looks, runs := lookedAt(e, cur)
		if looks == 0 {
			out = append(out, judge(e, curMed, baseMed, cur, base, Confidence))
			continue
		}
		a := judge(e, curMed, baseMed, cur, base, lookLevel(looks))
		if a.Verdict == Inconclusive && a.Value != nil && a.Interval != nil {
			a.Message = fmt.Sprintf("value %s [%s, %s] after %d runs; %s: the %s interval (%s over %d looks) still straddles it when the budget ended",
				Number(*a.Value), Number(a.Interval.Low), Number(a.Interval.High), runs, bounds(a.Min, a.Max),
				Percent(a.Interval.Confidence), Percent(Confidence), looks)
		}
		out = append(out, a)
	}
	return out
}

// JudgeAt is Judge with bootstrap intervals at the given level instead of
// Confidence, as each look of a Sequential rule needs.
func JudgeAt(exps []Expectation, cur, base *Result, level float64) []Assertion {
	out := make([]Assertion, 0, len(exps))
	curMed, baseMed := Instances(cur), Instances(base)
	for _, e := range exps {
		out = append(out, judge(e, curMed, baseMed, cur, base, level))
	}
	return out
}

// judge is JudgeAt for one expectation, given the medians of every instance.
func judge(e Expectation, curMed, baseMed Metrics, cur, base *Result, level float64) Assertion {
	a := Assertion{Name: e.Name, Description: e.Description, Min: e.Min, Max: e.Max}
	if e.Min == nil && e.Max == nil {
		return judgeError(a, "it has neither min nor max")
	}
	refs, err := resolveRefs(e.Refs, cur, base)
	var skip skipError
	if errors.As(err, &skip) {
		a.Verdict, a.Message = Skip, skip.Error()
		return a
	}
	if err != nil {
		return judgeError(a, "%v", err)
	}
	curMed, baseMed = withStats(refs.instances, curMed, baseMed)
	v, err := e.Value(curMed, baseMed)
	if err != nil {
		return judgeError(a, "%v", err) // the expression's own error names the assertion and the cause
	}
	if err := checkFinite(v); err != nil {
		return judgeError(a, "value %v", err)
	}
	a.Value = &v

	multi, several := false, false
	for _, in := range refs.instances {
		multi = multi || len(in.runs) > 1 && in.resampled()
		several = several || len(in.runs) > 1
	}
	if !multi && len(refs.widened) == 0 {
		// Nothing to resample: the point value decides, and says so.
		var noise string
		a.Verdict, noise = thresholdVerdict(v, v, v, e)
		switch {
		case len(refs.instances) == 0:
			a.Message = "the value reads no benchmark: the point value decides"
		case several:
			a.Message = "the value reads only what no resample moves (first, last, min, max, digits, the trend of two runs): the point value decides"
		default:
			a.Message = "one run per benchmark: the point value decides"
		}
		if a.Verdict == Fail {
			a.Message += "; " + moved(refs.reads, curMed, baseMed)
		}
		if noise != "" {
			a.Message += "; " + noise
		}
		return a
	}

	// A few non-finite resamples (a zero that only some runs report) are
	// left out; more than 2.5% of them would move the interval's ends.
	b := bootstrap(e, refs.instances, curMed, baseMed, level)
	if b.bad > Resamples/40 {
		return judgeError(a, "value is not finite in %d of %d resamples (a division by zero in some runs?)", b.bad, Resamples)
	}
	lo, hi := b.lo, b.hi
	a.Interval = &Interval{Low: lo, High: hi, Confidence: bootstrapLevel(refs.instances, level), Kind: Bootstrap}
	var noise string
	a.Verdict, noise = thresholdVerdict(lo, v, hi, e)
	switch a.Verdict {
	case Fail:
		a.Message = moved(refs.reads, curMed, baseMed)
	case Inconclusive:
		a.Message = "the " + Percent(a.Interval.Confidence) + " interval straddles a bound: rerun with more repeats, or repeat = \"auto\", to decide"
	case Pass:
		a.Message = noise
	}
	if len(refs.widened) > 0 {
		note := "the interval is widened by the spread between launches: " + strings.Join(refs.widened, ", ")
		if a.Message == "" {
			a.Message = note
		} else {
			a.Message += "; " + note
		}
	}
	return a
}

// widenByLaunches sets the shift of each instance of a baseline comparison
// that ran in one launch while the same instance on the other side was
// spread over launches: one process's figures hide the shift that a fresh
// process brings, which the other side's launches measured. An instance
// whose own runs span launches needs no widening: resampling its launches
// already carries that spread.
func widenByLaunches(refs *judgeRefs, cur, base *Result) {
	compares := false
	for _, in := range refs.instances {
		compares = compares || in.baseline
	}
	if !compares {
		return
	}
	for i := range refs.instances {
		in := &refs.instances[i]
		if in.groups != nil {
			continue
		}
		other, side := base, "baseline"
		if in.baseline {
			other, side = cur, "this run"
		}
		ob := findBenchmark(other, in.name)
		if ob == nil || ob.Launches == nil || ob.Launches.Between <= 0 {
			continue
		}
		in.shift = ob.Launches.Between
		what := in.name
		if in.baseline {
			what = "baseline " + in.name
		}
		refs.widened = append(refs.widened, fmt.Sprintf("%s by %s, measured over %d launches by %s", what, spreadPercent(in.shift), ob.Launches.Count, side))
	}
}

// judgeRefs are what an expectation reads: each instance once, with its
// runs' metrics, and each figure once, its metric ns_per_op when the value
// reads the whole instance.
type judgeRefs struct {
	instances []judgeInstance
	reads     []Ref
	// widened says which instances' figures were widened by the spread
	// between launches, and by how much.
	widened []string
}

// judgeInstance is one instance an expectation reads, with its runs'
// metrics: the medians over all of them, and per metric the value reads,
// one column of figures (NaN where a run lacks the metric).
type judgeInstance struct {
	name     string
	baseline bool
	runs     []map[string]float64
	median   map[string]float64
	metrics  []string // what the value reads of it, sorted
	columns  map[string][]float64
	// stats are the METRIC_STAT figures it reads (requests_per_sec_first),
	// each over its metric's column.
	stats map[string]*statColumn
	// groups are the indices of runs by launch, nil for runs of one launch.
	groups [][]int
	// shift is the standard deviation of ln(figure) between launches that
	// the other side of a baseline comparison measured, drawn into each
	// resample of an instance measured in one launch (0 for none).
	shift float64
}

// resolveRefs finds every referenced instance, or says which one cannot be used.
func resolveRefs(refs []Ref, cur, base *Result) (judgeRefs, error) {
	var out judgeRefs
	seen := map[Ref]bool{}
	for _, ref := range refs {
		if ref.Metric == "" {
			ref.Metric = metric.NsPerOp
		}
		if seen[ref] {
			continue
		}
		seen[ref] = true
		out.reads = append(out.reads, ref)
		instance := Ref{Instance: ref.Instance, Baseline: ref.Baseline}
		if seen[instance] {
			continue
		}
		seen[instance] = true
		from, what := cur, "benchmark"
		if ref.Baseline {
			from, what = base, "baseline"
			if base == nil {
				return judgeRefs{}, skipError(fmt.Sprintf("it reads baseline %s but no baseline was given (--baseline FILE)", ref.Instance))
			}
		}
		b := findBenchmark(from, ref.Instance)
		switch {
		case b == nil && ref.Baseline:
			return judgeRefs{}, skipError(fmt.Sprintf("the baseline has no %s (it is new, or the baseline ran another spec)", ref.Instance))
		case b == nil:
			return judgeRefs{}, fmt.Errorf("%s %s is not in the result", what, ref.Instance)
		case b.Error != "":
			return judgeRefs{}, fmt.Errorf("%s %s failed: %s", what, ref.Instance, b.Error)
		case len(b.Runs) == 0:
			return judgeRefs{}, fmt.Errorf("%s %s has no runs", what, ref.Instance)
		}
		out.instances = append(out.instances, judgeInstance{name: ref.Instance, baseline: ref.Baseline, runs: instanceRuns(b),
			groups: launchGroups(b.Runs)})
	}
	widenByLaunches(&out, cur, base)
	for i := range out.instances {
		in := &out.instances[i]
		in.median = medianRuns(in.runs)
		read := map[string]bool{}
		for _, ref := range refs {
			if ref.Instance != in.name || ref.Baseline != in.baseline {
				continue
			}
			if ref.Metric != "" {
				read[ref.Metric] = true
				continue
			}
			for name := range in.median { // the whole instance: every metric it has, and its stats
				read[name] = true
				for _, s := range metric.Stats {
					read[name+"_"+string(s)] = true
				}
			}
		}
		in.columns = map[string][]float64{}
		for name := range read {
			in.metrics = append(in.metrics, name)
			of, stat, isStat := readStat(name, in.runs)
			if !isStat {
				of = name
			}
			col := make([]float64, len(in.runs))
			for j, run := range in.runs {
				v, has := run[of]
				if !has {
					v = math.NaN()
				}
				col[j] = v
			}
			in.columns[name] = col
			if isStat {
				if in.stats == nil {
					in.stats = map[string]*statColumn{}
				}
				in.stats[name] = newStatColumn(stat, col)
			}
		}
		sort.Strings(in.metrics)
	}
	return out, nil
}

// MaxResampledRuns bounds the runs one bootstrap resample draws of an
// instance, so that judging costs at most Resamples x MaxResampledRuns
// draws per instance however many runs a result holds. An instance with
// more runs is resampled m = MaxResampledRuns out of n at a time, and each
// resampled median is moved towards the median of all n runs by sqrt(m/n),
// the factor by which a median's spread shrinks from m runs to n (the
// m-out-of-n bootstrap). Up to MaxResampledRuns runs the bootstrap is the
// ordinary one.
const MaxResampledRuns = 1000

// resampling is what one bootstrap gave: the percentiles of the value that
// bound its central interval at the level asked (2.5th and 97.5th for 95%), how many resamples were not finite, and how many runs were
// drawn in all.
type resampling struct {
	lo, hi float64
	bad    int
	draws  int
}

// bootstrap resamples the runs of every instance the expectation reads and
// evaluates its value on the resampled medians.
func bootstrap(e Expectation, refs []judgeInstance, curMed, baseMed Metrics, level float64) resampling {
	h := fnv.New64a()
	io.WriteString(h, e.Name)
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x5eed))
	// The residuals a trend draws come from a stream of their own, so that
	// reading a trend leaves the runs every other figure draws as they were.
	residuals := rand.New(rand.NewPCG(h.Sum64(), 0x7e4d))

	// Copy the outer maps so resampled instances replace the medians
	// without touching what the caller holds.
	cur, base := copyOuter(curMed), copyOuter(baseMed)
	var out resampling
	vals := make([]float64, 0, Resamples)
	var picked []int
	var buf []float64
	for range Resamples {
		for i := range refs {
			r := &refs[i]
			n := len(r.runs)
			m := min(n, MaxResampledRuns)
			picked = picked[:0]
			if r.groups != nil {
				// Launches, then runs within them; the m-out-of-n shrink
				// does not apply.
				picked = launchResample(rng, r.groups, picked)
				m = n
			} else {
				for range m {
					picked = append(picked, rng.IntN(n))
				}
			}
			out.draws += len(picked)
			shrink := math.Sqrt(float64(m) / float64(n))
			// One draw of a fresh process's shift moves every figure of
			// the instance alike; it is symmetric on the log scale, so a
			// rate and a time spread the same.
			moveBy := 1.0
			if r.shift > 0 {
				moveBy = math.Exp(r.shift * rng.NormFloat64())
			}
			med := make(map[string]float64, len(r.metrics))
			for _, name := range r.metrics {
				if c, ok := r.stats[name]; ok {
					med[name] = c.resample(picked, shrink, residuals, buf)
					continue
				}
				col := r.columns[name]
				buf = buf[:0]
				for _, j := range picked {
					if v := col[j]; !math.IsNaN(v) {
						buf = append(buf, v)
					}
				}
				if len(buf) == 0 {
					continue
				}
				sort.Float64s(buf)
				x := quantileSorted(buf, 0.5)
				switch {
				case r.groups != nil:
					x = r.median[name] + (x-r.median[name])*launchInflation(len(r.groups))
				case m < n:
					x = r.median[name] + (x-r.median[name])*shrink
				}
				med[name] = x * moveBy
			}
			if r.baseline {
				base[r.name] = med
			} else {
				cur[r.name] = med
			}
		}
		v, err := e.Value(cur, base)
		if err != nil || checkFinite(v) != nil {
			out.bad++
			continue
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		out.lo, out.hi = math.NaN(), math.NaN()
		return out
	}
	sort.Float64s(vals)
	tail := (1 - level) / 2
	out.lo, out.hi = quantileSorted(vals, tail), quantileSorted(vals, 1-tail)
	return out
}

// bootstrapLevel is the level a bootstrap interval can claim. The resampled
// medians of n runs take only the runs' own values, and for fewer runs than
// a 95% interval of the median needs they span little more than min..max:
// the interval is then no surer than the range of the instance with the
// fewest runs (75% for three; for one run, which is never resampled, 0).
//
// Runs spread over L launches can claim no more than L runs would.
func bootstrapLevel(instances []judgeInstance, level float64) float64 {
	for _, in := range instances {
		if in.groups != nil {
			level = launchLevel(len(in.groups), level)
			continue
		}
		if n := len(in.runs); n < MinRunsForInterval() {
			level = min(level, 1-2*math.Pow(0.5, float64(n)))
		}
	}
	return level
}

// thresholdVerdict places the interval [lo, hi] around the value v
// against the bounds, with the expectation's noise floor, as Criterion's
// noise threshold: a value past a bound by less than the threshold (a
// fraction of the bound) is never a failure. A failure needs the whole
// interval past the bound and the value past it by more than the
// threshold; an interval that reaches past the bound but not past the
// threshold passes. noise says so when the threshold turned the verdict.
func thresholdVerdict(lo, v, hi float64, e Expectation) (Verdict, string) {
	plain := verdict(lo, hi, e.Min, e.Max)
	if e.Threshold <= 0 || plain == Pass {
		return plain, ""
	}
	widen := func(b *float64, sign float64) *float64 {
		if b == nil {
			return nil
		}
		w := *b + sign*e.Threshold*math.Abs(*b)
		return &w
	}
	wmin, wmax := widen(e.Min, -1), widen(e.Max, +1)
	var quiet bool
	if plain == Fail {
		quiet = verdict(v, v, wmin, wmax) == Pass
	} else {
		quiet = verdict(lo, hi, wmin, wmax) == Pass
	}
	if !quiet {
		return plain, ""
	}
	bound, what := e.Max, "max"
	if e.Min != nil && lo < *e.Min {
		bound, what = e.Min, "min"
	}
	return Pass, fmt.Sprintf("within the noise threshold: %s is past %s %s by less than %s of it",
		Number(v), what, Number(*bound), Number(100*e.Threshold)+"%")
}

// verdict places the interval [lo, hi] against the bounds.
func verdict(lo, hi float64, min, max *float64) Verdict {
	if (min != nil && hi < *min) || (max != nil && lo > *max) {
		return Fail
	}
	if (min != nil && lo < *min) || (max != nil && hi > *max) {
		return Inconclusive
	}
	return Pass
}

// moved explains a failure in the figures the value reads: the one that
// changed most against the baseline, or, without one, the figures read.
func moved(reads []Ref, curMed, baseMed Metrics) string {
	type change struct {
		ref      Ref
		old, new float64
	}
	var best *change
	for _, r := range reads {
		if r.Baseline {
			continue
		}
		old, ok := baseMed[r.Instance][r.Metric]
		if !ok {
			continue
		}
		c := change{r, old, curMed[r.Instance][r.Metric]}
		if best == nil || math.Abs(math.Log(c.new/c.old)) > math.Abs(math.Log(best.new/best.old)) {
			best = &c
		}
	}
	if best != nil && best.old > 0 && math.Abs(best.new/best.old-1) >= 0.005 {
		return fmt.Sprintf("%s moved %+.1f%% against the baseline (%s -> %s)",
			best.ref.Instance, 100*(best.new/best.old-1), Number(best.old), figure(best.new, best.ref.Metric))
	}
	var parts []string
	for _, r := range reads {
		m, name := curMed, r.Instance
		if r.Baseline {
			m, name = baseMed, "baseline:"+r.Instance
		}
		parts = append(parts, name+" "+figure(m[r.Instance][r.Metric], r.Metric))
	}
	if len(parts) == 0 {
		return "the value reads no benchmark"
	}
	read := "it read " + strings.Join(parts, ", ")
	if best != nil {
		return "no benchmark it reads moved against the baseline; " + read
	}
	return read
}

// figure is a value with its metric: "5.1 ns/op", "2427 requests_per_sec".
func figure(v float64, name string) string {
	if name == metric.NsPerOp {
		return Number(v) + " ns/op"
	}
	return Number(v) + " " + name
}

// skipError is why an assertion cannot be judged for want of a baseline.
type skipError string

func (e skipError) Error() string { return string(e) }

func judgeError(a Assertion, format string, args ...any) Assertion {
	a.Verdict = Error
	a.Message = fmt.Sprintf(format, args...)
	return a
}

// checkFinite reports a NaN or infinite value as an error.
func checkFinite(v float64) error {
	switch {
	case math.IsNaN(v):
		return errors.New("is NaN (0/0 or a missing metric?)")
	case math.IsInf(v, 0):
		return fmt.Errorf("is %v (a division by zero?)", v)
	}
	return nil
}

// Instances returns each instance's metrics: ns_per_op, ops_per_sec,
// bytes_per_sec (when the op moves a "size" of bytes, or reports it) and
// every op metric, each the median over the instance's runs. Instances that
// failed or have no runs are left out.
func Instances(r *Result) Metrics {
	out := Metrics{}
	if r == nil {
		return out
	}
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		if b.Error != "" || len(b.Runs) == 0 {
			continue
		}
		out[b.Name] = medianRuns(instanceRuns(b))
	}
	return out
}

// instanceRuns returns one metrics map per run of b.
func instanceRuns(b *Benchmark) []map[string]float64 {
	size, _ := b.ParamNumber("size")
	runs := make([]map[string]float64, 0, len(b.Runs))
	for _, run := range b.Runs {
		m := make(map[string]float64, len(run.Metrics)+3)
		m[metric.NsPerOp] = run.NsPerOp
		if _, recorded := run.Metrics[metric.OpsPerSec]; !recorded {
			// A run recorded without its rates (written by hand, or
			// before the runner recorded them) gets them as the runner does.
			metric.Derive(m, run.NsPerOp, size)
		}
		for k, v := range run.Metrics {
			m[k] = v
		}
		runs = append(runs, m)
	}
	return runs
}

func copyOuter(m Metrics) Metrics {
	out := make(Metrics, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// findBenchmark returns the instance named name, or nil.
func findBenchmark(r *Result, name string) *Benchmark {
	if r == nil {
		return nil
	}
	for i := range r.Benchmarks {
		if r.Benchmarks[i].Name == name {
			return &r.Benchmarks[i]
		}
	}
	return nil
}
