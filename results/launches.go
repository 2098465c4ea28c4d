package results

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// LaunchBootstrap is the interval of a median over runs spread across
// launches (fresh specrun processes): the percentiles of the median over
// resamples that draw launches with replacement, then runs with
// replacement within each launch drawn (Kalibera and Jones's hierarchical
// resampling), so that it carries the spread between processes as well as
// between runs.
const LaunchBootstrap IntervalKind = "launch_bootstrap"

// LaunchSplit is how the spread of a benchmark's time per op divides
// between launches and runs, from a one-way random-effects analysis of
// variance of ln(ns/op) with the launch as the group. On the log scale a
// standard deviation reads as a relative spread: 0.05 is about 5%.
type LaunchSplit struct {
	Count   int       `json:"count"`   // launches with runs
	Runs    []int     `json:"runs"`    // per launch, in launch order
	Medians []float64 `json:"medians"` // each launch's median ns/op
	// Between is the standard deviation of ln(ns/op) between launches
	// (the square root of the between-launch variance component), and
	// Within that between runs of one launch.
	Between float64 `json:"between"`
	Within  float64 `json:"within"`
	// ICC is the share of the variance that lies between launches,
	// Between² / (Between² + Within²).
	ICC float64 `json:"icc"`
	// F is the ratio of the mean squares between and within launches, and
	// P its p-value by permutation of the runs over the launches; both 0
	// when no launch has two runs.
	F float64 `json:"f"`
	P float64 `json:"p"`
	// Warnings say when the launches disagree.
	Warnings []string `json:"warnings,omitempty"`
}

// DisagreeP is the p-value of F under which the launches of a benchmark
// are said to disagree. It is below the usual 5% because a suite tests
// every benchmark: one in twenty would warn by chance alone.
const DisagreeP = 0.01

// launchPermutations is how many permutations test F.
const launchPermutations = 999

