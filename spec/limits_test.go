package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// nested is open*n + inner + close*n.
func nested(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// deepSources are inputs whose expressions nest about n levels deep; at
// 100,000 each overflowed Go's stack in the parser or the evaluator before
// nesting was checked.
func deepSources(n int) map[string]string {
	bench := func(expr string) string {
		return "benchmark \"x\" {\n  op         = \"noop\"\n  iterations = " + expr + "\n}\n"
	}
	return map[string]string{
		"parens":      bench(nested("(", "1", ")", n)),
		"lists":       bench(nested("[", "1", "]", n)),
		"objects":     bench(nested("{a=", "1", "}", n)),
		"templates":   bench(nested(`"${`, "1", `}"`, n/2)),
		"heredoc":     bench("<<EOT\n" + nested("${", "1", "}", n) + "\nEOT"),
		"if":          bench(`"` + nested("%{ if true }", "x", "%{ endif }", n/4) + `"`),
		"calls":       bench(nested("abs(", "1", ")", n)),
		"unary":       bench(strings.Repeat("-", 10*n) + "1"),
		"not":         bench(strings.Repeat("!", 10*n) + "true"),
		"sum":         bench(strings.Repeat("1+", 5*n) + "1"),
		"conditional": bench(strings.Repeat("true ? 1 : ", 2*n) + "1"),
		"index":       bench("local.x" + strings.Repeat("[local.k]", 2*n)),
		"locals":      "locals {\n  x = " + nested("(", "1", ")", n) + "\n}\n" + bench("1"),
		"json":        `{"benchmark": {"x": {"op": "noop", "iterations": ` + nested("[", "1", "]", n) + `}}}`,
		"json string": `{"benchmark": {"x": {"op": "noop", "iterations": "${` + nested("(", "1", ")", n) + `}"}}}`,
	}
}

func TestDeepNesting(t *testing.T) {
	for name, src := range deepSources(100000) {
		t.Run(name, func(t *testing.T) {
			file := "deep.hcl"
			if strings.HasPrefix(name, "json") {
				file = "deep.json"
			}
			_, diags := LoadFiles(map[string][]byte{file: []byte(src)}, []string{file}, fakeOptions)
			if got := gotErrors(diags); len(got) != 1 || !strings.HasSuffix(got[0], "Expression too deeply nested") {
				t.Errorf("errors %q, want one Expression too deeply nested", got)
			}
		})
	}
}

// TestNestingAllowed checks that ordinary deep-ish specs are not refused.
func TestNestingAllowed(t *testing.T) {
	src := `
locals {
  a = ` + nested("(", "1", ")", MaxNesting/2) + `
  b = ` + strings.Repeat("1 + ", MaxNesting/2) + `1
  c = "${format("%s-%s", "a", upper("b"))} %{ if true }${[for s in ["x"]: s][0]}%{ endif }"
  d = { a = [1, { b = [2, 3] }], c = local.a > 0 ? "y" : "n" }
}
benchmark "x" {
  op         = "noop"
  iterations = local.a + local.b
  label      = "${local.c} ${local.d.c}"
}
`
	plan, diags := LoadFiles(map[string][]byte{"ok.hcl": []byte(src)}, []string{"ok.hcl"}, fakeOptions)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if got, want := plan.Benchmarks[0].Label, "a-B x y"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
	if got, want := plan.Benchmarks[0].Iterations, int64(1+MaxNesting/2+1); got != want {
		t.Errorf("iterations %d, want %d", got, want)
	}
}

func TestDeepVars(t *testing.T) {
	dir := t.TempDir()
	specFile := filepath.Join(dir, "s.hcl")
	os.WriteFile(specFile, []byte("variable \"v\" {\n  default = 1\n}\nbenchmark \"x\" {\n  op = \"noop\"\n}\n"), 0o644)
	hclVars := filepath.Join(dir, "v.hcl")
	os.WriteFile(hclVars, []byte("v = "+nested("[", "", "]", 100000)+"\n"), 0o644)
	jsonVars := filepath.Join(dir, "v.json")
	os.WriteFile(jsonVars, []byte(`{"v": `+nested("[", "", "]", 100000)+"}"), 0o644)
	for _, opts := range []Options{
		{VarFiles: []string{hclVars}},
		{VarFiles: []string{jsonVars}},
		{Vars: map[string]string{"v": nested("[", "", "]", 100000)}},
	} {
		opts.Ops, opts.OpNames = fakeLookup, fakeNames
		_, diags := Load([]string{specFile}, opts)
		if !strings.Contains(diags.Error(), "nests more than") {
			t.Errorf("%v %v: diagnostics %q, want too deeply nested", opts.VarFiles, len(opts.Vars), diags.Error())
		}
	}
}

// TestValueSize covers expressions that grow a value exponentially or by a
// large factor from a few lines: each must be refused before it is built.
func TestValueSize(t *testing.T) {
	big := `"` + strings.Repeat("x", 1<<20) + `"`
	laughs := `a0 = "xxxxxxxx"` + "\n"
	for i := 1; i <= 8; i++ {
		laughs += fmt.Sprintf("a%d = \"%s\"\n", i, strings.Repeat(fmt.Sprintf("${local.a%d}", i-1), 8))
	}
	tests := map[string]string{
		"doubling":  laughs,
		"template":  "a = " + big + "\nb = \"${local.a}${local.a}${local.a}${local.a}${local.a}\"",
		"for":       "a = " + big + "\nb = [for i in range(100): \"x${local.a}\"]",
		"nested":    "a = " + big + "\nb = [for i in range(4): [for j in range(4): \"${local.a}${i}\"]]",
		"join":      "a = " + big + "\nb = join(local.a, range(100))",
		"replace":   "a = " + big + "\nb = replace(local.a, \"x\", \"yyyyy\")",
		"regex":     "a = " + big + "\nb = replace(local.a, \"/x/\", \"yyyyy\")",
		"indent":    "a = \"x\\ny\\nz\"\nb = indent(2000000, local.a)",
		"formatlst": "a = " + big + "\nb = formatlist(\"%s\", [local.a, local.a, local.a, local.a, local.a])",
		"concat":    "a = [for i in range(1000): \"" + strings.Repeat("y", 5000) + "\"]\nb = concat(local.a, local.a)",
		"jsonenc":   "a = [for i in range(1000): \"" + strings.Repeat("\\u0001", 1000) + "\"]\nb = jsonencode(local.a)",
	}
	for name, locals := range tests {
		t.Run(name, func(t *testing.T) {
			src := "locals {\n" + locals + "\n}\nbenchmark \"x\" {\n  op = \"noop\"\n}\n"
			_, diags := LoadFiles(map[string][]byte{"v.hcl": []byte(src)}, []string{"v.hcl"}, fakeOptions)
			if !strings.Contains(diags.Error(), "the most a spec value may hold") {
				t.Errorf("diagnostics %q, want a value too large", diags.Error())
			}
		})
	}
}

// TestSpecFileKinds checks that only regular files are read as specs or
// variables: a FIFO would block forever and a device never end.
func TestSpecFileKinds(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.hcl")
	os.WriteFile(good, []byte("variable \"v\" {\n  default = 1\n}\nbenchmark \"x\" {\n  op = \"noop\"\n}\n"), 0o644)
	fifo := filepath.Join(dir, "fifo.hcl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	zero := filepath.Join(dir, "zero.hcl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(dir, "large.hcl")
	os.WriteFile(large, []byte("# "+strings.Repeat("x", MaxFileBytes)+"\n"), 0o644)
	withFifo := filepath.Join(dir, "withfifo")
	os.Mkdir(withFifo, 0o755)
	os.Symlink(good, filepath.Join(withFifo, "a.hcl"))
	os.Symlink("/dev/zero", filepath.Join(withFifo, "z.hcl"))

	tests := []struct {
		name  string
		paths []string
		vars  []string
		want  string
	}{
		{"fifo", []string{fifo}, nil, "named pipe"},
		{"dev zero", []string{zero}, nil, "a device"},
		{"large", []string{large}, nil, "at most"},
		{"dir with device", []string{withFifo}, nil, "a device"},
		{"fifo var file", []string{good}, []string{fifo}, "named pipe"},
		{"dev zero var file", []string{good}, []string{"/dev/zero"}, "a device"},
		{"dir var file", []string{good}, []string{dir}, "a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fakeOptions
			opts.VarFiles = tt.vars
			_, diags := Load(tt.paths, opts)
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.want) {
				t.Errorf("diagnostics %q, want an error mentioning %q", diags.Error(), tt.want)
			}
		})
	}
	// the limit holds for a spec stored in a result as well
	_, diags := LoadFiles(map[string][]byte{"big.hcl": []byte("# " + strings.Repeat("x", MaxFileBytes))}, []string{"big.hcl"}, fakeOptions)
	if got := gotErrors(diags); len(got) != 1 || !strings.HasSuffix(got[0], "Spec file too large") {
		t.Errorf("stored large file: errors %q", got)
	}
}

