package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/specrun/specrun/spec"
)

// export is one --export FORMAT=FILE: a rendering written to a file
// besides what stdout shows, as hyperfine's --export-* are.
type export struct{ format, file string }

// exportFlag registers the repeatable --export on fs; formats are the
// names it takes.
func exportFlag(fs *flag.FlagSet, formats []string) *[]export {
	var exports []export
	fs.Func("export", "also write `FORMAT=FILE` ("+strings.Join(formats, ", ")+"; repeatable); an existing FILE needs --force", func(s string) error {
		format, file, ok := strings.Cut(s, "=")
		if !ok || format == "" || file == "" {
			return fmt.Errorf("want FORMAT=FILE, got %q", s)
		}
		if format == "markdown" {
			format = "md"
		}
		if !slices.Contains(formats, format) {
			return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(formats, ", "))
		}
		for _, e := range exports {
			if e.file == file {
				return fmt.Errorf("%s is exported twice", file)
			}
		}
		exports = append(exports, export{format, file})
		return nil
	})
	return &exports
}

// checkExports refuses, before anything runs, an export file that exists
// (unless force) or whose directory does not.
func checkExports(exports []export, force bool) error {
	for _, e := range exports {
		if _, err := os.Lstat(e.file); err == nil && !force {
			return usageError("--export %s=%s: %s exists (use --force to replace it)", e.format, e.file, e.file)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return usageError("--export %s=%s: %v", e.format, e.file, err)
		}
	}
	return nil
}

// checkExportsSpare refuses, before anything runs, an export onto one of
// files, which the command itself writes or reads (what says which): the
// export would replace it with a rendering.
func checkExportsSpare(exports []export, what string, files ...string) error {
	for _, e := range exports {
		if err := checkSpare("--export "+e.format+"="+e.file, e.file, what, files...); err != nil {
			return err
		}
	}
	return nil
}

// checkSpare refuses an output file, which flag names, that is one of
// files (what says which).
func checkSpare(flag, file, what string, files ...string) error {
	if file == "" {
		return nil
	}
	for _, f := range files {
		if samePath(file, f) {
			return usageError("%s: that is %s", flag, what)
		}
	}
	return nil
}

// samePath says whether a and b name one file: the same file where both
// exist, else the same absolute path.
func samePath(a, b string) bool {
	if fa, err := os.Stat(a); err == nil {
		if fb, err := os.Stat(b); err == nil {
			return os.SameFile(fa, fb)
		}
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// writeExports renders each export to its file, atomically; render gives
// the renderer of a format.
func writeExports(exports []export, force bool, render func(format string, w io.Writer) error) error {
	var errs []error
	for _, e := range exports {
		if err := writeOutput(e.file, force, nil, func(w io.Writer) error { return render(e.format, w) }); err != nil {
			errs = append(errs, fmt.Errorf("--export %s=%s: %w", e.format, e.file, err))
		}
	}
	return errors.Join(errs...)
}

// checkExecExports refuses, before a run, hyperfine-json (on stdout or as
// an export) from a spec of which filter keeps no exec benchmark: its
// schema holds commands, and the run would end with nothing to write.
func checkExecExports(plan *spec.Plan, filter *regexp.Regexp, format string, exports []export) error {
	want := format == "hyperfine-json"
	for _, e := range exports {
		want = want || e.format == "hyperfine-json"
	}
	if !want {
		return nil
	}
	for _, b := range plan.Benchmarks {
		if b.Op != nil && b.Op.Name == "exec" && (filter == nil || filter.MatchString(b.Name)) {
			return nil
		}
	}
	return usageError("hyperfine-json holds exec benchmarks, and the spec runs none")
}
