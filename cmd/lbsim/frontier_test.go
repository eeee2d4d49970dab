package main

import (
	"cmp"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/internal/chart"
)

// targetSweep sweeps target tracking's target and window on a small pool
// (two replications of each of four points) into a results file.
func targetSweep(t *testing.T) string {
	t.Helper()
	results := filepath.Join(t.TempDir(), "targets.jsonl")
	_, stderr, code := runCLI(t, "", "sweep", "--servers", "4", "--cycles", "3000", "--rate", "0.2", "--timeout", "300",
		"--server-cost", "0.5", "--autoscaler", "target", "--vary", "scale-target=0.5,0.9", "--vary", "scale-down-window=0,300",
		"--replications", "2", "--seed", "3", "--no-progress", "--out", results)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	return results
}

// TestPlotFrontier: each grid point is drawn at the means of its
// replications' cost and wait_p95, read here from the results file, one
// line per window with its points in the order of cost; the SVG names
// the lines and the axes, and a PNG has the size asked.
func TestPlotFrontier(t *testing.T) {
	results := targetSweep(t)
	type xy struct{ x, y float64 }
	sums := map[string]*[3]float64{} // window → target → (Σcost, Σwait_p95, n)
	for _, line := range fileLines(t, results) {
		var r struct {
			Point   map[string]float64 `json:"point"`
			Summary map[string]any     `json:"summary"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		key := strings.Join([]string{fmtFloat(r.Point["scale-down-window"]), fmtFloat(r.Point["scale-target"])}, "/")
		if sums[key] == nil {
			sums[key] = &[3]float64{}
		}
		s := sums[key]
		s[0], s[1], s[2] = s[0]+r.Summary["cost"].(float64), s[1]+r.Summary["wait_p95"].(float64), s[2]+1
	}
	want := map[string][]xy{}
	for key, s := range sums {
		w, _, _ := strings.Cut(key, "/")
		want["scale-down-window="+w] = append(want["scale-down-window="+w], xy{s[0] / s[2], s[1] / s[2]})
	}
	rep, err := aggregateFiles([]string{results}, []string{"cost", "wait_p95"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := frontierChart(rep, "scale-down-window")
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Series) != 2 || ch.XLabel != "cost" || ch.YLabel != "wait_p95" {
		t.Fatalf("%d series, axes %s and %s; want 2, cost and wait_p95", len(ch.Series), ch.XLabel, ch.YLabel)
	}
	for _, sr := range ch.Series {
		w := want[sr.Label]
		slices.SortFunc(w, func(a, b xy) int { return cmp.Compare(a.x, b.x) })
		if len(sr.X) != len(w) || len(w) != 2 {
			t.Fatalf("%s: %d points, want %d (2)", sr.Label, len(sr.X), len(w))
		}
		for i := range w {
			if !nearlyEqual(sr.X[i], w[i].x) || !nearlyEqual(sr.Mean[i], w[i].y) {
				t.Errorf("%s point %d: (%v, %v), want the means (%v, %v)", sr.Label, i, sr.X[i], sr.Mean[i], w[i].x, w[i].y)
			}
		}
	}

	dir := t.TempDir()
	svg := filepath.Join(dir, "frontier.svg")
	if _, stderr, code := runCLI(t, "", "plot", "frontier", results, "--by", "scale-down-window", "--out", svg); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	texts := svgTexts(t, svg)
	if got := present(texts, []string{"scale-down-window=0", "scale-down-window=300", "cost", "wait_p95"}); len(got) != 4 {
		t.Errorf("the chart has %v of the 2 lines and 2 axis labels; texts %v", got, texts)
	}
	pngPath := filepath.Join(dir, "frontier.png")
	if _, stderr, code := runCLI(t, "", "plot", "frontier", results, "--x", "server_cycles", "--y", "avg_wait", "--out", pngPath, "--size", "500x300"); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	checkPNG(t, pngPath, 500, 300)
}

// TestPlotFrontierRefuses: bad metrics, a setting the sweep does not vary,
// the same metric twice and no results file are usage errors that leave
// no file.
func TestPlotFrontierRefuses(t *testing.T) {
	results := targetSweep(t)
	out := filepath.Join(t.TempDir(), "f.svg")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out}, "name the sweep's results files"},
		{[]string{results, "--out", out, "--x", "cost", "--y", "cost"}, "--x and --y are both cost"},
		{[]string{results, "--out", out, "--by", "servers"}, "--by servers: the sweep varies scale-target, scale-down-window"},
		{[]string{results, "--out", out, "--y", "colour"}, "--y colour: the summary has no number called colour"},
		{[]string{results, "--out", out, "--x", "colour"}, "--x colour: the summary has no number called colour"},
		{[]string{results, "--out", "f.pdf"}, ".svg or .png"},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"plot", "frontier"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q in %s", tc.args, code, tc.want, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused chart left a file")
	}
}

// TestFrontierSortsByX: a series' points, with their intervals, follow
// x (ties in their order).
func TestFrontierSortsByX(t *testing.T) {
	sr := chart.Series{X: []float64{3, 1, 2, 1}, Mean: []float64{30, 10, 20, 11}, Low: []float64{29, 9, 19, 10}, High: []float64{31, 11, 21, 12}}
	sortByX(&sr)
	want := chart.Series{X: []float64{1, 1, 2, 3}, Mean: []float64{10, 11, 20, 30}, Low: []float64{9, 10, 19, 29}, High: []float64{11, 12, 21, 31}}
	if !slices.Equal(sr.X, want.X) || !slices.Equal(sr.Mean, want.Mean) || !slices.Equal(sr.Low, want.Low) || !slices.Equal(sr.High, want.High) {
		t.Errorf("sorted %+v, want %+v", sr, want)
	}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// nearlyEqual: a and b agree to 9 significant digits.
func nearlyEqual(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