// launchGroups returns the indices of runs by launch, in launch order, or
// nil when the runs come from fewer than two launches.
func launchGroups(runs []Run) [][]int {
	byLaunch := map[int][]int{}
	for i, r := range runs {
		byLaunch[r.Launch] = append(byLaunch[r.Launch], i)
	}
	if len(byLaunch) < 2 {
		return nil
	}
	keys := make([]int, 0, len(byLaunch))
	for k := range byLaunch {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	groups := make([][]int, len(keys))
	for i, k := range keys {
		groups[i] = byLaunch[k]
	}
	return groups
}

// launchLevel is the level an interval from L launches can claim: all L
// launches fall on one side of the median of launches with probability
// 2 x 0.5^L, as the range of L runs does, so no resampling of them can
// claim more (93% for five launches).
func launchLevel(launches int, level float64) float64 {
	return min(level, 1-2*math.Pow(0.5, float64(launches)))
}

// launchResample draws one hierarchical resample of groups: as many
// launches as there are, with replacement, then of each launch drawn as
// many of its runs as it has, with replacement. It appends the indices
// drawn to picked.
func launchResample(rng *rand.Rand, groups [][]int, picked []int) []int {
	for range groups {
		g := groups[rng.IntN(len(groups))]
		for range g {
			picked = append(picked, g[rng.IntN(len(g))])
		}
	}
	return picked
}

// launchInflation is the factor by which resampled medians are moved away
// from the median of all runs: resampling L launches spreads their mean by
// (L-1)/L of its variance, which for few launches makes the interval too
// narrow; sqrt(L/(L-1)) gives it back.
func launchInflation(launches int) float64 {
	return math.Sqrt(float64(launches) / float64(launches-1))
}

// launchInterval is the LaunchBootstrap interval of the median of values,
// whose indices groups divides into launches.
func launchInterval(values []float64, groups [][]int, seed uint64) Interval {
	return launchIntervalOf(values, groups, seed, Resamples)
}

// launchIntervalOf is launchInterval from the given number of resamples.
func launchIntervalOf(values []float64, groups [][]int, seed uint64, resamples int) Interval {
	rng := rand.New(rand.NewPCG(seed, 0x1a0c))
	center, inflate := Median(values), launchInflation(len(groups))
	meds := make([]float64, 0, resamples)
	var picked []int
	var buf []float64
	for range resamples {
		picked = launchResample(rng, groups, picked[:0])
		buf = buf[:0]
		for _, j := range picked {
			buf = append(buf, values[j])
		}
		sort.Float64s(buf)
		meds = append(meds, center+(quantileSorted(buf, 0.5)-center)*inflate)
	}
	sort.Float64s(meds)
	tail := (1 - Confidence) / 2
	return Interval{Low: quantileSorted(meds, tail), High: quantileSorted(meds, 1-tail),
		Confidence: launchLevel(len(groups), Confidence), Kind: LaunchBootstrap}
}

// seedOf is a seed that depends on values alone, so that a summary is the
// same however often it is made.
func seedOf(values []float64) uint64 {
	h := fnv.New64a()
	for _, v := range values {
		bits := math.Float64bits(v)
		var b [8]byte
		for i := range b {
			b[i] = byte(bits >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// launchSummary replaces the interval of s, the Summary of values, by its
// LaunchBootstrap interval when groups spreads values over launches.
func launchSummary(s Summary, values []float64, groups [][]int) Summary {
	if groups == nil {
		return s
	}
	s.Interval = launchInterval(values, groups, seedOf(values))
	s.Warnings = nil // the range's warning no longer applies
	if s.Interval.Confidence < Confidence {
		s.Warnings = []string{fmt.Sprintf("%d launches give no %v%% interval of the median; the interval over launches is a %s interval",
			len(groups), 100*Confidence, Percent(s.Interval.Confidence))}
	}
	return s
}

// SplitLaunches is the LaunchSplit of runs, or nil when they come from
// fewer than two launches. name is the benchmark's, for its warnings.
func SplitLaunches(name string, runs []Run) *LaunchSplit {
	groups := launchGroups(runs)
	if groups == nil {
		return nil
	}
	ys := make([]float64, len(runs))
	for i, r := range runs {
		ys[i] = math.Log(r.NsPerOp)
		if !finite(ys[i]) {
			return nil // a run of no time or no iterations: nothing to split
		}
	}
	s := &LaunchSplit{Count: len(groups)}
	for _, g := range groups {
		s.Runs = append(s.Runs, len(g))
		ns := make([]float64, len(g))
		for i, j := range g {
			ns[i] = runs[j].NsPerOp
		}
		s.Medians = append(s.Medians, Median(ns))
	}
	a := anova(ys, groups)
	s.Between, s.Within = math.Sqrt(a.between), math.Sqrt(a.within)
	if total := a.between + a.within; total > 0 {
		s.ICC = a.between / total
	}
	if a.dfWithin > 0 && a.msWithin > 0 {
		s.F = a.msBetween / a.msWithin
		s.P = permutationP(ys, groups, s.F, seedOf(ys))
	}
	if a.dfWithin > 0 && s.P > 0 && s.P < DisagreeP {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: the launches disagree: between launches its time per op spreads %s, within a launch %s (ICC %.2f, F = %.1f, p = %.3f by permutation); "+
			"the process it runs in moves it", name, spreadPercent(s.Between), spreadPercent(s.Within), s.ICC, s.F, s.P))
	}
	if out := outlyingLaunches(runs, groups); len(out) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s", name, strings.Join(out, "; ")))
	}
	return s
}

// spreadPercent writes a standard deviation of a logarithm as the relative
// spread it is close to: "4.1%".
func spreadPercent(sd float64) string {
	return Number(100*(math.Exp(sd)-1)) + "%"
}

// anovaFit holds a one-way random-effects analysis of variance.
type anovaFit struct {
	msBetween, msWithin float64
	dfWithin            int
	between, within     float64 // the variance components
}

// anova estimates the variance components of ys between and within the
// groups by the method of moments (ANOVA estimators), with n0 the
// effective group size of unbalanced groups. With one value per group the
// within component is unknown, and all of the variance is put between.
func anova(ys []float64, groups [][]int) anovaFit {
	var grand float64
	for _, y := range ys {
		grand += y
	}
	n := float64(len(ys))
	grand /= n
	var ssb, ssw, sumSq float64
	for _, g := range groups {
		var mean float64
		for _, j := range g {
			mean += ys[j]
		}
		mean /= float64(len(g))
		ssb += float64(len(g)) * (mean - grand) * (mean - grand)
		for _, j := range g {
			ssw += (ys[j] - mean) * (ys[j] - mean)
		}
		sumSq += float64(len(g) * len(g))
	}
	a := float64(len(groups))
	fit := anovaFit{msBetween: ssb / (a - 1), dfWithin: len(ys) - len(groups)}
	if fit.dfWithin == 0 {
		fit.between = fit.msBetween
		return fit
	}
	fit.msWithin = ssw / float64(fit.dfWithin)
	n0 := (n - sumSq/n) / (a - 1)
	fit.within = fit.msWithin
	fit.between = max(0, (fit.msBetween-fit.msWithin)/n0)
	return fit
}

// permutationP is the p-value of the observed F: the share of
// permutations of ys over the groups (sizes kept) whose F is as large.
func permutationP(ys []float64, groups [][]int, observed float64, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 0xf00d))
	perm := slices.Clone(ys)
	as := 0
	for range launchPermutations {
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		a := anova(perm, groups)
		if a.msWithin > 0 && a.msBetween/a.msWithin >= observed*(1-1e-12) {
			as++
		}
	}
	return float64(as+1) / float64(launchPermutations+1)
}

