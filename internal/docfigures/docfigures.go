// Package docfigures keeps the figures the documentation quotes (the page's
// sizes and start-up times, the default run's snapshot and link, the e2e
// suite's tests) in step with what they measure. Each Figure names the
// files that quote it, a pattern that finds the number there and how to
// measure it. Check reports the figures the docs have wrong; Update
// rewrites them (make docs-figures runs it).
//
// A figure is checked exactly, as the docs write it (one decimal of a
// megabyte, a whole byte), when its measure is deterministic: the page's
// sizes are those of a page built from the tree by the checker itself
// (render/e2e's TestDocsPageFigures, on the page the e2e tests build the
// way make web does), never a dist/ an earlier command left. A timed figure
// (the page's start-up) is only ever written from a measured run, never
// checked: a loaded machine would fail it.
package docfigures

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// Kind says what a figure needs to be measured.
type Kind int

const (
	// Local figures are measured here, from the tree (a run, the sources).
	Local Kind = iota
	// Page figures are measured on a built page's directory.
	Page
	// Timed figures come from a measured run (Measures.Times), never
	// checked.
	Timed
)

// Figure is one number the docs quote.
type Figure struct {
	Name string
	Kind Kind
	// Quotes are where it is quoted: a file (from the repository's root)
	// and a pattern whose first group is the number.
	Quotes []Quote
	// Measure returns the number, in the unit the docs use (Local and
	// Page figures; a Timed figure's is Measures.Times[Name]).
	Measure func(root string, m Measures) (float64, error)
	// Format writes the measure as the docs write it.
	Format func(float64) string
}

// Quote is one place a figure is written.
type Quote struct {
	File    string
	Pattern *regexp.Regexp
}

// Measures is what the figures are measured on besides the tree.
type Measures struct {
	// PageDir is a page built as make web builds it (lbsim.wasm, .br,
	// .gz); "" when none was built.
	PageDir string
	// Times are the timed figures of a measured run, by figure name.
	Times map[string]float64
}

func q(file, pattern string) Quote { return Quote{file, regexp.MustCompile(pattern)} }

