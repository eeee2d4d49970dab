package scene_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/render/scene"
)

// quizOptions are the options of ?lesson=NAME with params after it, as
// the page builds them (the question, the title and the "now try" run
// included).
func quizOptions(t *testing.T, name string, params ...preset.Param) scene.Options {
	t.Helper()
	p := preset.Read(append([]preset.Param{{Name: "lesson", Value: name}}, params...), func() uint64 { return 1 })
	if len(p.Problems) > 0 {
		t.Fatal(p.Problems)
	}
	o := scene.Options{Config: p.Config, Speed: 1_000_000, PauseAt: p.PauseAt, Changes: p.Changes, Present: p.Present,
		Caption: p.Caption, Lanes: p.Lanes, Measure: p.Measure, Quiz: p.Quiz, Title: p.Title}
	if p.Quiz != nil {
		o.Try = func() (scene.Options, error) { return quizOptions(t, name, preset.Param{Name: "try", Value: "1"}), nil }
	}
	return o
}

// runUntilStill updates s until it pauses or ends.
func runUntilStill(s *scene.Session) {
	var clk time.Duration
	now := func() time.Duration { clk += 20 * time.Millisecond; return clk }
	for n := 0; n < 1_000_000 && !s.State().Paused && !s.State().Done; n++ {
		s.Update(now)
	}
}

// controlIDs lists the ids of the controls on screen.
func controlIDs(s *scene.Session) []string {
	var ids []string
	for _, c := range s.State().Controls {
		ids = append(ids, c.ID)
	}
	return ids
}

// TestQuizAsksThenJudges opens each lesson that asks a question: at cycle
// 0 the question is open with its answers and reveal, the run held and the
// caption (which states the answer) kept back; a digit answers and the
// run goes; at the key moment the caption says the answer the CLI checks
// held, that it was the learner's, and why, and the words say it too.
func TestQuizAsksThenJudges(t *testing.T) {
	for _, l := range lesson.All {
		q := l.Quiz()
		if q == nil {
			continue
		}
		t.Run(l.Name, func(t *testing.T) {
			s, err := scene.New(quizOptions(t, l.Name))
			if err != nil {
				t.Fatal(err)
			}
			s.Draw(1280, 720)
			ids := strings.Join(controlIDs(s), " ")
			for i := range q.Answers {
				if !strings.Contains(ids, scene.WQuizPrefix+strconv.Itoa(i+1)) {
					t.Errorf("answer %d is not offered: controls %s", i+1, ids)
				}
			}
			if !strings.Contains(ids, scene.WQuizReveal) || len(s.CaptionNow()) != 0 {
				t.Errorf("controls %s, caption %q: want reveal offered and the caption kept back", ids, s.CaptionNow())
			}
			var clk time.Duration
			for range 50 {
				s.Update(func() time.Duration { clk += 20 * time.Millisecond; return clk })
			}
			if st := s.State(); st.Cycle != 0 || !st.Paused {
				t.Fatalf("asking: cycle %d, paused %v: want the run held at 0", st.Cycle, st.Paused)
			}
			if w := s.Words(); !strings.Contains(strings.Join(w.Said, " "), q.Question) || !strings.Contains(w.Status, "question") {
				t.Errorf("the words do not ask %q: %+v", q.Question, w)
			} else if last := l.Caption[len(l.Caption)-1]; strings.Contains(strings.Join(w.Said, " "), last) {
				t.Errorf("the words give the caption, which states the answer, before it is asked: %q", w.Said)
			}
			s.HandleInput(scene.Input{Keys: []scene.Key{scene.RuneKey(rune('1' + q.Right))}})
			if st := s.State(); st.Paused || len(s.CaptionNow()) == 0 || !strings.HasPrefix(s.CaptionNow()[0], "Your answer: "+strconv.Itoa(q.Right+1)) {
				t.Fatalf("answered %d: paused %v, caption %q", q.Right+1, st.Paused, s.CaptionNow())
			}
			runUntilStill(s)
			s.Update(func() time.Duration { clk += 20 * time.Millisecond; return clk })
			want := fmt.Sprintf("Held: %d, %s. Your answer, right.", q.Right+1, q.Answers[q.Right])
			c := s.CaptionNow()
			if st := s.State(); len(c) < 2 || c[0] != want || c[1] != "Why: "+q.Why || (st.Cycle != l.KeyMoment()) {
				t.Errorf("at cycle %d (key moment %d): caption %q, want %q then why", st.Cycle, l.KeyMoment(), c, want)
			}
			w := s.Words()
			if said := strings.Join(w.Said, " "); !strings.Contains(said, want) || w.Count < 3 {
				t.Errorf("the words do not say the verdict: %d said, %q", w.Count, said)
			}
			if !strings.Contains(w.Status, "cycle "+scene.Commas(l.KeyMoment())) || !strings.Contains(w.Status, l.Measure.Of(s.State().Summary)) {
				t.Errorf("the status does not give the cycle and the figures: %q", w.Status)
			}
		})
	}
}

