package results

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJSONRoundTrip(t *testing.T) {
	want := tiger(t)
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, want, false); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip changed the result (-want +got):\n%s", diff)
	}
}

func TestWriteFileRefusesToOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, tiger(t), false)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("WriteFile over an existing file: err = %v, want fs.ErrExist", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "precious" {
		t.Errorf("existing file changed to %q", data)
	}
	assertOnlyFiles(t, filepath.Dir(path), "r.json")

	if err := WriteFile(path, tiger(t), true); err != nil {
		t.Fatalf("WriteFile with overwrite: %v", err)
	}
	if _, err := ReadFile(path); err != nil {
		t.Error(err)
	}
	assertOnlyFiles(t, filepath.Dir(path), "r.json")
}

func TestWriteFileLeavesNoTempOnFailure(t *testing.T) {
	dir := t.TempDir()
	r := tiger(t)
	r.Benchmarks[0].NsPerOp.Median = math.NaN()
	err := WriteFile(filepath.Join(dir, "r.json"), r, false)
	if err == nil || !strings.Contains(err.Error(), "memcpy/size=16B: ns_per_op.median is NaN") {
		t.Errorf("WriteFile of a NaN: err = %v, want one naming the figure", err)
	}
	assertOnlyFiles(t, dir)

	// A rename onto a directory fails after the temporary file was written.
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "taken"), tiger(t), true); err == nil {
		t.Error("WriteFile onto a directory succeeded")
	}
	assertOnlyFiles(t, dir, "taken")
}

func assertOnlyFiles(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files in %s (-want +got):\n%s", dir, diff)
	}
}

func TestReadFileRejects(t *testing.T) {
	var good bytes.Buffer
	if err := Encode(&good, tiger(t)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, data, want string
	}{
		{"truncated", good.String()[:good.Len()/2], "truncated JSON"},
		{"empty", "", "truncated JSON"},
		{"not json", "suite \"x\" {}\n", "invalid JSON at line 1, column 1"},
		{"unknown schema", `{"schema": "specrun.results/v3", "suite": {"name": "x"}, "benchmarks": []}`, `unknown schema "specrun.results/v3"`},
		{"no schema", `{"suite": {"name": "x"}}`, `not a specrun result: no "schema" field`},
		{"NaN literal", strings.Replace(good.String(), `"median": 123001.8`, `"median": NaN`, 1), "invalid JSON at line"},
		{"overflow", strings.Replace(good.String(), `"median": 123001.8`, `"median": 1e999`, 1), "wrong type"},
		{"missing benchmarks", `{"schema": "specrun.results/v1", "suite": {"name": "x"}}`, `missing field "benchmarks"`},
		{"missing suite", `{"schema": "specrun.results/v1", "benchmarks": []}`, `missing field "suite.name"`},
		{"wrong type", `{"schema": "specrun.results/v1", "suite": {"name": "x"}, "benchmarks": [{"name": "a", "iterations": "many"}]}`, `wrong type for "benchmarks.iterations"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.json")
			if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(path)
			if err == nil {
				t.Fatal("ReadFile succeeded")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ReadFile error %q, want it to name %s and say %q", err, path, c.want)
			}
		})
	}
}

// A v1 result reads as v2: each ci95_low..ci95_high becomes an interval
// that says what it is, from the number of runs behind it.
func TestDecodeUpgradesV1(t *testing.T) {
	v1 := `{"schema": "specrun.results/v1", "suite": {"name": "x"}, "benchmarks": [
	  {"name": "one", "runs": [{"ns_per_op": 5}], "ns_per_op": {"median": 5, "min": 5, "max": 5, "ci95_low": 5, "ci95_high": 5}},
	  {"name": "three", "runs": [{"ns_per_op": 1}, {"ns_per_op": 2}, {"ns_per_op": 3}],
	   "ns_per_op": {"median": 2, "min": 1, "max": 3, "ci95_low": 1, "ci95_high": 3},
	   "metrics": {"allocs_per_op": {"median": 1, "ci95_low": 0, "ci95_high": 2}}},
	  {"name": "six", "runs": [{"ns_per_op": 1}, {"ns_per_op": 2}, {"ns_per_op": 3}, {"ns_per_op": 4}, {"ns_per_op": 5}, {"ns_per_op": 6}],
	   "ns_per_op": {"median": 3.5, "min": 1, "max": 6, "ci95_low": 1, "ci95_high": 6}},
	  {"name": "failed", "runs": [], "ns_per_op": {"median": 0, "ci95_low": 0, "ci95_high": 0}, "error": "boom"}],
	 "assertions": [{"name": "a", "value": 1, "ci95_low": 0.5, "ci95_high": 1.5, "verdict": "pass"},
	   {"name": "b", "value": 1, "ci95_low": null, "ci95_high": null, "verdict": "pass"}]}`
	r, err := Decode([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema != Schema {
		t.Errorf("schema = %q, want %q", r.Schema, Schema)
	}
	want := []Interval{
		{Low: 5, High: 5, Confidence: 1, Kind: Point},
		{Low: 1, High: 3, Confidence: 0.75, Kind: Range},
		{Low: 1, High: 6, Confidence: 1 - 2.0/64, Kind: MedianCI},
		{},
	}
	for i, b := range r.Benchmarks {
		if diff := cmp.Diff(want[i], b.NsPerOp.Interval); diff != "" {
			t.Errorf("%s: interval (-want +got):\n%s", b.Name, diff)
		}
	}
	if got := r.Benchmarks[1].Metrics["allocs_per_op"]; got.Interval != (Interval{Low: 0, High: 2, Confidence: 0.75, Kind: Range}) || len(got.Warnings) != 1 {
		t.Errorf("metric summary of three runs = %+v, want min..max at 75%% with a warning", got)
	}
	if got := r.Assertions[0].Interval; got == nil || *got != (Interval{Low: 0.5, High: 1.5, Confidence: 0.95, Kind: Bootstrap}) {
		t.Errorf("assertion interval = %+v, want the 95%% bootstrap [0.5, 1.5]", got)
	}
	if got := r.Assertions[1].Interval; got != nil {
		t.Errorf("assertion without an interval got %+v", *got)
	}
}

func FuzzDecode(f *testing.F) {
	v1, err := os.ReadFile("testdata/result-tiger.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v1)
	r, err := Decode(v1)
	if err != nil {
		f.Fatal(err)
	}
	var v2 bytes.Buffer
	if err := Encode(&v2, r); err != nil {
		f.Fatal(err)
	}
	f.Add(v2.Bytes())
	f.Add([]byte(`{"schema": "specrun.results/v1", "suite": {"name": "x"}, "benchmarks": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(data)
		if err != nil {
			return
		}
		// Whatever decodes must encode again: no NaN or Inf got through.
		if err := Encode(new(bytes.Buffer), r); err != nil {
			t.Fatalf("decoded result does not encode: %v", err)
		}
	})
}
