package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/specrun/specrun/spec"
)

// inProcess is a Launcher that runs each launch's part of plan in this
// process, as the worker process does, and logs the launches.
type inProcess struct {
	plan     *spec.Plan
	clock    *fakeClock
	launches []Launch
	fail     int // the launch that fails, 0 for none
}

func (p *inProcess) Launch(ctx context.Context, l Launch) (Outcome, error) {
	p.launches = append(p.launches, l)
	if l.Index == p.fail {
		return Outcome{}, errors.New("worker exited 1")
	}
	out := Run(ctx, LaunchPlan(p.plan, l), Config{now: p.clock.now})
	out.Warnings = append(out.Warnings, "a warning")
	return out, nil
}

// TestLaunchesSpreadRuns checks that each launch runs its share of the
// runs of the benchmarks that have launches, that the rest run in this
// process, and that the parts merge into one benchmark whose runs carry
// their launch.
func TestLaunchesSpreadRuns(t *testing.T) {
	rec := &recorder{}
	clock := &fakeClock{}
	a := bench("a", 10, &testOp{rec: rec, clock: clock, cost: time.Microsecond})
	a.Repeat, a.Launches = 7, 3
	b := bench("b", 10, &testOp{rec: rec, clock: clock, cost: time.Microsecond})
	b.Repeat, b.Launches = 4, 2
	local := bench("local", 10, &testOp{rec: rec, clock: clock, cost: time.Microsecond})
	p := plan(a, local, b)
	l := &inProcess{plan: p, clock: clock}
	out := Run(context.Background(), p, Config{Launcher: l, now: clock.now})

	want := []Launch{
		{Index: 1, Count: 3, Runs: map[string]int{"a": 2, "b": 2}},
		{Index: 2, Count: 3, Runs: map[string]int{"a": 2, "b": 2}},
		{Index: 3, Count: 3, Runs: map[string]int{"a": 3}},
	}
	if diff := cmp.Diff(want, l.launches); diff != "" {
		t.Errorf("launches (-want +got):\n%s", diff)
	}
	var names []string
	for _, bm := range out.Benchmarks {
		names = append(names, bm.Name)
	}
	if diff := cmp.Diff([]string{"a", "local", "b"}, names); diff != "" {
		t.Errorf("benchmarks in plan order (-want +got):\n%s", diff)
	}
	var tags []int
	for _, run := range out.Benchmarks[0].Runs {
		tags = append(tags, run.Launch)
	}
	if want := []int{1, 1, 2, 2, 3, 3, 3}; !slices.Equal(tags, want) {
		t.Errorf("a's runs come from launches %v, want %v", tags, want)
	}
	if out.Benchmarks[0].Launches == nil || out.Benchmarks[0].Launches.Count != 3 {
		t.Errorf("a's split %+v, want 3 launches", out.Benchmarks[0].Launches)
	}
	if got := out.Benchmarks[1]; len(got.Runs) != 2 || got.Launches != nil || got.Runs[0].Launch != 0 {
		t.Errorf("local: %d runs, split %+v; want 2 runs in this process", len(got.Runs), got.Launches)
	}
	if !slices.Contains(out.Warnings, "launch 2: a warning") {
		t.Errorf("warnings %q lack the launches'", out.Warnings)
	}
}

// TestLaunchFails checks that a launch that fails fails the benchmarks it
// ran a part of, naming the launch, and that the others go on.
func TestLaunchFails(t *testing.T) {
	rec := &recorder{}
	clock := &fakeClock{}
	a := bench("a", 10, &testOp{rec: rec, clock: clock, cost: time.Microsecond})
	a.Repeat, a.Launches = 3, 3
	p := plan(a)
	l := &inProcess{plan: p, clock: clock, fail: 2}
	out := Run(context.Background(), p, Config{Launcher: l, now: clock.now})
	got := out.Benchmarks[0]
	if len(l.launches) != 3 || len(got.Runs) != 2 || !strings.Contains(got.Error, "launch 2: worker exited 1") {
		t.Errorf("%d launches, %d runs, error %q; want 3, 2, launch 2's", len(l.launches), len(got.Runs), got.Error)
	}
}

// TestLaunchesOverride checks --launches: it spreads benchmarks that load
// no server, and is refused where a benchmark has too few runs.
func TestLaunchesOverride(t *testing.T) {
	a := bench("a", 10, &testOp{})
	a.Repeat = 4
	web := bench("web", 10, &testOp{})
	web.Servers = []string{"app"}
	cfg := Config{Launches: 4}
	if LaunchesOf(a, cfg) != 4 || LaunchesOf(web, cfg) != 1 {
		t.Errorf("launches a %d, web %d; want 4, 1", LaunchesOf(a, cfg), LaunchesOf(web, cfg))
	}
	if err := CheckLaunches(plan(a, web), cfg); err != nil {
		t.Errorf("4 runs over 4 launches: %v", err)
	}
	cfg.Launches = 5
	if err := CheckLaunches(plan(a, web), cfg); err == nil || !strings.Contains(err.Error(), "a: 5 launches need 5 runs at least") {
		t.Errorf("4 runs over 5 launches: %v", err)
	}
	a.RepeatAuto = true
	if err := CheckLaunches(plan(a), cfg); err == nil || !strings.Contains(err.Error(), "repeat = \"auto\"") {
		t.Errorf("repeat auto over launches: %v", err)
	}
}

// TestLaunchesObserved checks that the Observer hears of launched
// benchmarks: each starts after the ones of this process, its runs are
// counted as each launch ends, and it is done after the last.
func TestLaunchesObserved(t *testing.T) {
	rec := &recorder{}
	clock := &fakeClock{}
	a := bench("a", 10, &testOp{rec: rec, clock: clock, cost: time.Microsecond})
	a.Repeat, a.Launches = 3, 2
	local := bench("local", 10, &testOp{rec: rec, clock: clock, cost: time.Microsecond})
	local.Repeat = 1
	p := plan(a, local)
	o := &observed{}
	Run(context.Background(), p, Config{Launcher: &inProcess{plan: p, clock: clock}, Observer: o, now: clock.now})
	want := []string{"start local 1/2", "run local 1/1", "done local ok",
		"start a 2/2", "run a 1/3", "run a 3/3", "done a ok"}
	if diff := cmp.Diff(want, o.events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
