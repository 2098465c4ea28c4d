package spec

import (
	"math"
	"strings"
	"testing"
)

func TestEvaluate(t *testing.T) {
	plan, diags := Load([]string{"testdata/valid/matrix.hcl"}, fakeOptions)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	asserts := map[string]*Assert{}
	for _, a := range plan.Asserts {
		asserts[a.Name] = a
	}
	cur := Metrics{
		"null":             {"ns_per_op": 2},
		"memcpy/size=16B":  {"ns_per_op": 10},
		"memcpy/size=1MB":  {"ns_per_op": 10000},
		"memcpy/size=16MB": {"ns_per_op": 200000},
	}
	base := Metrics{"null": {"ns_per_op": 4}}

	tests := []struct {
		assert    string
		cur, base Metrics
		want      float64
		wantErr   string
	}{
		{"memcpy_scales", cur, nil, 20000, ""},
		{"not_slower_than_baseline", cur, base, 0.5, ""},
		{"not_slower_than_baseline", cur, nil, 0, "no baseline was given"},
		{"not_slower_than_baseline", cur, Metrics{"other": {"ns_per_op": 1}}, 0, `baseline has no result for "null"`},
		{"memcpy_scales", Metrics{"memcpy/size=16B": {"ns_per_op": 1}}, nil, 0, `no result for "memcpy/size=16MB"`},
		{"memcpy_scales", Metrics{"memcpy/size=16B": {"ns_per_op": 1}, "memcpy/size=16MB": {"ops_per_sec": 1}}, nil, 0, `has no metric "ns_per_op"`},
		{"memcpy_scales", Metrics{"memcpy/size=16B": {"ns_per_op": 1}, "memcpy/size=16MB": {"ns_per_op": math.NaN()}}, nil, 0, "not a finite number"},
		{"memcpy_scales", Metrics{"memcpy/size=16B": {"ns_per_op": 0}, "memcpy/size=16MB": {"ns_per_op": 1}}, nil, 0, "evaluate assert"},
	}
	for _, tt := range tests {
		got, err := asserts[tt.assert].Evaluate(tt.cur, tt.base)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", tt.assert, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s = %v, %v; want %v", tt.assert, got, err, tt.want)
		}
	}
}

// TestEvaluateWholeMatrix reads every instance of a matrix block at once.
func TestEvaluateWholeMatrix(t *testing.T) {
	plan, diags := Load([]string{"testdata/valid/multi"}, fakeOptions)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var a *Assert
	for _, x := range plan.Asserts {
		if x.Name == "throughput_kept" {
			a = x
		}
	}
	if len(a.Refs) != 3 {
		t.Fatalf("refs = %+v, want both ab instances and baseline static", a.Refs)
	}
	cur := Metrics{"ab/build=a": {"requests_per_sec": 300}, "ab/build=b": {"requests_per_sec": 200}, "static": {"requests_per_sec": 1}}
	base := Metrics{"static": {"requests_per_sec": 400}}
	if got, err := a.Evaluate(cur, base); err != nil || got != 0.5 {
		t.Errorf("Evaluate = %v, %v; want 0.5", got, err)
	}
}

func TestEvaluateNotNumber(t *testing.T) {
	plan, diags := LoadFiles(map[string][]byte{"s.hcl": []byte(`
benchmark "a" { op = "noop" }
assert "s" {
  value = "${benchmark.a.ns_per_op} ns"
  max   = 1
}
assert "inf" {
  value = benchmark.a.ns_per_op / 0
  max   = 1
}
`)}, nil, fakeOptions)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, a := range plan.Asserts {
		if _, err := a.Evaluate(Metrics{"a": {"ns_per_op": 3}}, nil); err == nil {
			t.Errorf("assert %s: no error", a.Name)
		}
	}
	var zero Assert
	if _, err := zero.Evaluate(nil, nil); err == nil {
		t.Error("zero Assert: no error")
	}
}

// TestEvaluateForEach: each instance of a for_each assert reads its own
// element, as each.key and each.value.
func TestEvaluateForEach(t *testing.T) {
	plan, diags := Load([]string{"testdata/valid/foreach.hcl"}, fakeOptions)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	asserts := map[string]*Assert{}
	for _, a := range plan.Asserts {
		asserts[a.Name] = a
	}
	cur := Metrics{
		"null":             {"ns_per_op": 2},
		"copy":             {"ns_per_op": 50, "bytes_per_sec": 20e9},
		"memcpy/size=16B":  {"ns_per_op": 10, "bytes_per_sec": 1.6e9, "ns_per_op_cv": 0.02, "ns_per_op_first": 12},
		"memcpy/size=1MB":  {"ns_per_op": 30000, "bytes_per_sec": 35e9, "ns_per_op_cv": 0.5, "ns_per_op_first": 3e4},
		"memcpy/size=16MB": {"ns_per_op": 2e6, "bytes_per_sec": 8e9},
	}
	cur["null"]["ns_per_op_last"] = 3
	base := Metrics{
		"null":             {"ns_per_op": 4},
		"copy":             {"ns_per_op": 25},
		"memcpy/size=16B":  {"ns_per_op": 5},
		"memcpy/size=1MB":  {"ns_per_op": 60000},
		"memcpy/size=16MB": {"ns_per_op": 1e6},
	}
	partial := Metrics{"null": {"ns_per_op": 2}, "copy": {"ns_per_op": 50, "bytes_per_sec": 20e9}}
	for _, tt := range []struct {
		assert  string
		cur     Metrics
		want    float64
		wantErr string
	}{
		{`memcpy_no_regression["size=16B"]`, cur, 2, ""},
		{`memcpy_no_regression["size=1MB"]`, cur, 0.5, ""},
		{`memcpy_no_regression["size=16MB"]`, cur, 2, ""},
		{`large_copies["size=1MB"]`, cur, 1.75, ""},
		{`large_copies["size=16MB"]`, cur, 0.4, ""},
		{`plain_no_regression["null"]`, cur, 0.5, ""},
		{`plain_no_regression["copy"]`, cur, 2, ""},
		{`named["copy"]`, cur, 50, ""},
		{`named["null"]`, cur, 2, ""},
		{`large_copies["size=1MB"]`, partial, 0, `no result for "memcpy/size=1MB"`},
		// a stat reads as the metric object's own field
		{`memcpy_steady["size=16B"]`, cur, 0.02, ""},
		{`memcpy_steady["size=1MB"]`, cur, 0.5, ""},
		{`memcpy_steady["size=16MB"]`, cur, 0, `has no metric "ns_per_op_cv"`},
		// the CV of one run is no number: the error says what it needs
		{`memcpy_steady["size=16B"]`, Metrics{"null": {"ns_per_op": 2, "ns_per_op_last": 3}, "memcpy/size=16B": {"ns_per_op": 10, "ns_per_op_cv": math.NaN(), "ns_per_op_first": 12}},
			0, `benchmark "memcpy/size=16B" has no ns_per_op_cv: a CV, trend or digits needs two runs or more (and a CV or trend a mean that is not 0)`},
	} {
		a := asserts[tt.assert]
		if a == nil {
			t.Fatalf("no assert %s; have %v", tt.assert, keys(asserts))
		}
		got, err := a.Evaluate(tt.cur, base)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", tt.assert, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s = %v, %v; want %v", tt.assert, got, err, tt.want)
		}
	}
	if len(plan.Asserts) != 12 {
		t.Errorf("%d asserts, want 12", len(plan.Asserts))
	}
}
