package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/rogpeppe/go-internal/diff"

	"github.com/specrun/specrun/internal/atomicfile"
	"github.com/specrun/specrun/spec"
)

// fmtCmd rewrites spec files in HCL's canonical format, as hclfmt does.
// Like gofmt, --diff shows the change instead of making it, and --check
// only reports which files would change.
func fmtCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fmt", "[--check] [--diff] PATH...",
		"Rewrite spec files (a directory: its *.hcl files) in canonical HCL format.\nThe names of the files that change are printed.", stderr)
	check := fs.Bool("check", false, "change nothing; list the files that are not formatted and exit 1 if any")
	showDiff := fs.Bool("diff", false, "change nothing; print a unified diff of the formatting changes")
	paths, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageErrorHelp(fs, "no spec path given")
	}
	// A file that cannot be formatted is reported and the others are
	// still done; the errors are returned together at the end.
	files, errs := fmtFiles(paths)
	changed := false
	for _, name := range files {
		src, err := spec.ReadFile(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %v", name, err))
			continue
		}
		// Formatting a file that does not parse could move its mistakes
		// around, so report them instead, the way validate would.
		diags := spec.CheckNesting(src, name)
		if !diags.HasErrors() {
			_, diags = hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		}
		if diags.HasErrors() {
			printDiagnostics(stderr, &spec.Plan{Files: map[string][]byte{name: src}}, diags)
			errs = append(errs, fmt.Errorf("%s does not parse", name))
			continue
		}
		out := hclwrite.Format(src)
		if bytes.Equal(src, out) {
			continue
		}
		changed = true
		switch {
		case *showDiff:
			stdout.Write(diff.Diff(name, src, name+" (formatted)", out))
		case *check:
			fmt.Fprintln(stdout, name)
		default:
			if err := rewrite(name, out); err != nil {
				errs = append(errs, err)
				continue
			}
			fmt.Fprintln(stdout, name)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if changed && *check {
		return errChanged
	}
	return nil
}

// fmtFiles expands paths into spec files: a directory gives its *.hcl.
func fmtFiles(paths []string) ([]string, []error) {
	var files []string
	var errs []error
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		names, _ := filepath.Glob(filepath.Join(p, "*.hcl"))
		if len(names) == 0 {
			errs = append(errs, fmt.Errorf("%s holds no .hcl file", p))
		}
		files = append(files, names...)
	}
	return files, errs
}

// rewrite replaces name's content atomically, keeping its permissions and
// any symlink or hard link to it, as gofmt does, so that an interrupted fmt
// never leaves a half-written spec.
func rewrite(name string, data []byte) error {
	return atomicfile.Write(name, data, atomicfile.Options{Overwrite: true, KeepMode: true})
}
