package spec

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestExamples loads each example spec, a spec of its own, against the
// real op catalog: every one must validate.
func TestExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.hcl")
	more, _ := filepath.Glob("../examples/interpreters/*.hcl")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			plan, diags := Load([]string{f}, Options{})
			if diags.HasErrors() {
				var buf bytes.Buffer
				plan.DiagnosticWriter(&buf, 0, false).WriteDiagnostics(diags)
				t.Fatalf("diagnostics:\n%s", buf.String())
			}
		})
	}
}
