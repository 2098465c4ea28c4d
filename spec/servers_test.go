package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanSettlesServers: which server blocks an instance loads is decided
// when the plan is built, from the spec's own server blocks, however the
// benchmark names its target.
func TestPlanSettlesServers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.hcl")
	src := `
server "app" {
  command = ["./app"]
  ready   = "http://127.0.0.1:8081/health"
}
server "static" {
  builtin = "static"
}
benchmark "byname" {
  op     = "http"
  server = "static"
}
benchmark "byurl" {
  op  = "http"
  url = "${server.app.url}/page"
}
benchmark "builtinurl" {
  op  = "http"
  url = "${server.static.url}/x"
}
benchmark "elsewhere" {
  op  = "http"
  url = "http://127.0.0.1:9/"
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, diags := Load([]string{path}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := map[string]string{"byname": "[static]", "byurl": "[app]", "builtinurl": "[static]", "elsewhere": "[]"}
	for _, b := range plan.Benchmarks {
		if got := fmt.Sprint(b.Servers); got != want[b.Name] {
			t.Errorf("%s: Servers = %s, want %s", b.Name, got, want[b.Name])
		}
	}
}

// TestUnknownServerIsADiagnostic: a benchmark that names a server the spec
// does not declare is refused when the spec loads, at the attribute.
func TestUnknownServerIsADiagnostic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.hcl")
	src := "server \"static\" {\n  builtin = \"static\"\n}\nbenchmark \"b\" {\n  op     = \"http\"\n  server = \"statik\"\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := Load([]string{path}, Options{})
	if !diags.HasErrors() {
		t.Fatal("a benchmark naming an undeclared server loaded")
	}
	d := diags[0]
	if d.Summary != "Unknown server" || !strings.Contains(d.Detail, `Did you mean "static"?`) || d.Subject == nil || d.Subject.Start.Line != 6 {
		t.Errorf("diagnostic = %s: %s at %v; want Unknown server at line 6, suggesting static", d.Summary, d.Detail, d.Subject)
	}
}

// TestLaunchesWithServers: a benchmark that loads a server runs in one
// process: a suite's launches leave it there, and its own are refused at
// the attribute.
func TestLaunchesWithServers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.hcl")
	src := `suite "s" {
  launches = 3
}
server "static" {
  builtin = "static"
}
benchmark "inherits" {
  op     = "http"
  server = "static"
}
benchmark "away" {
  op  = "http"
  url = "http://127.0.0.1:9/"
}
benchmark "noop" {
  op = "noop"
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, diags := Load([]string{path}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := map[string]int{"inherits": 1, "away": 3, "noop": 3}
	for _, b := range plan.Benchmarks {
		if b.Launches != want[b.Name] {
			t.Errorf("%s: launches %d, want %d", b.Name, b.Launches, want[b.Name])
		}
	}

	src += "benchmark \"own\" {\n  op       = \"http\"\n  server   = \"static\"\n  launches = 2\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags = Load([]string{path}, Options{})
	if len(diags) != 1 || diags[0].Summary != "Launches with servers" || diags[0].Subject.Start.Line != 21 {
		t.Fatalf("diagnostics %v; want one, Launches with servers, at line 21", diags)
	}
}
