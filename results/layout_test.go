package results

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostResult is a result of one host with the given runs (ns_per_op) per
// benchmark.
func hostResult(host, label string, runs map[string][]float64) *Result {
	r := &Result{Label: label, Environment: Environment{Hostname: host}}
	names := make([]string, 0, len(runs))
	for name := range runs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		b := Benchmark{Name: name, Benchmark: name, Label: name + "()", Op: "test"}
		for _, v := range runs[name] {
			b.Runs = append(b.Runs, Run{Iterations: 1, NsPerOp: v})
		}
		r.Benchmarks = append(r.Benchmarks, b)
	}
	return r
}

// buildResult is one result of a benchmark with a matrix build = A, B and
// size = 1, 2: the layout of two builds in one run.
func buildResult() *Result {
	r := &Result{Label: "run"}
	for _, build := range []string{"A", "B"} {
		for _, size := range []int{1, 2} {
			name := "page/build=" + build + "/size=" + string(rune('0'+size))
			b := Benchmark{Name: name, Benchmark: "page", Label: "page " + build, Op: "test",
				Params: map[string]any{"build": build, "size": float64(size)}}
			base := float64(10 * size)
			if build == "B" {
				base *= 1.5
			}
			for i := range 6 {
				b.Runs = append(b.Runs, Run{Iterations: 1, NsPerOp: base + float64(i)/10})
			}
			r.Benchmarks = append(r.Benchmarks, b)
		}
	}
	return r
}

