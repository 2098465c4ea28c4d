package runner

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/specrun/specrun/spec"
)

// autoBench is bench with repeat = "auto" and the given budget.
func autoBench(name string, op *testOp, maxRepeat int, maxTime time.Duration) *spec.Benchmark {
	b := bench(name, 100, op)
	b.RepeatAuto, b.MaxRepeat, b.MaxTime, b.Precision = true, maxRepeat, maxTime, spec.DefaultPrecision
	b.Interleave = true
	return b
}

func TestRepeatAutoLooksOnlyAtItsSchedule(t *testing.T) {
	for _, c := range []struct {
		name      string
		settleAt  int // the look at which the settler says enough; 0 never
		wantLooks []int
		wantRuns  int
	}{
		{"settled at the first look", 10, []int{10}, 10},
		{"settled at the third look", 23, []int{10, 15, 23}, 23},
		{"never settled: the budget of runs", 0, []int{10, 15, 23, 35}, 50},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec, clock := &recorder{}, &fakeClock{}
			a := autoBench("m/k=a", &testOp{rec: rec, clock: clock, cost: time.Nanosecond}, 50, time.Hour)
			b := autoBench("m/k=b", &testOp{rec: rec, clock: clock, cost: 2 * time.Nanosecond}, 50, time.Hour)
			var looks []int
			settler := SettlerFunc(func(l Look) bool {
				if diff := cmp.Diff([]string{"m/k=a", "m/k=b"}, l.Group); diff != "" {
					t.Errorf("group (-want +got):\n%s", diff)
				}
				n := len(l.Benchmarks[0].Runs)
				if len(l.Benchmarks[1].Runs) != n {
					t.Errorf("look at %d and %d runs: the group is not interleaved", n, len(l.Benchmarks[1].Runs))
				}
				looks = append(looks, n)
				return n == c.settleAt
			})
			out := Run(context.Background(), plan(a, b), Config{now: clock.now, Settler: settler})
			if diff := cmp.Diff(c.wantLooks, looks); diff != "" {
				t.Errorf("looks (-want +got):\n%s", diff)
			}
			for _, got := range out.Benchmarks {
				if len(got.Runs) != c.wantRuns || got.Interrupted {
					t.Errorf("%s: %d runs (interrupted %v), want %d", got.Name, len(got.Runs), got.Interrupted, c.wantRuns)
				}
			}
		})
	}
}

func TestRepeatAutoStopsWithinMaxTime(t *testing.T) {
	rec, clock := &recorder{}, &fakeClock{}
	// 100 iterations of 10ms: a second a run. Ten runs fit in 12s, fifteen do not.
	a := autoBench("slow", &testOp{rec: rec, clock: clock, cost: 10 * time.Millisecond}, 50, 12*time.Second)
	out := Run(context.Background(), plan(a), Config{now: clock.now, Settler: SettlerFunc(func(Look) bool { return false })})
	if got := len(out.Benchmarks[0].Runs); got != 10 || out.Benchmarks[0].Interrupted {
		t.Errorf("%d runs (interrupted %v), want 10", got, out.Benchmarks[0].Interrupted)
	}
	if diff := cmp.Diff([]string{"slow: stopped after 10 runs: going on to 15 would pass max_time 12s"}, out.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestRepeatAutoStopsWithinTheBudget(t *testing.T) {
	rec, clock := &recorder{}, &fakeClock{}
	a := autoBench("slow", &testOp{rec: rec, clock: clock, cost: 10 * time.Millisecond}, 50, time.Hour)
	out := Run(context.Background(), plan(a), Config{now: clock.now, Budget: 20 * time.Second, Settler: SettlerFunc(func(Look) bool { return false })})
	if got := len(out.Benchmarks[0].Runs); got != 15 {
		t.Errorf("%d runs, want 15 (23 would pass the 20s budget)", got)
	}
}

func TestRepeatAutoWithoutSettlerStopsWhenPrecise(t *testing.T) {
	rec, clock := &recorder{}, &fakeClock{}
	// Every run takes the same time: the median is exact at the first look.
	a := autoBench("steady", &testOp{rec: rec, clock: clock, cost: time.Microsecond}, 50, time.Hour)
	out := Run(context.Background(), plan(a), Config{now: clock.now})
	if got := len(out.Benchmarks[0].Runs); got != 10 {
		t.Errorf("%d runs, want 10", got)
	}
}

func TestRepeatFlagOverridesAuto(t *testing.T) {
	rec, clock := &recorder{}, &fakeClock{}
	a := autoBench("a", &testOp{rec: rec, clock: clock, cost: time.Microsecond}, 50, time.Hour)
	out := Run(context.Background(), plan(a), Config{now: clock.now, Repeat: 4})
	if got := len(out.Benchmarks[0].Runs); got != 4 {
		t.Errorf("%d runs, want 4", got)
	}
}

func TestTogetherInterleavesAcrossBlocks(t *testing.T) {
	rec, clock := &recorder{}, &fakeClock{}
	a := autoBench("a", &testOp{rec: rec, clock: clock, cost: time.Nanosecond}, 50, time.Hour)
	m := bench("middle", 100, &testOp{rec: rec, clock: clock, cost: time.Nanosecond})
	b := autoBench("b", &testOp{rec: rec, clock: clock, cost: time.Nanosecond}, 50, time.Hour)
	a.Interleave, b.Interleave = false, false
	var groups [][]string
	settler := SettlerFunc(func(l Look) bool {
		groups = append(groups, l.Group)
		return true
	})
	out := Run(context.Background(), plan(a, m, b), Config{now: clock.now, Settler: settler, Together: [][]string{{"b", "a"}}})
	if diff := cmp.Diff([][]string{{"a", "b"}}, groups); diff != "" {
		t.Errorf("groups looked at (-want +got):\n%s", diff)
	}
	want := []string{"a:100", "b:100", "a:100", "b:100"}
	if diff := cmp.Diff(want, rec.calls[:4]); diff != "" {
		t.Errorf("first runs (-want +got):\n%s", diff)
	}
	var names []string
	for _, got := range out.Benchmarks {
		names = append(names, got.Name)
	}
	if diff := cmp.Diff([]string{"a", "middle", "b"}, names); diff != "" {
		t.Errorf("benchmarks (-want +got):\n%s", diff)
	}
}
