package spec

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// errorMarker is a Terraform-style "# ERROR: Summary" comment: on a line
// with code, it expects an error diagnostic starting on that line; alone on
// its line, it expects one with no position.
var errorMarker = regexp.MustCompile(`#\s*ERROR:\s*(.+?)\s*$`)

// extraExpect holds the expectations of cases that cannot carry markers.
var extraExpect = map[string][]string{
	"empty.hcl":  {"empty.hcl:1: Empty spec file"},
	"no_hcl_dir": {"-: No spec files"},
}

func expectedErrors(t *testing.T, path string) []string {
	t.Helper()
	files := []string{path}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "*.hcl"))
	}
	want := append([]string{}, extraExpect[filepath.Base(path)]...)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(src, []byte("\n")) {
			m := errorMarker.FindSubmatch(line)
			if m == nil {
				continue
			}
			if strings.HasPrefix(strings.TrimSpace(string(line)), "#") {
				want = append(want, "-: "+string(m[1]))
			} else {
				want = append(want, fmt.Sprintf("%s:%d: %s", filepath.Base(f), i+1, m[1]))
			}
		}
	}
	sort.Strings(want)
	return want
}

func gotErrors(diags hcl.Diagnostics) []string {
	var got []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Subject == nil {
			got = append(got, "-: "+d.Summary)
		} else {
			got = append(got, fmt.Sprintf("%s:%d: %s", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Summary))
		}
	}
	sort.Strings(got)
	return got
}

// TestInvalid loads every case in testdata/invalid and checks that each
// marked line, and only those, gets its error, and that the diagnostic
// text matches the golden file beside the case.
func TestInvalid(t *testing.T) {
	entries, err := os.ReadDir("testdata/invalid")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() && filepath.Ext(name) != ".hcl" {
			continue
		}
		path := filepath.Join("testdata/invalid", name)
		t.Run(name, func(t *testing.T) {
			plan, diags := Load([]string{path}, fakeOptions)
			if !diags.HasErrors() {
				t.Fatalf("no errors")
			}
			want := expectedErrors(t, path)
			if diff := cmp.Diff(want, gotErrors(diags)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			for _, d := range diags {
				kinds[d.Summary] = true
				if d.Summary == "" || strings.HasSuffix(d.Summary, ".") || d.Detail == "" {
					t.Errorf("diagnostic %q: want a summary without period and a detail", d.Summary)
				}
			}
			var buf bytes.Buffer
			if err := plan.DiagnosticWriter(&buf, 0, false).WriteDiagnostics(diags); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, strings.TrimSuffix(path, ".hcl")+".golden", buf.Bytes())
		})
	}
	if len(kinds) < 20 {
		t.Errorf("the invalid corpus covers %d kinds of error, want at least 20", len(kinds))
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (regenerate with -update): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); regenerate with -update if intended:\n%s", path, diff)
	}
}

