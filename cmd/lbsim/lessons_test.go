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
// (the page's state().summary is the same, see render/e2e).
func TestLessonsDoWhatTheirCaptionsSay(t *testing.T) {
	if len(lesson.All) < 5 {
		t.Fatalf("%d lessons, want at least five", len(lesson.All))
	}
	for _, l := range lesson.All {
		t.Run(l.Name, func(t *testing.T) {
			run := lessonRun(t, l.Params())
			var versus sim.Summary
			if l.Versus != "" {
				versus = lessonRun(t, l.VersusParams())
			}
			if err := l.Check(run, versus); err != nil {
				t.Errorf("lesson %s (%s, versus %q): %v", l.Name, l.Query, l.Versus, err)
			}
			if len(l.Caption) == 0 || l.Title == "" {
				t.Error("a lesson needs a title and a caption")
			}
		})
	}
}

// lessonRun runs `lbsim run --json -` with the settings among params (a
// later one overrides an earlier one, as with repeated flags) and returns
// its summary.
func lessonRun(t *testing.T, params [][2]string) sim.Summary {
	t.Helper()
	view := []string{"speed", "pause-at", "present", "theory"}
	args := []string{"run", "--quiet", "--json", "-"}
	for _, p := range params {
		if !slices.Contains(view, p[0]) {
			args = append(args, "--"+p[0]+"="+p[1])
		}
	}
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