// mb is a size in decimal megabytes with one decimal: 15038797 → 15.0.
func mb(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func whole(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }

// Start-up figures' names: render/e2e's TestBrowserStartup measures them.
const (
	StartLocal     = "page: first simulated frame, localhost (s)"
	StartThrottled = "page: first simulated frame at 20 Mbit/s (s)"
	StartLoad      = "page: the load average while the start-up was measured"
)

// Figures are the figures the docs quote. The page's sizes are those of
// make web's build (lbsim.wasm and its brotli -q 11 and gzip -9 copies);
// the snapshot and the link are the default run's with seed 1 (make run
// SEED=1, the README's run) as make build's lbsim records them.
var Figures = []Figure{
	{
		Name: "page: WebAssembly module (MB)", Kind: Page,
		Quotes: []Quote{
			q("README.md", `\(([0-9.]+) MB of WebAssembly`),
			q("internal/pageserve/pageserve.go", `the ([0-9.]+) MB module`),
			q("docs/render.md", `\| ([0-9.]+) MB \| `+"`make docs-figures`"),
		},
		Measure: fileMB("lbsim.wasm"), Format: mb,
	},
	{
		Name: "page: brotli copy (MB)", Kind: Page,
		Quotes: []Quote{
			q("README.md", `copies of ([0-9.]+) MB brotli`),
			q("internal/pageserve/pageserve.go", `about ([0-9.]+) MB of brotli`),
			q("docs/render.md", `brotli -q 11\) \| ([0-9.]+) MB`),
		},
		Measure: fileMB("lbsim.wasm.br"), Format: mb,
	},
	{
		Name: "page: gzip copy (MB)", Kind: Page,
		Quotes: []Quote{
			q("README.md", `brotli and ([0-9.]+) MB gzip`),
			q("internal/pageserve/pageserve.go", `or ([0-9.]+) MB of gzip`),
			q("docs/render.md", `gzip -9\) \| ([0-9.]+) MB`),
		},
		Measure: fileMB("lbsim.wasm.gz"), Format: mb,
	},
	{
		Name: StartLocal, Kind: Timed,
		Quotes: []Quote{q("docs/render.md", `localhost, cold \| ([0-9.]+) s`)},
		Format: tenths,
	},
	{
		Name: StartThrottled, Kind: Timed,
		Quotes: []Quote{q("docs/render.md", `20 Mbit/s, cold[^|]*\| ([0-9.]+) s`)},
		Format: tenths,
	},
	{
		Name: StartLoad, Kind: Timed,
		Quotes: []Quote{q("docs/render.md", `measured at a load average of ([0-9.]+)`)},
		Format: tenths,
	},
	{
		Name:   "the default run's snapshot (bytes)",
		Quotes: []Quote{q("README.md", `run's snapshot is ([0-9,]+) bytes`)},
		Measure: func(string, Measures) (float64, error) {
			d, err := defaultSnapshot()
			return float64(len(d)), err
		},
		Format: whole,
	},
	{
		Name:   "the default run's share link (characters)",
		Quotes: []Quote{q("README.md", `([0-9,]+) characters for the default run`)},
		Measure: func(string, Measures) (float64, error) {
			d, err := defaultSnapshot()
			return float64(len(snapshot.Fragment(d))), err
		},
		Format: whole,
	},
	{
		Name:    "the e2e suite's browser tests",
		Quotes:  []Quote{q("docs/render.md", `the whole e2e package \(([0-9]+) browser tests`)},
		Measure: countTests("TestBrowser"), Format: whole,
	},
	{
		Name:    "the e2e suite's window tests",
		Quotes:  []Quote{q("docs/render.md", `browser tests, ([0-9]+) window tests`)},
		Measure: countTests("TestDesktop"), Format: whole,
	},
}

func tenths(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// fileMB measures a file of the built page in decimal megabytes.
func fileMB(name string) func(string, Measures) (float64, error) {
	return func(_ string, m Measures) (float64, error) {
		fi, err := os.Stat(filepath.Join(m.PageDir, name))
		if err != nil {
			return 0, err
		}
		return float64(fi.Size()) / 1e6, nil
	}
}

// testFunc finds the test functions of a file.
var testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)

// countTests counts render/e2e's test functions whose names start with
// prefix.
func countTests(prefix string) func(string, Measures) (float64, error) {
	return func(root string, _ Measures) (float64, error) {
		files, err := filepath.Glob(filepath.Join(root, "render", "e2e", "*_test.go"))
		if err != nil || len(files) == 0 {
			return 0, fmt.Errorf("render/e2e has no tests (%v)", err)
		}
		n := 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return 0, err
			}
			for _, m := range testFunc.FindAllSubmatch(data, -1) {
				if strings.HasPrefix(string(m[1]), prefix) {
					n++
				}
			}
		}
		return float64(n), nil
	}
}

// RecordedBy is the program a snapshot made by make build's lbsim names
// from a committed tree: "lbsim devel+" and 12 digits of the revision
// (the figures count its length, not its digits).
const RecordedBy = "lbsim devel+0123456789ab"

// defaultSnapshot is the encoded snapshot of the default run with seed 1,
// as make build's lbsim run --seed 1 --snapshot writes it.
func defaultSnapshot() ([]byte, error) {
	cfg := sim.DefaultConfig()
	cfg.Seed = 1
	cfg.FillDefaults(func(string) bool { return false })
	s, err := snapshot.Record(cfg, nil)
	if err != nil {
		return nil, err
	}
	s.Engine = RecordedBy
	return snapshot.Encode(s)
}