func TestMissingPath(t *testing.T) {
	plan, diags := Load([]string{"testdata/does-not-exist.hcl"}, fakeOptions)
	if diff := cmp.Diff([]string{"-: Missing spec path"}, gotErrors(diags)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if plan == nil {
		t.Fatal("Load returned no plan to print diagnostics with")
	}
}

// planView is what a plan means, without pointers and source ranges: the
// expected plans of testdata/valid are stored in this shape.
type planView struct {
	Suite      Suite
	SHA256     string
	Benchmarks []benchmarkView
	Servers    []serverView
	Asserts    []assertView
}

type benchmarkView struct {
	Name, Block, Label, Op string
	Params                 map[string]string
	Matrix                 []Axis `json:",omitempty"`
	Iterations             int64
	Repeat                 int
	Warmup, MinTime        string
	Timeout                string
	Interleave             bool
}

type serverView struct {
	Name, URL, Ready, Dir, StopSignal, Builtin string
	Command                                    []string          `json:",omitempty"`
	Env                                        map[string]string `json:",omitempty"`
	ReadyTimeout, Grace, Work                  string
	BodySize                                   int64
	DependsOn                                  []string `json:",omitempty"`
	Version                                    []string `json:",omitempty"`
}

type assertView struct {
	Name, Description string
	Min, Max          *float64
	Threshold         float64 `json:",omitempty"`
	Key               string  `json:",omitempty"`
	Refs              []string
}

func viewOf(p *Plan) planView {
	v := planView{Suite: p.Suite, SHA256: p.SHA256}
	for _, b := range p.Benchmarks {
		params := map[string]string{}
		for k, x := range b.Params {
			params[k] = fmt.Sprintf("%T %v", x, x)
		}
		v.Benchmarks = append(v.Benchmarks, benchmarkView{
			Name: b.Name, Block: b.Block, Label: b.Label, Op: b.Op.Name, Params: params, Matrix: b.Matrix,
			Iterations: b.Iterations, Repeat: b.Repeat, Warmup: b.Warmup.String(), MinTime: b.MinTime.String(),
			Timeout: b.Timeout.String(), Interleave: b.Interleave,
		})
	}
	for _, s := range p.Servers {
		v.Servers = append(v.Servers, serverView{
			Name: s.Name, URL: s.URL, Ready: s.Ready, Dir: s.Dir, StopSignal: s.StopSignal, Builtin: s.Builtin,
			Command: s.Command, Env: s.Env, ReadyTimeout: s.ReadyTimeout.String(), Grace: s.Grace.String(),
			Work: s.Work.String(), BodySize: s.BodySize, DependsOn: s.DependsOn, Version: s.Version,
		})
	}
	for _, a := range p.Asserts {
		av := assertView{Name: a.Name, Description: a.Description, Min: a.Min, Max: a.Max, Threshold: a.Threshold, Key: a.Key}
		for _, r := range a.Refs {
			prefix := "benchmark"
			if r.Baseline {
				prefix = "baseline"
			}
			av.Refs = append(av.Refs, fmt.Sprintf("%s:%s.%s", prefix, r.Instance, r.Metric))
		}
		v.Asserts = append(v.Asserts, av)
	}
	return v
}

// TestValid loads every spec in testdata/valid (a file, or a directory)
// and compares its plan with the expected one in NAME.plan.json.
func TestValid(t *testing.T) {
	entries, err := os.ReadDir("testdata/valid")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() && filepath.Ext(name) != ".hcl" {
			continue
		}
		path := filepath.Join("testdata/valid", name)
		t.Run(name, func(t *testing.T) {
			opts := fakeOptions
			opts.VarFiles, _ = filepath.Glob(strings.TrimSuffix(path, ".hcl") + ".vars")
			plan, diags := Load([]string{path}, opts)
			if diags.HasErrors() {
				var buf bytes.Buffer
				plan.DiagnosticWriter(&buf, 0, false).WriteDiagnostics(diags)
				t.Fatalf("unexpected diagnostics:\n%s", buf.String())
			}
			got := viewOf(plan)
			golden := strings.TrimSuffix(path, ".hcl") + ".plan.json"
			if *update {
				b, _ := json.MarshalIndent(got, "", "  ")
				if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			b, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read expected plan (regenerate with -update): %v", err)
			}
			var want planView
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVars(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "vars.hcl")
	os.WriteFile(spec, []byte(`
variable "scale" {
  type    = number
  default = 1
}
variable "name" {
  type    = string
  default = "x"
}
variable "sizes" {
  type    = list(string)
  default = ["16B"]
}
benchmark "m" {
  op = "memcpy"
  matrix {
    size = var.sizes
  }
  size       = param.size
  label      = "${var.name} ${param.size}"
  iterations = 10 * var.scale
}
`), 0o644)
	varFile := filepath.Join(dir, "big.hcl.vars")
	os.WriteFile(varFile, []byte("scale = 5\nsizes = [\"1MB\", \"2MB\"]\n"), 0o644)

	tests := []struct {
		name    string
		vars    map[string]string
		files   []string
		want    []string // name label iterations
		wantErr string
	}{
		{"defaults", nil, nil, []string{"m/size=16B x 16B 10"}, ""},
		{"var", map[string]string{"scale": "3", "name": "1.0"}, nil, []string{"m/size=16B 1.0 16B 30"}, ""},
		{"list var", map[string]string{"sizes": `["4KB"]`}, nil, []string{"m/size=4KB x 4KB 10"}, ""},
		{"file", nil, []string{varFile}, []string{"m/size=1MB x 1MB 50", "m/size=2MB x 2MB 50"}, ""},
		{"var over file", map[string]string{"scale": "2"}, []string{varFile}, []string{"m/size=1MB x 1MB 20", "m/size=2MB x 2MB 20"}, ""},
		{"bad number", map[string]string{"scale": "lots"}, nil, nil, "Invalid value for variable"},
		{"undeclared", map[string]string{"scael": "2"}, nil, nil, `Did you mean "scale"?`},
		{"missing file", nil, []string{filepath.Join(dir, "nope")}, nil, "Unreadable variables file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fakeOptions
			opts.Vars, opts.VarFiles = tt.vars, tt.files
			plan, diags := Load([]string{spec}, opts)
			if tt.wantErr != "" {
				if !strings.Contains(diags.Error(), tt.wantErr) {
					t.Fatalf("diagnostics %q do not mention %q", diags.Error(), tt.wantErr)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			var got []string
			for _, b := range plan.Benchmarks {
				got = append(got, fmt.Sprintf("%s %s %d", b.Name, b.Label, b.Iterations))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	plan, diags := LoadFiles(map[string][]byte{"specs/tiny.hcl": []byte(`benchmark "n" { op = "noop" }`)}, []string{"specs/tiny.hcl"}, fakeOptions)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	want := Suite{Name: "tiny", Timing: Timing{Repeat: 3, Warmup: 100 * time.Millisecond, MinTime: 500 * time.Millisecond, Timeout: 10 * time.Minute,
		MaxRepeat: 50, MaxTime: 30 * time.Second, Precision: 0.02, Launches: 1}}
	if diff := cmp.Diff(want, plan.Suite); diff != "" {
		t.Errorf("suite (-want +got):\n%s", diff)
	}
	b := plan.Benchmarks[0]
	if b.Label != "n" || b.Iterations != 0 || b.Repeat != 3 {
		t.Errorf("benchmark defaults: %+v", b)
	}
}

// TestLoadFilesOrder checks that a spec stored in a result reloads with
// the same hash and instance order as from disk.
func TestLoadFilesOrder(t *testing.T) {
	plan, diags := Load([]string{"testdata/valid/multi"}, fakeOptions)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	again, diags := LoadFiles(plan.Files, plan.Paths, fakeOptions)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if diff := cmp.Diff(viewOf(plan), viewOf(again)); diff != "" {
		t.Errorf("reloaded plan differs (-disk +memory):\n%s", diff)
	}
}

func TestRepeatAuto(t *testing.T) {
	src := `
suite "s" {
  repeat    = "auto"
  precision = 0.05
}
benchmark "auto" { op = "noop" }
benchmark "fixed" {
  op     = "noop"
  repeat = 7
}
benchmark "own" {
  op         = "noop"
  max_repeat = 200
  max_time   = "2m"
}
`
	plan, diags := LoadFiles(map[string][]byte{"s.hcl": []byte(src)}, []string{"s.hcl"}, fakeOptions)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var got []string
	for _, b := range plan.Benchmarks {
		got = append(got, fmt.Sprintf("%s auto=%v repeat=%d max_repeat=%d max_time=%v precision=%v", b.Name, b.RepeatAuto, b.Repeat, b.MaxRepeat, b.MaxTime, b.Precision))
	}
	want := []string{
		"auto auto=true repeat=3 max_repeat=50 max_time=30s precision=0.05",
		"fixed auto=false repeat=7 max_repeat=50 max_time=30s precision=0.05",
		"own auto=true repeat=3 max_repeat=200 max_time=2m0s precision=0.05",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
