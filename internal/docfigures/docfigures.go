// Package docfigures keeps the figures the documentation quotes (the page's
// sizes, the default run's snapshot and link) in step with what they
// measure. Each Figure names the files that quote it, a pattern that finds
// the number there, how to measure it and how far the docs may be from
// the measure. Check reports the figures the docs have wrong (a test runs
// it); Update rewrites them (make docs-figures runs it).
package docfigures

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// ErrUnmeasured says a figure cannot be measured here (the page is not
// built); Check skips it and says so.
var ErrUnmeasured = errors.New("cannot be measured here")

// Figure is one number the docs quote.
type Figure struct {
	Name string
	// Quotes are where it is quoted: a file (from the repository's root)
	// and a pattern whose first group is the number.
	Quotes []Quote
	// Measure returns the number, in the unit the docs use.
	Measure func(root string) (float64, error)
	// Tolerance is the relative difference allowed between the docs and
	// the measure (a build's version string, a compressor's version).
	Tolerance float64
	// Format writes the measure as the docs write it.
	Format func(float64) string
}

// Quote is one place a figure is written.
type Quote struct {
	File    string
	Pattern *regexp.Regexp
}

func q(file, pattern string) Quote { return Quote{file, regexp.MustCompile(pattern)} }

// mb is a size in decimal megabytes with one decimal: 15038797 → 15.0.
func mb(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func whole(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }

// Figures are the figures the docs quote. The page's sizes are those of
// make web's dist/ (lbsim.wasm and its brotli and gzip copies); the
// snapshot and the link are the default run's with seed 1 (make run
// SEED=1, the README's run).
var Figures = []Figure{
	{
		Name: "page: WebAssembly module (MB)",
		Quotes: []Quote{
			q("README.md", `\(([0-9.]+) MB of WebAssembly`),
			q("internal/pageserve/pageserve.go", `the ([0-9.]+) MB module`),
		},
		Measure: fileMB("dist/lbsim.wasm"), Tolerance: 0.10, Format: mb,
	},
	{
		Name: "page: brotli copy (MB)",
		Quotes: []Quote{
			q("README.md", `copies of ([0-9.]+) MB brotli`),
			q("internal/pageserve/pageserve.go", `about ([0-9.]+) MB of brotli`),
		},
		Measure: fileMB("dist/lbsim.wasm.br"), Tolerance: 0.10, Format: mb,
	},
	{
		Name: "page: gzip copy (MB)",
		Quotes: []Quote{
			q("README.md", `brotli and ([0-9.]+) MB gzip`),
			q("internal/pageserve/pageserve.go", `or ([0-9.]+) MB of gzip`),
		},
		Measure: fileMB("dist/lbsim.wasm.gz"), Tolerance: 0.10, Format: mb,
	},
	{
		Name:    "the default run's snapshot (bytes)",
		Quotes:  []Quote{q("README.md", `run's snapshot is ([0-9,]+) bytes`)},
		Measure: func(string) (float64, error) { d, err := defaultSnapshot(); return float64(len(d)), err },
		// The recording program's version is stored: "lbsim devel" or
		// "lbsim devel+REV-modified" moves it by a few bytes.
		Tolerance: 0.05, Format: whole,
	},
	{
		Name:   "the default run's share link (characters)",
		Quotes: []Quote{q("README.md", `about ([0-9,]+) characters for the default run`)},
		Measure: func(string) (float64, error) {
			d, err := defaultSnapshot()
			return float64(len(snapshot.Fragment(d))), err
		},
		Tolerance: 0.05, Format: whole,
	},
}

// fileMB measures a file's size in decimal megabytes.
func fileMB(name string) func(root string) (float64, error) {
	return func(root string) (float64, error) {
		fi, err := os.Stat(filepath.Join(root, name))
		if err != nil {
			return 0, fmt.Errorf("%s: %w (make web builds it)", name, ErrUnmeasured)
		}
		return float64(fi.Size()) / 1e6, nil
	}
}

// defaultSnapshot is the encoded snapshot of the default run with seed 1,
// as lbsim run --seed 1 --snapshot writes it.
func defaultSnapshot() ([]byte, error) {
	cfg := sim.DefaultConfig()
	cfg.Seed = 1
	cfg.FillDefaults(func(string) bool { return false })
	s, err := snapshot.Record(cfg, nil)
	if err != nil {
		return nil, err
	}
	return snapshot.Encode(s)
}

// Finding is one quote of a figure and how it compares with the measure.
type Finding struct {
	Figure   string
	File     string
	Quoted   string // as written, "" when the pattern is not found
	Measured string // as the docs would write it, "" when unmeasured
	Off      bool   // beyond the tolerance, or not found
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

// Check compares every quote under root with its figure's measure.
func Check(root string) ([]Finding, error) {
	var out []Finding
	for _, fig := range Figures {
		v, merr := fig.Measure(root)
		if merr != nil && !errors.Is(merr, ErrUnmeasured) {
			return nil, fmt.Errorf("%s: %v", fig.Name, merr)
		}
		for _, qu := range fig.Quotes {
			data, err := os.ReadFile(filepath.Join(root, qu.File))
			if err != nil {
				return nil, err
			}
			f := Finding{Figure: fig.Name, File: qu.File}
			m := qu.Pattern.FindSubmatch(data)
			if m == nil {
				f.Off, f.Note = true, "the pattern "+qu.Pattern.String()+" matches nothing"
				out = append(out, f)
				continue
			}
			f.Quoted = string(m[1])
			if merr != nil {
				f.Note = merr.Error()
				out = append(out, f)
				continue
			}
			f.Measured = fig.Format(v)
			quoted, _ := strconv.ParseFloat(strings.ReplaceAll(f.Quoted, ",", ""), 64)
			if d := math.Abs(quoted-v) / v; d > fig.Tolerance {
				f.Off = true
				f.Note = fmt.Sprintf(" (%.1f%% off, %.0f%% allowed): run make docs-figures", 100*d, 100*fig.Tolerance)
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// Update writes every measurable figure's measure into its quotes under
// root, and returns what it changed.
func Update(root string) ([]Finding, error) {
	var changed []Finding
	for _, fig := range Figures {
		v, err := fig.Measure(root)
		if errors.Is(err, ErrUnmeasured) {
			changed = append(changed, Finding{Figure: fig.Name, Note: err.Error()})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", fig.Name, err)
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
			old, now := string(data[loc[2]:loc[3]]), fig.Format(v)
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
			changed = append(changed, Finding{Figure: fig.Name, File: qu.File, Quoted: old, Measured: now})
		}
	}
	return changed, nil
}
