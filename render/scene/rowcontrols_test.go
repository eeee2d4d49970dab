package scene

import (
	"slices"
	"strconv"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// p2cFleet is a paused session of a p2c fleet on periodic boards, in
// which every control of the "more" panel is read.
func p2cFleet(t *testing.T) *Session {
	t.Helper()
	cfg := configWith(t, "queues", "per-server", "policy", "p2c", "balancers", "4", "load-info", "periodic:100", "servers", "8")
	return drawnAt(t, Options{Config: cfg, Speed: 600, PauseAt: 20, RandomSeed: func() uint64 { return 777 }}, BaseW, BaseH)
}

// keyChange tabs to control id and presses keys: the one change pending is
// then id = want, due the next cycle, and the control shows shown.
func keyChange(t *testing.T, s *Session, id string, keys []Key, want, shown string) {
	t.Helper()
	for ws := s.controls(); s.focus >= 0 && ws[s.focus].id != id; {
		s.HandleInput(Input{Keys: []Key{KeyTab}})
		if s.focus == 0 {
			t.Fatalf("Tab never reaches %s", id)
		}
	}
	s.HandleInput(Input{Keys: keys})
	s.Draw(BaseW, BaseH)
	change, err := sim.NewChange(s.m.Cycle()+1, id, want)
	if err != nil {
		t.Fatal(err)
	}
	if p := s.m.Pending(); len(p) != 1 || p[0] != change {
		t.Errorf("%s %v: pending %v, want %v (messages %q)", id, keys, p, change, s.State().Message)
	}
	if got := control(t, s, id).Value; got != shown {
		t.Errorf("%s %v: shows %q, want %q", id, keys, got, shown)
	}
}

// TestMorePanelFromTheTable opens the "more" panel with its button and
// moves each control made from a row: the change scheduled for the next
// cycle is the row's own (as --set reads it), the control shows it as the
// row writes it, and a step puts it in force. Wide ranges move on their
// ladder (1, 2, 5, 10 …).
func TestMorePanelFromTheTable(t *testing.T) {
	for _, tc := range []struct {
		id, before string
		keys       []Key
		want       string
	}{
		{"wave", "true", []Key{KeyRight}, "false"},
		{"min-servers", "1", []Key{KeyRight}, "2"},
		{"max-servers", "100", []Key{KeyLeft}, "50"},
		{"queue-cap", "0", []Key{KeyPageUp}, "5"},
		{"load-info", "periodic:100", []Key{KeyRight}, "periodic:200"},
		{"fail-time", "1", []Key{KeyRight, KeyRight}, "5"},
		{"choices", "2", []Key{KeyRight}, "3"},
		{"discipline", "fifo", []Key{KeyRight, KeyRight}, "adaptive-lifo"},
	} {
		s := p2cFleet(t)
		b := control(t, s, WMore).R
		s.HandleInput(Input{X: b.X + b.W/2, Y: b.Y + b.H/2, Pressed: true, Down: true})
		s.HandleInput(Input{Released: true})
		s.Draw(BaseW, BaseH)
		if s.dialog != dialogMore {
			t.Fatalf("the more button opened dialog %d", s.dialog)
		}
		if got := control(t, s, tc.id).Value; got != tc.before {
			t.Errorf("%s: shows %q, want %q", tc.id, got, tc.before)
		}
		keyChange(t, s, tc.id, tc.keys, tc.want, tc.want)
		s.Apply(StepOne)
		cfg := s.m.Config()
		if got := sim.RowNamed(tc.id).Get(&cfg); got != tc.want {
			t.Errorf("%s: in force %s, want %s", tc.id, got, tc.want)
		}
	}
}

// TestMorePanelChangesReplay moves the pool's bounds, the queue cap, the
// board's period and p2c's d in the panel, runs on, and replays the saved
// run and its share link: both reach the same state hash.
func TestMorePanelChangesReplay(t *testing.T) {
	s := p2cFleet(t)
	for _, set := range []struct {
		id     string
		keys   []Key
		change string
	}{
		{"max-servers", []Key{KeyLeft}, "max-servers=50"},
		{"queue-cap", []Key{KeyPageUp}, "queue-cap=5"},
		{"load-info", []Key{KeyLeft}, "load-info=periodic:50"},
		{"choices", []Key{KeyRight}, "choices=3"},
	} {
		s.Apply(OpenMore)
		s.Draw(BaseW, BaseH)
		for ws := s.controls(); ws[s.focus].id != set.id; {
			s.HandleInput(Input{Keys: []Key{KeyTab}})
		}
		s.HandleInput(Input{Keys: append(set.keys, KeyEscape)})
		s.Apply(StepOne)
		if ch := s.State().Changes; len(ch) == 0 || ch[len(ch)-1].String() != strconv.FormatInt(s.m.Cycle(), 10)+":"+set.change {
			t.Fatalf("after %s: changes %v", set.id, ch)
		}
	}
	for range 300 {
		s.Apply(StepOne)
	}
	hash, cycle := s.m.Hash(), s.m.Cycle()
	data, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for how, s2 := range replayedBothWays(t, data, cycle) {
		if s2.m.Hash() != hash {
			t.Errorf("%s replay at %d: hash %x, want %x", how, cycle, s2.m.Hash(), hash)
		}
	}
}

// TestLadder: a wide range's slider stops at its ends and at 1, 2, 5 …
// between (0 too when the range holds it), and keys and drags land on
// those stops.
func TestLadder(t *testing.T) {
	if got, want := ladderOf(1, 1000), []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}; !slices.Equal(got, want) {
		t.Errorf("ladderOf(1, 1000) = %v, want %v", got, want)
	}
	if got, want := ladderOf(-1, 300), []int64{-1, 0, 1, 2, 5, 10, 20, 50, 100, 200, 300}; !slices.Equal(got, want) {
		t.Errorf("ladderOf(-1, 300) = %v, want %v", got, want)
	}
	w := widget{kind: kSlider, min: 0, max: 1000, step: 1, ladder: ladderOf(0, 1000)} // 0 1 2 5 10 20 50 100 200 500 1000
	for _, tc := range []struct {
		v    int64
		k    Key
		want int64
	}{
		{5, KeyRight, 10}, {5, KeyLeft, 2}, {7, KeyRight, 10}, {7, KeyLeft, 5},
		{0, KeyLeft, 0}, {1000, KeyRight, 1000}, {20, KeyPageUp, 200}, {20, KeyPageDown, 2},
		{20, KeyHome, 0}, {20, KeyEnd, 1000},
	} {
		if got, ok := sliderKey(w, tc.v, tc.k); !ok || got != tc.want {
			t.Errorf("key %d at %d: %d, want %d", tc.k, tc.v, got, tc.want)
		}
	}
	track := Rect{X: 100, W: 100}
	for x, want := range map[float32]int64{100: 0, 150: 20, 200: 1000, 300: 1000} {
		if got := sliderValueAt(w, track, x); got != want {
			t.Errorf("drag to %v: %d, want %d", x, got, want)
		}
	}
	if f := sliderFrac(w, 20); f != 0.5 {
		t.Errorf("knob at 20: %v of the track, want 0.5", f)
	}
}