func TestCompareLayout(t *testing.T) {
	m1a := hostResult("m1", "a", map[string][]float64{"getpid": {50, 51, 52}, "time": {250, 251, 252}})
	m1b := hostResult("m1", "b", map[string][]float64{"getpid": {53, 54, 55}, "time": {253, 254, 255}})
	m2a := hostResult("m2", "a", map[string][]float64{"getpid": {2, 2.1, 2.2}, "time": {45, 46, 47}})
	for _, tc := range []struct {
		name   string
		rs     []*Result
		layout Layout
		labels []string
		pooled []int
		rows   []string               // row labels
		runs   map[string][][]float64 // row label: each column's runs
	}{
		{"hosts", []*Result{m1a, m1b, m2a}, Layout{Columns: ByHost}, []string{"m1", "m2"}, []int{2, 1},
			[]string{"getpid()", "time()"},
			map[string][][]float64{"getpid()": {{50, 51, 52, 53, 54, 55}, {2, 2.1, 2.2}}}},
		{"labels", []*Result{m1a, m1b, m2a}, Layout{Columns: ByLabel}, []string{"a", "b"}, []int{2, 1},
			[]string{"getpid()", "time()"},
			map[string][][]float64{"time()": {{250, 251, 252, 45, 46, 47}, {253, 254, 255}}}},
		{"results", []*Result{m1a, m1b}, Layout{}, []string{"a", "b"}, []int{1, 1},
			[]string{"getpid()", "time()"}, nil},
		{"per", []*Result{m1a, m2a}, Layout{Columns: ByHost, Per: 1e7}, []string{"m1", "m2"}, []int{1, 1},
			[]string{"getpid()", "time()"},
			map[string][][]float64{"getpid()": {{50e7, 51e7, 52e7}, {2e7, 2.1e7, 2.2e7}}}},
		{"build", []*Result{buildResult()}, Layout{Columns: "build"}, []string{"A", "B"}, []int{1, 1},
			[]string{"page/size=1", "page/size=2"}, nil},
		{"build by size", []*Result{buildResult()}, Layout{Columns: "build", Rows: []string{"size"}}, []string{"A", "B"}, []int{1, 1},
			[]string{"size=1", "size=2"}, nil},
		{"size", []*Result{buildResult()}, Layout{Columns: "size"}, []string{"1", "2"}, []int{1, 1},
			[]string{"page A", "page B"}, nil}, // a label that does not name the column parameter
		{"a row named twice", []*Result{buildResult()}, Layout{Columns: "build", Rows: []string{"size", "size"}}, []string{"A", "B"}, []int{1, 1},
			[]string{"size=1", "size=2"}, nil},
		{"benchmark named twice", []*Result{m1a, m2a}, Layout{Columns: ByHost, Rows: []string{"benchmark", "benchmark"}}, []string{"m1", "m2"}, []int{1, 1},
			[]string{"getpid", "time"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CompareLayout(tc.rs, tc.layout, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var rows []string
			for _, row := range c.Rows {
				rows = append(rows, row.Label)
				if want, ok := tc.runs[row.Label]; ok {
					for i, cell := range row.Cells {
						if diff := cmp.Diff(want[i], cell.Runs); diff != "" {
							t.Errorf("row %s column %d runs (-want +got):\n%s", row.Label, i, diff)
						}
					}
				}
			}
			if diff := cmp.Diff(tc.labels, c.Labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.pooled, c.Pooled); diff != "" {
				t.Errorf("pooled (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.rows, rows); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareLayoutRefuses(t *testing.T) {
	r := buildResult()
	for _, tc := range []struct {
		layout Layout
		rs     []*Result
		want   string
	}{
		{Layout{Columns: "mode"}, []*Result{r}, `no benchmark in these results has the parameter "mode" to make columns of (want result, label, host or a parameter: build, size)`},
		{Layout{Columns: "build", Rows: []string{"mode"}}, []*Result{r}, `parameter "mode" to make rows of (want benchmark or a parameter: build, size)`},
		{Layout{Columns: "build", Rows: []string{"build"}}, []*Result{r}, `"build" makes the columns; it cannot make rows as well`},
		{Layout{Columns: "build", Rows: []string{"benchmark"}}, []*Result{r}, `rows by benchmark put page/size=1 and page/size=2 in one cell`},
		{Layout{Columns: ByResult}, []*Result{r}, `need at least two results, have 1`},
		{Layout{Columns: ByHost, Per: -1}, []*Result{r}, `per -1 is not a positive number`},
		{Layout{Columns: ByHost, Per: 1e308}, []*Result{r}, `per 1e+308 is out of range: a layout multiplies by 1e-09 to 1e+15`},
		{Layout{Columns: ByHost, Per: 1e-320}, []*Result{r}, `per 1e-320 is out of range`},
		{Layout{Columns: "build", Metric: "requests_per_sec"}, []*Result{r}, `no benchmark in these results has the metric "requests_per_sec"`},
	} {
		_, err := CompareLayout(tc.rs, tc.layout, CompareOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CompareLayout(%+v) = %v, want an error with %q", tc.layout, err, tc.want)
		}
	}
}

// TestPooledColumnIsOneResult checks, on random runs, that a column
// pooling several results of one host has the figures of one result that
// holds all their runs: the same median, interval, test and change.
func TestPooledColumnIsOneResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		var parts []*Result
		all := map[string][]float64{}
		for i := range 1 + rng.IntN(4) {
			runs := map[string][]float64{}
			for range 1 + rng.IntN(5) {
				v := 100 * (1 + rng.NormFloat64()/20)
				runs["call"] = append(runs["call"], v)
				all["call"] = append(all["call"], v)
			}
			parts = append(parts, hostResult("m1", "part"+string(rune('a'+i)), runs))
		}
		other := map[string][]float64{}
		for range 2 + rng.IntN(8) {
			other["call"] = append(other["call"], 110*(1+rng.NormFloat64()/20))
		}
		m2 := hostResult("m2", "m2", other)
		pooled, err := CompareLayout(append(parts, m2), Layout{Columns: ByHost}, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		whole, err := CompareLayout([]*Result{hostResult("m1", "whole", all), m2}, Layout{Columns: ByHost}, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, w := pooled.Rows[0], whole.Rows[0]
		if diff := cmp.Diff(w.Cells, p.Cells); diff != "" {
			t.Errorf("trial %d: pooled cells differ from one result's (-whole +pooled):\n%s", trial, diff)
		}
		if diff := cmp.Diff(w.Deltas, p.Deltas); diff != "" {
			t.Errorf("trial %d: pooled change differs from one result's (-whole +pooled):\n%s", trial, diff)
		}
	}
}

// TestUCDF checks the distribution of the Mann-Whitney U statistic against
// a count over every way of ranking n values against m.
func TestUCDF(t *testing.T) {
	for _, nm := range [][2]int{{1, 1}, {2, 3}, {3, 3}, {4, 2}, {5, 5}, {3, 7}} {
		n, m := nm[0], nm[1]
		counts := make([]float64, n*m+1)
		total := 0.0
		// Each subset of n positions among n+m is one ranking; U counts
		// the pairs where an x comes after a y.
		for mask := 0; mask < 1<<(n+m); mask++ {
			if popcount(mask) != n {
				continue
			}
			u, ys := 0, 0
			for pos := 0; pos < n+m; pos++ {
				if mask&(1<<pos) != 0 {
					u += ys
				} else {
					ys++
				}
			}
			counts[u]++
			total++
		}
		cdf := uCDF(n, m)
		sum := 0.0
		for u := range counts {
			sum += counts[u]
			if math.Abs(cdf[u]-sum/total) > 1e-12 {
				t.Errorf("uCDF(%d, %d)[%d] = %v, want %v", n, m, u, cdf[u], sum/total)
			}
		}
	}
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestChangeOf(t *testing.T) {
	for _, tc := range []struct {
		old, new []float64
		est      float64
		low      float64
		high     float64
		conf     float64
	}{
		// Every ratio is 1.5: the interval is the point.
		{[]float64{10, 10, 10}, []float64{15, 15, 15}, 0.5, 0.5, 0.5, 0.9},
		// Three runs against three: the widest interval, at 1 - 2/20.
		{[]float64{1, 2, 4}, []float64{2, 4, 8}, 1, -0.5, 7, 0.9},
		// One run each: the ratio, with no interval to speak of.
		{[]float64{4}, []float64{5}, 0.25, 0.25, 0.25, 0},
	} {
		c := ChangeOf(tc.old, tc.new, 0.95)
		if c == nil {
			t.Fatalf("ChangeOf(%v, %v) = nil", tc.old, tc.new)
		}
		for _, f := range []struct {
			name      string
			got, want float64
		}{{"estimate", c.Estimate, tc.est}, {"low", c.Low, tc.low}, {"high", c.High, tc.high}, {"confidence", c.Confidence, tc.conf}} {
			if math.Abs(f.got-f.want) > 1e-9 {
				t.Errorf("ChangeOf(%v, %v) %s = %v, want %v", tc.old, tc.new, f.name, f.got, f.want)
			}
		}
	}
	if c := ChangeOf([]float64{1, 0}, []float64{1}, 0.95); c != nil {
		t.Errorf("a zero run gave a change %+v; a ratio to it means nothing", c)
	}
	if c := ChangeOf(nil, []float64{1}, 0.95); c != nil {
		t.Errorf("no runs gave a change %+v", c)
	}
}

// TestChangeCoverage checks by simulation that the interval holds the
// true change about as often as its level says, exactly and in the normal
// approximation.
func TestChangeCoverage(t *testing.T) {
	t.Parallel() // a simulation: pure computation, one core each
	if testing.Short() {
		t.Skip("simulation")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{8, 210} {
		const trials = 200
		hits, level := 0, 0.0
		for range trials {
			old, new := make([]float64, n), make([]float64, n)
			for i := range n {
				old[i] = math.Exp(rng.NormFloat64() / 10)
				new[i] = 1.2 * math.Exp(rng.NormFloat64()/10)
			}
			c := ChangeOf(old, new, 0.95)
			level = c.Confidence
			if c.Low <= 0.2 && 0.2 <= c.High {
				hits++
			}
		}
		if got := float64(hits) / trials; got < level-0.04 {
			t.Errorf("n = %d: the %.3f interval held the true change in %.3f of %d trials", n, level, got, trials)
		}
	}
}

func TestSummaryOfTwoColumns(t *testing.T) {
	c, err := CompareLayout([]*Result{buildResult()}, Layout{Columns: "build"}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Summary) != 2 {
		t.Fatalf("summary has %d lines, want one per row: %+v", len(c.Summary), c.Summary)
	}
	line := c.Summary[0]
	twice, err := CompareLayout([]*Result{buildResult()}, Layout{Columns: "build", Summary: []string{"ns_per_op", "ns_per_op"}}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(twice.Summary[0].Changes); n != 1 {
		t.Errorf("a metric named twice in the summary gives %d changes a line, want 1", n)
	}
	if line.Column != "B" || line.Baseline != "A" || len(line.Changes) != 1 || line.Changes[0].Metric != "ns_per_op" {
		t.Errorf("summary line %+v, want B against A in ns_per_op", line)
	}
	if ch := line.Changes[0].Change; math.Abs(ch.Estimate-0.5) > 0.05 || !ch.Significant() {
		t.Errorf("B's change %+v, want about +50%%, significant", ch)
	}
}
