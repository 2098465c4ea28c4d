package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/specrun/specrun/results"
)

func phasesResult(t *testing.T) *results.Result {
	t.Helper()
	r, err := results.ReadFile("testdata/result-phases.json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPhasesGolden: with Phases, every format that draws a result shows
// each benchmark's runs in order, warm-ups first and marked; the HTML
// page always does.
func TestPhasesGolden(t *testing.T) {
	r := phasesResult(t)
	for _, f := range []struct {
		name string
		rep  Reporter
	}{
		{"phases.md", Markdown{Phases: true}},
		{"phases.term", Terminal{Options: Options{Phases: true}}},
		{"phases.svg", SVG{Phases: true}},
		{"phases.html", HTML{}},
	} {
		golden(t, f.name, render(t, f.rep, r))
	}
}

// TestPhasesShowWhatTheMedianHides: the cold first phase and the memory
// that grows are in the per-phase table, and warm-ups are marked.
func TestPhasesShowWhatTheMedianHides(t *testing.T) {
	r := phasesResult(t)
	md := string(render(t, Markdown{Phases: true}, r))
	for _, want := range []string{
		"| Phase | Iterations | Requests/s | p50 (ms) | p99 (ms) | Server CPU/request (ms) | Server RSS (MiB) |",
		"| warm-up 1 | 1 | 41.0 |",
		"| 1 | 1000 | 229 | 38.0 | 120 | 3.90 | 104 |",
		"| 3 | 1000 | 430 | 22.0 | 37.0 | 2.20 | 126 |",
		"null function: time per op stable to 3 digits over 3 runs (CV 0.35%)",
		"| Phase | Iterations | Time per (ns) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Phases section lacks %q:\n%s", want, md)
		}
	}
	if plain := string(render(t, Markdown{}, r)); strings.Contains(plain, "Phases") {
		t.Errorf("without Phases the table has a Phases section")
	}
	// Without warm-ups the phases are the runs alone, numbered from 1.
	for i := range r.Benchmarks {
		r.Benchmarks[i].Warmups = nil
	}
	md = string(render(t, Markdown{Phases: true}, r))
	if strings.Contains(md, "warm-up") || !strings.Contains(md, "| 1 | 1000 | 229 |") {
		t.Errorf("phases without warm-ups:\n%s", md)
	}
}

// TestStableColumn: the stable column says how many digits the runs
// share, and their CV.
func TestStableColumn(t *testing.T) {
	r := phasesResult(t)
	var buf bytes.Buffer
	if err := (Markdown{Columns: []string{"name", "stable"}}).Report(&buf, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| Name | Stable |", "| null function | 3 digits, CV 0.35% |", "| GET / (build B: PyPy) | 0 digits, CV 31% |"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %q in:\n%s", want, buf.String())
		}
	}
}