// TestMorePanelTargetTracking: under target tracking the panel's target,
// tolerance and window start at their defaults in force (0.7, 0.1, 300)
// and their ladders stop at round values as written (the tolerance and
// the window are stored plus one).
func TestMorePanelTargetTracking(t *testing.T) {
	for _, tc := range []struct {
		id, before string
		keys       []Key
		want       string
	}{
		{"scale-target", "0.7", []Key{KeyRight}, "1"},
		{"scale-target", "0.7", []Key{KeyHome}, "0.01"},
		{"scale-tolerance", "0.1", []Key{KeyRight}, "0.2"},
		{"scale-down-window", "300", []Key{KeyRight}, "500"},
		{"scale-down-window", "300", []Key{KeyHome}, "0"},
		{"scale-down-window", "300", []Key{KeyLeft}, "200"},
	} {
		cfg := testConfig()
		if err := cfg.Set("autoscaler", "target"); err != nil {
			t.Fatal(err)
		}
		s, err := New(Options{Config: cfg, Speed: 600, PauseAt: 5, RandomSeed: func() uint64 { return 777 }})
		if err != nil {
			t.Fatal(err)
		}
		for now := clock(); s.m.Cycle() < 5; {
			s.Update(now)
		}
		s.Apply(OpenMore)
		s.Draw(BaseW, BaseH)
		if got := control(t, s, tc.id).Value; got != tc.before {
			t.Errorf("%s: shows %q, want %q", tc.id, got, tc.before)
		}
		keyChange(t, s, tc.id, tc.keys, tc.want, tc.want)
	}
}

// TestMorePanelChoosesTheDiscipline: a row whose value is one of its names
// (the discipline) gets a choice in the "more" panel, not a slider, and
// it offers the table's names in their order.
func TestMorePanelChoosesTheDiscipline(t *testing.T) {
	i := slices.IndexFunc(moreWidgets, func(w widget) bool { return w.id == "discipline" })
	if i < 0 {
		t.Fatal("the more panel has no discipline control")
	}
	w := moreWidgets[i]
	if w.kind != kChoice || w.choices == nil {
		t.Fatalf("the discipline control is of kind %v, want a choice", w.kind)
	}
	if got := w.choices(); !slices.Equal(got, sim.DisciplineNames()) {
		t.Errorf("the discipline choice offers %v, want %v", got, sim.DisciplineNames())
	}
}