func TestValueSizeCount(t *testing.T) {
	shared := cty.StringVal(strings.Repeat("x", 1000))
	v := cty.TupleVal([]cty.Value{shared, shared})
	for i := 0; i < 40; i++ { // 2^40 strings: must stop early, not walk them
		v = cty.TupleVal([]cty.Value{v, v})
	}
	if n := valueSize(v, MaxValueBytes+1); n <= MaxValueBytes {
		t.Errorf("valueSize = %d, want over %d", n, MaxValueBytes)
	}
	if n := valueSize(cty.ObjectVal(map[string]cty.Value{"ab": cty.StringVal("xyz")}), 100); n != 1+2+1+3 {
		t.Errorf("valueSize of {ab = \"xyz\"} = %d", n)
	}
}

func TestPathAndFile(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "label.txt"), []byte("from a file\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "bad.txt"), []byte("\xff\xfe"), 0o644)
	os.WriteFile(filepath.Join(sub, "big.txt"), []byte(strings.Repeat("x", MaxFileBytes+1)), 0o644)
	syscall.Mkfifo(filepath.Join(sub, "fifo"), 0o644)
	specFile := filepath.Join(sub, "s.hcl")
	load := func(label string) (*Plan, string) {
		os.WriteFile(specFile, []byte("benchmark \"x\" {\n  op    = \"noop\"\n  label = "+label+"\n}\n"), 0o644)
		plan, diags := Load([]string{specFile}, fakeOptions)
		if !diags.HasErrors() {
			return plan, ""
		}
		return plan, diags.Error()
	}
	if plan, errs := load(`"${path.spec}|${path.cwd}"`); errs != "" {
		t.Fatal(errs)
	} else if cwd, _ := os.Getwd(); plan.Benchmarks[0].Label != sub+"|"+cwd {
		t.Errorf("path.spec|path.cwd = %q, want %q", plan.Benchmarks[0].Label, sub+"|"+cwd)
	}
	if plan, errs := load(`trimspace(file("${path.spec}/label.txt"))`); errs != "" {
		t.Fatal(errs)
	} else if plan.Benchmarks[0].Label != "from a file" {
		t.Errorf("label from file() = %q", plan.Benchmarks[0].Label)
	}
	for name, want := range map[string]string{
		"bad.txt": "not UTF-8", "big.txt": "at most", "fifo": "named pipe", "missing": "no such file", ".": "a directory",
	} {
		if _, errs := load(`file("${path.spec}/` + name + `")`); !strings.Contains(errs, want) {
			t.Errorf("file(%q): diagnostics %q, want %q", name, errs, want)
		}
	}
	if _, errs := load(`file("/dev/zero")`); !strings.Contains(errs, "a device") {
		t.Errorf("file(/dev/zero): diagnostics %q", errs)
	}

	// a spec stored in a result reads no file, not even one that is missing
	src := []byte("benchmark \"x\" {\n  op    = \"noop\"\n  label = file(\"/nonexistent/secret\")\n}\n")
	plan, diags := LoadFiles(map[string][]byte{"s.hcl": src}, []string{"s.hcl"}, fakeOptions)
	if diags.HasErrors() || plan.Benchmarks[0].Label != "x" {
		t.Errorf("stored spec with file(): label %q, diagnostics %q", plan.Benchmarks[0].Label, diags.Error())
	}
}
