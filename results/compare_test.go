package results

import (
	"slices"
	"strings"
	"testing"

	"github.com/specrun/specrun/metric"
)

func tiger(t *testing.T) *Result {
	t.Helper()
	r, err := ReadFile("testdata/result-tiger.json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func leopard(t *testing.T) *Result {
	t.Helper()
	r, err := ReadFile("testdata/result-leopard.json")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCompareRows(t *testing.T) {
	c, err := Compare([]*Result{tiger(t), leopard(t)}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]CompareRow{}
	for _, r := range c.Rows {
		rows[r.Name] = r
	}
	// One row per instance in either file.
	if len(c.Rows) != 7 {
		t.Errorf("%d rows, want 7 (the union of both files)", len(c.Rows))
	}
	if cell := rows["reflect_call"].Cells[0]; cell != nil {
		t.Errorf("reflect_call is only in leopard, but tiger has a cell %+v", cell)
	}
	if cell := rows["memcpy/size=1MB"].Cells[1]; cell != nil {
		t.Errorf("memcpy/size=1MB is only in tiger, but leopard has a cell %+v", cell)
	}
	for name, want := range map[string]struct {
		ratio       bool
		significant bool
		warned      bool
	}{
		"int_div":              {true, true, false},   // 2.4 -> 4.8 ns over five runs each
		"func_value_call":      {true, false, false},  // the same within noise
		"http_get":             {true, false, true},   // one run each: no test possible
		"file_write/size=16MB": {false, false, false}, // failed in tiger
		"reflect_call":         {false, false, false}, // absent in tiger
	} {
		d := rows[name].Deltas[0]
		if (d.Ratio != nil) != want.ratio || d.Significant != want.significant || (len(d.Warnings) > 0) != want.warned {
			t.Errorf("%s: delta %+v (ratio %v), want ratio=%v significant=%v warned=%v", name, d, d.Ratio, want.ratio, want.significant, want.warned)
		}
	}
	if r := rows["int_div"].Deltas[0].Ratio; r == nil || *r != 2 {
		t.Errorf("int_div ratio = %v, want 2", r)
	}
	if got := strings.Join(c.Differences, "; "); !strings.Contains(got, "arch (amd64 vs 386)") || !strings.Contains(got, "governor") {
		t.Errorf("differences = %q, want arch and governor", got)
	}
}

// testMetrics declares op metrics as the op catalog does for the http op.
var testMetrics = metric.Catalog(func(op string) []metric.Metric {
	if op != "http" {
		return nil
	}
	return []metric.Metric{
		{Name: "requests_per_sec", Unit: "requests/s", HigherIsBetter: true},
		{Name: "failed_requests", Unit: "count"},
		{Name: "max_rss_bytes", Unit: "bytes"},
		{Name: "custom_score", Unit: "points", HigherIsBetter: true},
	}
})

func TestCompareDirection(t *testing.T) {
	for _, tt := range []struct {
		metric  string
		metrics metric.Catalog
		want    string
	}{
		{"ns_per_op", nil, "lower"},
		{"ops_per_sec", nil, "higher"},
		{"requests_per_sec", testMetrics, "higher"},
		{"requests_per_sec", nil, ""},
		{"failed_requests", testMetrics, "lower"},
		{"custom_score", testMetrics, "higher"},
		{"custom_score", nil, ""},
	} {
		r1, r2 := tiger(t), leopard(t)
		for _, r := range []*Result{r1, r2} {
			for i := range r.Benchmarks {
				for j := range r.Benchmarks[i].Runs {
					run := &r.Benchmarks[i].Runs[j]
					if run.Metrics == nil {
						run.Metrics = map[string]float64{}
					}
					run.Metrics["custom_score"] = run.NsPerOp
				}
			}
		}
		c, err := Compare([]*Result{r1, r2}, CompareOptions{Metric: tt.metric, Metrics: tt.metrics})
		if err != nil {
			t.Fatal(err)
		}
		if c.Better != tt.want {
			t.Errorf("%s: better = %q, want %q", tt.metric, c.Better, tt.want)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	if _, err := Compare([]*Result{tiger(t)}, CompareOptions{}); err == nil {
		t.Error("Compare of one result succeeded")
	}
	if _, err := Compare([]*Result{tiger(t), leopard(t)}, CompareOptions{Metric: "nosuch"}); err == nil || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Errorf("Compare with an unknown metric: %v", err)
	}
	if _, err := Compare([]*Result{tiger(t), leopard(t)}, CompareOptions{Alpha: 2}); err == nil {
		t.Error("Compare with alpha 2 succeeded")
	}
}

func TestCompareLabels(t *testing.T) {
	c, err := Compare([]*Result{tiger(t), leopard(t), leopard(t)}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Labels, ","); got != "tiger,leopard,leopard #2" {
		t.Errorf("labels = %s", got)
	}
}

func TestByTime(t *testing.T) {
	r := tiger(t)
	var got []string
	for _, b := range ByTime(r).Benchmarks {
		got = append(got, b.Name)
	}
	want := "func_value_call int_div memcpy/size=16B memcpy/size=1MB http_get file_write/size=16MB"
	if strings.Join(got, " ") != want {
		t.Errorf("ByTime order = %v, want %s", got, want)
	}
	if r.Benchmarks[0].Name != "memcpy/size=16B" {
		t.Errorf("ByTime reordered its argument")
	}
}

// TestRegressions: a later column is a regression when it is significantly
// worse than the first by more than the threshold, in the metric's better
// direction; a faster one, a noisy one and a small change are not.
func TestRegressions(t *testing.T) {
	series := func(center float64) []float64 {
		return []float64{center * 0.995, center * 0.998, center, center * 1.001, center * 1.003, center * 1.004, center * 0.997, center * 1.002}
	}
	base := synthetic(map[string][]float64{
		"slower": series(100), "slightly": series(100), "faster": series(100), "noisy": series(100), "gone": series(100),
	})
	head := synthetic(map[string][]float64{
		"slower":   series(120),
		"slightly": series(103),
		"faster":   series(50),
		"noisy":    {60, 140, 90, 130, 70, 150, 80, 120},
	})
	base.Label, head.Label = "base", "head"
	for _, tt := range []struct {
		metric    string
		threshold float64
		want      []string
	}{
		{"ns_per_op", 0.05, []string{"slower"}},
		{"ns_per_op", 0.01, []string{"slower", "slightly"}},
		{"ns_per_op", 0.25, nil},
		{"ops_per_sec", 0.05, []string{"slower"}}, // higher is better: 1/1.2 is 17% worse
		{"ops_per_sec", 0.2, nil},
	} {
		c, err := Compare([]*Result{base, head}, CompareOptions{Metric: tt.metric})
		if err != nil {
			t.Fatal(err)
		}
		regs, err := c.Regressions(tt.threshold)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range regs {
			got = append(got, r.Name)
			if r.Label != "head" || !(r.Worse > tt.threshold) || !(r.P <= 0.05) {
				t.Errorf("%s at %v: %+v", tt.metric, tt.threshold, r)
			}
		}
		slices.Sort(got)
		want := slices.Clone(tt.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s, threshold %v: regressions %v, want %v", tt.metric, tt.threshold, got, want)
		}
	}
	c := &Comparison{Metric: "widgets"}
	if _, err := c.Regressions(0.05); err == nil {
		t.Error("a metric without a direction gave regressions")
	}
}

func TestBaselineWarnings(t *testing.T) {
	env := Environment{OS: "linux", Arch: "amd64", CPUModel: "Test CPU", Kernel: "6.1.0", GoVersion: "go1.26.0", GOMAXPROCS: 2}
	cur := &Result{Environment: env}
	same := &Result{Environment: env}
	if w := BaselineWarnings(cur, same); w != nil {
		t.Errorf("same environment: %v", w)
	}
	other := env
	other.CPUModel, other.GoVersion, other.GOMAXPROCS = "Other CPU", "go1.25.0", 4
	w := BaselineWarnings(cur, &Result{Environment: other})
	if len(w) != 1 || !strings.Contains(w[0], "cpu_model (Other CPU vs Test CPU)") || !strings.Contains(w[0], "go_version (go1.25.0 vs go1.26.0)") || strings.Contains(w[0], "gomaxprocs") {
		t.Errorf("warnings %q", w)
	}
	unknown := env
	unknown.CPUModel = ""
	if w := BaselineWarnings(cur, &Result{Environment: unknown}); w != nil {
		t.Errorf("a field the baseline did not record: %v", w)
	}
	if BaselineWarnings(cur, nil) != nil {
		t.Error("no baseline gave a warning")
	}
}
