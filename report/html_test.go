package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/specrun/specrun/results"
)

// The HTML pages load nothing from elsewhere.
func TestHTMLSelfContained(t *testing.T) {
	c, err := results.Compare([]*results.Result{tiger(t), leopard(t)}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cmp bytes.Buffer
	if err := (CompareHTML{}).Report(&cmp, c); err != nil {
		t.Fatal(err)
	}
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|@import|url\(`)
	for name, page := range map[string][]byte{"report": render(t, HTML{}, tiger(t)), "compare": cmp.Bytes()} {
		if m := external.Find(page); m != nil {
			t.Errorf("%s page refers to something outside it: %q", name, m)
		}
		for _, want := range []string{"<svg", "Environment", "Runs", "<table"} {
			if !bytes.Contains(page, []byte(want)) {
				t.Errorf("%s page lacks %q", name, want)
			}
		}
	}
	odd := tiger(t)
	odd.Label = "a|b & <c>"
	page := render(t, HTML{}, odd)
	if !bytes.Contains(page, []byte("[a|b &amp; &lt;c&gt;]")) || bytes.Contains(page, []byte("&amp;amp;")) {
		t.Errorf("the label is not escaped once for HTML:\n%s", page[:min(len(page), 2000)])
	}
	v, lo, hi, minimum := 2.4, 2.35, 2.42, 2.5
	odd.Assertions = []results.Assertion{{Name: "ratio", Value: &v, Min: &minimum, Verdict: results.Fail,
		Interval: &results.Interval{Low: lo, High: hi, Confidence: 0.95, Kind: results.Bootstrap}, Message: "a moved"}}
	page = render(t, HTML{}, odd)
	for _, want := range []string{`<span class="fail">fail</span> ratio`, "value 2.4 [2.35, 2.42] (95% bootstrap), expected &gt;= 2.5; a moved"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks the assertion's %q", want)
		}
	}
	if !bytes.Contains(cmp.Bytes(), []byte("<th>leopard</th>")) || !bytes.Contains(cmp.Bytes(), []byte("<td>386</td>")) {
		t.Errorf("compare page lacks each result's environment")
	}
	if !bytes.Contains(cmp.Bytes(), []byte("2.00× slower")) {
		t.Errorf("compare page lacks the verdict of a significant ratio")
	}
}

// Headless Chromium opens each page, logs no console error, and draws
// something that is not blank.
func TestHTMLInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no chromium on PATH (apt-get install chromium)")
	}
	c, err := results.Compare([]*results.Result{scanResult(t, "before"), scanResult(t, "after")}, results.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cmp bytes.Buffer
	if err := (CompareHTML{}).Report(&cmp, c); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The console check sees an error when there is one.
	if errs, _ := openInChromium(t, browser, dir, "broken", []byte(`<!DOCTYPE html><p>x</p><script>undefinedFn()</script>`)); len(errs) == 0 {
		t.Errorf("a page with a script error shows no console error: the check cannot fail")
	}
	for name, page := range map[string][]byte{"report": render(t, HTML{}, tiger(t)), "compare": cmp.Bytes()} {
		errs, img := openInChromium(t, browser, dir, name, page)
		for _, e := range errs {
			t.Errorf("%s: console: %s", name, e)
		}
		inked, colored := 0, 0
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 3 {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 3 {
				r, g, b, _ := img.At(x, y).RGBA()
				if r < 0xc000 || g < 0xc000 || b < 0xc000 {
					inked++
				}
				if r>>8 == 0x00 && g>>8 == 0x72 && b>>8 == 0xb2 || r>>8 == 0xe6 && g>>8 == 0x9f && b>>8 == 0x00 {
					colored++
				}
			}
		}
		if inked < 2000 || colored < 20 {
			t.Errorf("%s: screenshot looks blank: %d dark and %d series-coloured pixels sampled", name, inked, colored)
		}
		if keep := os.Getenv("SPECRUN_KEEP_SCREENSHOTS"); keep != "" {
			data, _ := os.ReadFile(filepath.Join(dir, name+".png"))
			os.WriteFile(filepath.Join(keep, name+".png"), data, 0o644)
		}
	}
}

// openInChromium loads page in headless Chromium and returns the console
// errors it logged and its screenshot.
func openInChromium(t *testing.T, browser, dir, name string, page []byte) ([]string, image.Image) {
	t.Helper()
	path := filepath.Join(dir, name+".html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, name+".png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile-"+name), "--window-size=1000,1400",
		"--virtual-time-budget=3000", "--enable-logging=stderr", "--v=0",
		"--screenshot="+shot, "file://"+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, stderr.String())
	}
	var errs []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") || strings.Contains(line, "Uncaught") {
			errs = append(errs, line)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("%s: no screenshot: %v\n%s", name, err, stderr.String())
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return errs, img
}
