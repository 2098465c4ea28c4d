package results

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSequentialLooks(t *testing.T) {
	for _, c := range []struct {
		rule  Sequential
		looks []int
		level float64
	}{
		{Sequential{}, []int{10, 15, 23, 35, 50}, 0.99},
		{Sequential{Min: 10, Max: 10}, []int{10}, 0.95},
		{Sequential{Min: 10, Max: 12}, []int{10, 12}, 0.975},
		{Sequential{Min: 10, Max: 200}, []int{10, 15, 23, 35, 53, 80, 120, 180, 200}, 1 - 0.05/9},
		{Sequential{Min: 20, Max: 5}, []int{20}, 0.95}, // Max is never below Min
	} {
		if diff := cmp.Diff(c.looks, c.rule.Looks()); diff != "" {
			t.Errorf("%+v: looks (-want +got):\n%s", c.rule, diff)
		}
		if got := c.rule.Level(); math.Abs(got-c.level) > 1e-12 {
			t.Errorf("%+v: level %v, want %v", c.rule, got, c.level)
		}
	}
	rule := Sequential{}
	for runs, next := range map[int]int{0: 10, 9: 10, 10: 15, 34: 35, 35: 50, 50: 0} {
		if got := rule.NextLook(runs); got != next {
			t.Errorf("NextLook(%d) = %d, want %d", runs, got, next)
		}
	}
}

// lognormal returns n runs of a log-normal op with median med and the
// given coefficient of variation.
func lognormal(rng *rand.Rand, n int, med, cv float64) []float64 {
	sigma := math.Sqrt(math.Log(1 + cv*cv))
	out := make([]float64, n)
	for i := range out {
		out[i] = med * math.Exp(sigma*rng.NormFloat64())
	}
	return out
}

// against is an expectation that cur[x] is at most max times baseline[x].
func against(x string, max float64) Expectation {
	return Expectation{
		Name: "slower", Max: &max,
		Refs: []Ref{{Instance: x, Metric: "ns_per_op"}, {Instance: x, Metric: "ns_per_op", Baseline: true}},
		Value: func(cur, base Metrics) (float64, error) {
			return cur[x]["ns_per_op"] / base[x]["ns_per_op"], nil
		},
	}
}

func TestSequentialSettled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := synthetic(map[string][]float64{"x": lognormal(rng, 50, 100, 0.01)})
	same := synthetic(map[string][]float64{"x": lognormal(rng, 10, 100, 0.01)})
	far := synthetic(map[string][]float64{"x": lognormal(rng, 10, 150, 0.01)})
	near := synthetic(map[string][]float64{"x": lognormal(rng, 10, 105, 0.05)})
	noisy := synthetic(map[string][]float64{"x": lognormal(rng, 10, 100, 0.3)})
	exp := []Expectation{against("x", 1.05)}
	rule := Sequential{}
	for _, c := range []struct {
		name string
		cur  *Result
		exps []Expectation
		want bool
	}{
		{"an unchanged op passes and is precise", same, exp, true},
		{"a 50% slowdown fails at once", far, exp, true},
		{"a change at the bound is undecided", near, exp, false},
		{"an imprecise median runs on", noisy, nil, false},
		{"an assertion on other instances does not hold it", same, []Expectation{against("y", 1.05)}, true},
	} {
		if got := rule.Settled(c.exps, c.cur, base, []string{"x"}); got != c.want {
			t.Errorf("%s: settled %v, want %v", c.name, got, c.want)
		}
	}
}

func TestJudgeAtTheLevelOfTheLooks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := synthetic(map[string][]float64{"x": lognormal(rng, 50, 100, 0.05)})
	cur := synthetic(map[string][]float64{"x": lognormal(rng, 50, 105, 0.05)})
	fixed := Judge([]Expectation{against("x", 1.05)}, cur, base)[0]
	cur.Benchmarks[0].Looks = Sequential{}.Looks()
	got := Judge([]Expectation{against("x", 1.05)}, cur, base)[0]
	if fixed.Interval.Confidence != 0.95 || got.Interval.Confidence != 0.99 {
		t.Fatalf("levels %v and %v, want 0.95 without looks and 0.99 with five", fixed.Interval.Confidence, got.Interval.Confidence)
	}
	if !(got.Interval.Low < fixed.Interval.Low && got.Interval.High > fixed.Interval.High) {
		t.Errorf("the 99%% interval %+v is not wider than the 95%% one %+v", *got.Interval, *fixed.Interval)
	}
	if got.Verdict != Inconclusive {
		t.Fatalf("verdict %s, want inconclusive: %s", got.Verdict, got.Message)
	}
	for _, want := range []string{"value 1.0", "after 50 runs; bound max 1.05: the 99% interval (95% over 5 looks) still straddles it when the budget ended"} {
		if !strings.Contains(got.Message, want) {
			t.Errorf("message %q lacks %q", got.Message, want)
		}
	}
}
