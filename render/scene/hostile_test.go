package scene_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/render/scene"
)

// The hostile pass over the page's newest key paths: the question's
// dialog, step mode and the "more" panel, each key pressed in each state.

// asking opens lesson name with its question asked, drawn at 1280×720,
// the lessons menu able to open any lesson (as the page's is).
func asking(t *testing.T, name string, params ...preset.Param) *scene.Session {
	t.Helper()
	o := quizOptions(t, name, params...)
	o.Lesson = func(n string) (scene.Options, error) { return quizOptions(t, n), nil }
	s, err := scene.New(o)
	if err != nil {
		t.Fatal(err)
	}
	s.Draw(1280, 720)
	return s
}

// ticks updates s n times, 20 ms apart.
func ticks(s *scene.Session, n int) {
	var clk time.Duration
	for range n {
		s.Update(func() time.Duration { clk += 20 * time.Millisecond; return clk })
	}
}

// stillAsking checks that the question is open, the run held at cycle 0
// with the seed given, nothing of the run's caption or a step's label
// shown.
func stillAsking(t *testing.T, what string, s *scene.Session, seed uint64) {
	t.Helper()
	st := s.State()
	if !slices.Contains(controlIDs(s), scene.WQuizReveal) || st.Cycle != 0 || !st.Paused || st.Seed != seed || st.Step != "" || len(s.CaptionNow()) != 0 {
		t.Errorf("%s: controls %v, cycle %d, paused %v, seed %d (want %d), step %q, caption %q: want the question open, the run held",
			what, controlIDs(s), st.Cycle, st.Paused, st.Seed, seed, st.Step, s.CaptionNow())
	}
}

// TestHostileQuizKeys presses every key the page binds, and digits that
// answer nothing, while the question is asked (a compare lesson and a
// single run): none moves the run, steps it, restarts it, types a seed or
// closes the question; ↑ and ↓ walk the answers and reveal, wrapping at
// the ends; Enter on reveal runs without an answer.
func TestHostileQuizKeys(t *testing.T) {
	keys := []scene.Key{scene.KeySpace, scene.KeyRight, scene.KeyLeft, scene.KeyPlus, scene.KeyMinus, scene.KeyPageUp, scene.KeyPageDown,
		scene.KeyHome, scene.KeyEnd, scene.KeyBackspace, scene.KeyDelete, scene.RuneKey('0'), scene.RuneKey('9'), scene.RuneKey('5')}
	for r := 'a'; r <= 'z'; r++ {
		keys = append(keys, scene.RuneKey(r))
	}
	for _, name := range []string{"queues", "littles-law", "autoscalers"} {
		s := asking(t, name)
		seed := s.State().Seed
		for _, k := range keys {
			s.HandleInput(scene.Input{Keys: []scene.Key{k}})
			ticks(s, 3)
			stillAsking(t, fmt.Sprintf("%s: key %v", name, k), s, seed)
		}
		// ↑ and ↓ along the answers and reveal, both ways round.
		n := len(controlIDs(s))
		if st := s.State(); st.Focus != scene.WQuizPrefix+"1" {
			t.Fatalf("%s: focus %q, want the first answer", name, st.Focus)
		}
		s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyUp}})
		if st := s.State(); st.Focus != scene.WQuizReveal {
			t.Errorf("%s: ↑ from the first answer: focus %q, want reveal", name, st.Focus)
		}
		s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyDown}})
		for range n - 1 {
			s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyDown}})
		}
		if st := s.State(); st.Focus != scene.WQuizReveal {
			t.Errorf("%s: ↓ %d times: focus %q, want reveal", name, n-1, st.Focus)
		}
		stillAsking(t, name+" after ↑ and ↓", s, seed)
		s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyEnter}})
		ticks(s, 3)
		if st := s.State(); slices.Contains(controlIDs(s), scene.WQuizReveal) || (st.Paused && !st.Done) || len(s.CaptionNow()) == 0 ||
			!strings.HasPrefix(s.CaptionNow()[0], "Revealed") {
			t.Errorf("%s: Enter on reveal: controls %v, paused %v, caption %q", name, controlIDs(s), st.Paused, s.CaptionNow())
		}
	}
}

