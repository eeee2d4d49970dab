package scene

import (
	"fmt"
	"strconv"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
)

// dialogQuiz is the lesson's question (Options.Quiz), open at cycle 0
// with the run held until it is answered or revealed.
const dialogQuiz = dialogHealth + 1

// WQuizPrefix starts the ids of the question's answers: "quiz:1", "quiz:2"…;
// WQuizReveal is the button that runs without an answer.
const (
	WQuizPrefix = "quiz:"
	WQuizReveal = "quiz-reveal"
)

// quizState is a lesson's question through the run: asked at cycle 0 (the
// run held, the lesson's caption kept back, since it states the answer),
// answered or revealed (the run goes), judged at the key moment (the
// caption says which answer held, why, and what to try next).
type quizState struct {
	q       *lesson.Quiz
	asking  bool
	picked  int   // the learner's answer, −1 when revealed without one
	judged  bool  // the verdict is shown
	at      int64 // the key moment: the lesson's pause-at, or its end
	lanes   int   // the lanes the question is about
	caption []string
}

// startQuiz asks opts.Quiz, if any: called by New.
func (s *Session) startQuiz() {
	q := s.opts.Quiz
	if q == nil {
		return
	}
	at := s.opts.PauseAt
	if at < 0 || at > s.cfg.Cycles {
		at = s.cfg.Cycles
	}
	s.quiz = quizState{q: q, asking: true, picked: -1, at: at, lanes: len(s.set.Lanes), caption: s.caption}
	s.caption = nil
	s.dialog, s.focus, s.paused = dialogQuiz, 0, true
	s.announce(q.Asked() + " Press a number to answer, or Escape to run without one.")
}

// quizWidgets are the question's answers, then reveal.
func (s *Session) quizWidgets() []widget {
	var ws []widget
	if s.quiz.q == nil {
		return ws
	}
	for i, a := range s.quiz.q.Answers {
		ws = append(ws, widget{id: WQuizPrefix + strconv.Itoa(i+1), kind: kButton, label: strconv.Itoa(i+1) + "   " + a, row: rowList,
			act: func(s *Session) { s.Answer(i) }})
	}
	return append(ws, widget{id: WQuizReveal, kind: kButton, label: "reveal: run without answering (Esc)", row: rowList, width: 360, intent: CloseDialog})
}

// Answer takes answer i (from 0) to the question asked, or −1 to reveal
// without one, and lets the run go.
func (s *Session) Answer(i int) {
	if !s.quiz.asking {
		return
	}
	q := s.quiz.q
	s.quiz.asking = false
	s.dialog, s.focus, s.paused = dialogNone, -1, false
	s.budget.Reset()
	s.quiz.picked = -1
	when := "at cycle " + Commas(s.quiz.at)
	if s.quiz.at >= s.cfg.Cycles {
		when = "at the end, cycle " + Commas(s.quiz.at)
	}
	if i >= 0 && i < len(q.Answers) {
		s.quiz.picked = i
		s.caption = []string{fmt.Sprintf("Your answer: %d, %s. The run shows which holds %s.", i+1, q.Answers[i], when)}
	} else {
		s.caption = []string{"Revealed without an answer: the run shows which holds " + when + "."}
	}
	if len(s.quiz.caption) > 0 {
		s.caption = append(s.caption, s.quiz.caption[0]) // what the run is
	}
	s.announce(s.caption...)
}

// quizKey takes k for the question: a digit answers while it is asked
// (Space, play elsewhere, says how to answer instead), Y
// opens the "now try" run once it is judged. It reports whether k was
// taken.
func (s *Session) quizKey(k Key) bool {
	if s.quiz.q == nil {
		return false
	}
	if s.dialog == dialogQuiz {
		if k == KeySpace { // play, elsewhere: never an answer by habit
			s.say(fmt.Sprintf("Space does not answer: press 1 to %d (or Enter on the answer ringed), or Esc to run without one", len(s.quiz.q.Answers)), false)
			return true
		}
		r := k.Rune()
		if r >= '1' && r < '1'+rune(len(s.quiz.q.Answers)) {
			s.Answer(int(r - '1'))
		}
		return r >= '0' && r <= '9' // another digit is no answer, nor a seed
	}
	if s.dialog == dialogNone && s.quiz.judged && s.quiz.q.Try != "" && k == RuneKey('y') {
		s.TryNow()
		return true
	}
	return false
}

// TryNow opens the lesson's "now try" run (through Options.Try).
func (s *Session) TryNow() {
	if s.quiz.q == nil || s.quiz.q.Try == "" {
		return
	}
	s.openPreset("lesson", "now try", func(string) (Options, error) {
		if s.opts.Try == nil {
			return Options{}, fmt.Errorf("not available here")
		}
		return s.opts.Try()
	})
}

// quizTick follows the question: closed without an answer it is revealed;
// at the key moment (or the end) it is judged.
func (s *Session) quizTick() {
	qs := &s.quiz
	if qs.q == nil {
		return
	}
	if qs.asking && s.dialog == dialogNone {
		s.Answer(-1) // closed: Esc, or a click outside
	}
	if qs.asking || qs.judged || (s.m.Cycle() < qs.at && !s.m.Done()) {
		return
	}
	qs.judged = true
	if len(s.set.Lanes) != qs.lanes {
		return // the lanes changed: the question was about the lesson's
	}
	sums := make([]sim.Summary, len(s.set.Lanes))
	for i, l := range s.set.Lanes {
		sums[i] = l.Model.Summary()
	}
	s.caption = qs.q.Verdict(sums, qs.picked)
	s.announce(append([]string{"Cycle " + Commas(s.m.Cycle()) + "."}, s.caption...)...)
}

func (s *Session) drawQuizDialog(f *Frame, l Layout) {
	if s.dialog != dialogQuiz || s.quiz.q == nil {
		return
	}
	u := l.T
	d := listDialog(l, len(s.quizWidgets()))
	f.box("dialog", d)
	f.rect(DialogLayer, d, Background)
	f.stroke(DialogLayer, d, 2*u, BusyColor)
	q := s.quiz.q.Question
	f.text(DialogLayer, q, d.X+16*u, d.Y+14*u, fitSize(q, 17*u, true, d.W-32*u), true, AlignStart, TextColor)
	// Beside reveal, when there is room: what answering does.
	rs := controlRectsOf(l, s.quizWidgets())
	r := rs[len(rs)-1]
	const hint = "predict first: the run starts as you answer"
	if x := d.X + d.W - 16*u; x-TextWidth(hint, 14*u, false) > r.X+r.W+12*u && r.Y+r.H <= d.Y+d.H {
		f.text(DialogLayer, hint, x, r.Y+r.H/2-7*u, 14*u, false, AlignEnd, DimText)
	}
}
