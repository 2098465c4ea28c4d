package deploy

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestFleetWorkflow parses examples/ci/fleet.yml and checks that it runs
// each runner type more than once, labels each result with its runner
// type, and compares with the results of one label pooled into a column.
func TestFleetWorkflow(t *testing.T) {
	data, err := os.ReadFile("../examples/ci/fleet.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Needs    any `json:"needs"`
			Strategy struct {
				Matrix map[string][]any `json:"matrix"`
			} `json:"strategy"`
			Steps []struct {
				Name string `json:"name"`
				Run  string `json:"run"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("fleet.yml: %v", err)
	}
	run, compare := wf.Jobs["run"], wf.Jobs["compare"]
	if len(run.Strategy.Matrix["runner"]) < 2 || len(run.Strategy.Matrix["rerun"]) < 2 {
		t.Errorf("the run job's matrix %v wants several runner types, each run more than once", run.Strategy.Matrix)
	}
	var runs, compares []string
	for _, s := range run.Steps {
		if strings.Contains(s.Run, "specrun run") {
			runs = append(runs, s.Run)
		}
	}
	for _, s := range compare.Steps {
		if strings.Contains(s.Run, "specrun compare") {
			compares = append(compares, s.Run)
		}
	}
	if len(runs) != 1 || !strings.Contains(runs[0], `--label "${{ matrix.runner }}"`) || !strings.Contains(runs[0], "${{ matrix.rerun }}") {
		t.Errorf("the run step %q wants each result labelled with its runner type, in a file of its own per rerun", runs)
	}
	if len(compares) != 1 || !strings.Contains(compares[0], "specrun compare --by label") ||
		!strings.Contains(compares[0], "bench/baseline.json fleet/*.json") || !strings.Contains(compares[0], "pipefail") {
		t.Errorf("the compare step %q wants the baseline first, the results of one label pooled, and its exit code kept through tee", compares)
	}
}
