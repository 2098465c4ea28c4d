package metric

import "testing"

func TestLookupPrefersTheOpsDeclaration(t *testing.T) {
	cat := Catalog(func(op string) []Metric {
		if op == "http" {
			return []Metric{{Name: "requests_per_sec", HigherIsBetter: true}, {Name: BytesPerSec, Unit: "transfer"}}
		}
		return nil
	})
	for _, tc := range []struct {
		cat          Catalog
		op, name     string
		ok           bool
		unit, better string
	}{
		{cat, "http", "requests_per_sec", true, "", "higher"},
		{cat, "http", BytesPerSec, true, "transfer", "lower"},
		{cat, "memcpy", BytesPerSec, true, "bytes/s", "higher"},
		{cat, "memcpy", "requests_per_sec", false, "", ""},
		{nil, "http", "requests_per_sec", false, "", ""},
		{nil, "http", NsPerOp, true, "ns", "lower"},
	} {
		m, ok := tc.cat.Lookup(tc.op, tc.name)
		if ok != tc.ok || (ok && (m.Unit != tc.unit || m.Better() != tc.better)) {
			t.Errorf("Lookup(%s, %s) = %+v, %v; want unit %q better %q, %v", tc.op, tc.name, m, ok, tc.unit, tc.better, tc.ok)
		}
	}
}

func TestDerive(t *testing.T) {
	for _, tc := range []struct {
		nsPerOp, size float64
		want          map[string]float64
	}{
		{2, 0, map[string]float64{OpsPerSec: 5e8}},
		{2, 16, map[string]float64{OpsPerSec: 5e8, BytesPerSec: 8e9}},
		{0, 16, map[string]float64{}},
	} {
		got := map[string]float64{}
		Derive(got, tc.nsPerOp, tc.size)
		if len(got) != len(tc.want) {
			t.Errorf("Derive(%v, %v) = %v, want %v", tc.nsPerOp, tc.size, got, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("Derive(%v, %v)[%s] = %v, want %v", tc.nsPerOp, tc.size, k, got[k], v)
			}
		}
	}
}

func TestStandardNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Standard {
		if seen[m.Name] || m.Unit == "" || m.Doc == "" {
			t.Errorf("standard metric %+v is repeated or undocumented", m)
		}
		seen[m.Name] = true
	}
}

func TestNeutralHasNoBetterDirection(t *testing.T) {
	for _, tc := range []struct {
		m    Metric
		want string
	}{
		{Metric{Name: "total_bytes", Neutral: true}, ""},
		{Metric{Name: "x", Neutral: true, HigherIsBetter: true}, ""},
		{Metric{Name: "requests", HigherIsBetter: true}, "higher"},
		{Metric{Name: NsPerOp}, "lower"},
	} {
		if got := tc.m.Better(); got != tc.want {
			t.Errorf("%+v.Better() = %q, want %q", tc.m, got, tc.want)
		}
	}
}
