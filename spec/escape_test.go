package spec

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiagnosticsDoNotDriveTheTerminal: a spec's own bytes reach the
// terminal in diagnostic snippets; control sequences in it (a spec stored in
// someone else's result, an OSC 52 clipboard write in a comment) are shown
// as '?', and the snippet's columns still line up.
func TestDiagnosticsDoNotDriveTheTerminal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "evil\x1b[2J.hcl")
	src := "benchmark \"b\" {\n  op = \"noop\" # \x1b]52;c;cm0gLXJmIH4=\x07 \u009b31m\n  nosuch = 1\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, diags := Load([]string{path}, fakeOptions)
	if !diags.HasErrors() {
		t.Fatal("an unknown attribute loaded")
	}
	var out bytes.Buffer
	if err := plan.DiagnosticWriter(&out, 100, false).WriteDiagnostics(diags); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.ContainsAny(got, "\x1b\x07\u009b") {
		t.Errorf("diagnostics carry control characters to the terminal:\n%q", got)
	}
	if !strings.Contains(got, `evil\x1b[2J.hcl:3:3: `) || !strings.Contains(got, "nosuch") {
		t.Errorf("diagnostics lost the position or the snippet:\n%s", got)
	}
}
