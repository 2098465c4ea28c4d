package report

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/specrun/specrun/results"
)

var (
	htmlRowRE  = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	htmlCellRE = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
)

// htmlTable is the cells of the first table after marker in page.
func htmlTable(t *testing.T, page []byte, marker string) [][]string {
	t.Helper()
	s := string(page)
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("no %q in the page", marker)
	}
	s = s[i:]
	s = s[:strings.Index(s, "</table>")]
	var rows [][]string
	for _, r := range htmlRowRE.FindAllStringSubmatch(s, -1) {
		var cells []string
		for _, c := range htmlCellRE.FindAllStringSubmatch(r[1], -1) {
			cells = append(cells, html.UnescapeString(c[1]))
		}
		rows = append(rows, cells)
	}
	return rows
}

// markdownTable is the cells of the first Markdown table in md, its
// separator line left out.
func markdownTable(md []byte) [][]string {
	var rows [][]string
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "|--") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
			cells = append(cells, unescapeMarkdown(strings.TrimSpace(c)))
		}
		rows = append(rows, cells)
	}
	return rows
}

// The page's table is the Markdown table, unit for unit and digit for
// digit, with min … max added.
func TestHTMLTableIsTheMarkdowns(t *testing.T) {
	for _, tc := range []struct {
		name     string
		r        *results.Result
		timeUnit string
	}{
		{"tiger", tiger(t), ""},
		{"tiger in ns", tiger(t), "ns"},
		{"exec", commands(t), ""},
		{"scan", scanResult(t, "after"), "ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := markdownTable(render(t, Markdown{TimeUnit: tc.timeUnit, Metrics: testMetrics}, tc.r))
			page := htmlTable(t, render(t, HTML{TimeUnit: tc.timeUnit, Metrics: testMetrics}, tc.r), "<h2>Results</h2>")
			if len(page) != len(md) {
				t.Fatalf("%d rows in the page, %d in the Markdown", len(page), len(md))
			}
			extra := slices.IndexFunc(page[0], func(h string) bool { return strings.HasPrefix(h, "Min … Max") })
			for i := range page {
				got := page[i]
				if !slices.Contains(md[0], page[0][extra]) { // the Markdown lacks min … max
					got = slices.Delete(slices.Clone(got), extra, extra+1)
				}
				if !slices.Equal(got, md[i]) {
					t.Errorf("row %d:\npage     %q\nmarkdown %q", i, got, md[i])
				}
			}
		})
	}
}

// Each run's table has one unit per column, and three digits, as the
// result's table has: no "1.79 s" beside "980 ms" in a column.
func TestHTMLRunsScaledByColumn(t *testing.T) {
	page := render(t, HTML{Metrics: testMetrics}, tiger(t))
	at := bytes.Index(page, []byte("<summary>1MB memcpy"))
	if at < 0 {
		t.Fatal("no runs of 1MB memcpy on the page")
	}
	rows := htmlTable(t, page[at:], "<tr><th>Run</th>")
	if got, want := rows[0][:4], []string{"Run", "Iterations", "Total time (sec)", "Time per (µs)"}; !slices.Equal(got, want) {
		t.Fatalf("head %q, want %q", rows[0], want)
	}
	for _, row := range rows[1:] {
		if _, err := strconv.ParseFloat(row[3], 64); err != nil {
			t.Errorf("time per op %q is not a bare figure in the column's unit", row[3])
		}
	}
	if got := rows[1][3]; got != "125" && !regexp.MustCompile(`^1[0-9]{2}$`).MatchString(got) {
		t.Errorf("first run's time per op %q, want three digits in µs", got)
	}
}

// A comparison page writes each row's figures as the Markdown comparison
// does.
func TestCompareHTMLFiguresAreTheMarkdowns(t *testing.T) {
	c, err := results.Compare([]*results.Result{tiger(t), leopard(t)}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var page, md bytes.Buffer
	if err := (CompareHTML{}).Report(&page, c); err != nil {
		t.Fatal(err)
	}
	if err := (CompareMarkdown{}).Report(&md, c); err != nil {
		t.Fatal(err)
	}
	text := unescapeMarkdown(md.String())
	rows := htmlTable(t, page.Bytes(), "<h2>Results</h2>")
	for _, row := range rows[1:] {
		for _, cell := range row[1:] {
			if !strings.HasPrefix(cell, "failed: ") && !strings.Contains(text, cell) { // the page has room for the whole error
				t.Errorf("the page's %q is not in the Markdown comparison:\n%s", cell, text)
			}
		}
	}
}

// verdicts are the Verdict constants the results package declares.
func verdicts(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../results/result.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if v, ok := n.(*ast.ValueSpec); ok {
			if id, ok := v.Type.(*ast.Ident); ok && id.Name == "Verdict" {
				for _, val := range v.Values {
					if lit, ok := val.(*ast.BasicLit); ok {
						s, _ := strconv.Unquote(lit.Value)
						out = append(out, s)
					}
				}
			}
		}
		return true
	})
	if len(out) < 5 {
		t.Fatalf("found the verdicts %q in results/result.go, want pass, fail, inconclusive, error and skip at least", out)
	}
	return out
}

// Every verdict the results package defines has a style of its own on the
// page.
func TestHTMLStylesEveryVerdict(t *testing.T) {
	r := tiger(t)
	v := 1.0
	for _, name := range verdicts(t) {
		r.Assertions = append(r.Assertions, results.Assertion{Name: "a_" + name, Value: &v, Verdict: results.Verdict(name)})
	}
	page := string(render(t, HTML{}, r))
	style := page[strings.Index(page, "<style>"):strings.Index(page, "</style>")]
	for _, name := range verdicts(t) {
		if !strings.Contains(page, `<span class="`+name+`">`+name+`</span> a_`+name) {
			t.Errorf("the %s assertion is not in a span of class %s", name, name)
		}
		rule := regexp.MustCompile(`\.` + regexp.QuoteMeta(name) + `\s*\{[^}]*color:`)
		if !rule.MatchString(style) {
			t.Errorf("no rule gives .%s a colour:\n%s", name, style)
		}
	}
}
