package report

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"

	"github.com/specrun/specrun/results"
)

// benchstat runs the benchstat of go.mod's tool line on the files of
// gobench output, and returns what it prints.
func benchstat(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool benchstat needs the go command, and it is not on PATH: %v", err)
	}
	cmd := exec.Command(goCmd, append([]string{"tool", "benchstat"}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool benchstat %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}

// writeGoBench writes r's gobench output to dir/name.
func writeGoBench(t *testing.T, dir, name string, r *results.Result) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, render(t, GoBench{Metrics: testMetrics}, r), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// elsewhere is tiger run again on another machine, 30% slower: every
// field of the environment that gobench writes differs.
func elsewhere(t *testing.T) *results.Result {
	r := tiger(t)
	r.Label = "leopard"
	r.Environment = results.Environment{Hostname: "leopard", OS: "darwin", Kernel: "24.1.0", Arch: "arm64",
		CPUModel: "Apple M3", CPUCount: 8, GoVersion: "go1.25.0", SpecrunVersion: "v0.9.0", GOMAXPROCS: 8}
	for i := range r.Benchmarks {
		for j := range r.Benchmarks[i].Runs {
			r.Benchmarks[i].Runs[j].NsPerOp *= 1.3
		}
	}
	return r
}

// benchstatRow is a row of a comparison: a name, two figures with their
// ±, and a change or ~ with its p-value.
var benchstatRow = regexp.MustCompile(`^(\S+)\s+\S+ ± \S+( ¹)?\s+\S+ ± \S+( ¹)?\s+([+-][0-9.]+%|~) \(p=([0-9.]+) n=\d+\)`)

// oneComparison checks that benchstat printed one time-per-op table with
// the two columns, and a row comparing them for every benchmark measured.
func oneComparison(t *testing.T, out, old, new string, want []string) {
	t.Helper()
	var heads, units []string
	rows := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(line, "│") && strings.Contains(line, old+" "):
			heads = append(heads, line)
		case strings.Contains(line, "│") && strings.Contains(line, "sec/op"):
			units = append(units, line)
		default:
			if m := benchstatRow.FindStringSubmatch(line); m != nil && len(units) == 1 && len(heads) == 1 {
				rows[m[1]] = true
			}
		}
	}
	if len(units) != 1 {
		t.Fatalf("benchstat printed %d sec/op tables, want one:\n%s", len(units), out)
	}
	if !strings.Contains(heads[0], new) {
		t.Errorf("the table's head %q lacks the column %s:\n%s", heads[0], new, out)
	}
	for _, name := range want {
		if !rows[name] {
			t.Errorf("no row compares %s in both columns with a change or ~:\n%s", name, out)
		}
	}
}

// Results of two machines, with two labels, make one comparison in
// benchstat: plainly, with labels of benchstat's, and with the documented
// -col label recipe.
func TestBenchstatComparesTwoMachines(t *testing.T) {
	dir := t.TempDir()
	a, b := tiger(t), elsewhere(t)
	aTxt, bTxt := writeGoBench(t, dir, "old.txt", a), writeGoBench(t, dir, "new.txt", b)
	var want []string
	for _, bm := range a.Benchmarks {
		if bm.Error == "" && len(bm.Runs) > 0 {
			want = append(want, strings.TrimPrefix(GoBenchName(bm.Name), "Benchmark"))
		}
	}

	oneComparison(t, benchstat(t, nil, aTxt, bTxt), aTxt, bTxt, want)
	oneComparison(t, benchstat(t, nil, "tiger="+aTxt, "leopard="+bTxt), "tiger", "leopard", want)

	// docs/reports.md: cat a.txt b.txt | sed 's/^# label:/label:/' | benchstat -col label -
	var both []byte
	for _, path := range []string{aTxt, bTxt} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		both = append(both, regexp.MustCompile(`(?m)^# label:`).ReplaceAll(data, []byte("label:"))...)
	}
	oneComparison(t, benchstat(t, both, "-col", "label", "-"), "tiger", "leopard", want)
}

// Runs that differ only past the fourth significant digit, the digits go
// test keeps, get the p-value benchstat computes from the JSON's runs:
// rounded, they would all tie.
func TestBenchstatPValueFromEveryDigit(t *testing.T) {
	old := []float64{100.0011, 100.0013, 100.0015, 100.0017, 100.0019, 100.0021}
	new := []float64{100.0012, 100.0014, 100.0016, 100.0018, 100.0022, 100.0024}
	dir := t.TempDir()
	var paths []string
	var stored [][]float64
	for i, runs := range [][]float64{old, new} {
		r := synthetic(map[string][]float64{"digits": runs})
		r.Suite.Name = "digits"
		var buf bytes.Buffer
		if err := results.Encode(&buf, r); err != nil {
			t.Fatal(err)
		}
		r, err := results.Decode(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var ns []float64
		for _, run := range r.Benchmarks[0].Runs {
			ns = append(ns, run.NsPerOp)
		}
		stored = append(stored, ns)
		paths = append(paths, writeGoBench(t, dir, fmt.Sprintf("%d.txt", i), r))
	}
	thresholds := &benchmath.DefaultThresholds
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(stored[0], thresholds), benchmath.NewSample(stored[1], thresholds))
	if c.P >= 1 {
		t.Fatalf("the fixture's runs give p = %v: they do not differ", c.P)
	}
	out := benchstat(t, nil, paths...)
	m := regexp.MustCompile(`(?m)^Digits\s.*\(p=([0-9.]+) n=6\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no comparison of Digits:\n%s", out)
	}
	if want := fmt.Sprintf("%0.3f", c.P); m[1] != want {
		t.Errorf("benchstat's p = %s, want %s, benchmath's on the JSON's runs:\n%s", m[1], want, out)
	}
}