// TestQuizRevealAndTry: Esc reveals without an answer (the verdict names
// no answer of the learner's); Y then opens the "now try" run, whose
// settings are the lesson's with the Try applied and whose caption says
// what to look for; ?quiz=0 asks nothing and shows the caption.
func TestQuizRevealAndTry(t *testing.T) {
	s, err := scene.New(quizOptions(t, "queues"))
	if err != nil {
		t.Fatal(err)
	}
	s.Draw(1280, 720)
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyEscape}})
	var clk time.Duration
	now := func() time.Duration { clk += 20 * time.Millisecond; return clk }
	s.Update(now)
	if st := s.State(); st.Paused || !strings.HasPrefix(s.CaptionNow()[0], "Revealed") {
		t.Fatalf("revealed: paused %v, caption %q", st.Paused, s.CaptionNow())
	}
	runUntilStill(s)
	s.Update(now)
	c := s.CaptionNow()
	if len(c) != 4 || !strings.HasPrefix(c[0], "Held: 2,") || strings.Contains(c[0], "answer") || !strings.HasPrefix(c[2], "Now try (Y)") {
		t.Fatalf("the verdict after a reveal: %q", c)
	}
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.RuneKey('y')}})
	q, _ := lesson.Find("queues")
	tried := preset.Read([]preset.Param{{Name: "lesson", Value: "queues"}, {Name: "rate", Value: "0.045"}}, func() uint64 { return 1 }).Config
	if st := s.State(); st.Cycle != 0 || st.Config.Rate != tried.Rate || tried.Rate == s.Model().Config().Rate*0 || strings.Join(s.CaptionNow(), " ") != strings.Join(q.Quiz().TryCaption(), " ") {
		t.Errorf("now try: cycle %d, rate %v, caption %q", st.Cycle, st.Config.Rate, s.CaptionNow())
	}
	if said := s.Words().Said; !strings.Contains(said[len(said)-1], "now try") {
		t.Errorf("the words do not say the try opened: %q", said)
	}
	off, err := scene.New(quizOptions(t, "queues", preset.Param{Name: "quiz", Value: "0"}))
	if err != nil {
		t.Fatal(err)
	}
	if st := off.State(); st.Paused || len(off.CaptionNow()) != len(q.Caption) {
		t.Errorf("quiz=0: paused %v, caption %q", st.Paused, off.CaptionNow())
	}
}

// TestQuizFits draws each question, and its verdict at the key moment, at
// 1280×720 and 1920×1080, presenting or not: the question and its answers
// inside the dialog, none over another, no strip covered; the verdict's
// caption fits as a lesson's does.
func TestQuizFits(t *testing.T) {
	for _, l := range lesson.All {
		if l.Quiz() == nil {
			continue
		}
		for _, present := range []string{"0", "1"} {
			s, err := scene.New(quizOptions(t, l.Name, preset.Param{Name: "present", Value: present}))
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				name := fmt.Sprintf("%s quiz %dx%d present=%s", l.Name, size[0], size[1], present)
				f := s.Draw(size[0], size[1])
				checkDialog(t, name, f)
				checkBoxes(t, name, f)
				checkFits(t, name, s, f)
				if err := scene.WritePNG(f, strings.ReplaceAll(name, " ", "_")); err != nil {
					t.Fatal(err)
				}
			}
			s.Answer(l.Quiz().Right)
			if l.KeyMoment() > 20_000 {
				continue // the verdict's caption is as long as at 20,000 cycles: judged where it ends
			}
			runUntilStill(s)
			s.Update(func() time.Duration { return time.Hour })
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				name := fmt.Sprintf("%s verdict %dx%d present=%s", l.Name, size[0], size[1], present)
				f := s.Draw(size[0], size[1])
				checkBoxes(t, name, f)
				checkFits(t, name, s, f)
				if err := scene.WritePNG(f, strings.ReplaceAll(name, " ", "_")); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestQuizByKeyboard: the question's answers and reveal are controls in
// Tab order, the first focused as it opens; Tab moves on and Enter
// answers; a digit past the answers is not taken for one (nor for a
// seed).
func TestQuizByKeyboard(t *testing.T) {
	s, err := scene.New(quizOptions(t, "ejection"))
	if err != nil {
		t.Fatal(err)
	}
	s.Draw(1280, 720)
	if f := s.State().Focus; f != scene.WQuizPrefix+"1" {
		t.Fatalf("focus %q as the question opens, want %s1", f, scene.WQuizPrefix)
	}
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.RuneKey('9')}})
	if st := s.State(); !st.Paused || st.Seed != 1 || len(s.CaptionNow()) != 0 {
		t.Fatalf("9 with three answers: paused %v, seed %d, caption %q", st.Paused, st.Seed, s.CaptionNow())
	}
	var seen []string
	for range 4 {
		seen = append(seen, s.State().Focus)
		s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyTab}})
	}
	if got := strings.Join(seen, " "); got != "quiz:1 quiz:2 quiz:3 quiz-reveal" {
		t.Errorf("Tab order %q", got)
	}
	if st := s.Words().Status; !strings.Contains(st, "Focus: 1 still about 60%.") {
		t.Errorf("the words do not name the focused answer: %q", st)
	}
	for n := 0; n < 10 && s.State().Focus != "quiz:3"; n++ {
		s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyTab}}) // round to quiz:3
	}
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyEnter}})
	if c := s.CaptionNow(); len(c) == 0 || !strings.HasPrefix(c[0], "Your answer: 3, almost none.") || s.State().Paused {
		t.Errorf("Enter on answer 3: caption %q, paused %v", c, s.State().Paused)
	}
}

