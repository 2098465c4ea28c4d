package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/specrun/specrun/ops"
)

// Options adjust how a spec is loaded. The zero value loads the spec as
// written against the built-in op catalog.
type Options struct {
	// Vars are raw --var NAME=VALUE values. A value is parsed as an HCL
	// expression unless the variable is a string, and falls back to the
	// plain string when it does not parse, as Terraform does.
	Vars map[string]string
	// VarFiles are files of NAME = VALUE attributes, applied in order
	// before Vars. A .json file is read as HCL's JSON syntax.
	VarFiles []string
	// VarLiterals are values as Plan.Vars holds them (HCL literals, see
	// VarLiteral), such as a stored result's: the variables a run was
	// given. They are applied first, so VarFiles and Vars override them.
	VarLiterals map[string]string
	// Stored says the spec is a stored result's, judged again and never
	// run here: what this machine holds (an op's Def.Validate: files in a
	// dir, memory) does not apply to the run it records.
	Stored bool
	// Ops looks up an op by name; nil means ops.Lookup.
	Ops func(name string) (*ops.Def, bool)
	// OpNames lists the catalog for "did you mean"; nil means the names of
	// ops.All when Ops is nil, and no suggestions otherwise.
	OpNames func() []string
}

func (o Options) lookup(name string) (*ops.Def, bool) {
	if o.Ops != nil {
		return o.Ops(name)
	}
	return ops.Lookup(name)
}

func (o Options) opNames() []string {
	switch {
	case o.OpNames != nil:
		return o.OpNames()
	case o.Ops == nil:
		var names []string
		for _, d := range ops.All() {
			names = append(names, d.Name)
		}
		return names
	}
	return nil
}

// Load reads the spec at paths (files, or directories whose *.hcl files
// form one spec) and turns it into a Plan. It always returns a Plan whose
// Files hold what was read, so that its DiagnosticWriter can print the
// diagnostics with source snippets; the rest of the Plan is partial when
// the diagnostics have errors.
func Load(paths []string, opts Options) (*Plan, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	files := map[string][]byte{}
	if len(paths) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No spec given",
			Detail:   "Name at least one spec file or directory.",
		})
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Missing spec path",
				Detail:   fmt.Sprintf("The spec path %q cannot be read: %s.", p, unwrapPathError(err)),
			})
			continue
		}
		names := []string{p}
		if info.IsDir() {
			names, _ = filepath.Glob(filepath.Join(p, "*.hcl"))
			if len(names) == 0 {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "No spec files",
					Detail:   fmt.Sprintf("The directory %q holds no .hcl file. A directory spec is the set of its *.hcl files.", p),
				})
			}
		}
		for _, name := range names {
			src, err := ReadFile(name)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Unreadable spec file",
					Detail:   fmt.Sprintf("The spec file %q cannot be read: %s.", name, err),
				})
				continue
			}
			files[name] = src
		}
	}
	if diags.HasErrors() {
		// DiagnosticWriter shows snippets from Files when nothing was parsed.
		return &Plan{Paths: paths, Files: files}, diags
	}
	plan, more := loadFiles(files, paths, opts, true)
	return plan, append(diags, more...)
}

// unwrapPathError drops the operation and path that os errors repeat, since
// the diagnostic already names the path.
func unwrapPathError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// LoadFiles is Load over sources already in memory, keyed by path: the spec
// stored in a result. Files are read in the order of paths (a directory's
// files sorted by name), then any others sorted by name. It reads no file:
// file() in such a spec is an unknown value.
func LoadFiles(files map[string][]byte, paths []string, opts Options) (*Plan, hcl.Diagnostics) {
	return loadFiles(files, paths, opts, false)
}

func loadFiles(files map[string][]byte, paths []string, opts Options, fromDisk bool) (*Plan, hcl.Diagnostics) {
	fns := maps.Clone(functions)
	fns["file"] = boundedFunction("file", fileFunc(fromDisk))
	l := &loader{
		opts:      opts,
		functions: fns,
		path:      pathObject(paths),
		parser:    hclparse.NewParser(),
		plan: &Plan{
			Paths:   paths,
			Files:   files,
			sources: map[string]*hcl.File{},
		},
	}
	order := orderFiles(files, paths)
	l.plan.SHA256 = hashFiles(files, order)
	var bodies []hcl.Body
	for _, name := range order {
		if body := l.parse(name, files[name]); body != nil {
			bodies = append(bodies, body)
		}
	}
	if len(order) == 0 && len(paths) > 0 {
		l.errorf(nil, "No spec files", "None of the paths %s holds a spec file.", strings.Join(quoteAll(paths), ", "))
	}
	if l.diags.HasErrors() {
		return l.plan, l.result()
	}
	l.decode(bodies, defaultSuiteName(paths, order))
	return l.plan, l.result()
}

// parseFile parses a spec or variables file as HCL, or as JSON when its
// name ends in .json, once it is known to be small and shallow enough for
// the parser.
func (l *loader) parseFile(src []byte, name string) (*hcl.File, hcl.Diagnostics) {
	if diags := append(checkSize(src, name), CheckNesting(src, name)...); diags.HasErrors() {
		return nil, diags
	}
	if strings.HasSuffix(name, ".json") {
		return l.parser.ParseJSON(src, name)
	}
	return l.parser.ParseHCL(src, name)
}

