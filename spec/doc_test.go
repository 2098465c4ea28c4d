package spec

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

// TestSpecLanguageDoc checks that docs/spec-language.md lists exactly the
// blocks, attributes and functions the decoder accepts, so that the
// reference cannot drift from the code.
func TestSpecLanguageDoc(t *testing.T) {
	src, err := os.ReadFile("../docs/spec-language.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile("^###+ `([a-z_]+)`")
	row := regexp.MustCompile("^\\| `([a-z_]+)` \\|")
	documented := map[string][]string{}
	section := ""
	var blocks []string
	for _, line := range strings.Split(string(src), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			section = m[1]
			if strings.HasPrefix(line, "### ") {
				blocks = append(blocks, section)
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			section = ""
		}
		if m := row.FindStringSubmatch(line); m != nil && section != "" {
			documented[section] = append(documented[section], m[1])
		}
	}

	var declared []string
	for _, b := range rootSchema.Blocks {
		declared = append(declared, b.Type)
	}
	if diff := cmp.Diff(sorted(declared), sorted(blocks)); diff != "" {
		t.Errorf("blocks (-decoder +doc):\n%s", diff)
	}
	names := func(s []hcl.AttributeSchema) []string {
		var out []string
		for _, a := range s {
			out = append(out, a.Name)
		}
		return out
	}
	for block, attrs := range map[string][]string{
		"suite":     names(suiteSchema.Attributes),
		"variable":  names(variableSchema.Attributes),
		"benchmark": append(names(benchmarkAttrs), "matrix"),
		"server":    names(serverSchema.Attributes),
		"assert":    names(assertSchema.Attributes),
		"report":    names(reportSchema.Attributes),
	} {
		if diff := cmp.Diff(sorted(attrs), sorted(documented[block])); diff != "" {
			t.Errorf("attributes of %s (-decoder +doc):\n%s", block, diff)
		}
	}

	fns := functionSection(string(src))
	var want []string
	for name := range functions {
		want = append(want, name)
	}
	want = append(want, "file")
	if diff := cmp.Diff(sorted(want), sorted(fns)); diff != "" {
		t.Errorf("functions (-decoder +doc):\n%s", diff)
	}
}

// functionSection lists the names written `name(` under "### Functions".
func functionSection(doc string) []string {
	_, rest, _ := strings.Cut(doc, "### Functions")
	rest, _, _ = strings.Cut(rest, "\n### ")
	seen := map[string]bool{}
	var out []string
	for _, m := range regexp.MustCompile("`([a-z]+)\\(").FindAllStringSubmatch(rest, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}