// TestLittlesLawOnThePanel runs the Little's law lesson to its end: the
// theory panel's measured Lq (the queue's length averaged over the
// cycles) is the arrival rate times its measured Wq (the waits averaged
// over the requests), within 5%, and near Erlang C's.
func TestLittlesLawOnThePanel(t *testing.T) {
	s, err := scene.New(quizOptions(t, "littles-law", preset.Param{Name: "quiz", Value: "0"}))
	if err != nil {
		t.Fatal(err)
	}
	runUntilStill(s)
	vals := map[string][2]float64{}
	for _, line := range s.TheoryLines() {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			continue
		}
		th, err1 := strconv.ParseFloat(f[1], 64)
		ms, err2 := strconv.ParseFloat(f[2], 64)
		if err1 == nil && err2 == nil {
			vals[f[0]] = [2]float64{th, ms}
		}
	}
	wq, lq := vals["wait Wq (cycles)"], vals["queue Lq (requests)"]
	if wq[1] == 0 || lq[1] < 0.95*0.4*wq[1] || lq[1] > 1.05*0.4*wq[1] || lq[1] < 0.8*lq[0] || lq[1] > 1.2*lq[0] {
		t.Errorf("measured Wq %v and Lq %v (theory %v, %v): want Lq = 0.4 × Wq within 5%%, near the theory's; panel %q", wq[1], lq[1], wq[0], lq[0], s.TheoryLines())
	}
}

// TestQuizFromTheMenu opens a lesson that asks from the lessons menu of
// another run: the question opens with its first answer focused, and the
// words keep what was said before and add the lesson and its question.
func TestQuizFromTheMenu(t *testing.T) {
	o := quizOptions(t, "queues", preset.Param{Name: "quiz", Value: "0"})
	o.Lesson = func(name string) (scene.Options, error) { return quizOptions(t, name), nil }
	s, err := scene.New(o)
	if err != nil {
		t.Fatal(err)
	}
	s.Draw(1280, 720)
	before := s.Words()
	s.OpenLesson("stale-boards")
	l, _ := lesson.Find("stale-boards")
	w := s.Words()
	if st := s.State(); st.Focus != scene.WQuizPrefix+"1" || !st.Paused || st.Cycle != 0 {
		t.Errorf("the question from the menu: focus %q, paused %v, cycle %d", st.Focus, st.Paused, st.Cycle)
	}
	if w.Count != before.Count+2 || !strings.Contains(w.Said[len(w.Said)-1], l.Quiz().Question) ||
		!strings.Contains(w.Said[len(w.Said)-2], l.Title) || w.Said[0] != before.Said[0] {
		t.Errorf("the words: %d said before, %d after: %q", before.Count, w.Count, w.Said)
	}
}

// TestHashRingShares runs the hash ring lesson to its end: server 3,
// gone since cycle 1,000, has taken under 7% of the requests, and each of
// the other nine between 8% and 14% (the yellow shares the caption
// points at): its sources spread over them all.
func TestHashRingShares(t *testing.T) {
	s, err := scene.New(quizOptions(t, "hash-ring", preset.Param{Name: "quiz", Value: "0"}))
	if err != nil {
		t.Fatal(err)
	}
	runUntilStill(s)
	if !s.State().Done {
		t.Fatalf("not at the end: cycle %d", s.State().Cycle)
	}
	for id := 1; id <= 10; id++ {
		sh := s.ServerShare(0, 0, id)
		n, err := strconv.Atoi(strings.TrimSuffix(sh, "%"))
		if err != nil {
			t.Fatalf("server %d's share %q", id, sh)
		}
		if (id == 3 && n >= 7) || (id != 3 && (n < 8 || n > 14)) {
			t.Errorf("server %d took %d%% of the requests: want server 3 under 7%%, the others 8–14%%", id, n)
		}
	}
}