// parse checks and parses one file, recording it for diagnostics.
func (l *loader) parse(name string, src []byte) hcl.Body {
	l.plan.sources[name] = &hcl.File{Bytes: src}
	if !utf8.Valid(src) {
		pos := invalidUTF8Pos(src)
		l.errorf(&hcl.Range{Filename: name, Start: pos, End: hcl.Pos{Line: pos.Line, Column: pos.Column + 1, Byte: pos.Byte + 1}},
			"Invalid UTF-8", "The spec file %q is not valid UTF-8 text. Spec files must be UTF-8.", name)
		return nil
	}
	if len(bytes.TrimSpace(src)) == 0 {
		l.errorf(&hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.InitialPos},
			"Empty spec file", "The spec file %q is empty. Remove it or declare at least one benchmark in it.", name)
		return nil
	}
	f, diags := l.parseFile(src, name)
	l.diags = append(l.diags, diags...)
	if f == nil || diags.HasErrors() {
		return nil
	}
	l.plan.sources[name] = f
	return f.Body
}

func invalidUTF8Pos(src []byte) hcl.Pos {
	pos := hcl.InitialPos
	for len(src) > 0 {
		r, n := utf8.DecodeRune(src)
		if r == utf8.RuneError && n <= 1 {
			return pos
		}
		pos.Byte += n
		pos.Column++
		if r == '\n' {
			pos.Line++
			pos.Column = 1
		}
		src = src[n:]
	}
	return pos
}

func orderFiles(files map[string][]byte, paths []string) []string {
	var order []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			order = append(order, name)
		}
	}
	sorted := make([]string, 0, len(files))
	for name := range files {
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	for _, p := range paths {
		if _, ok := files[p]; ok {
			add(p)
			continue
		}
		dir := filepath.Clean(p)
		for _, name := range sorted {
			if filepath.Dir(name) == dir {
				add(name)
			}
		}
	}
	for _, name := range sorted {
		add(name)
	}
	return order
}

// hashFiles is the SHA-256 of each file's path and content, in load order,
// so that two results can tell whether they ran the same spec.
func hashFiles(files map[string][]byte, order []string) string {
	h := sha256.New()
	for _, name := range order {
		io.WriteString(h, name)
		h.Write([]byte{0})
		h.Write(files[name])
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// defaultSuiteName is the first path's file name without .hcl, or its
// directory's name.
func defaultSuiteName(paths, order []string) string {
	p := ""
	switch {
	case len(paths) > 0:
		p = paths[0]
	case len(order) > 0:
		p = order[0]
	}
	if p == "" {
		return "specrun"
	}
	base := filepath.Base(filepath.Clean(p))
	if ext := filepath.Ext(base); ext == ".hcl" || ext == ".json" {
		return strings.TrimSuffix(base, ext)
	}
	if base == "." || base == "/" {
		if abs, err := filepath.Abs(p); err == nil {
			base = filepath.Base(abs)
		}
	}
	return base
}

func quoteAll(ss []string) []string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return q
}

// DiagnosticWriter prints diagnostics about this plan's files (and var
// files) the way HCL does, a source snippet with the range underlined,
// after a file:line:col prefix that editors and grep understand. Colour
// belongs on terminals only.
func (p *Plan) DiagnosticWriter(w io.Writer, width uint, color bool) hcl.DiagnosticWriter {
	files := map[string]*hcl.File{}
	for name, f := range p.sources {
		files[printable(name)] = &hcl.File{Body: f.Body, Bytes: safeSource(f.Bytes), Nav: f.Nav}
	}
	if p.sources == nil {
		for name, src := range p.Files {
			files[printable(name)] = &hcl.File{Bytes: safeSource(src)}
		}
	}
	return &diagWriter{w: w, inner: hcl.NewDiagnosticTextWriter(w, files, width, color)}
}

// safeSource is src with every byte a terminal acts on (C0 controls but
// tab and newline, DEL, C1 controls, bytes that are not UTF-8) replaced by
// '?', byte for byte, so that the snippet of a hostile file (a spec stored
// in someone's result) cannot drive the terminal, and ranges still line up.
func safeSource(src []byte) []byte {
	out := src
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if terminalControl(r) || r == utf8.RuneError && size == 1 {
			if &out[0] == &src[0] {
				out = bytes.Clone(src)
			}
			for j := i; j < i+size; j++ {
				out[j] = '?'
			}
		}
		i += size
	}
	return out
}

// terminalControl reports whether a terminal acts on r rather than
// showing it.
func terminalControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0x7f && r < 0xa0
}

// printableRange is r naming its file by its printable name, as the
// diagnostic writer's files are keyed.
func printableRange(r *hcl.Range) *hcl.Range {
	if r == nil {
		return nil
	}
	c := *r
	c.Filename = printable(r.Filename)
	return &c
}

// printable is s with each character a terminal acts on written as its
// Go escape, for text from a file that a diagnostic quotes.
func printable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, terminalControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

type diagWriter struct {
	w     io.Writer
	inner hcl.DiagnosticWriter
}

func (d *diagWriter) WriteDiagnostic(diag *hcl.Diagnostic) error {
	if diag == nil {
		return d.inner.WriteDiagnostic(diag)
	}
	safe := *diag
	safe.Summary, safe.Detail = printable(diag.Summary), printable(diag.Detail)
	safe.Subject, safe.Context = printableRange(diag.Subject), printableRange(diag.Context)
	if safe.Subject != nil {
		s := safe.Subject.Start
		if _, err := fmt.Fprintf(d.w, "%s:%d:%d: ", safe.Subject.Filename, s.Line, s.Column); err != nil {
			return fmt.Errorf("write diagnostic: %w", err)
		}
	}
	return d.inner.WriteDiagnostic(&safe)
}

func (d *diagWriter) WriteDiagnostics(diags hcl.Diagnostics) error {
	for _, diag := range diags {
		if err := d.WriteDiagnostic(diag); err != nil {
			return err
		}
	}
	return nil
}
