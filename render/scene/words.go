package scene

import (
	"strings"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
)

// Words is the run in words, for a reader who cannot see the canvas: the
// page puts Status in a live region (role=status) and each of Said in a
// log as it comes, a parallel text of the picture.
type Words struct {
	// Status is the lesson and the state: running, paused or ended, and,
	// when the run stands still, each lane's figures; the focused control
	// and its value (so Tab can be followed by ear); the banner's message.
	// It changes only when these do (never with every cycle).
	Status string
	// Said are the latest key moments in words, oldest first: a lesson
	// opened and its caption, a question asked, an answer, the verdict.
	Said []string
	// Count is how many have been said since the page opened: the page
	// shows the last Count − (its own count) of Said.
	Count int64
}

// maxSaid bounds Words.Said.
const maxSaid = 16

// wordsState keeps what has been said; it outlasts opening a lesson.
type wordsState struct {
	said  []string
	count int64
}

// announce says lines, one key moment, in the words' log.
func (s *Session) announce(lines ...string) {
	t := strings.Join(lines, " ")
	if t == "" {
		return
	}
	s.words.said = append(s.words.said, t)
	if n := len(s.words.said); n > maxSaid {
		s.words.said = s.words.said[n-maxSaid:]
	}
	s.words.count++
}

// after returns w with what n said after it: n's log follows w's.
func (w wordsState) after(n wordsState) wordsState {
	for _, t := range n.said {
		w.said = append(w.said, t)
		w.count++
	}
	if k := len(w.said); k > maxSaid {
		w.said = w.said[k-maxSaid:]
	}
	return w
}

// Words returns the run in words now.
func (s *Session) Words() Words {
	var b strings.Builder
	title := s.opts.Title
	if title == "" {
		title = "lbsim, a load balancer simulation"
	}
	b.WriteString(title + ". ")
	c := s.m.Cycle()
	switch {
	case s.quiz.asking:
		b.WriteString("A question is asked; the run waits for an answer.")
	case s.m.Done():
		b.WriteString("Ended at cycle " + Commas(c) + ".")
	case s.paused:
		b.WriteString("Paused at cycle " + Commas(c) + " of " + Commas(s.cfg.Cycles) + ". Space runs on.")
	default:
		b.WriteString("Running. Space pauses.")
	}
	if (s.paused || s.m.Done()) && !s.quiz.asking && c > 0 {
		for _, l := range s.set.Lanes {
			b.WriteString(" " + figuresInWords(l.Label, l.Model.Summary(), s.opts.Measure))
		}
	}
	if ws := s.controls(); s.focus >= 0 && s.focus < len(ws) {
		w := ws[s.focus]
		b.WriteString(" Focus: " + strings.Join(strings.Fields(w.label), " "))
		if v := s.valueText(s.focus, w); v != w.label {
			b.WriteString(", " + v)
		}
		if w.on != nil { // a tab: the lessons menu's topics
			b.WriteString(map[bool]string{true: ", the topic shown (← → another)", false: ", a topic (Enter shows it)"}[w.on(s)])
		}
		b.WriteString(".")
	}
	if s.message != "" {
		b.WriteString(" " + s.message)
	}
	return Words{Status: b.String(), Said: append([]string(nil), s.words.said...), Count: s.words.count}
}

// figuresInWords says a lane's figures: the lesson's measure first, then
// the waits and the queue.
func figuresInWords(label string, sum sim.Summary, m lesson.Measure) string {
	var parts []string
	if m != lesson.NoMeasure {
		parts = append(parts, m.Of(sum))
	}
	for _, p := range []string{lesson.AvgWait.Of(sum), lesson.P95Wait.Of(sum), lesson.ErrorShare.Of(sum), lesson.FinalQueue.Of(sum)} {
		if len(parts) == 0 || p != parts[0] {
			parts = append(parts, p)
		}
	}
	if label != "" {
		label += ": "
	}
	return label + strings.Join(parts, ", ") + "."
}
