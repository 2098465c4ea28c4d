package report

import (
	"testing"

	"github.com/specrun/specrun/results"
	"github.com/specrun/specrun/spec"
)

func TestDigits(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{1.7918, "1.79"},
		{16, "16.0"},
		{0.0123456, "0.0123"},
		{0.7, "0.700"},
		{123.4, "123"},
		{29948.7, "29949"},
		{9.9996, "10.0"},
		{0.99996, "1.00"},
		{0, "0"},
		{-2.345, "-2.35"},
	} {
		if got := digits3(c.in); got != c.want {
			t.Errorf("digits3(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	for in, want := range map[float64]string{0.47: "0.47%", 1.44: "1.4%", 20.2: "20%", 109: "109%"} {
		if got := percent(in); got != want {
			t.Errorf("percent(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestScaleTimes(t *testing.T) {
	for _, c := range []struct {
		ns     []float64
		forced string
		want   string
	}{
		{[]float64{1.1, 7.6e6}, "", "ns"}, // the classic table: its fastest row decides
		{[]float64{0.31}, "", "ns"},
		{[]float64{1.79e9, 2.5e9}, "", "sec"},
		{[]float64{1.6e7, 3e9}, "", "ms"},
		{[]float64{4120, 999.9}, "", "ns"},
		{[]float64{4120, 1000}, "", "µs"},
		{[]float64{3e12}, "", "sec"}, // never "ks"
		{nil, "", "ns"},
		{[]float64{1.79e9}, "ns", "ns"},
		{[]float64{1.1}, "us", "µs"},
		{[]float64{1.1}, "s", "sec"},
	} {
		if got := scaleTimes(c.ns, c.forced).name; got != c.want {
			t.Errorf("scaleTimes(%v, %q) = %s, want %s", c.ns, c.forced, got, c.want)
		}
	}
	for _, u := range append([]string{"", "auto"}, TimeUnits...) {
		if err := CheckTimeUnit(u); err != nil {
			t.Errorf("CheckTimeUnit(%q): %v", u, err)
		}
	}
	if CheckTimeUnit("min") == nil {
		t.Error("CheckTimeUnit(min) passed")
	}
}

func TestScaleBytes(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{[]float64{16 << 20, 1 << 30}, "MiB"},
		{[]float64{512}, "B"},
		{[]float64{3 << 10}, "KiB"},
	} {
		if got := scaleBytes(c.in).name; got != c.want {
			t.Errorf("scaleBytes(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

// The spec accepts the column names the tables draw, and no others.
func TestColumnsAgreeWithSpec(t *testing.T) {
	for _, c := range spec.TableColumns {
		if _, ok := buildColumn(goldenResult().Benchmarks, c, Options{}); !ok {
			t.Errorf("spec takes column %q, which report does not draw", c)
		}
	}
	for _, c := range builtinColumns {
		found := false
		for _, s := range spec.TableColumns {
			found = found || s == c
		}
		if !found {
			t.Errorf("report draws column %q, which spec refuses", c)
		}
	}
	r := goldenResult()
	if err := CheckColumns(r, []string{"name", "nosuch"}); err == nil {
		t.Error("CheckColumns took an unknown column")
	}
	r.Benchmarks[0].Metrics = map[string]results.Summary{"ops_per_sec": {Median: 8130}}
	if err := CheckColumns(r, []string{"name", "time", "ops_per_sec"}); err != nil {
		t.Error(err)
	}
}