// outlyingLaunches names each launch whose median lies outside the
// LaunchBootstrap interval of the other launches' runs. It needs five
// launches at least, so that the other four still make an 87% interval.
func outlyingLaunches(runs []Run, groups [][]int) []string {
	if len(groups) < 5 {
		return nil
	}
	var out []string
	for i, g := range groups {
		var values []float64
		var others [][]int
		for k, h := range groups {
			if k == i {
				continue
			}
			idx := make([]int, len(h))
			for m, j := range h {
				idx[m] = len(values)
				values = append(values, runs[j].NsPerOp)
			}
			others = append(others, idx)
		}
		own := make([]float64, len(g))
		for m, j := range g {
			own[m] = runs[j].NsPerOp
		}
		med := Median(own)
		// A warning needs no more resamples than these to place its ends.
		in := launchIntervalOf(values, others, seedOf(values), Resamples/4)
		if med < in.Low || med > in.High {
			out = append(out, fmt.Sprintf("launch %d's median %s ns/op is outside the %s interval [%s, %s] of the other launches",
				runs[g[0]].Launch, Number(med), Percent(in.Confidence), Number(in.Low), Number(in.High)))
		}
	}
	return out
}

// MergeLaunches makes one benchmark of the parts that launches ran of it,
// parts[k] from launch k+1: its runs are theirs, in launch order, each
// tagged with its launch (and so are their warm-ups), summarised over launches (a LaunchBootstrap
// interval) and split into the spread between and within launches.
func MergeLaunches(parts []Benchmark) Benchmark {
	out := parts[0]
	out.Runs, out.Warmups = []Run{}, nil
	var errs []string
	for k, p := range parts {
		for _, r := range p.Runs {
			r.Launch = k + 1
			out.Runs = append(out.Runs, r)
		}
		for _, r := range p.Warmups {
			r.Launch = k + 1
			out.Warmups = append(out.Warmups, r)
		}
		if p.Error != "" {
			errs = append(errs, fmt.Sprintf("launch %d: %s", k+1, p.Error))
		}
		out.Interrupted = out.Interrupted || p.Interrupted
		out.Iterations = max(out.Iterations, p.Iterations)
		for _, c := range p.ContaminatedBy {
			if !slices.Contains(out.ContaminatedBy, c) {
				out.ContaminatedBy = append(out.ContaminatedBy, c)
			}
		}
	}
	out.Error = strings.Join(errs, "; ")
	out.NsPerOp, out.Metrics, out.Launches = Summary{}, nil, nil
	if len(out.Runs) > 0 {
		out.NsPerOp, out.Metrics = SummarizeRuns(out.Runs)
		out.Launches = SplitLaunches(out.Name, out.Runs)
	}
	return out
}
