package preset

import (
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
)

// TestQuizAndTry reads the question's parameters: a lesson that asks one
// carries it (and its title) unless quiz=0; try=1 opens its "now try"
// run (the Try's settings over the lesson's, the caption saying what to
// look for, no question); try=1 without a lesson that asks is a problem;
// a bad switch value is one too.
func TestQuizAndTry(t *testing.T) {
	l, err := lesson.Find("queues")
	if err != nil {
		t.Fatal(err)
	}
	p := Read([]Param{{"lesson", "queues"}}, seven)
	if p.Quiz != l.Quiz() || p.Quiz == nil || p.Try || !strings.Contains(p.Title, l.Title) || len(p.Problems) != 0 {
		t.Errorf("lesson=queues: quiz %v, try %v, title %q, problems %q", p.Quiz, p.Try, p.Title, p.Problems)
	}
	if p := Read([]Param{{"lesson", "queues"}, {"quiz", "0"}}, seven); p.Quiz != nil || len(p.Problems) != 0 || len(p.Caption) != len(l.Caption) {
		t.Errorf("quiz=0: quiz %v, problems %q, caption %q", p.Quiz, p.Problems, p.Caption)
	}
	tried := Read([]Param{{"try", "1"}, {"lesson", "queues"}}, seven)
	rate := Read([]Param{{"lesson", "queues"}, {"rate", "0.045"}}, seven).Config.Rate
	if tried.Quiz != nil || !tried.Try || tried.Config.Rate != rate || rate == p.Config.Rate || len(tried.Lanes) != 2 ||
		strings.Join(tried.Caption, " ") != strings.Join(l.Quiz().TryCaption(), " ") || len(tried.Problems) != 0 {
		t.Errorf("try=1: quiz %v, try %v, rate %v (want %v), caption %q, problems %q", tried.Quiz, tried.Try, tried.Config.Rate, rate, tried.Caption, tried.Problems)
	}
	for _, ps := range [][]Param{{{"try", "1"}}, {{"lesson", "firewall"}, {"try", "yes"}}} {
		if p := Read(ps, seven); p.Try || len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "try") {
			t.Errorf("%v: try %v, problems %q", ps, p.Try, p.Problems)
		}
	}
	if p := Read([]Param{{"lesson", "queues"}, {"quiz", "maybe"}}, seven); p.Quiz == nil || len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "quiz") {
		t.Errorf("quiz=maybe: quiz %v, problems %q", p.Quiz, p.Problems)
	}
}
