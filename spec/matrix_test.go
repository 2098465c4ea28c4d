package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestUnusedMatrixKey: a matrix key that no attribute reads makes instances
// that differ only in name, and is a warning at the key; one read anywhere
// in the block, even only in the label, is not.
func TestUnusedMatrixKey(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       string // the warning's detail, "" for none
		at         string // its position
	}{
		{"param forgotten", `matrix {
    size = ["16B", "1KB"]
  }`, `Op "memcpy" has a parameter "size": set size = param.size to sweep it.`, "3,5"},
		{"not a param", `matrix {
    build = ["a", "b"]
  }`, `No attribute of benchmark "m" reads matrix key "build", so its instances differ only in name. Read it in an attribute, as param.build, or remove it.`, "3,5"},
		{"misspelt param", `matrix {
    sizes = ["16B", "1KB"]
  }`, `as param.sizes, or remove it. Did you mean "size"?`, "3,5"},
		{"one value names the instance", `matrix {
    mode = ["fast"]
  }`, "", ""},
		{"swept", `matrix {
    size = ["16B", "1KB"]
  }
  size = param.size`, "", ""},
		{"label only", `matrix {
    build = ["a", "b"]
  }
  label = "build ${param.build}"`, "", ""},
		{"index syntax", `matrix {
    build = ["a", "b"]
  }
  label = param["build"]`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.hcl")
			src := "benchmark \"m\" {\n  " + tc.body + "\n  op = \"memcpy\"\n}\n"
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags := Load([]string{path}, fakeOptions)
			if diags.HasErrors() {
				t.Fatalf("errors: %v", diags)
			}
			var got []*hcl.Diagnostic
			for _, d := range diags {
				if d.Summary == "Unused matrix key" {
					got = append(got, d)
				}
			}
			if tc.want == "" {
				if len(got) > 0 {
					t.Fatalf("warned: %v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d unused-key warnings (%v), want 1", len(got), diags)
			}
			d := got[0]
			pos := strings.TrimPrefix(d.Subject.String(), path+":")
			if d.Severity != hcl.DiagWarning || !strings.Contains(d.Detail, tc.want) || !strings.HasPrefix(pos, tc.at) {
				t.Errorf("warning %v at %s: %q; want a warning at %s saying %q", d.Severity, pos, d.Detail, tc.at, tc.want)
			}
		})
	}
}
