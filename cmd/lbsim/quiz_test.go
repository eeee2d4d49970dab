package main

import (
	"strconv"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
)

// lessonSums runs the lesson's params on the CLI to cycle at (`lbsim
// compare --json -` for a lesson in the compare view, else `lbsim run
// --json -`) and returns its lanes' summaries (one for a single run).
func lessonSums(t *testing.T, params [][2]string, at int64) []sim.Summary {
	t.Helper()
	params = append(params, [2]string{"cycles", strconv.FormatInt(at, 10)})
	if lanes := lessonLanes(params); lanes != nil {
		return lessonCompare(t, params, lanes)
	}
	return []sim.Summary{lessonRun(t, params)}
}

// TestLessonQuizzesHold runs each lesson that asks a question on the CLI
// to its key moment (its pause-at, or its end) and checks that the answer
// it calls right is the one the summaries bear out; then the "now try"
// run (the lesson with its quiz's Try) to the same moment, checking what
// its Look says. The quiz's lines fit a caption's strip.
func TestLessonQuizzesHold(t *testing.T) {
	asked := 0
	for _, l := range lesson.All {
		q := l.Quiz()
		if q == nil {
			continue
		}
		asked++
		t.Run(l.Name, func(t *testing.T) {
			if len(q.Answers) < 2 || len(q.Answers) > 4 || q.Right < 0 || q.Right >= len(q.Answers) || q.Question == "" || q.Why == "" {
				t.Fatalf("question %q: %d answers, right %d, why %q: want two to four, the right one among them, and why", q.Question, len(q.Answers), q.Right, q.Why)
			}
			sums := lessonSums(t, l.Params(), l.KeyMoment())
			if got := q.Holds(sums); got != q.Right {
				t.Errorf("at cycle %d the run bears out answer %d, the lesson says %d (%q)", l.KeyMoment(), got, q.Right, q.Answers[q.Right])
			}
			lines := q.Verdict(sums, 0)
			if q.Try != "" {
				if q.TryCheck == nil || q.TryText == "" || q.Look == "" {
					t.Fatal("a Try needs its words, what to look for and a check")
				}
				if err := q.TryCheck(lessonSums(t, l.TryParams(), l.KeyMoment())); err != nil {
					t.Errorf("now try %s: %v", q.Try, err)
				}
				lines = append(lines, q.TryCaption()...)
			}
			for _, line := range append(lines, q.Question) {
				if n := len([]rune(line)); n > 100 {
					t.Errorf("%q: %d characters, at most 100 fit a caption's line", line, n)
				}
			}
		})
	}
	if asked < 6 {
		t.Errorf("%d lessons ask a question, want six or more", asked)
	}
}
