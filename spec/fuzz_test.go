package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"
)

// FuzzLoad feeds arbitrary bytes to the loader: the result is a plan or
// diagnostics, never a panic, and a plan without errors is complete.
func FuzzLoad(f *testing.F) {
	for _, dir := range []string{"testdata/valid/*.hcl", "testdata/valid/*/*.hcl", "testdata/invalid/*.hcl", "testdata/invalid/*/*.hcl"} {
		paths, _ := filepath.Glob(dir)
		for _, p := range paths {
			if strings.Contains(p, "huge") {
				continue // 10,000 instances per run would starve the fuzzer; TestInvalid covers it
			}
			if src, err := os.ReadFile(p); err == nil {
				f.Add(src)
			}
		}
	}
	// just past the nesting limit, so that mutations explore both sides
	for _, src := range deepSources(MaxNesting + 2) {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		plan, diags := LoadFiles(map[string][]byte{"fuzz.hcl": src}, []string{"fuzz.hcl"}, fakeOptions)
		if plan == nil {
			t.Fatal("nil plan")
		}
		if diags.HasErrors() {
			return
		}
		if len(plan.Benchmarks) == 0 {
			t.Fatal("a plan without errors has no benchmarks")
		}
		for _, b := range plan.Benchmarks {
			if b.Op == nil || b.Name == "" || b.Repeat < 1 || b.Iterations < 0 {
				t.Fatalf("incomplete benchmark %+v", b)
			}
		}
		// every instance with every metric it may record: evaluation may
		// fail (a division by zero), but never panic
		m := Metrics{}
		for _, b := range plan.Benchmarks {
			m[b.Name] = map[string]float64{}
			for _, name := range metricNames(b.Op) {
				m[b.Name][name] = 1
			}
		}
		for _, a := range plan.Asserts {
			a.Evaluate(Metrics{}, nil)
			a.Evaluate(m, m)
		}
	})
}

// FuzzVarValue checks the --var value parser against every type a
// variable can declare.
func FuzzVarValue(f *testing.F) {
	for _, s := range []string{"1", "1.5", "lots", `["a", "b"]`, `{ a = 1 }`, "true", `"quoted"`, "${x}", "[1,", "\xff", "null", "var.x", "upper(1)"} {
		f.Add(s)
	}
	types := []cty.Type{cty.String, cty.Number, cty.Bool, cty.List(cty.String), cty.Map(cty.Number), cty.DynamicPseudoType,
		cty.Object(map[string]cty.Type{"a": cty.Number})}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, ty := range types {
			v, diags := ParseVarValue(raw, ty)
			if diags.HasErrors() {
				continue
			}
			if !v.IsWhollyKnown() {
				t.Fatalf("ParseVarValue(%q, %s) is unknown", raw, ty.FriendlyName())
			}
			if ty != cty.DynamicPseudoType && !v.Type().Equals(ty) && !v.IsNull() {
				t.Fatalf("ParseVarValue(%q, %s) has type %s", raw, ty.FriendlyName(), v.Type().FriendlyName())
			}
		}
	})
}

// varTypes are the variable types the round-trip targets declare.
var varTypes = []cty.Type{
	cty.String, cty.Number, cty.Bool, cty.List(cty.String), cty.Set(cty.Number), cty.Map(cty.Number),
	cty.Object(map[string]cty.Type{"a": cty.Number, "b": cty.List(cty.Bool)}), cty.DynamicPseudoType,
}

// FuzzVarRoundTrip checks that a value given as --var, once stored in a
// result as VarLiteral writes it, reads back (as check reads it) to the
// very same value, whatever its type.
func FuzzVarRoundTrip(f *testing.F) {
	for _, s := range []string{"fast", `"quoted"`, "2.5", "1e400", "-0", "0.1", "true", `["a", "b"]`, `[1, 2, 1]`, `{ k = 1 }`,
		`{ a = 1, b = [true] }`, `"${x}"`, `$${x}`, "%{", "a\nb\t\x01\"\\", "\xff", "null", `{"a b" = "c"}`, `[[1], {x = "y"}]`,
		"123456789012345678901234567890.5", "1e-300", "1P1010", "1.5P-1010", "3P-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, ty := range varTypes {
			v, diags := ParseVarValue(raw, ty)
			if diags.HasErrors() {
				continue
			}
			lit := VarLiteral(v)
			back, diags := ParseVarLiteral(lit, ty)
			if diags.HasErrors() {
				t.Fatalf("%s: ParseVarValue(%q) = %#v, stored as %s, does not read back: %s", ty.FriendlyName(), raw, v, lit, diags.Error())
			}
			if !back.Type().Equals(v.Type()) || !back.RawEquals(v) {
				t.Fatalf("%s: ParseVarValue(%q) = %#v, stored as %s, reads back as %#v", ty.FriendlyName(), raw, v, lit, back)
			}
			if again := VarLiteral(back); again != lit {
				t.Fatalf("%s: stored %s, then %s", ty.FriendlyName(), lit, again)
			}
		}
	})
}

// FuzzVarFileRoundTrip applies an arbitrary variables file (HCL or JSON)
// to a spec with a variable of every type, then reloads the spec with the
// values stored as a result stores them: it must load, with the same
// stored values.
func FuzzVarFileRoundTrip(f *testing.F) {
	for _, s := range []string{`s = "abc"`, `n = 1.5`, `b = true`, `l = ["x", "y"]`, `m = { a = 1 }`, `o = { a = 1, b = [false] }`,
		`a = [1, "x", { k = null }]`, `s = "$${x} %%{y} \" \\ \n"`, `{"s": "json", "n": 2, "a": {"k": [1]}}`, `n = 1e308`} {
		f.Add([]byte(s), strings.HasPrefix(s, "{"))
	}
	specSrc := []byte(`
variable "s" {
  type    = string
  default = ""
}
variable "n" {
  type    = number
  default = 0
}
variable "b" {
  type    = bool
  default = false
}
variable "l" {
  type    = list(string)
  default = []
}
variable "m" {
  type    = map(number)
  default = {}
}
variable "o" {
  type    = object({ a = number, b = list(bool) })
  default = { a = 0, b = [] }
}
variable "a" {
  type    = any
  default = "none"
}
benchmark "x" {
  op = "noop"
}
`)
	if _, diags := LoadFiles(map[string][]byte{"s.hcl": specSrc}, []string{"s.hcl"}, fakeOptions); diags.HasErrors() {
		f.Fatalf("the target's own spec does not load: %s", diags.Error())
	}
	f.Fuzz(func(t *testing.T, vars []byte, isJSON bool) {
		name := filepath.Join(t.TempDir(), "v.hcl")
		if isJSON {
			name = strings.TrimSuffix(name, ".hcl") + ".json"
		}
		if err := os.WriteFile(name, vars, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := fakeOptions
		opts.VarFiles = []string{name}
		plan, diags := LoadFiles(map[string][]byte{"s.hcl": specSrc}, []string{"s.hcl"}, opts)
		if diags.HasErrors() {
			return
		}
		again := fakeOptions
		again.VarLiterals = plan.Vars
		back, diags := LoadFiles(map[string][]byte{"s.hcl": specSrc}, []string{"s.hcl"}, again)
		if diags.HasErrors() {
			t.Fatalf("stored %q does not reload: %s", plan.Vars, diags.Error())
		}
		if diff := cmp.Diff(plan.Vars, back.Vars); diff != "" {
			t.Fatalf("stored values change on reload (-run +check):\n%s", diff)
		}
	})
}
