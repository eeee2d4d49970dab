package scene

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestViewDetails checks the view's small promises, one case each: a
// message leaves the charts' axes readable; the help overlay is opaque; a
// scrub back clears "replay ended"; the longest seed fits its field; R
// after the end runs again; task min and max say they are unused by
// geometric service.
func TestViewDetails(t *testing.T) {
	newSession := func(t *testing.T, cfg sim.Config, present bool) *Session {
		t.Helper()
		s, err := New(Options{Config: cfg, Speed: 600, PauseAt: -1, Present: present})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sizes := [][2]int{{1024, 768}, {1280, 720}, {1920, 1080}}
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"a message leaves the charts uncovered", func(t *testing.T) {
			for _, sz := range sizes {
				for _, present := range []bool{false, true} {
					s := newSession(t, testConfig(), present)
					s.Say(strings.Repeat("a long message that wraps over several lines ", 6), false)
					f := s.Draw(sz[0], sz[1])
					q := f.Layers[TopLayer].Quads[0].P
					box := Rect{q[0].X, q[0].Y, q[2].X - q[0].X, q[2].Y - q[0].Y}
					for _, c := range f.Layout.Charts {
						if box.Overlaps(c) {
							t.Errorf("%v present=%v: the message %v covers the chart %v", sz, present, box, c)
						}
					}
				}
			}
		}},
		{"the help overlay is opaque", func(t *testing.T) {
			s := newSession(t, testConfig(), false)
			s.Apply(ToggleTheory)
			s.Apply(ToggleHelp)
			f := s.Draw(BaseW, BaseH)
			if c := f.Layers[TopLayer].Quads[0].C; c.A != 0xff {
				t.Errorf("the help overlay's colour %v lets what is under it show through", c)
			}
		}},
		{"a scrub back clears the replay's verdict", func(t *testing.T) {
			cfg := testConfig()
			cfg.Cycles = 300
			data := recorded(t, cfg, nil)
			s := newSession(t, testConfig(), false)
			if err := s.Load(data); err != nil {
				t.Fatal(err)
			}
			s.SeekCycle(300)
			if !strings.Contains(s.State().Message, "reproduced exactly") {
				t.Fatalf("at the end: %q, want the verdict", s.State().Message)
			}
			s.SeekCycle(100)
			if m := s.State().Message; strings.Contains(m, "replay ended") {
				t.Errorf("scrubbed back to cycle 100, the banner still says %q", m)
			}
			s.SeekCycle(300)
			if !strings.Contains(s.State().Message, "reproduced exactly") {
				t.Errorf("at the end again: %q, want the verdict again", s.State().Message)
			}
		}},
		{"the longest seed fits its field", func(t *testing.T) {
			for _, seed := range []uint64{999_999_999, 18_446_744_073_709_551_615} {
				for _, sz := range sizes {
					for _, present := range []bool{false, true} {
						cfg := testConfig()
						cfg.Seed = seed
						s := newSession(t, cfg, present)
						f := s.Draw(sz[0], sz[1])
						var field Rect
						for _, c := range s.State().Controls {
							if c.ID == WSeed {
								field = c.R
							}
						}
						found := false
						for _, tx := range f.Layers[OverlayLayer].Texts {
							if tx.S == strconv.FormatUint(seed, 10) {
								found = true
								if b := textBox(tx); !field.Inset(2).Contains(b) {
									t.Errorf("seed %d at %v present=%v: %v leaves its field %v", seed, sz, present, b, field)
								}
							}
						}
						if !found {
							t.Errorf("seed %d at %v: not drawn", seed, sz)
						}
					}
				}
			}
		}},
		{"R after the end runs again", func(t *testing.T) {
			cfg := testConfig()
			cfg.Cycles = 50
			s := newSession(t, cfg, false)
			s.step(50, false)
			now := clock()
			s.Update(now)
			if st := s.State(); !st.Done || !st.Paused {
				t.Fatalf("at the end: done %v paused %v", st.Done, st.Paused)
			}
			s.Apply(Restart)
			if st := s.State(); st.Paused || st.Cycle != 0 {
				t.Errorf("after R: paused %v at cycle %d, want running from 0", st.Paused, st.Cycle)
			}
		}},
		{"task min and max say geometric service ignores them", func(t *testing.T) {
			for _, svc := range []string{"geometric", "uniform"} {
				cfg := testConfig()
				if err := cfg.Set("service", svc); err != nil {
					t.Fatal(err)
				}
				cfg.MeanService = 20
				s := newSession(t, cfg, false)
				s.Draw(BaseW, BaseH)
				for _, c := range s.State().Controls {
					if c.ID != WTaskMin && c.ID != WTaskMax {
						continue
					}
					if unused := strings.HasPrefix(c.Value, "unused"); unused != (svc == "geometric") {
						t.Errorf("%s service: %s shows %q", svc, c.ID, c.Value)
					}
				}
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}

// TestTeacherCaption: a teacher's caption (Options.Note) is shown in lines
// of at most CaptionLineChars, travels in the run's snapshot and share
// link, and a session that loads them shows it.
func TestTeacherCaption(t *testing.T) {
	note := "Watch server 2: it is the slow one, ×0.5. " + strings.Repeat("Its bar grows while the others keep up. ", 5)
	cfg := testConfig()
	cfg.Cycles = 200
	s, err := New(Options{Config: cfg, Speed: 600, PauseAt: -1, Note: note, Caption: CaptionLines(note)})
	if err != nil {
		t.Fatal(err)
	}
	s.step(50, false)
	for _, save := range []func() ([]byte, error){s.Snapshot, s.WholeRun} {
		data, err := save()
		if err != nil {
			t.Fatal(err)
		}
		r, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: -1})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Load(data); err != nil {
			t.Fatal(err)
		}
		if r.note != note || strings.Join(r.caption, " ") != strings.Join(strings.Fields(note), " ") {
			t.Errorf("loaded: note %q, caption %q; want %q", r.note, r.caption, note)
		}
		f := r.Draw(BaseW, BaseH)
		if !slices.ContainsFunc(f.Layers[OverlayLayer].Texts, func(x Text) bool { return strings.HasPrefix(x.S, "Watch server 2") }) {
			t.Error("the loaded caption is not drawn")
		}
	}
}

// TestCaptionLines wraps at spaces into lines of at most CaptionLineChars
// characters, cutting only a word longer than a line.
func TestCaptionLines(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"  one  two ", []string{"one two"}},
		{strings.Repeat("ab ", 40), []string{strings.TrimSpace(strings.Repeat("ab ", 33)), strings.TrimSpace(strings.Repeat("ab ", 7))}}, // 33 make 98 characters
		{strings.Repeat("x", 150), []string{strings.Repeat("x", 100), strings.Repeat("x", 50)}},
		{"é" + strings.Repeat("é", 99) + " z", []string{strings.Repeat("é", 100), "z"}},
	} {
		got := CaptionLines(tc.text)
		if !slices.Equal(got, tc.want) {
			t.Errorf("CaptionLines(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestFrameSum: the same picture gives the same Sum (a paused run drawn
// again), any change another: a cycle more, another size, a message, the
// help overlay.
func TestFrameSum(t *testing.T) {
	s, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: 40})
	if err != nil {
		t.Fatal(err)
	}
	now := clock()
	for !s.paused {
		s.Update(now)
	}
	for range 5 { // paused: the animations end, the picture settles
		for range TPS {
			s.Update(now)
		}
	}
	sum := func() uint64 { return s.Draw(BaseW, BaseH).Sum() }
	base := sum()
	if again := sum(); again != base {
		t.Fatalf("a paused run drawn twice: sums %x and %x", base, again)
	}
	for _, tc := range []struct {
		name   string
		change func() uint64
	}{
		{"another size", func() uint64 { return s.Draw(1920, 1080).Sum() }},
		{"a message", func() uint64 { s.Say("hello", false); defer s.Apply(CloseDialog); return sum() }},
		{"the help overlay", func() uint64 { s.Apply(ToggleHelp); defer s.Apply(ToggleHelp); return sum() }},
		{"one cycle more", func() uint64 { s.Apply(StepOne); return sum() }},
	} {
		if got := tc.change(); got == base {
			t.Errorf("%s: the same sum %x as before", tc.name, got)
		}
	}
}

// TestRejectedBounceOnScreen: at a slow speed a rejected request turns
// yellow and bounces back over the firewall, on screen (the firewall
// lesson's half of all requests), not off the screen's left edge.
func TestRejectedBounceOnScreen(t *testing.T) {
	cfg := testConfig()
	for _, kv := range [][2]string{{"block", "0.0.0.0/1"}, {"rate", "2"}} {
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Options{Config: cfg, Speed: 10, PauseAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	now := clock()
	seen := 0
	for range 4 * TPS {
		s.Update(now)
		f := s.Draw(BaseW, BaseH)
		g := f.Layout.Gate
		for _, q := range f.Layers[SceneLayer].Quads {
			// A bouncing request: RejectFlash faded (alpha below 1).
			c := q.C
			if c.A == 0xff || c.A < 0x20 || absDiff(int(c.R)*0xff, int(RejectFlash.R)*int(c.A)) > 0x200 ||
				absDiff(int(c.G)*0xff, int(RejectFlash.G)*int(c.A)) > 0x200 || absDiff(int(c.B)*0xff, int(RejectFlash.B)*int(c.A)) > 0x200 {
				continue
			}
			x := (q.P[0].X + q.P[1].X + q.P[2].X + q.P[3].X) / 4
			if x < g.X || x > g.X+g.W {
				t.Fatalf("a bouncing request at x = %.0f, off the firewall %v", x, g)
			}
			seen++
		}
	}
	if seen == 0 {
		t.Error("no rejected request bounced back over the firewall in 4 s at 10 cycles/s")
	}
}

func absDiff(a, b int) int { return max(a-b, b-a) }

// TestFirewallShowsBouncesWhenPaused: paused, the firewall still shows
// that requests bounce off it — a mark beside the gate for each of the
// last rejections — and its bricks stay inside the plates' margins (none
// pokes out behind a count); the gate's frame never flashes like a
// selection.
func TestFirewallShowsBouncesWhenPaused(t *testing.T) {
	cfg := configWith(t, "block", "0.0.0.0/1", "rate", "2")
	s := running(t, cfg)
	s.step(300, false)
	s.Apply(TogglePause)
	f := s.Draw(BaseW, BaseH)
	g, u := f.Layout.Gate, f.Layout.T
	marks := 0
	for _, q := range f.Layers[SceneLayer].Quads {
		b := Rect{q.P[0].X, q.P[0].Y, 0, 0}
		if q.P[3] == q.P[2] && b.X >= g.X+g.W && b.X <= g.X+g.W+6*u && q.P[1].X > q.P[0].X {
			marks++ // an arrowhead pointing left, beside the gate
		}
		if q.C.R > 0 && q.C.G < q.C.R/2 && q.P[0].X >= g.X && q.P[2].X <= g.X+g.W && q.P[0].Y >= g.Y && q.P[2].Y <= g.Y+g.H {
			if q.P[0].X < g.X+4*u-0.01 || q.P[2].X > g.X+g.W-4*u+0.01 {
				t.Errorf("a brick %v outside the plates' margins of the gate %v", q.P, g)
			}
		}
	}
	if marks == 0 {
		t.Error("paused, no bounce mark beside the gate")
	}
	for _, q := range f.Layers[SceneLayer].Quads {
		if q.C == RejectFlash && q.P[0].X <= g.X+0.01 && q.P[2].X >= g.X+g.W-0.01 {
			t.Errorf("the gate's frame flashes %v", q.P)
		}
	}
}
