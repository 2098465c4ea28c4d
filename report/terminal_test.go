package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/specrun/specrun/results"
)

func TestTerminalGolden(t *testing.T) {
	var all bytes.Buffer
	for _, r := range append([]*results.Result{results.ByTime(goldenResult())}, kindsResult()...) {
		for _, color := range []bool{false, true} {
			if err := (Terminal{Options{Metrics: testMetrics, Color: color}}).Report(&all, r); err != nil {
				t.Fatal(err)
			}
			all.WriteString("----\n")
		}
	}
	golden(t, "terminal.txt", all.Bytes())
	out := all.String()
	for _, want := range []string{
		"Name                         Iterations  Total time (ms)",
		"\x1b[32mpass        \x1b[0m memcpy_scales",
		"\x1b[31mfail        \x1b[0m spawn_cheap",
		"Reflect | call", // not Markdown-escaped
		"gzip/level=1 ran\n    2.43 ± 0.06 times faster than gzip/level=9",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal view lacks %q", want)
		}
	}
	// the warnings come once, last
	if n := strings.Count(out, "3 runs give no 95%"); n != 2 {
		t.Errorf("warning printed %d times in two renderings", n)
	}
}

func TestCompareTerminalGolden(t *testing.T) {
	c, err := results.Compare([]*results.Result{tiger(t), leopard(t)}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, color := range []bool{false, true} {
		if err := (CompareTerminal{Options{Color: color}}).Report(&buf, c); err != nil {
			t.Fatal(err)
		}
		buf.WriteString("----\n")
	}
	golden(t, "compare-terminal.txt", buf.Bytes())
	if !strings.Contains(buf.String(), "\x1b[31m slower \x1b[0m") {
		t.Error("a slower row is not red")
	}
}

func TestMatrixSummary(t *testing.T) {
	r := kindsResult()[0]
	got := MatrixSummary(r)
	want := []string{"gzip/level=1 ran", "  2.43 ± 0.06 times faster than gzip/level=9"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary %q, want %q", got, want)
	}
	if got := MatrixSummary(kindsResult()[1]); got != nil {
		t.Errorf("a size scan has no summary, got %q", got)
	}
	r.Benchmarks[1].Error, r.Benchmarks[1].Runs = "failed", nil
	if got := MatrixSummary(r); len(got) != 2 || !strings.Contains(got[1], "N/A") {
		t.Errorf("a failed instance reads N/A: %q", got)
	}
}

// A skipped assertion judged nothing: the terminal view does not paint it
// as a failure.
func TestTerminalSkipIsNoFailure(t *testing.T) {
	r := goldenResult()
	r.Assertions = []results.Assertion{{Name: "vs_baseline", Verdict: results.Skip, Message: "no baseline was given"}}
	var out bytes.Buffer
	if err := (Terminal{Options{Color: true}}).Report(&out, r); err != nil {
		t.Fatal(err)
	}
	if want := "\x1b[2mskip        \x1b[0m vs_baseline"; !strings.Contains(out.String(), want) {
		t.Errorf("terminal view lacks %q:\n%q", want, out.String())
	}
}
