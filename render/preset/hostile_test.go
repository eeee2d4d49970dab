package preset

import (
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
)

// TestQuizTryCombinations reads every combination of quiz= and try= a
// shared link can carry, in either order, repeated, on lessons with and
// without a question, on a comparison and on none: each gives the
// question or the "now try" run it says (the last of a repeated switch
// wins, as a repeated parameter does), and a bad value or a try= with no
// question to try is a problem that names the parameter.
func TestQuizTryCombinations(t *testing.T) {
	for _, tc := range []struct {
		params   []Param
		asks     bool   // a question is asked
		try      bool   // the "now try" run
		problem  string // a problem naming this, or "" for none
		lessonIs string
	}{
		{[]Param{{"lesson", "queues"}, {"quiz", "0"}, {"try", "1"}}, false, true, "", "queues"},
		{[]Param{{"try", "1"}, {"quiz", "1"}, {"lesson", "queues"}}, false, true, "", "queues"},
		{[]Param{{"lesson", "queues"}, {"try", "0"}}, true, false, "", "queues"},
		{[]Param{{"lesson", "queues"}, {"try", "1"}, {"try", "0"}}, true, false, "", "queues"},
		{[]Param{{"lesson", "queues"}, {"try", "0"}, {"try", "1"}}, false, true, "", "queues"},
		{[]Param{{"lesson", "queues"}, {"quiz", "0"}, {"quiz", "1"}}, true, false, "", "queues"},
		{[]Param{{"lesson", "queues"}, {"--try", "1"}}, false, true, "", "queues"},
		{[]Param{{"lesson", "erlang"}, {"try", "1"}}, false, false, "try", "erlang"},
		{[]Param{{"lesson", "erlang"}, {"quiz", "1"}}, false, false, "", "erlang"},
		{[]Param{{"quiz", "0"}}, false, false, "", ""},
		{[]Param{{"comparison", "pooled-vs-split"}, {"try", "1"}}, false, false, "try", ""},
		{[]Param{{"lesson", "queues"}, {"try", "2"}}, true, false, "try", "queues"},
		{[]Param{{"lesson", "queues"}, {"quiz", ""}}, true, false, "", "queues"}, // a bare switch is on, as ?present is
		{[]Param{{"lesson", "queues"}, {"quiz", "maybe"}, {"try", "maybe"}}, true, false, "quiz", "queues"},
		{[]Param{{"lesson", "nope"}, {"try", "1"}}, false, false, "lesson", ""},
		{[]Param{{"lesson", "autoscalers"}, {"try", "1"}}, false, true, "", "autoscalers"},
	} {
		p := Read(tc.params, seven)
		name := ""
		for _, q := range tc.params {
			name += "&" + q.Name + "=" + q.Value
		}
		problems := strings.Join(p.Problems, "; ")
		if (p.Quiz != nil) != tc.asks || p.Try != tc.try || p.Lesson != tc.lessonIs ||
			(tc.problem == "") != (len(p.Problems) == 0) || (tc.problem != "" && !strings.Contains(problems, "parameter "+tc.problem)) {
			t.Errorf("%s: asks %v, try %v, lesson %q, problems %q; want asks %v, try %v, lesson %q, a problem naming %q",
				name, p.Quiz != nil, p.Try, p.Lesson, problems, tc.asks, tc.try, tc.lessonIs, tc.problem)
		}
		if tc.try && (len(p.Caption) == 0 || !strings.HasPrefix(p.Caption[0], "Now try: ")) {
			t.Errorf("%s: caption %q, want the try's", name, p.Caption)
		}
	}
	// The try's settings under the page's own, which come after them.
	p := Read([]Param{{"lesson", "queues"}, {"try", "1"}, {"rate", "0.05"}}, seven)
	if want, _ := sim.ParseRate("0.05"); p.Config.Rate != want || len(p.Problems) != 0 || !p.Try {
		t.Errorf("try=1&rate=0.05: rate %v, problems %q", p.Config.Rate, p.Problems)
	}
	// The autoscalers' try reaches every lane.
	a := Read([]Param{{"lesson", "autoscalers"}, {"try", "1"}}, seven)
	for _, l := range a.Lanes {
		if l.Config.Timeout != 4000 {
			t.Errorf("autoscalers try=1: lane %s timeout %d, want 4000", l.Label, l.Config.Timeout)
		}
	}
	if l, _ := lesson.Find("autoscalers"); len(a.Lanes) != 2 || strings.Join(a.Caption, " ") != strings.Join(l.Quiz().TryCaption(), " ") {
		t.Errorf("autoscalers try=1: %d lanes, caption %q", len(a.Lanes), a.Caption)
	}
}
