package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInvalidSnippets covers small mistakes inline: each source must give
// exactly these error summaries.
func TestInvalidSnippets(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"benchmark {\n  op = \"noop\"\n}\n", []string{"Missing name for benchmark", "No benchmarks"}},
		{"suite {\n}\nbenchmark \"a\" {\n  op = \"noop\"\n}\n", []string{"Missing name for suite"}},
		{"benchmark \"a\" \"b\" {\n  op = \"noop\"\n}\n", []string{"Extraneous label for benchmark", "No benchmarks"}},
		{"locals \"x\" {\n}\nbenchmark \"a\" {\n  op = \"noop\"\n}\n", []string{"Extraneous label for locals"}},
		{"benchmark \"a\" {\n  op = \"noop\"\n  matrix \"x\" {\n    a = [1]\n  }\n}\n", []string{"Extraneous label for matrix"}},
		{"benchmark \"a\" {\n  op = \"noop\"\n  matrix {\n    a = [1]\n    b {\n    }\n  }\n}\n", []string{"Unexpected \"b\" block"}},
		{"benchmark \"a\" {\n  op = \"noop\"\n  matrix {\n    a = [null]\n  }\n}\n", []string{"Invalid matrix value"}},
		{"benchmark \"a\" {\n  op = null\n}\n", []string{"Missing op"}},
		{"benchmark \"a\" {\n  op  = \"http\"\n  url = null\n}\n", []string{"Missing required parameter"}},
		{"benchmark \"a\" {\n  op      = \"http\"\n  url     = \"x\"\n  headers = { a = null }\n}\n", []string{"Invalid parameter value"}},
		{"benchmark \"a\" {\n  op      = \"http\"\n  url     = \"x\"\n  paths   = [\"/\", null]\n}\n", []string{"Invalid parameter value"}},
		{"variable \"v\" {\n  type = lisst(string)\n}\nbenchmark \"a\" {\n  op = \"noop\"\n}\n", []string{"Invalid type specification", "Missing variable value"}},
		{"benchmark \"a\" {\n  op = \"noop\"\n}\nassert \"x\" {\n  value = benchmark\n  max   = 1\n}\n", []string{"Incomplete reference"}},
		{"benchmark \"a\" {\n  op = \"noop\"\n}\nassert \"x\" {\n  value = benchmark.a[0]\n  max   = 1\n}\n", []string{"Invalid reference"}},
		{"server \"s\" {\n  builtin   = \"static\"\n  body_size = \"1QB\"\n}\nbenchmark \"a\" {\n  op = \"noop\"\n}\n", []string{"Invalid size"}},
		{"benchmark \"a\" {\n  op = \"noop\"\n  matrix {\n    b = [2]\n  }\n  matrix {\n    a = [1]\n  }\n}\n", []string{"Duplicate matrix block"}},
		{"foo = 1\nbenchmark \"a\" {\n  op = \"noop\"\n}\n", []string{"Unsupported argument"}},
		// names that reach tables and reports stay one line of text
		{"suite \"evil\\nBenchmarkInjected 1 1 ns/op\" {\n}\nbenchmark \"a\" {\n  op = \"noop\"\n}\n", []string{"Invalid suite name"}},
		{"suite \"s\" {\n  title = \"a\\u001b]0;x\\u0007\"\n}\nbenchmark \"a\" {\n  op = \"noop\"\n}\n", []string{"Invalid name"}},
		{"benchmark \"a\" {\n  op    = \"noop\"\n  label = \"x\\ny\"\n}\n", []string{"Invalid name"}},
		{"benchmark \"a\" {\n  op = \"noop\"\n  matrix {\n    a = [\"x\\rBenchmarkB 1 1 ns/op\"]\n  }\n}\n", []string{"Invalid matrix value"}},
		// two points of a matrix named alike: x/a=1/b=2/b=3
		{"benchmark \"x\" {\n  op = \"noop\"\n  matrix {\n    a = [\"1\", \"1/b=2\"]\n    b = [\"2/b=3\", \"3\"]\n  }\n}\n", []string{"Duplicate instance name"}},
	}
	for _, tt := range tests {
		_, diags := LoadFiles(map[string][]byte{"t.hcl": []byte(tt.src)}, nil, fakeOptions)
		var got []string
		for _, d := range diags {
			got = append(got, d.Summary)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s\n(-want +got):\n%s", tt.src, diff)
		}
	}
}

// TestSuiteNameFromPath checks that a suite named after its file gets the
// same check as a suite block's name.
func TestSuiteNameFromPath(t *testing.T) {
	name := "evil\nBenchmarkX 1 1 ns.hcl"
	_, diags := LoadFiles(map[string][]byte{name: []byte("benchmark \"a\" {\n  op = \"noop\"\n}\n")}, []string{name}, fakeOptions)
	if diff := cmp.Diff([]string{"-: Invalid suite name"}, gotErrors(diags)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
