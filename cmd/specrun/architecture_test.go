package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/specrun/specrun/"

// TestArchitectureDoc checks that docs/architecture.md's package table
// names every package of the product and exactly the project packages each
// one imports (tests and bench/ aside), so the picture cannot drift from
// the code.
func TestArchitectureDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, _, ok := strings.Cut(string(doc), "<!-- imports: end -->")
	_, table, ok2 := strings.Cut(table, "<!-- imports: begin -->")
	if !ok || !ok2 {
		t.Fatal("docs/architecture.md has no imports table between its markers")
	}
	documented := map[string][]string{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		pkg := strings.Trim(strings.TrimSpace(cells[1]), "`")
		var imports []string
		for _, f := range strings.Fields(cells[3]) {
			imports = append(imports, strings.Trim(f, "`"))
		}
		documented[pkg] = imports
	}

	actual := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "bench" || rel == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if _, ok := actual[pkg]; !ok {
			actual[pkg] = nil
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if rest, ok := strings.CutPrefix(p, module); ok && !slices.Contains(actual[pkg], rest) {
				actual[pkg] = append(actual[pkg], rest)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg, imports := range actual {
		slices.Sort(imports)
		want, ok := documented[pkg]
		if !ok {
			t.Errorf("package %s is missing from docs/architecture.md; it imports %v", pkg, imports)
			continue
		}
		slices.Sort(want)
		if !slices.Equal(imports, want) {
			t.Errorf("%s imports %v; docs/architecture.md says %v", pkg, imports, want)
		}
	}
	for pkg := range documented {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("docs/architecture.md lists %s, which does not exist", pkg)
		}
	}
}
