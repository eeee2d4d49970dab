package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
)

// TestLessonsDoWhatTheirCaptionsSay runs each lesson's settings through
// `lbsim run --json -` and checks its claim on the summary the CLI prints
// (the page's state().summary is the same, see render/e2e); a lesson with
// three lanes or more checks them all (CheckLanes).
func TestLessonsDoWhatTheirCaptionsSay(t *testing.T) {
	if len(lesson.All) < 5 {
		t.Fatalf("%d lessons, want at least five", len(lesson.All))
	}
	for _, l := range lesson.All {
		t.Run(l.Name, func(t *testing.T) {
			if len(l.Caption) == 0 || l.Title == "" {
				t.Error("a lesson needs a title and a caption")
			}
			var run, versus sim.Summary
			switch lanes := lessonLanes(l.Params()); {
			case lanes != nil:
				if l.Versus != "" {
					t.Fatal("a lesson in the compare view compares its lanes: it has no Versus")
				}
				sums := lessonCompare(t, l.Params(), lanes)
				if l.CheckLanes != nil {
					if err := l.CheckLanes(sums); err != nil {
						t.Errorf("lesson %s (%s): %v", l.Name, l.Query, err)
					}
					return
				}
				run, versus = sums[0], sums[1]
			default:
				run = lessonRun(t, l.Params())
				if l.Versus != "" {
					versus = lessonRun(t, l.VersusParams())
				}
			}
			if err := l.Check(run, versus); err != nil {
				t.Errorf("lesson %s (%s, versus %q): %v", l.Name, l.Query, l.Versus, err)
			}
		})
	}
}

// lessonLanes returns the lanes of a lesson's compare parameter (the
// variants of `lbsim compare`), or nil when it has none.
func lessonLanes(params [][2]string) []string {
	for _, p := range params {
		if p[0] == "compare" {
			return strings.Split(p[1], ";")
		}
	}
	return nil
}

// lessonArgs are the `lbsim run` flags of the settings among params.
func lessonArgs(params [][2]string) []string {
	view := []string{"speed", "pause-at", "present", "theory", "compare"}
	var args []string
	for _, p := range params {
		if !slices.Contains(view, p[0]) {
			args = append(args, "--"+p[0]+"="+p[1])
		}
	}
	return args
}

// lessonCompare runs `lbsim compare --json -` with the settings among
// params, one variant per lane, and returns the lanes' summaries.
func lessonCompare(t *testing.T, params [][2]string, lanes []string) []sim.Summary {
	t.Helper()
	args := append([]string{"compare", "--json", "-"}, lessonArgs(params)...)
	for _, l := range lanes {
		args = append(args, "--variant", l)
	}
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	if code := c.main(args); code != 0 {
		t.Fatalf("lbsim %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	var res struct {
		Variants []struct {
			Summary sim.Summary `json:"summary"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Variants) != len(lanes) || len(lanes) < 2 {
		t.Fatalf("lbsim %s: %v, %d variants of %d lanes\n%s", strings.Join(args, " "), err, len(res.Variants), len(lanes), out.String())
	}
	var sums []sim.Summary
	for _, v := range res.Variants {
		sums = append(sums, v.Summary)
	}
	return sums
}

// lessonRun runs `lbsim run --json -` with the settings among params (a
// later one overrides an earlier one, as with repeated flags) and returns
// its summary.
func lessonRun(t *testing.T, params [][2]string) sim.Summary {
	t.Helper()
	args := append([]string{"run", "--quiet", "--json", "-"}, lessonArgs(params)...)
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	if code := c.main(args); code != 0 {
		t.Fatalf("lbsim %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	var s sim.Summary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatalf("lbsim %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return s
}
