package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/specrun/specrun/metric"
	"github.com/specrun/specrun/results"
)

// GoBench renders a result in the Go benchmark format, so that benchstat
// and the other golang.org/x/perf tools read specrun results unchanged:
// the environment as comment lines, one configuration line naming the
// suite, then one line per run.
//
// The environment (goos, goarch, cpu, label, hostname, kernel, go-version,
// gomaxprocs, specrun-version) is written as "# key: value": benchstat
// puts results whose configuration lines differ in separate tables, so as
// configuration two machines' results, or two labels, would never meet in
// one comparison. Removing the "# " from a key makes it configuration
// again, for benchstat's -col or -table to group by.
//
// Names follow one rule: "Benchmark", then the benchmark block's name in
// CamelCase (split at "_", "-" and ".": func_value_call -> FuncValueCall),
// then the instance's matrix part unchanged ("/size=16B"), with any white
// space in it replaced by "_" because a name ends at the first space. No
// "-GOMAXPROCS" suffix is added, so runs from machines with different core
// counts compare by name.
//
// Beside ns/op, each run's op metrics follow as value-unit pairs. A metric
// named X_per_Y becomes unit X/Y ("allocs_per_op" -> "allocs/op"), "bytes"
// becomes "B" ("bytes_per_op" -> "B/op"), other underscores become "-"
// ("max_rss_bytes" -> "max-rss-B"). Units of metrics declared better higher
// (metric.Metric.HigherIsBetter) get a "better=higher" Unit line. A failed
// benchmark is a "--- FAIL:" line, as go test writes it, which benchfmt skips.
type GoBench struct {
	// Metrics declares the ops' own metrics; nil knows only the standard ones.
	Metrics metric.Catalog
}

var _ Reporter = GoBench{}

// Report writes the benchmark lines.
func (g GoBench) Report(w io.Writer, r *results.Result) error {
	bw := bufio.NewWriter(w)
	env := r.Environment
	environment := [][2]string{
		{"goos", env.OS}, {"goarch", env.Arch}, {"cpu", env.CPUModel},
		{"label", r.Label}, {"hostname", env.Hostname}, {"kernel", env.Kernel}, {"go-version", env.GoVersion},
		{"gomaxprocs", fmt.Sprint(env.GOMAXPROCS)}, {"specrun-version", env.SpecrunVersion},
	}
	for _, kv := range environment {
		// Leave unknowns out (benchfmt deletes a key given an empty value,
		// should the line be made configuration). A value stays on its
		// line: a newline would start a line of its own.
		if v := strings.TrimSpace(oneLine(kv[1])); v != "" && v != "0" {
			fmt.Fprintf(bw, "# %s: %s\n", kv[0], v)
		}
	}
	if suite := strings.TrimSpace(oneLine(r.Suite.Name)); suite != "" {
		fmt.Fprintf(bw, "pkg: specrun/%s\n", suite)
	}
	higher := map[string]bool{}
	for _, b := range r.Benchmarks {
		for _, run := range b.Runs {
			for name := range run.Metrics {
				if m, ok := g.Metrics.Lookup(b.Op, name); ok && m.HigherIsBetter {
					higher[goBenchUnit(name)] = true
				}
			}
		}
	}
	units := make([]string, 0, len(higher))
	for u := range higher {
		units = append(units, u)
	}
	sort.Strings(units)
	for _, u := range units {
		fmt.Fprintf(bw, "Unit %s better=higher\n", u)
	}
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		name := GoBenchName(b.Name)
		if b.Error != "" {
			fmt.Fprintf(bw, "--- FAIL: %s\n    %s\n", name, printable(strings.ReplaceAll(strings.ReplaceAll(b.Error, "\r\n", "\n"), "\n", "\n    ")))
			continue
		}
		for _, run := range b.Runs {
			fmt.Fprintf(bw, "%s\t%d\t%s ns/op", name, run.Iterations, goBenchFloat(run.NsPerOp))
			metrics := make([]string, 0, len(run.Metrics))
			for m := range run.Metrics {
				if !specrunHeap(b, m) {
					metrics = append(metrics, m)
				}
			}
			sort.Strings(metrics)
			for _, m := range metrics {
				if v := run.Metrics[m]; !math.IsNaN(v) && !math.IsInf(v, 0) {
					fmt.Fprintf(bw, "\t%s %s", goBenchFloat(v), goBenchUnit(m))
				}
			}
			bw.WriteString("\n")
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write go benchmark format: %w", err)
	}
	return nil
}

// specrunHeap reports a metric that is specrun's own heap use rather
// than the benchmark's: an exec benchmark's allocations are those of
// spawning the command, not of the command, so B/op and allocs/op would
// mislead a benchstat table.
func specrunHeap(b *results.Benchmark, name string) bool {
	return b.Op == "exec" && (name == metric.BytesPerOp || name == metric.AllocsPerOp)
}

// GoBenchName is an instance's name in the Go benchmark format:
// "memcpy/size=16B" -> "BenchmarkMemcpy/size=16B". White space and control
// characters become "_": a name ends at the first space, and a line break
// would start a line of its own.
func GoBenchName(instance string) string {
	block, rest, _ := strings.Cut(instance, "/")
	var b strings.Builder
	b.WriteString("Benchmark")
	for _, word := range strings.FieldsFunc(block, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		rs := []rune(word)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	if rest != "" {
		b.WriteString("/")
		b.WriteString(rest)
	}
	return oneWord(b.String(), '_')
}

// goBenchUnit turns a metric name into a unit, as GoBench documents.
func goBenchUnit(metric string) string {
	parts := strings.Split(metric, "_per_")
	for i, p := range parts {
		words := strings.Split(p, "_")
		for j, w := range words {
			if w == "bytes" {
				words[j] = "B"
			}
		}
		parts[i] = strings.Join(words, "-")
	}
	return oneWord(strings.Join(parts, "/"), '-')
}

// oneWord replaces white space, control characters and bytes that are not
// UTF-8 in s with sep.
func oneWord(s string, sep rune) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || control(r) || r == utf8.RuneError {
			return sep
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}

// goBenchFloat writes a figure exactly: the shortest decimal that reads
// back as the same float64, without an exponent in the range benchmark
// figures take. go test rounds to about four digits, but rounded runs tie,
// and ties move the Mann-Whitney U test's p-value away from the one
// specrun compare computes on the same runs.
func goBenchFloat(v float64) string {
	if y := math.Abs(v); y != 0 && (y < 1e-6 || y >= 1e21) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
