package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/specrun/specrun/results"
)

// commands is a stored result of exec benchmarks (a matrix, and one with
// a label running a shell command line) and a memcpy.
func commands(t *testing.T) *results.Result {
	t.Helper()
	r, err := results.ReadFile("testdata/result-exec.json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func decodeHyperfine(t *testing.T, what string, data []byte) hyperfineExport {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc hyperfineExport
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s does not decode as hyperfine's export: %v\n%s", what, err, data)
	}
	return doc
}

func TestHyperfineGolden(t *testing.T) {
	r := commands(t)
	var notes bytes.Buffer
	out := render(t, Hyperfine{Notes: &notes}, r)
	golden(t, "report-exec.hyperfine.json", out)
	if got, want := notes.String(), "hyperfine-json: left out what is not an exec benchmark: copy\n"; got != want {
		t.Errorf("notes = %q, want %q", got, want)
	}
	doc := decodeHyperfine(t, "specrun's export", out)
	var exec []*results.Benchmark
	for i := range r.Benchmarks {
		if r.Benchmarks[i].Op == "exec" {
			exec = append(exec, &r.Benchmarks[i])
		}
	}
	if len(doc.Results) != len(exec) {
		t.Fatalf("%d results, want one per exec benchmark (%d)", len(doc.Results), len(exec))
	}
	for i, e := range doc.Results {
		b := exec[i]
		if len(e.Times) != len(b.Runs) || len(e.ExitCodes) != len(b.Runs) {
			t.Errorf("%s: %d times and %d exit codes, want one per run (%d)", b.Name, len(e.Times), len(e.ExitCodes), len(b.Runs))
			continue
		}
		for k, run := range b.Runs {
			if e.Times[k] != run.NsPerOp/1e9 {
				t.Errorf("%s: times[%d] = %v s, want the run's %v ns", b.Name, k, e.Times[k], run.NsPerOp)
			}
		}
		sorted := slices.Sorted(slices.Values(e.Times))
		if e.Min != sorted[0] || e.Max != sorted[len(sorted)-1] || e.Median < e.Min || e.Median > e.Max || e.Mean < e.Min || e.Mean > e.Max {
			t.Errorf("%s: min %v, median %v, mean %v, max %v do not fit its times %v", b.Name, e.Min, e.Median, e.Mean, e.Max, e.Times)
		}
		if e.Stddev == nil || *e.Stddev <= 0 {
			t.Errorf("%s: stddev %v, want the spread of %d executions", b.Name, e.Stddev, len(b.Runs)*int(b.Iterations))
		}
		if e.User <= 0 || e.User != b.Metrics["user_ns"].Mean/1e9 || e.System != b.Metrics["sys_ns"].Mean/1e9 {
			t.Errorf("%s: user %v, system %v, want the mean user_ns and sys_ns in seconds", b.Name, e.User, e.System)
		}
	}
	if got := doc.Results[0]; got.Command != "/bin/true" || got.Parameters["cmd"] != "true" {
		t.Errorf("first = %q %v, want the command line and its matrix point", got.Command, got.Parameters)
	}
	if got := doc.Results[2]; got.Command != "two trues" || got.Parameters != nil {
		t.Errorf("named = %q %v, want its label and no parameters", got.Command, got.Parameters)
	}
}

// A result with no exec benchmark has nothing hyperfine's schema holds.
func TestHyperfineNeedsExec(t *testing.T) {
	err := Hyperfine{}.Report(&bytes.Buffer{}, tiger(t))
	if err == nil || !strings.Contains(err.Error(), "no measured exec benchmark") {
		t.Errorf("Report(tiger) = %v, want an error saying there is no exec benchmark", err)
	}
}

// stddev is of the executions, pooled from each run's mean and spread,
// as hyperfine's σ is of every execution.
func TestHyperfineStddevOfExecutions(t *testing.T) {
	run := func(mean, sd float64) results.Run {
		return results.Run{Iterations: 2, NsPerOp: mean, Metrics: map[string]float64{"wall_stddev_ns": sd}}
	}
	// executions 1, 3 and 5, 7
	b := &results.Benchmark{Runs: []results.Run{run(2, math.Sqrt2), run(6, math.Sqrt2)}}
	if got, ok := executionStddev(b); !ok || math.Abs(got-math.Sqrt(20.0/3)) > 1e-12 {
		t.Errorf("stddev = %v, %v, want that of 1, 3, 5, 7: %v", got, ok, math.Sqrt(20.0/3))
	}
	one := &results.Benchmark{Runs: []results.Run{{Iterations: 1, NsPerOp: 5, Metrics: map[string]float64{"wall_stddev_ns": 0}}}}
	if _, ok := executionStddev(one); ok {
		t.Errorf("one execution has a stddev; hyperfine writes null")
	}
}

// hyperfine's own --export-json decodes into the struct specrun's does,
// with no field unknown, and every entry of each has the same fields with
// values of the same JSON kinds.
func TestHyperfineSchemaIsHyperfines(t *testing.T) {
	bin, err := exec.LookPath("hyperfine")
	if err != nil {
		t.Skip("hyperfine is not installed (.ci/run installs it): its export cannot be compared")
	}
	dir := t.TempDir()
	plain, scan := filepath.Join(dir, "plain.json"), filepath.Join(dir, "scan.json")
	for _, args := range [][]string{
		{"-N", "--runs", "3", "--export-json", plain, "/bin/true"},
		{"-N", "--runs", "3", "-L", "cmd", "true,false", "-i", "--export-json", scan, "/bin/{cmd}"},
	} {
		cmd := exec.Command(bin, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hyperfine %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ours := render(t, Hyperfine{}, commands(t))
	decodeHyperfine(t, "specrun's export", ours)
	shapes := func(what string, data []byte) []map[string]string {
		t.Helper()
		decodeHyperfine(t, what, data)
		var doc struct{ Results []map[string]json.RawMessage }
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		var out []map[string]string
		for _, e := range doc.Results {
			kinds := map[string]string{}
			for k, v := range e {
				kinds[k] = jsonKind(v)
			}
			out = append(out, kinds)
		}
		return out
	}
	var theirs [][]map[string]string
	for _, path := range []string{plain, scan} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		theirs = append(theirs, shapes(path, data))
	}
	mine := shapes("specrun's export", ours)
	// hyperfine's /bin/true against the named shell command, its scan
	// against the matrix instance.
	for _, pair := range []struct{ theirs, mine map[string]string }{{theirs[0][0], mine[2]}, {theirs[1][0], mine[0]}} {
		if !equalKinds(pair.theirs, pair.mine) {
			t.Errorf("fields differ:\nhyperfine %v\nspecrun   %v", pair.theirs, pair.mine)
		}
	}
}

// jsonKind is the kind of a JSON value: number, string, array of a kind,
// object of a kind.
func jsonKind(v json.RawMessage) string {
	var x any
	json.Unmarshal(v, &x)
	var kind func(any) string
	kind = func(x any) string {
		switch x := x.(type) {
		case float64:
			return "number"
		case string:
			return "string"
		case []any:
			if len(x) == 0 {
				return "array"
			}
			return "array of " + kind(x[0])
		case map[string]any:
			var ks []string
			for _, v := range x {
				ks = append(ks, kind(v))
			}
			sort.Strings(ks)
			return "object of " + strings.Join(slices.Compact(ks), ",")
		case nil:
			return "null"
		}
		return "?"
	}
	return kind(x)
}

func equalKinds(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