// TestHostileQuizResized draws the question at sizes from a phone's to
// 4K, and back, and clicks an answer at the last size's place: each
// answer and reveal lies inside the dialog and the window, their texts
// whole and apart; the click answers the one under it.
func TestHostileQuizResized(t *testing.T) {
	s := asking(t, "autoscalers")
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}, {640, 360}, {3840, 2160}, {1024, 768}, {800, 1280}, {1280, 720}} {
		f := s.Draw(size[0], size[1])
		name := fmt.Sprintf("%v", size)
		checkDialog(t, name, f)
		win := scene.Rect{W: float32(size[0]), H: float32(size[1])}
		for _, c := range s.State().Controls {
			if !win.Contains(c.R) {
				t.Errorf("%s: control %s %v outside the window", name, c.ID, c.R)
			}
		}
	}
	s.Draw(1920, 1080)
	var second scene.Control
	for _, c := range s.State().Controls {
		if c.ID == scene.WQuizPrefix+"2" {
			second = c
		}
	}
	s.HandleInput(scene.Input{X: second.R.X + second.R.W/2, Y: second.R.Y + second.R.H/2, Pressed: true, Down: true})
	s.HandleInput(scene.Input{Released: true})
	ticks(s, 2)
	if c := s.CaptionNow(); len(c) == 0 || !strings.HasPrefix(c[0], "Your answer: 2,") {
		t.Errorf("a click on answer 2 after resizing: caption %q", c)
	}
}

// TestHostileLessonOverQuiz opens the lessons menu over the question (the
// platform's hook can): the question waits under it; cancelling the menu
// brings the question back, unanswered; a lesson chosen there replaces
// the run, its own question asked, nothing of the first left (no answer,
// no step label). The menu opens on the open lesson's topic.
func TestHostileLessonOverQuiz(t *testing.T) {
	s := asking(t, "queues")
	seed := s.State().Seed
	s.Apply(scene.OpenLessons)
	ticks(s, 5)
	if ids := controlIDs(s); !slices.Contains(ids, scene.WLessonPrefix+"scaling-band") && !slices.Contains(ids, scene.WTopicPrefix+"scaling") {
		t.Fatalf("the lessons menu over the question: controls %v", ids)
	}
	if st := s.State(); st.Cycle != 0 || !st.Paused {
		t.Errorf("the menu over the question: cycle %d, paused %v: want the run still held", st.Cycle, st.Paused)
	}
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyEscape}})
	ticks(s, 3)
	stillAsking(t, "the menu cancelled", s, seed)
	// Now a lesson from the menu, by the keys: it opens on the topic of
	// the lesson open (routing, queues first), ↓ down to herding.
	s.Apply(scene.OpenLessons)
	if f := s.State().Focus; f != scene.WLessonPrefix+"queues" {
		t.Fatalf("the menu opened over queues' question focused on %q, want its topic's first entry, queues", f)
	}
	for range 20 {
		if s.State().Focus == scene.WLessonPrefix+"herding" {
			break
		}
		s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyDown}})
	}
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyEnter}})
	ticks(s, 3)
	st := s.State()
	if len(st.Lanes) != 3 || st.Focus != scene.WQuizPrefix+"1" || st.Cycle != 0 || st.Step != "" {
		t.Errorf("herding from the menu over a question: %d lanes, focus %q, cycle %d, step %q: want its own question asked", len(st.Lanes), st.Focus, st.Cycle, st.Step)
	}
	stillAsking(t, "herding's question", s, st.Seed)
}

// TestHostileStepModeWithQuiz answers, then takes step mode (A) through
// the key moment's verdict in a compare lesson: every lane stays at one
// cycle; the verdict waits under the step label and shows when Space
// leaves step mode; A at the run's end says no request is routed, and
// moves nothing.
func TestHostileStepModeWithQuiz(t *testing.T) {
	s := asking(t, "queues", preset.Param{Name: "cycles", Value: "400"}, preset.Param{Name: "pause-at", Value: "300"})
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.RuneKey('2')}})
	for i := 0; i < 400 && !s.State().Done; i++ {
		s.HandleInput(scene.Input{Keys: []scene.Key{scene.RuneKey('a')}})
		st := s.State()
		for _, ln := range st.Lanes {
			if ln.Summary.Cycles != st.Lanes[0].Summary.Cycles {
				t.Fatalf("press %d: lanes at cycles %d and %d: step mode moved one lane alone", i, st.Lanes[0].Summary.Cycles, ln.Summary.Cycles)
			}
		}
		if st.Cycle >= 300 {
			break
		}
	}
	ticks(s, 2)
	if st := s.State(); st.Cycle < 300 || st.Step == "" {
		t.Fatalf("step mode to the key moment: cycle %d, step %q", st.Cycle, st.Step)
	}
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeySpace}})
	ticks(s, 2)
	if c := s.CaptionNow(); len(c) == 0 || !strings.HasPrefix(c[0], "Held:") || s.State().Step != "" {
		t.Errorf("after step mode, past the key moment: caption %q, step %q: want the verdict", c, s.State().Step)
	}
	for !s.State().Done {
		ticks(s, 50)
	}
	hash := s.State().Hash
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.RuneKey('a')}})
	if st := s.State(); st.Hash != hash || !strings.Contains(st.Step, "no request routed") {
		t.Errorf("A at the end: hash moved %v, step %q", st.Hash != hash, st.Step)
	}
}

