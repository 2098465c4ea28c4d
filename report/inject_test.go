package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"github.com/specrun/specrun/results"
)

// crafted is a result whose every string a user or a file can set tries to
// break out of where it is rendered.
func crafted(evil string) *results.Result {
	r := synthetic(map[string][]float64{"real": {10, 11, 12}})
	r.Suite = results.Suite{Name: "suite" + evil, Title: "title" + evil}
	r.Label = "label" + evil
	r.Warnings = []string{"warning" + evil}
	r.Environment.Hostname = "host" + evil
	r.Environment.CPUModel = "cpu" + evil
	b := &r.Benchmarks[0]
	b.Label = "row" + evil
	for i := range b.Runs {
		b.Runs[i].Metrics = map[string]float64{"m" + evil: 1}
	}
	r.Benchmarks = append(r.Benchmarks,
		results.Benchmark{Name: "named" + evil, Benchmark: "named", Op: "noop", Runs: []results.Run{{Iterations: 1, TotalNs: 5, NsPerOp: 5}}},
		results.Benchmark{Name: "failed" + evil, Op: "http", Error: "error" + evil},
	)
	v := 1.0
	r.Assertions = []results.Assertion{{Name: "assert" + evil, Description: "says" + evil, Value: &v, Max: &v,
		Verdict: results.Fail, Message: "because" + evil}}
	return r
}

// A newline in a suite name, a label, a benchmark or a metric name cannot
// add Benchmark lines or configuration to the Go benchmark format.
func TestGoBenchInjection(t *testing.T) {
	r := crafted("\nBenchmarkInjected 1 1 ns/op\npkg: x\r\nBenchmarkCR 1 1 ns/op")
	out := render(t, GoBench{}, r)
	br := benchfmt.NewReader(bytes.NewReader(out), "crafted.txt")
	count := map[string]int{}
	for br.Scan() {
		rec, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		name := string(rec.Name.Full())
		count[name]++
		if pkg := rec.GetConfig("pkg"); !strings.HasPrefix(pkg, "specrun/suite") {
			t.Errorf("%s: pkg = %q, the suite's name rewrote it", name, pkg)
		}
		if !strings.HasPrefix(name, "Real") && !strings.HasPrefix(name, "Named") {
			t.Errorf("an injected benchmark %q was read back", name)
		}
	}
	if total := count["Real"] + count[strings.TrimPrefix(GoBenchName(r.Benchmarks[1].Name), "Benchmark")]; total != 4 {
		t.Errorf("read back %v, want 3 runs of Real and 1 of the named one:\n%s", count, out)
	}
}

// Markdown text cannot start HTML, and a line break in a warning or a name
// cannot start a list item or a table row of its own.
func TestMarkdownInjection(t *testing.T) {
	r := crafted("<script>alert(1)</script> <b>x</b>\n- fake item\n| fake | row |")
	var out bytes.Buffer
	if err := (Markdown{}).Report(&out, r); err != nil {
		t.Fatal(err)
	}
	c, err := results.Compare([]*results.Result{r, r}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := (CompareMarkdown{}).Report(&out, c); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script>", "<b>", "\n- fake item", "\n| fake | row |"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("Markdown carries %q:\n%s", bad, out.String())
		}
	}
	if !strings.Contains(out.String(), "&lt;script>alert(1)&lt;/script>") {
		t.Errorf("Markdown lost the text it escaped:\n%s", out.String())
	}
}

// No format writes a control character from a result to what may be a
// terminal: an OSC title or clipboard write, a screen clear, an 8-bit CSI.
func TestReportsKeepControlCharactersOut(t *testing.T) {
	const evil = "\x1b]0;PWNED\x07\x1b[2J\x1b]52;c;Zm9v\x07\x9b6n\r"
	r := crafted(evil)
	c, err := results.Compare([]*results.Result{r, r}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, out []byte) {
		t.Helper()
		for _, b := range []byte{0x1b, 0x07, '\r'} {
			if bytes.IndexByte(out, b) >= 0 {
				t.Errorf("%s writes byte %#x:\n%q", what, b, out)
			}
		}
		if !utf8.Valid(out) {
			t.Errorf("%s writes bytes that are not UTF-8 (a raw C1 CSI):\n%q", what, out)
		}
		if strings.ContainsRune(string(out), 0x9b) {
			t.Errorf("%s writes U+009B (CSI)", what)
		}
	}
	run := []results.Run{{Iterations: 1, TotalNs: 5, NsPerOp: 5}}
	r.Benchmarks = append(r.Benchmarks, // what hyperfine-json renders
		results.Benchmark{Name: "exec/cmd=" + evil, Benchmark: "exec", Op: "exec", Params: map[string]any{"command": []string{"echo", evil}}, Runs: run},
		results.Benchmark{Name: "shell", Label: "shell" + evil, Op: "exec", Params: map[string]any{"shell": evil}, Runs: run})
	for _, name := range Formats() {
		if name == "png" {
			continue // an image, not text
		}
		rep, _, _ := Format(name, nil)
		var out bytes.Buffer
		if err := rep.Report(&out, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		check(name, out.Bytes())
	}
	for _, name := range ComparisonFormats() {
		if name == "png" {
			continue
		}
		rep, _ := ComparisonFormat(name)
		var out bytes.Buffer
		if err := rep.Report(&out, c); err != nil {
			t.Fatalf("compare %s: %v", name, err)
		}
		check("compare "+name, out.Bytes())
	}
	var out bytes.Buffer
	WriteAssertions(&out, r.Assertions)
	check("assertions", out.Bytes())
	if !strings.Contains(out.String(), `\x1b]0;PWNED\x07`) {
		t.Errorf("the control characters should show as escapes:\n%s", out.String())
	}
}
