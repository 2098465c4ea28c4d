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
	want := goldenResult()
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
	err := WriteFile(path, goldenResult(), false)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("WriteFile over an existing file: err = %v, want fs.ErrExist", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "precious" {
		t.Errorf("existing file changed to %q", data)
	}
	assertOnlyFiles(t, filepath.Dir(path), "r.json")

	if err := WriteFile(path, goldenResult(), true); err != nil {
		t.Fatalf("WriteFile with overwrite: %v", err)
	}
	if _, err := ReadFile(path); err != nil {
		t.Error(err)
	}
	assertOnlyFiles(t, filepath.Dir(path), "r.json")
}

func TestWriteFileLeavesNoTempOnFailure(t *testing.T) {
	dir := t.TempDir()
	r := goldenResult()
	r.Benchmarks[0].NsPerOp.Median = math.NaN()
	err := WriteFile(filepath.Join(dir, "r.json"), r, false)
	if err == nil || !strings.Contains(err.Error(), "memcpy/size=1MB: ns_per_op.median is NaN") {
		t.Errorf("WriteFile of a NaN: err = %v, want one naming the figure", err)
	}
	assertOnlyFiles(t, dir)

	// A rename onto a directory fails after the temporary file was written.
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "taken"), goldenResult(), true); err == nil {
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
	if err := Encode(&good, goldenResult()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, data, want string
	}{
		{"truncated", good.String()[:good.Len()/2], "truncated JSON"},
		{"empty", "", "truncated JSON"},
		{"not json", "suite \"x\" {}\n", "invalid JSON at line 1, column 1"},
		{"unknown schema", `{"schema": "specrun.results/v2", "suite": {"name": "x"}, "benchmarks": []}`, `unknown schema "specrun.results/v2"`},
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

func FuzzDecode(f *testing.F) {
	var good bytes.Buffer
	if err := Encode(&good, goldenResult()); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
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