// TestHostileStepModeThenLesson: Y before the verdict opens nothing; step
// mode's label, then a lesson chosen from the menu (by a click on its
// topic's tab and its entry): the new lesson starts clean (its question,
// no label, cycle 0); A while a dialog is open (the menu, the more panel)
// moves nothing, nor does Space on the more panel's first control (the
// autoscaler's choice, which would restart the run).
func TestHostileStepModeThenLesson(t *testing.T) {
	s := asking(t, "queues", preset.Param{Name: "cycles", Value: "2000"}, preset.Param{Name: "pause-at", Value: "1500"})
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.RuneKey('1')}})
	s.HandleInput(scene.Input{Keys: []scene.Key{scene.RuneKey('a'), scene.RuneKey('a'), scene.RuneKey('y')}})
	st := s.State()
	if st.Step == "" || len(st.Lanes) != 2 || st.Cycle >= 1500 {
		t.Fatalf("step mode before the key moment: step %q, %d lanes, cycle %d", st.Step, len(st.Lanes), st.Cycle)
	}
	for _, in := range []scene.Intent{scene.OpenLessons, scene.OpenMore} {
		s.Apply(in)
		s.Draw(1280, 720)
		cycle := s.State().Cycle
		keys := []scene.Key{scene.RuneKey('a')}
		if in == scene.OpenMore {
			keys = append(keys, scene.KeySpace)
		}
		s.HandleInput(scene.Input{Keys: keys})
		if st := s.State(); st.Cycle != cycle || len(st.Controls) == 0 || !st.Paused {
			t.Errorf("dialog %d: A and Space moved the run from %d to %d (paused %v)", in, cycle, st.Cycle, st.Paused)
		}
		s.Apply(scene.CloseDialog)
	}
	s.Apply(scene.OpenLessons)
	s.Draw(1280, 720)
	click := func(id string) {
		for _, c := range s.State().Controls {
			if c.ID == id {
				s.HandleInput(scene.Input{X: c.R.X + c.R.W/2, Y: c.R.Y + c.R.H/2, Pressed: true, Down: true})
				s.HandleInput(scene.Input{Released: true})
				s.Draw(1280, 720)
				return
			}
		}
		t.Fatalf("no control %s among %v", id, controlIDs(s))
	}
	click(scene.WTopicPrefix + "scaling")
	click(scene.WLessonPrefix + "autoscalers")
	st = s.State()
	if st.Step != "" || st.Cycle != 0 || st.Focus != scene.WQuizPrefix+"1" || len(st.Lanes) != 2 {
		t.Errorf("autoscalers after step mode: step %q, cycle %d, focus %q, %d lanes", st.Step, st.Cycle, st.Focus, len(st.Lanes))
	}
}

// TestHostileMenuResized draws the lessons menu, on each topic, at sizes
// from a phone's to 4K: every tab and entry inside the window, the
// dialog's texts inside it and apart.
func TestHostileMenuResized(t *testing.T) {
	s := asking(t, "queues", preset.Param{Name: "quiz", Value: "0"})
	s.Apply(scene.OpenLessons)
	for range 5 { // each topic
		for _, size := range [][2]int{{640, 360}, {800, 1280}, {1280, 720}, {3840, 2160}} {
			f := s.Draw(size[0], size[1])
			name := fmt.Sprintf("%v focus %s", size, s.State().Focus)
			checkDialog(t, name, f)
			win := scene.Rect{W: float32(size[0]), H: float32(size[1])}
			for _, c := range s.State().Controls {
				if !win.Contains(c.R) {
					t.Errorf("%s: control %s %v outside the window", name, c.ID, c.R)
				}
			}
		}
		s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyRight}})
	}
}

// TestHostileMorePanelResized draws the "more" panel (one control more
// with the autoscaler's choice) from a phone's size to 4K: every control
// inside the window, the panel's texts apart.
func TestHostileMorePanelResized(t *testing.T) {
	s := asking(t, "queues", preset.Param{Name: "quiz", Value: "0"})
	s.Apply(scene.OpenMore)
	for _, size := range [][2]int{{640, 360}, {800, 1280}, {1280, 720}, {1920, 1080}, {3840, 2160}} {
		f := s.Draw(size[0], size[1])
		win := scene.Rect{W: float32(size[0]), H: float32(size[1])}
		for _, c := range s.State().Controls {
			if !win.Contains(c.R) {
				t.Errorf("%v: control %s %v outside the window", size, c.ID, c.R)
			}
		}
		ts := f.Layers[scene.DialogLayer].Texts
		for k, x := range ts {
			for _, y := range ts[k+1:] {
				if scene.TextBox(x).Overlaps(scene.TextBox(y)) {
					t.Errorf("%v: %q overlaps %q", size, x.S, y.S)
				}
			}
		}
	}
}