// Finding is one quote of a figure and how it compares with the measure.
type Finding struct {
	Figure   string
	Kind     Kind
	File     string
	Quoted   string // as written, "" when the pattern is not found
	Measured string // as the docs would write it, "" when unmeasured
	Off      bool   // differs, or not found
	Note     string
}

func (f Finding) String() string {
	switch {
	case f.Quoted == "":
		return fmt.Sprintf("%s: %s: not found (%s)", f.File, f.Figure, f.Note)
	case f.Measured == "":
		return fmt.Sprintf("%s: %s: %s, not measured (%s)", f.File, f.Figure, f.Quoted, f.Note)
	}
	return fmt.Sprintf("%s: %s: the docs say %s, measured %s%s", f.File, f.Figure, f.Quoted, f.Measured, f.Note)
}

// measure returns a figure's measure as the docs write it, or why it is
// not measured here.
func measure(fig Figure, root string, m Measures) (string, string, error) {
	switch {
	case fig.Kind == Page && m.PageDir == "":
		return "", "measured on a built page: render/e2e's TestDocsPageFigures checks it, make docs-figures writes it", nil
	case fig.Kind == Timed:
		v, ok := m.Times[fig.Name]
		if !ok {
			return "", "timed: make docs-figures writes it from a measured run (render/e2e's TestBrowserStartup); never checked", nil
		}
		return fig.Format(v), "", nil
	}
	v, err := fig.Measure(root, m)
	if err != nil {
		return "", "", fmt.Errorf("%s: %v", fig.Name, err)
	}
	return fig.Format(v), "", nil
}

// Check compares every quote under root with its figure's measure, as
// the docs write it: it must be the same. Timed figures are reported, not
// compared.
func Check(root string, m Measures) ([]Finding, error) {
	var out []Finding
	for _, fig := range Figures {
		now, why, err := measure(fig, root, m)
		if err != nil {
			return nil, err
		}
		for _, qu := range fig.Quotes {
			data, err := os.ReadFile(filepath.Join(root, qu.File))
			if err != nil {
				return nil, err
			}
			f := Finding{Figure: fig.Name, Kind: fig.Kind, File: qu.File, Measured: now, Note: why}
			sub := qu.Pattern.FindSubmatch(data)
			if sub == nil {
				f.Off, f.Note = true, "the pattern "+qu.Pattern.String()+" matches nothing"
				f.Measured = ""
				out = append(out, f)
				continue
			}
			f.Quoted = string(sub[1])
			if now != "" && fig.Kind != Timed && strings.ReplaceAll(f.Quoted, ",", "") != now {
				f.Off, f.Note = true, ": run make docs-figures"
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// Update writes every figure measured here into its quotes under root,
// and returns what it changed.
func Update(root string, m Measures) ([]Finding, error) {
	var changed []Finding
	for _, fig := range Figures {
		now, why, err := measure(fig, root, m)
		if err != nil {
			return nil, err
		}
		if now == "" {
			changed = append(changed, Finding{Figure: fig.Name, Kind: fig.Kind, Note: why})
			continue
		}
		for _, qu := range fig.Quotes {
			path := filepath.Join(root, qu.File)
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			loc := qu.Pattern.FindSubmatchIndex(data)
			if loc == nil {
				return nil, fmt.Errorf("%s: %s: the pattern %s matches nothing", qu.File, fig.Name, qu.Pattern)
			}
			old, now := string(data[loc[2]:loc[3]]), now
			if strings.Contains(old, ",") && len(now) > 3 { // the docs write 1,234
				now = now[:len(now)-3] + "," + now[len(now)-3:]
			}
			if old == now {
				continue
			}
			data = append(data[:loc[2]:loc[2]], append([]byte(now), data[loc[3]:]...)...)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				return nil, err
			}
			changed = append(changed, Finding{Figure: fig.Name, Kind: fig.Kind, File: qu.File, Quoted: old, Measured: now})
		}
	}
	return changed, nil
}
