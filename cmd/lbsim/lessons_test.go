package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
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
			checkPause(t, l)
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

// checkPause runs a lesson that pauses (pause-at) to its pause, with
// --cycles set to it, and checks what its caption says of the picture
// there (CheckPause) on the summaries the CLI prints.
func checkPause(t *testing.T, l lesson.Lesson) {
	t.Helper()
	var at string
	for _, p := range l.Params() {
		if p[0] == "pause-at" {
			at = p[1]
		}
	}
	if at == "" {
		return
	}
	if l.CheckPause == nil {
		t.Fatalf("lesson %s pauses at %s: it needs a CheckPause of what its caption says there", l.Name, at)
	}
	// The run stops at the pause: its later changes never come.
	stop, _ := strconv.ParseInt(at, 10, 64)
	var params [][2]string
	for _, p := range l.Params() {
		if changeAfter(p, stop) {
			continue
		}
		params = append(params, p)
	}
	params = append(params, [2]string{"cycles", at})
	var sums []sim.Summary
	if lanes := lessonLanes(params); lanes != nil {
		sums = lessonCompare(t, params, lanes)
	} else {
		sums = []sim.Summary{lessonRun(t, params)}
	}
	if err := l.CheckPause(sums); err != nil {
		t.Errorf("lesson %s at its pause, cycle %s: %v", l.Name, at, err)
	}
}

// changeAfter reports whether parameter p is a change (set=CYCLE:…,
// fault=KIND:ID@CYCLE) made after cycle stop.
func changeAfter(p [2]string, stop int64) bool {
	var cyc string
	switch p[0] {
	case "set":
		cyc, _, _ = strings.Cut(p[1], ":")
	case "fault":
		_, cyc, _ = strings.Cut(p[1], "@")
	default:
		return false
	}
	n, err := strconv.ParseInt(cyc, 10, 64)
	return err == nil && n > stop
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
