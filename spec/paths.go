package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// pathObject is the path.* scope, as Terraform has path.module and
// path.cwd: path.spec is the absolute directory of the spec (a directory
// spec's own, or its first file's), and path.cwd the directory specrun
// runs in, against which every relative path a spec names is resolved.
func pathObject(paths []string) cty.Value {
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "."
	}
	dir := cwd
	if len(paths) > 0 {
		p := filepath.Clean(paths[0])
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			p = filepath.Dir(p)
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		dir = p
	}
	return cty.ObjectVal(map[string]cty.Value{
		"spec": cty.StringVal(dir),
		"cwd":  cty.StringVal(cwd),
	})
}

// fileFunc is file(PATH): the contents of a regular UTF-8 file of at most
// MaxFileBytes, a relative PATH resolved against the working directory.
// A spec loaded from a result (fromDisk false) reads nothing: file() is an
// unknown string there, so judging a result never opens a file its spec
// names.
func fileFunc(fromDisk bool) function.Function {
	return function.New(&function.Spec{
		Description: "Reads the contents of a file as a string.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if !fromDisk {
				return cty.UnknownVal(cty.String), nil
			}
			name := args[0].AsString()
			src, err := ReadFile(name)
			if err != nil {
				return cty.UnknownVal(cty.String), fmt.Errorf("cannot read %q: %s", name, err)
			}
			if !utf8.Valid(src) {
				return cty.UnknownVal(cty.String), fmt.Errorf("%q is not UTF-8 text", name)
			}
			return cty.StringVal(string(src)), nil
		},
	})
}
