package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/specrun/specrun/results"
)

// TestLaunchSummary checks that the Markdown and terminal tables say how a
// benchmark's spread divides between launches and runs, and when the
// launches disagree.
func TestLaunchSummary(t *testing.T) {
	r := &results.Result{Suite: results.Suite{Name: "s"}, Benchmarks: []results.Benchmark{
		{Name: "a", Runs: []results.Run{{NsPerOp: 1, Launch: 1}, {NsPerOp: 1, Launch: 2}},
			Launches: &results.LaunchSplit{Count: 5, Runs: []int{4, 4, 4, 4, 4}, Between: math.Log(1.041), Within: math.Log(1.012),
				ICC: 0.92, F: 30, P: 0.001}},
		{Name: "b", Runs: []results.Run{{NsPerOp: 1}}},
		{Name: "c", Runs: []results.Run{{NsPerOp: 1, Launch: 1}, {NsPerOp: 1, Launch: 2}},
			Launches: &results.LaunchSplit{Count: 2, Runs: []int{1, 2}, Between: 0.02, Within: 0.01, ICC: 0.8, F: 2, P: 0.4}},
	}}
	want := []string{
		"a: 5 launches x 4 runs; between launches 4.1%, within one 1.2%, ICC 0.92, p = 0.001: the launches disagree",
		"c: 2 launches x 1-2 runs; between launches 2%, within one 1%, ICC 0.80, p = 0.40",
	}
	got := LaunchSummary(r)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("LaunchSummary:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, rep := range []Reporter{Markdown{}, Terminal{}} {
		var buf bytes.Buffer
		if err := rep.Report(&buf, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), want[0]) || strings.Contains(buf.String(), "b: ") {
			t.Errorf("%T lacks the launches' split, or names b:\n%s", rep, buf.String())
		}
	}
}

// TestLaunchSpreadHead checks that the ± column of runs spread over
// launches says so, with the level the launches claim.
func TestLaunchSpreadHead(t *testing.T) {
	b := results.Benchmark{Name: "a", Runs: []results.Run{{NsPerOp: 1, Launch: 1}, {NsPerOp: 2, Launch: 2}},
		NsPerOp: results.Summary{Median: 1.5, Interval: results.Interval{Low: 1, High: 2, Confidence: 0.9375, Kind: results.LaunchBootstrap}}}
	r := &results.Result{Suite: results.Suite{Name: "s"}, Benchmarks: []results.Benchmark{b}}
	var buf bytes.Buffer
	if err := (Markdown{}).Report(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "± (over launches, 93%)") || !strings.Contains(buf.String(), "resample the launches") {
		t.Errorf("the table does not say its ± is over launches at 93%%:\n%s", buf.String())
	}
}
