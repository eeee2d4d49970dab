package docfigures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsFigures: every figure the docs quote that is measured from the
// tree (the default run's snapshot and link, the e2e suite's tests) is
// what it measures, exactly as the docs write it (make docs-figures
// rewrites them). The page's sizes are checked by render/e2e's
// TestDocsPageFigures on the page it builds itself; this test never reads
// a dist/ (a make serve before it must not change its verdict).
func TestDocsFigures(t *testing.T) {
	findings, err := Check("../..", Measures{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		switch {
		case f.Off:
			t.Error(f)
		case f.Measured == "":
			t.Log(f)
		}
	}
}

// TestCheckIsExact: a figure one unit off its measure, as the docs write
// it, is reported; Update writes the measure (with the docs' thousands
// comma) and Check then passes; a page figure without a page and a timed
// figure without a run are reported as not measured, never as off, and a
// quote whose pattern matches nothing is off.
func TestCheckIsExact(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"README.md":                       "(1.0 MB of WebAssembly, with copies of 1.0 MB brotli and 1.0 MB gzip\nthe default 100,000-cycle run's snapshot is 1,000 bytes; about 900 characters for the default run\n",
		"internal/pageserve/pageserve.go": "the 1.0 MB module goes as about 1.0 MB of brotli or 1.0 MB of gzip",
		"docs/render.md":                  "| 1.0 MB | `make docs-figures`\n(brotli -q 11) | 1.0 MB\n(gzip -9) | 1.0 MB\nlocalhost, cold | 9.9 s\n20 Mbit/s, cold | 9.9 s measured at a load average of 1.0\nthe whole e2e package (1 browser tests, 1 window tests\n",
		"render/e2e/a_test.go":            "func TestBrowserA(t *testing.T) {}\nfunc TestBrowserB(t *testing.T) {}\nfunc TestDesktopA(t *testing.T) {}\nfunc helper(t *testing.T) {}\n",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	off := func() map[string]bool {
		findings, err := Check(root, Measures{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, f := range findings {
			if f.Off {
				got[f.Figure] = true
			}
			if (f.Kind == Page || f.Kind == Timed) && (f.Quoted != "" && f.Off || f.Measured != "") {
				t.Errorf("%s: measured or off without a page or a run: %v", f.Figure, f)
			}
		}
		return got
	}
	got := off()
	for _, name := range []string{"the default run's snapshot (bytes)", "the default run's share link (characters)", "the e2e suite's browser tests"} {
		if !got[name] {
			t.Errorf("%s: a wrong figure was not reported (%v)", name, got)
		}
	}
	if got["the e2e suite's window tests"] {
		t.Errorf("the window tests' count (1) was right and reported off")
	}
	if _, err := Update(root, Measures{}); err != nil {
		t.Fatal(err)
	}
	if got := off(); len(got) != 0 {
		t.Errorf("after Update still off: %v", got)
	}
	readme, _ := os.ReadFile(filepath.Join(root, "README.md"))
	render, _ := os.ReadFile(filepath.Join(root, "docs/render.md"))
	d, err := defaultSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if want := "snapshot is " + whole(float64(len(d))) + " bytes"; !strings.Contains(string(readme), want) {
		t.Errorf("Update wrote %q, want %q", readme, want)
	}
	if !strings.Contains(string(render), "(2 browser tests, 1 window tests") || !strings.Contains(string(render), "9.9 s") {
		t.Errorf("Update wrote %q", render)
	}
	os.WriteFile(filepath.Join(root, "docs/render.md"), []byte("nothing here"), 0o644)
	if got := off(); !got["the e2e suite's browser tests"] {
		t.Errorf("a quote that is gone was not reported: %v", got)
	}
}
