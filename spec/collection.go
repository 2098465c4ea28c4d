package spec

import (
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// Collection reports whether dir is a folder of separate specs rather than
// one spec: more than one of its *.hcl files declares a suite block, which
// one spec may not. It returns those files, sorted, so that a command that
// checks specs (validate) can check each alone; a folder of examples is the
// common case. Files that do not parse count as not declaring a suite.
func Collection(dir string) ([]string, bool) {
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return nil, false
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.hcl"))
	suites := 0
	p := hclparse.NewParser()
	for _, name := range files {
		src, err := readSpecFile(name)
		if err != nil || CheckNesting(src, name).HasErrors() {
			continue
		}
		f, diags := p.ParseHCL(src, name)
		if diags.HasErrors() {
			continue
		}
		content, _, _ := f.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "suite", LabelNames: []string{"name"}}}})
		if content != nil && len(content.Blocks) > 0 {
			suites++
		}
	}
	return files, suites > 1
}
