package main

import (
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/internal/chart"
)

// svgTexts parses an SVG and returns the text of its <text> elements.
func svgTexts(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := xml.NewDecoder(f)
	var texts []string
	inText := false
	for {
		tok, err := d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return texts
			}
			t.Fatalf("%s is not well-formed XML: %v", path, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, strings.TrimSpace(string(tok)))
			}
		case xml.EndElement:
			inText = false
		}
	}
}

// present returns those of names that appear as texts.
func present(texts, names []string) []string {
	var got []string
	for _, n := range names {
		if slices.Contains(texts, n) {
			got = append(got, n)
		}
	}
	return got
}

func TestPlotRunTimeline(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "timeline.svg")
	args := []string{"plot", "run", "--servers", "6", "--cycles", "3000", "--rate", "0.5", "--seed", "3", "--initial-per-server", "1"}
	if _, stderr, code := runCLI(t, "", append(args, "--out", svg)...); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	texts := svgTexts(t, svg)
	series := []string{chart.SeriesQueue, chart.SeriesUp, chart.SeriesDown, chart.SeriesLive, chart.SeriesScaleUp, chart.SeriesScaleDown}
	if got := present(texts, series); !slices.Equal(got, series) {
		t.Errorf("series in the legends: %v, want %v", got, series)
	}
	for _, label := range []string{"cycle", "live servers", "queue (largest in each 2 cycles)"} {
		if !slices.Contains(texts, label) {
			t.Errorf("no axis label %q in %v", label, texts)
		}
	}
	pngPath := filepath.Join(dir, "timeline.png")
	if _, stderr, code := runCLI(t, "", append(args, "--out", pngPath, "--size", "640x380")...); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	checkPNG(t, pngPath, 640, 380)
}

func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s is %dx%d, want %dx%d", path, b.Dx(), b.Dy(), w, h)
	}
}

func TestPlotSweep(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "s.jsonl")
	sweepTo(t, results)
	svg := filepath.Join(dir, "sweep.svg")
	if _, stderr, code := runCLI(t, "", "plot", "sweep", results, "--metric", "peak_queue", "--out", svg); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	texts := svgTexts(t, svg)
	lines := present(texts, []string{"policy=round-robin", "policy=random", "rate", "peak_queue"})
	if len(lines) != 4 {
		t.Errorf("the chart has %v of the 2 series and 2 axis labels; texts %v", lines, texts)
	}
	if n := strings.Count(strings.Join(texts, "\n"), "policy="); n != 2 {
		t.Errorf("%d series, want 2", n)
	}
	pngPath := filepath.Join(dir, "sweep.png")
	if _, stderr, code := runCLI(t, "", "plot", "sweep", "--x", "rate", results, "--out", pngPath, "--size", "500x300"); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	checkPNG(t, pngPath, 500, 300)
}

func TestPlotRefuses(t *testing.T) {
	results := filepath.Join(t.TempDir(), "s.jsonl")
	sweepTo(t, results)
	out := filepath.Join(t.TempDir(), "c.svg")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot"}, "say what to plot"},
		{[]string{"plot", "pie"}, "unknown chart"},
		{[]string{"plot", "run", "--cycles", "10"}, "--out FILE.svg"},
		{[]string{"plot", "run", "--cycles", "10", "--out", "c.pdf"}, ".svg or .png"},
		{[]string{"plot", "run", "--cycles", "10", "--out", out, "--size", "5x5"}, "--size"},
		{[]string{"plot", "run", "--cycles", "10", "--out", out, "--switch"}, "--switch"},
		{[]string{"plot", "run", "--rate", "x", "--out", out}, "--rate"},
		{[]string{"plot", "sweep", "--out", out}, "name the sweep's results files"},
		{[]string{"plot", "sweep", results, "--out", out, "--x", "policy"}, "are not numbers"},
		{[]string{"plot", "sweep", results, "--out", out, "--x", "servers"}, "the sweep varies rate, policy"},
		{[]string{"plot", "sweep", results, "--out", out, "--metric", "colour"}, "no number called colour"},
	} {
		_, stderr, code := runCLI(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q in %s", tc.args, code, tc.want, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused chart left a file")
	}
}

// oneMany finds a count of one with a plural noun ("1 lines").
var oneMany = regexp.MustCompile(`(^|[^0-9.,])1 [a-z]+s\b`)

// TestCountsOfOne: where the plot commands (and the sweep that feeds
// them, a run's and a replay's header) count something, one is one
// thing, not "1 lines": a sweep of one point, its plot of one line, a
// timeline of one server over one cycle, a run of one constant cycle
// with one change, replayed.
func TestCountsOfOne(t *testing.T) {
	dir := t.TempDir()
	results, svg, snap := filepath.Join(dir, "one.jsonl"), filepath.Join(dir, "one.svg"), filepath.Join(dir, "one.lbsnap")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"sweep", "--vary", "rate=0.3", "--cycles", "50", "--seed", "1", "--jobs", "1", "--no-progress", "--out", results},
			[]string{"1 point × 1 replication = 1 run,", "shard 0/1: 1 run, 0 already done; 1 job", "1 run written to"}},
		{[]string{"plot", "sweep", results, "--metric", "peak_queue", "--out", svg}, []string{"peak_queue against rate, 1 line"}},
		{[]string{"plot", "frontier", results, "--x", "goodput", "--y", "peak_queue", "--out", svg}, []string{"1 point on 1 line"}},
		{[]string{"plot", "run", "--servers", "1", "--cycles", "1", "--out", svg}, []string{"the timeline of 1 cycle is in"}},
		{[]string{"run", "--servers", "1", "--cycles", "2", "--service", "constant", "--mean-service", "1", "--set", "1:rate=0.5", "--snapshot", snap},
			[]string{"lbsim run: 1 server, 2 cycles, tasks 1 cycle each,"}},
		{[]string{"replay", snap}, []string{": 1 server, 2 cycles,", ", 1 change;"}},
	}
	for _, tt := range tests {
		stdout, stderr, code := runCLI(t, "", tt.args...)
		if code != 0 {
			t.Fatalf("lbsim %s: exit %d: %s", strings.Join(tt.args, " "), code, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("lbsim %s: no %q in %q", strings.Join(tt.args, " "), w, stdout+stderr)
			}
		}
		if one := oneMany.FindString(stdout + stderr); one != "" {
			t.Errorf("lbsim %s says %q: %q", strings.Join(tt.args, " "), one, stdout+stderr)
		}
	}
	if texts := svgTexts(t, svg); !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, "1 server, rate") }) {
		t.Errorf("the timeline's title does not count its one server: %v", texts)
	}
}
