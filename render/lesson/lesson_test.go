package lesson_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/sim"
)

// TestLessonsReadCleanly reads every lesson the way ?lesson=NAME does:
// no problems, its caption kept, names unique and lower-case. Their claims
// are checked against the CLI in cmd/lbsim/lessons_test.go.
func TestLessonsReadCleanly(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range lesson.All {
		if seen[l.Name] || l.Name != strings.ToLower(l.Name) || strings.ContainsAny(l.Name, " &=?#") {
			t.Errorf("lesson name %q: want unique, lower-case, usable in a query", l.Name)
		}
		seen[l.Name] = true
		p := preset.Read([]preset.Param{{Name: "lesson", Value: l.Name}}, func() uint64 { return 1 })
		if len(p.Problems) != 0 || p.Lesson != l.Name || len(p.Caption) != len(l.Caption) {
			t.Errorf("lesson %s: problems %q, caption %d lines", l.Name, p.Problems, len(p.Caption))
		}
		for _, line := range l.Caption {
			if len([]rune(line)) > 100 {
				t.Errorf("lesson %s: caption line of %d characters (at most 100 fit the strip)", l.Name, len([]rune(line)))
			}
		}
		if got, err := lesson.Find(l.Name); err != nil || got.Name != l.Name {
			t.Errorf("Find(%q) = %v, %v", l.Name, got.Name, err)
		}
	}
	if _, err := lesson.Find("nope"); err == nil || !strings.Contains(err.Error(), lesson.All[0].Name) {
		t.Errorf("Find(nope): %v", err)
	}
}

// TestREADMELinksTheComparisons: the README's page links to the ready-made
// comparisons are these comparisons' queries, and it names each one in a
// ?comparison=NAME link.
func TestREADMELinksTheComparisons(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range lesson.Comparisons {
		if link := "http://127.0.0.1:8080/?" + c.Query; !strings.Contains(string(b), link) {
			t.Errorf("the README does not link comparison %s as %s", c.Name, link)
		}
		if link := "http://127.0.0.1:8080/?comparison=" + c.Name; !strings.Contains(string(b), link) {
			t.Errorf("the README does not name comparison %s in a link %s", c.Name, link)
		}
	}
}

// TestMeasureOf writes each measure of a summary as a lane's title shows it.
func TestMeasureOf(t *testing.T) {
	s := sim.Summary{AvgWait: 1.04, WaitP95: 1100, Generated: 1000, Rejected: 526, Admitted: 400, Errors: 182, Goodput: 0.0724, FinalQueue: 8123}
	for m, want := range map[lesson.Measure]string{lesson.NoMeasure: "", lesson.AvgWait: "avg wait 1.04", lesson.P95Wait: "p95 wait 1,100",
		lesson.RejectedShare: "rejected 52.6%", lesson.ErrorShare: "errors 45.5%", lesson.Goodput: "goodput 0.0724/cycle", lesson.FinalQueue: "queue 8,123"} {
		if got := m.Of(s); got != want {
			t.Errorf("measure %d: %q, want %q", m, got, want)
		}
	}
	s.AvgWait = 2_799.6
	if got := lesson.AvgWait.Of(s); got != "avg wait 2,800" {
		t.Errorf("a long wait: %q", got)
	}
}

// TestREADMEListsTheLessonsAndQuestions: the README's lesson table links
// every lesson, and its table of questions gives each lesson's question,
// its answers with the one that holds in bold, and its change to try, as
// the lessons say them.
func TestREADMEListsTheLessonsAndQuestions(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lesson.All {
		if link := "http://127.0.0.1:8080/?lesson=" + l.Name + "&present=1 |"; !strings.Contains(string(b), link) {
			t.Errorf("the README's lesson table does not link lesson %s (%s)", l.Name, link)
		}
		q := l.Quiz()
		if q == nil {
			continue
		}
		var as []string
		for i, a := range q.Answers {
			if i == q.Right {
				a = "**" + a + "**"
			}
			as = append(as, a)
		}
		try := "—"
		if q.Try != "" {
			try = q.TryText + " (`" + q.Try + "`): " + q.Look
		}
		row := "| " + l.Name + " | " + q.Question + " | " + strings.Join(as, "; ") + " | " + try + " |"
		if !strings.Contains(string(b), row+"\n") {
			t.Errorf("the README's table of questions lacks the row\n%s", row)
		}
	}
}

// TestEveryLessonHasATopic: the lessons menu lists a topic at a time, so
// every lesson names one, and no topic holds more than MaxPerTopic (one
// column of the menu at a projector's size) or none.
func TestEveryLessonHasATopic(t *testing.T) {
	n := map[lesson.Topic]int{lesson.TopicComparisons: len(lesson.Comparisons)}
	for _, l := range lesson.All {
		if !slices.Contains(lesson.Topics(), l.Topic) {
			t.Errorf("lesson %s has topic %v: give it one of %v (its Topic field)", l.Name, l.Topic, lesson.Topics())
		}
		n[l.Topic]++
	}
	for _, tp := range lesson.Topics() {
		if n[tp] == 0 || n[tp] > lesson.MaxPerTopic {
			t.Errorf("topic %v holds %d lessons: want 1 to %d (split it, or add a topic)", tp, n[tp], lesson.MaxPerTopic)
		}
	}
}
