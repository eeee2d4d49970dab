package scene

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// drawn returns a paused session at the given cycle, drawn once at
// 1280×720 so that the controls have their places.
func drawn(t *testing.T, cycle int64) *Session {
	t.Helper()
	return drawnAt(t, Options{Config: testConfig(), Speed: 600, PauseAt: cycle, RandomSeed: func() uint64 { return 777 }}, BaseW, BaseH)
}

// drawnAt returns the session of opts stepped to its pause-at cycle and
// drawn once at w×h.
func drawnAt(t *testing.T, opts Options, w, h int) *Session {
	t.Helper()
	s := mustNew(t, opts)
	now := clock()
	for s.m.Cycle() < opts.PauseAt {
		s.Update(now)
	}
	s.Draw(w, h)
	return s
}

// replayedBothWays loads snapshot data into fresh sessions, once as a file
// and once from a share link, and seeks each to cycle: the sessions by
// how they were loaded.
func replayedBothWays(t *testing.T, data []byte, cycle int64) map[string]*Session {
	t.Helper()
	out := map[string]*Session{}
	for _, how := range []string{"file", "link"} {
		s := drawn(t, 3)
		var err error
		if how == "file" {
			err = s.Load(data)
		} else {
			err = s.LoadLink(snapshot.Fragment(data))
		}
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		s.SeekCycle(cycle)
		out[how] = s
	}
	return out
}

func control(t *testing.T, s *Session, id string) Control {
	t.Helper()
	for _, c := range s.State().Controls {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no control %q", id)
	return Control{}
}

func widgetByID(id string) widget {
	for _, w := range widgets {
		if w.id == id {
			return w
		}
	}
	return widget{}
}

func TestSliderValueAtClampsAndSnaps(t *testing.T) {
	w := widgetByID(WRate)
	track := Rect{100, 0, 200, 6}
	for _, tc := range []struct {
		x    float32
		want int64
	}{
		{0, w.min}, {100, w.min}, {300, w.max}, {1000, w.max},
		{200, 1_550_000}, // the middle: (50k+3M)/2 = 1.525M, snapped to a 50k step
		{101, w.min},
	} {
		if got := sliderValueAt(w, track, tc.x); got != tc.want {
			t.Errorf("x=%v: got %d, want %d", tc.x, got, tc.want)
		}
		if got := sliderValueAt(w, track, tc.x); (got-w.min)%w.step != 0 {
			t.Errorf("x=%v: %d is not on a step", tc.x, got)
		}
	}
}

func TestSliderKeys(t *testing.T) {
	w := widgetByID(WCooldown)
	for _, tc := range []struct {
		v    int64
		k    Key
		want int64
		ok   bool
	}{
		{10, KeyRight, 11, true}, {10, KeyLeft, 9, true}, {1, KeyLeft, 1, true}, {200, KeyUp, 200, true},
		{10, KeyPageUp, 29, true}, {10, KeyHome, 1, true}, {10, KeyEnd, 200, true}, {10, RuneKey('x'), 10, false},
	} {
		got, ok := sliderKey(w, tc.v, tc.k)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%d %v: got %d %v, want %d %v", tc.v, tc.k, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSeedFieldEditing(t *testing.T) {
	var f seedField
	for _, r := range "12a3" {
		f.key(RuneKey(r))
	}
	if f.text != "123" || !f.editing {
		t.Fatalf("typed 12a3: %q", f.text)
	}
	f.key(KeyBackspace)
	f.key(RuneKey('9'))
	seed, done, _ := f.key(KeyEnter)
	if !done || seed != 129 || f.editing {
		t.Fatalf("Enter: %d %v", seed, done)
	}
	// Empty and overlong input.
	f = seedField{}
	f.key(KeyBackspace)
	if _, done, _ := f.key(KeyEnter); done {
		t.Error("an empty seed was accepted")
	}
	f = seedField{}
	for range 30 {
		f.key(RuneKey('9'))
	}
	if len(f.text) != maxSeedDigits {
		t.Errorf("%d digits kept", len(f.text))
	}
	if seed, done, _ := f.key(KeyEnter); !done || seed != 9999999999999999999 {
		t.Errorf("19 nines: %d %v", seed, done)
	}
	f = seedField{text: "5", editing: true}
	if _, _, ok := f.key(KeyEscape); !ok || f.editing {
		t.Error("Esc did not end the editing")
	}
}

func TestFocusOrder(t *testing.T) {
	for _, tc := range []struct {
		cur, n int
		back   bool
		want   int
	}{{-1, 5, false, 0}, {-1, 5, true, 4}, {4, 5, false, 0}, {0, 5, true, 4}, {2, 5, false, 3}, {0, 0, false, -1}} {
		if got := nextFocus(tc.cur, tc.n, tc.back); got != tc.want {
			t.Errorf("nextFocus(%d, %d, %v) = %d, want %d", tc.cur, tc.n, tc.back, got, tc.want)
		}
	}
	s := drawn(t, 5)
	s.HandleInput(Input{Keys: []Key{KeyTab}})
	if s.State().Focus != WRate {
		t.Fatalf("Tab focused %q", s.State().Focus)
	}
	s.HandleInput(Input{Keys: []Key{KeyTab, KeyTab}})
	if s.State().Focus != WScaleDown {
		t.Fatalf("Tab Tab Tab focused %q", s.State().Focus)
	}
	s.HandleInput(Input{Keys: []Key{KeyTab}, Shift: true})
	if s.State().Focus != WScaleUp {
		t.Fatalf("Shift+Tab focused %q", s.State().Focus)
	}
	s.HandleInput(Input{Keys: []Key{KeyEscape}})
	if s.State().Focus != "" {
		t.Fatalf("Esc left the focus on %q", s.State().Focus)
	}
	// Without focus, → is a step again.
	s.HandleInput(Input{Keys: []Key{KeyRight}})
	if s.m.Cycle() != 6 {
		t.Fatalf("→ without focus: cycle %d", s.m.Cycle())
	}
}

// TestSliderDragSchedulesAChange drags the rate slider with the pointer:
// the value follows the pointer, and the release schedules one change for
// the next cycle, which then takes effect exactly as `--set` would.
func TestSliderDragSchedulesAChange(t *testing.T) {
	s := drawn(t, 50)
	c := control(t, s, WRate)
	tr := sliderTrack(c.R, 1)
	y := c.R.Y + c.R.H/2
	s.HandleInput(Input{X: tr.X + tr.W/2, Y: y, Pressed: true, Down: true})
	s.HandleInput(Input{X: tr.X + tr.W, Y: y, Down: true})
	if s.State().Focus != WRate || control(t, s, WRate).Value != "3" {
		t.Fatalf("dragging: focus %q value %q", s.State().Focus, control(t, s, WRate).Value)
	}
	if len(s.m.Pending()) != 0 {
		t.Fatal("a change was scheduled before the release")
	}
	s.HandleInput(Input{X: tr.X + tr.W + 50, Y: y, Released: true})
	p := s.m.Pending()
	if len(p) != 1 || p[0].String() != "51:rate=3" {
		t.Fatalf("pending after the release: %v", p)
	}
	s.Apply(StepOne)
	if s.m.Config().Rate != 3_000_000 {
		t.Fatalf("rate at 51: %v", s.m.Config().Rate)
	}
	for range 20 {
		s.Apply(StepOne)
	}
	ch, _ := sim.ParseChange("51:rate=3")
	if got, wantS := summaryJSON(s), summaryWith(t, testConfig(), 71, ch); got != wantS {
		t.Errorf("summary at 71 differs from the run with --set 51:rate=3:\n got %s\nwant %s", got, wantS)
	}
	// The keyboard: → on the focused slider is one step down/up, at once.
	s.HandleInput(Input{Keys: []Key{KeyTab}}) // focus moves to scale-up
	s.HandleInput(Input{Keys: []Key{KeyRight}})
	if p := s.m.Pending(); len(p) != 1 || p[0].String() != "72:scale-up=81" {
		t.Fatalf("→ on scale-up: %v", p)
	}
	if s.m.Cycle() != 71 {
		t.Fatal("→ on a focused slider stepped the model")
	}
}

func summaryJSON(s *Session) string {
	b, _ := json.Marshal(s.State().Summary)
	return string(b)
}

func summaryWith(t *testing.T, cfg sim.Config, cycle int64, ch ...sim.Change) string {
	t.Helper()
	cfg.Cycles = cycle
	m, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Schedule(ch...); err != nil {
		t.Fatal(err)
	}
	m.Run()
	b, _ := json.Marshal(m.Summary())
	return string(b)
}

func TestBadChangeIsShownNotApplied(t *testing.T) {
	s := drawn(t, 10)
	// scale-down must stay below scale-up (80): End on scale-down asks 199.
	s.HandleInput(Input{Keys: []Key{KeyTab, KeyTab, KeyTab, KeyEnd}})
	if len(s.m.Pending()) != 0 || s.State().Message == "" || !s.isError {
		t.Fatalf("pending %v message %q", s.m.Pending(), s.State().Message)
	}
}

func TestSeedTypingRestarts(t *testing.T) {
	s := drawn(t, 30)
	seed := control(t, s, WSeed)
	s.HandleInput(Input{X: seed.R.X + seed.R.W/2, Y: seed.R.Y + 5, Pressed: true, Down: true})
	s.HandleInput(Input{Released: true, Keys: []Key{RuneKey('1'), RuneKey('2'), RuneKey('3'), KeyBackspace, RuneKey('4')}})
	if v := control(t, s, WSeed).Value; v != "124" {
		t.Fatalf("the field shows %q", v)
	}
	s.HandleInput(Input{Keys: []Key{KeyEnter}})
	if st := s.State(); st.Seed != 124 || st.Cycle != 0 || st.Paused {
		t.Fatalf("after Enter: seed %d cycle %d paused %v", st.Seed, st.Cycle, st.Paused)
	}
	// Digits without focus start a new seed; the dice picks one.
	s.HandleInput(Input{Keys: []Key{RuneKey('9'), RuneKey('8'), KeyEnter}})
	if s.State().Seed != 98 {
		t.Fatalf("typed 98: seed %d", s.State().Seed)
	}
	s.HandleInput(Input{Keys: []Key{RuneKey('d')}})
	if s.State().Seed != 777 {
		t.Fatalf("dice: seed %d", s.State().Seed)
	}
}

func TestButtonsAndServerClick(t *testing.T) {
	s := drawn(t, 20)
	play := control(t, s, WPlay)
	s.HandleInput(Input{X: play.R.X + 3, Y: play.R.Y + 3, Pressed: true, Down: true})
	if s.Paused() {
		t.Fatal("the play button did not resume")
	}
	s.Apply(TogglePause)
	// Click the first server box: its menu; "take down" schedules down at
	// the next cycle; then the menu offers up.
	l := NewLayout(BaseW, BaseH, 1)
	pl := s.m.Pool()
	box := NewGrid(l.Lanes[0].Pool, pl.Live+pl.Down, l.Unit).BoxAt(0).Center()
	click := func(x, y float32) {
		s.HandleInput(Input{X: x, Y: y, Pressed: true, Down: true})
		s.Draw(BaseW, BaseH)
	}
	pick := func(id string) {
		r := control(t, s, id).R
		click(r.X+3, r.Y+3)
	}
	click(box.X, box.Y)
	if st := s.State(); st.Focus != WServerPrefix+"down" || s.menu.id != 1 {
		t.Fatalf("click on server 1: focus %q, menu on server %d", st.Focus, s.menu.id)
	}
	pick(WServerPrefix + "down")
	c := s.m.Cycle()
	if p := s.m.Pending(); len(p) != 1 || p[0].Setting != sim.SetDown || p[0].Cycle != c+1 || s.dialog != dialogNone {
		t.Fatalf("take down server 1: %v, dialog %d", p, s.dialog)
	}
	s.Apply(StepOne)
	if v, _ := s.m.Balancers()[0].Server(1); v.State != sim.Failed {
		t.Fatalf("server 1 is %v", v.State)
	}
	s.Draw(BaseW, BaseH)
	click(box.X, box.Y)
	for _, c := range s.State().Controls {
		if c.ID == WServerPrefix+"down" {
			t.Fatal("the menu of a down server offers down")
		}
	}
	pick(WServerPrefix + "up")
	if p := s.m.Pending(); len(p) != 1 || p[0].Setting != sim.SetUp {
		t.Fatalf("click on down server 1: %v", p)
	}
	// Requests for the platform.
	// K opens the share dialog (modal: L is not seen), K again makes the link.
	s.HandleInput(Input{Keys: []Key{RuneKey('s'), RuneKey('k'), RuneKey('l')}})
	if st := s.State(); st.Focus != WShareMake || len(st.Controls) != len(shareWidgets) {
		t.Fatalf("K: focus %q, %d controls; want the share dialog", st.Focus, len(st.Controls))
	}
	s.HandleInput(Input{Keys: []Key{RuneKey('k'), RuneKey('l')}})
	if r := s.TakeRequests(); len(r) != 3 || r[0] != Save || r[1] != Share || r[2] != Load {
		t.Fatalf("requests %v", r)
	}
}

// TestSaveLoadForkAndSeek saves a run with a change, loads it (a replay to
// the same state hash), seeks, and forks by moving a slider.
func TestSaveLoadForkAndSeek(t *testing.T) {
	s := drawn(t, 40)
	if err := s.Set("rate", "0.9"); err != nil {
		t.Fatal(err)
	}
	for range 60 {
		s.Apply(StepOne)
	}
	hash, cycle := s.m.Hash(), s.m.Cycle()
	data, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	s2 := drawn(t, 3)
	if err := s2.Load(data); err != nil {
		t.Fatal(err)
	}
	if !s2.State().Replaying || s2.m.Cycle() != 0 {
		t.Fatal("not replaying from 0")
	}
	s2.SeekCycle(cycle)
	if s2.m.Hash() != hash || !s2.m.Done() {
		t.Fatalf("seek to %d: hash %x want %x", cycle, s2.m.Hash(), hash)
	}
	s2.SeekCycle(30)
	if s2.m.Cycle() != 30 || !s2.Paused() {
		t.Fatal("seek back to 30")
	}
	s2.Apply(TogglePause)
	for range 100 {
		s2.Update(clock())
	}
	if s2.m.Cycle() != cycle || s2.m.Hash() != hash || s2.verdict == "" || s2.State().Message == "" {
		t.Fatalf("replay end: cycle %d verdict %q", s2.m.Cycle(), s2.verdict)
	}
	// Take control at 50: the change at 41 stays, the run goes on past
	// the snapshot's end.
	s2.SeekCycle(50)
	if err := s2.Set("cooldown", "5"); err != nil {
		t.Fatal(err)
	}
	st := s2.State()
	if st.Replaying || st.Config.Cycles != testConfig().Cycles || len(st.Changes) != 1 || st.Cycle != 50 {
		t.Fatalf("fork: %+v", st.Changes)
	}
	// Bad input: a message, the run goes on.
	for _, bad := range [][]byte{nil, []byte("garbage"), data[:len(data)/2]} {
		if err := s.Load(bad); err == nil || s.State().Error == "" || s.State().Replaying {
			t.Errorf("loading %d bad bytes: %v", len(bad), err)
		}
	}
	if err := s.LoadLink("#r=AAAA"); err == nil || s.State().Error == "" {
		t.Error("a bad link was accepted")
	}
	if err := s.LoadLink(snapshot.Fragment(data)); err != nil || !s.State().Replaying || s.State().Error != "" {
		t.Errorf("a good link: %v", err)
	}
}

func TestTheoryPanel(t *testing.T) {
	s := drawn(t, 10)
	lines := s.TheoryLines()
	if len(lines) < 3 || lines[1] != "does not apply to this run, because:" {
		t.Fatalf("default settings: %q", lines)
	}
	cfg := testConfig()
	for _, kv := range [][2]string{{"wave", "false"}, {"service", "geometric"}, {"mean-service", "20"}, {"scale-up", "100000"},
		{"scale-down", "0"}, {"rate", "0.4"}, {"block", "none"}, {"min-servers", "10"}, {"max-servers", "10"}} {
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			t.Fatal(kv, err)
		}
	}
	s2, err := New(Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	now := clock()
	for range 20 {
		s2.Update(now)
	}
	lines = s2.TheoryLines()
	if len(lines) < 6 || lines[1] != "\ttheory\tmeasured" {
		t.Fatalf("M/M/c settings: want theory beside measured, got %q", lines)
	}
	var pw string
	for _, l := range lines {
		if strings.HasPrefix(l, "P(wait)") {
			pw = l
		}
	}
	if pw == "" || strings.HasSuffix(pw, "—") {
		t.Errorf("P(wait) line %q: want a measured share once requests were dispatched", pw)
	}
	s2.Apply(ToggleTheory)
	s2.Apply(TogglePresent)
	f := s2.Draw(BaseW, BaseH)
	drawn := false
	for _, tx := range f.Layers[OverlayLayer].Texts {
		drawn = drawn || strings.HasPrefix(tx.S, "M/M/c theory")
	}
	if !s2.State().Theory || !s2.State().Present || !drawn {
		t.Fatal("theory/presentation not shown")
	}
}

// TestControlsFitAt720p: every control lies on screen, inside the control
// bar (the scrub bar in the replay banner), without overlapping another.
func TestControlsFitAt720p(t *testing.T) {
	s := drawn(t, 1)
	l := NewLayout(BaseW, BaseH, 1)
	rs := s.controlRects(l)
	for i, r := range rs {
		if !l.Controls.Contains(r) {
			t.Errorf("%s %v outside the control bar %v", widgets[i].id, r, l.Controls)
		}
		for j := range i {
			if r.Overlaps(rs[j]) {
				t.Errorf("%s overlaps %s", widgets[i].id, widgets[j].id)
			}
		}
	}
}

// TestScrubBarSeeks drags the scrub bar of a replay: it pauses at the
// cycle under the pointer, re-simulated from cycle 0.
func TestScrubBarSeeks(t *testing.T) {
	s := drawn(t, 200)
	if err := s.Set("rate", "1"); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		s.Apply(StepOne)
	}
	data, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(data); err != nil {
		t.Fatal(err)
	}
	s.Draw(BaseW, BaseH)
	sc := control(t, s, WScrub)
	tr := sliderTrack(sc.R, 1)
	y := sc.R.Y + sc.R.H/2
	s.HandleInput(Input{X: tr.X + tr.W/2, Y: y, Pressed: true, Down: true})
	s.HandleInput(Input{X: tr.X + tr.W/2, Y: y, Released: true})
	if st := s.State(); st.Cycle != 150 || !st.Paused || !st.Replaying || len(st.Changes) != 0 {
		t.Fatalf("scrub to the middle: cycle %d paused %v replaying %v changes %v", st.Cycle, st.Paused, st.Replaying, st.Changes)
	}
	want := summaryWith(t, testConfig(), 150)
	if got := summaryJSON(s); got != want {
		t.Errorf("at 150:\n got %s\nwant %s", got, want)
	}
	s.HandleInput(Input{X: tr.X + tr.W, Y: y, Pressed: true, Down: true})
	s.HandleInput(Input{X: tr.X + tr.W, Y: y, Released: true})
	if st := s.State(); st.Cycle != 300 || len(st.Changes) != 1 || !st.Done {
		t.Fatalf("scrub to the end: cycle %d changes %v", st.Cycle, st.Changes)
	}
}

// TestLinkWithPauseAt: a page opened with a share link and pause-at
// replays and pauses exactly there, even pause-at=0.
func TestLinkWithPauseAt(t *testing.T) {
	cfg := testConfig()
	cfg.Cycles = 500
	ch, _ := sim.ParseChange("100:rate=0.9")
	snap, err := snapshot.Record(cfg, []sim.Change{ch})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := snapshot.Encode(snap)
	for _, at := range []int64{0, 250} {
		s, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: at})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.LoadLink("https://example.org/?pause-at=1" + snapshot.Fragment(data)); err != nil {
			t.Fatal(err)
		}
		now := clock()
		for range 200 {
			s.Update(now)
		}
		if st := s.State(); st.Cycle != at || !st.Paused || !st.Replaying {
			t.Errorf("pause-at %d: cycle %d paused %v replaying %v", at, st.Cycle, st.Paused, st.Replaying)
		}
	}
}

// TestPresentationFooterAndHelp: presentation mode draws the legend
// PresentScale times as large and the help overlay on screen; in both
// modes every legend name stands just after its shape.
func TestPresentationFooterAndHelp(t *testing.T) {
	s := drawn(t, 5)
	s.Apply(ToggleHelp)
	size := func(f *Frame, layer int, prefix string) (Text, bool) {
		for _, tx := range f.Layers[layer].Texts {
			if strings.HasPrefix(tx.S, prefix) {
				return tx, true
			}
		}
		return Text{}, false
	}
	for _, w := range [][2]int{{BaseW, BaseH}, {1920, 1080}, {1280, 657}} {
		l := NewLayout(w[0], w[1], 1)
		normal := copyFrame(s.Draw(w[0], w[1])) // Draw reuses its frame
		s.Apply(TogglePresent)
		present := copyFrame(s.Draw(w[0], w[1]))
		s.Apply(TogglePresent)
		if _, ok := size(normal, SceneLayer, "H help"); !ok {
			t.Errorf("%v: the key line is missing in the normal view", w)
		}
		for _, name := range []string{"busy", "retiring", "P"} {
			a, okA := size(normal, SceneLayer, name)
			b, okB := size(present, SceneLayer, name)
			if !okA || !okB || b.Size < PresentScale*a.Size-0.01 {
				t.Errorf("%v: legend %q is %.1f in presentation mode, %.1f otherwise: want 1.25× at least", w, name, b.Size, a.Size)
			}
		}
		if _, ok := size(present, TopLayer, "H — "); !ok {
			t.Errorf("%v: no help text in presentation mode", w)
		}
		for _, f := range []*Frame{normal, present} {
			box := f.Layers[TopLayer].Quads[0].P
			if box[0].X < 0 || box[0].Y < 0 || box[2].X > float32(w[0]) || box[2].Y > float32(w[1]) {
				t.Errorf("%v: the help overlay %v leaves the screen", w, box)
			}
			// Each legend name starts just after a shape that ends within
			// 10 design pixels to its left, at the same height.
			for _, tx := range f.Layers[SceneLayer].Texts {
				if tx.Y < l.Footer.Y || tx.S == "" || strings.HasPrefix(tx.S, "H help") {
					continue
				}
				if tx.X < l.Footer.X {
					t.Errorf("%v: legend %q starts at %.0f, left of the footer", w, tx.S, tx.X)
				}
				near := false
				for _, q := range f.Layers[SceneLayer].Quads {
					right := max(q.P[1].X, q.P[2].X)
					if right <= tx.X && tx.X-right <= 10*l.Unit*PresentScale && q.P[0].Y >= l.Footer.Y-2 {
						near = true
					}
				}
				if !near {
					t.Errorf("%v: legend %q has no shape just before it", w, tx.S)
				}
			}
		}
	}
}

// copyFrame returns a copy of f that the next Draw leaves alone.
func copyFrame(f *Frame) *Frame {
	c := *f
	for i := range c.Layers {
		c.Layers[i].Quads = slices.Clone(f.Layers[i].Quads)
		c.Layers[i].Texts = slices.Clone(f.Layers[i].Texts)
	}
	return &c
}

// TestRepeatedKeysMergeIntoOneChange presses → three times on the focused
// rate slider while paused: one change at the next cycle, with the last
// value, and the summary after it equals the run with that one change.
func TestRepeatedKeysMergeIntoOneChange(t *testing.T) {
	s := drawn(t, 30)
	s.HandleInput(Input{Keys: []Key{KeyTab, KeyRight, KeyRight, KeyRight}})
	p := s.m.Pending()
	if len(p) != 1 || p[0].String() != "31:rate=0.6" {
		t.Fatalf("three → on rate at 30: pending %v", p)
	}
	if s.m.Cycle() != 30 || !s.Paused() {
		t.Fatalf("cycle %d paused %v after merging", s.m.Cycle(), s.Paused())
	}
	if v := control(t, s, WRate).Value; v != "0.6" {
		t.Fatalf("the slider shows %q", v)
	}
	s.HandleInput(Input{Keys: []Key{KeyEscape}})
	for range 10 {
		s.Apply(StepOne)
	}
	ch, _ := sim.ParseChange("31:rate=0.6")
	if got, want := summaryJSON(s), summaryWith(t, testConfig(), 40, ch); got != want {
		t.Errorf("summary at 40 differs from --set 31:rate=0.6:\n got %s\nwant %s", got, want)
	}
	if cs := s.m.Changes(); len(cs) != 1 {
		t.Errorf("changes %v", cs)
	}
}

// TestReplaySlidersShowTheValueInForce replays a run with a rate change at
// cycle 60: before it the slider shows the starting rate, after it the new
// one.
func TestReplaySlidersShowTheValueInForce(t *testing.T) {
	cfg := testConfig()
	cfg.Cycles = 100
	ch, _ := sim.ParseChange("60:rate=0.9")
	data := recorded(t, cfg, []sim.Change{ch})
	s := drawn(t, 1)
	if err := s.Load(data); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cycle int64
		want  string
	}{{1, "0.45"}, {58, "0.45"}, {59, "0.45"}, {60, "0.9"}, {99, "0.9"}} {
		s.SeekCycle(c.cycle)
		s.Draw(BaseW, BaseH)
		if v := control(t, s, WRate).Value; v != c.want {
			t.Errorf("replay at cycle %d: the rate slider shows %s, want %s", c.cycle, v, c.want)
		}
	}
}

// TestShareDialogChoices opens the dialog with the share button, picks
// "up to this cycle" and "keep" with the keyboard, and checks what
// ShareSnapshot encodes for each choice.
func TestShareDialogChoices(t *testing.T) {
	s := drawn(t, 40)
	if err := s.Set("rate", "0.9"); err != nil {
		t.Fatal(err)
	}
	s.Apply(StepOne)
	b := control(t, s, WShare)
	s.HandleInput(Input{X: b.R.X + 2, Y: b.R.Y + 2, Pressed: true, Down: true})
	s.HandleInput(Input{Released: true})
	if s.dialog != dialogShare {
		t.Fatal("the share button did not open the dialog")
	}
	for _, id := range []string{WShareWhat, WShareView, WShareMake, WShareBack} {
		c := control(t, s, id)
		if !shareDialog(NewLayout(BaseW, BaseH, 1)).Contains(c.R) {
			t.Errorf("%s %v outside the dialog", id, c.R)
		}
	}
	// The whole run: the snapshot runs to the last cycle with the change.
	whole, err := s.ShareSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Decode(whole)
	if err != nil || snap.Config.Cycles != testConfig().Cycles || len(snap.Changes) != 1 {
		t.Fatalf("whole run: %v cycles %d changes %v", err, snap.Config.Cycles, snap.Changes)
	}
	// The focus starts on "make the link": Tab Tab reaches the first choice,
	// → picks "up to this cycle"; Tab, → "keep".
	s.HandleInput(Input{Keys: []Key{KeyTab, KeyTab, KeyRight, KeyTab, KeyRight}})
	if !s.share.upToNow || !s.ShareKeepView() {
		t.Fatalf("choices: up to now %v keep view %v", s.share.upToNow, s.ShareKeepView())
	}
	cut, err := s.ShareSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if snap, err = snapshot.Decode(cut); err != nil || snap.Config.Cycles != 41 {
		t.Fatalf("up to now: %v cycles %d", err, snap.Config.Cycles)
	}
	s.HandleInput(Input{Keys: []Key{KeyEscape}})
	if s.dialog != dialogNone || len(s.TakeRequests()) != 0 {
		t.Error("Esc did not close the dialog without a request")
	}
}

// TestLessonsMenu opens the menu with its button, picks the second lesson
// with the keyboard and checks that the session restarted with the
// lesson's options and shows its caption in a strip that moves the lanes
// down; Esc hides the caption.
func TestLessonsMenu(t *testing.T) {
	var asked string
	cfg := testConfig()
	cfg.Seed = 31
	s, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: 5, Lesson: func(name string) (Options, error) {
		asked = name
		return Options{Config: cfg, Speed: 20, PauseAt: -1, Caption: []string{"watch this", "and that"}}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	s.Draw(BaseW, BaseH)
	plain := s.layout(BaseW, BaseH).Lanes[0].Pool
	b := control(t, s, WLessons)
	s.HandleInput(Input{X: b.R.X + 2, Y: b.R.Y + 2, Pressed: true, Down: true})
	ws, first := s.lessonWidgets(), len(lesson.Topics()) // the topics' tabs, then the first topic's entries
	if st := s.State(); len(st.Controls) != len(ws) || st.Focus != ws[first].id {
		t.Fatalf("the menu: %d controls, focus %q", len(st.Controls), st.Focus)
	}
	s.HandleInput(Input{Keys: []Key{KeyTab, KeyEnter}})
	if asked != ws[first+1].id[len(WLessonPrefix):] {
		t.Fatalf("asked for lesson %q", asked)
	}
	if st := s.State(); st.Seed != 31 || st.Speed != 20 || st.Cycle != 0 || st.Focus != "" || len(st.Controls) != len(widgets) {
		t.Fatalf("after the lesson: seed %d speed %d cycle %d focus %q", st.Seed, st.Speed, st.Cycle, st.Focus)
	}
	s.Draw(BaseW, BaseH)
	l := s.layout(BaseW, BaseH)
	if l.Caption.H == 0 || l.Caption.Overlaps(l.Lanes[0].Pool) || l.Lanes[0].Pool.Y <= plain.Y {
		t.Errorf("caption %v, pool %v (was %v)", l.Caption, l.Lanes[0].Pool, plain)
	}
	s.HandleInput(Input{Keys: []Key{KeyEscape}})
	if len(s.caption) != 0 {
		t.Error("Esc did not hide the caption")
	}
}

// TestFirewallDialogRecordsAChange clicks the gate, blocks 0.0.0.0/1 from
// its list at the next cycle, and checks the change, the run (against a
// model with the same --set) and the gate's list with its count.
func TestFirewallDialogRecordsAChange(t *testing.T) {
	s := drawn(t, 30)
	g := s.layout(BaseW, BaseH).Gate
	s.HandleInput(Input{X: g.X + g.W/2, Y: g.Y + g.H - 5, Pressed: true, Down: true})
	s.HandleInput(Input{Released: true})
	if s.dialog != dialogFirewall {
		t.Fatal("a click on the gate did not open the firewall dialog")
	}
	half := control(t, s, WFirewallPrefix+"0.0.0.0/1")
	if !strings.Contains(half.Value, "allowed") {
		t.Fatalf("0.0.0.0/1 shows %q", half.Value)
	}
	s.HandleInput(Input{X: half.R.X + 5, Y: half.R.Y + 5, Pressed: true, Down: true})
	s.HandleInput(Input{Released: true})
	if v := control(t, s, WFirewallPrefix+"0.0.0.0/1").Value; !strings.Contains(v, "blocked") {
		t.Fatalf("after the click 0.0.0.0/1 shows %q", v)
	}
	if p := s.m.Pending(); len(p) != 1 || p[0].String() != "31:block=0.0.0.0/1" {
		t.Fatalf("pending %v", p)
	}
	s.HandleInput(Input{Keys: []Key{KeyEscape}})
	for range 40 {
		s.Apply(StepOne)
	}
	ch, _ := sim.ParseChange("31:block=0.0.0.0/1")
	if got, want := summaryJSON(s), summaryWith(t, testConfig(), 70, ch); got != want {
		t.Errorf("summary at 70 differs from --set 31:block=0.0.0.0/1:\n got %s\nwant %s", got, want)
	}
	var sum int64
	found := false
	for i, r := range s.fw.ranges {
		sum += s.fw.counts[i]
		if CompactRange(r) == "0.0.0.0/1" && s.fw.counts[i] > 0 {
			found = true
		}
	}
	if !found || sum != s.m.Totals().Rejected {
		t.Errorf("gate ranges %v counts %v (sum %d, rejected %d)", s.fw.ranges, s.fw.counts, sum, s.m.Totals().Rejected)
	}
}

// TestNextPolicy: the policy control cycles through the policies the queue
// mode runs, both ways, never offering one the mode refuses.
func TestNextPolicy(t *testing.T) {
	for _, q := range []sim.QueueMode{sim.Pooled, sim.PerServer} {
		ps := sim.PoliciesFor(q)
		cur := int64(ps[0])
		for range ps {
			next := nextPolicy(cur, 1, q)
			if sim.Policy(next).Allowed(q) != "" {
				t.Fatalf("%v: after %v comes %v, which the mode refuses", q, sim.Policy(cur), sim.Policy(next))
			}
			if back := nextPolicy(next, -1, q); back != cur {
				t.Fatalf("%v: back from %v gives %v, want %v", q, sim.Policy(next), sim.Policy(back), sim.Policy(cur))
			}
			cur = next
		}
		if cur != int64(ps[0]) {
			t.Errorf("%v: %d steps did not come round to %v", q, len(ps), ps[0])
		}
	}
	if got := nextPolicy(int64(sim.FirstIdle), 1, sim.PerServer); sim.Policy(got).Allowed(sim.PerServer) != "" {
		t.Errorf("from first-idle in per-server mode: %v", sim.Policy(got))
	}
}

// TestTheoryPanelPerServer: per-server queues get their own model: random
// routing is c × M/M/1 (Wq = ρ·m/(1−ρ)), round-robin gets bounds, and
// swrr routing no model.
func TestTheoryPanelPerServer(t *testing.T) {
	lines := func(policy string) []string {
		cfg := testConfig()
		for _, kv := range [][2]string{{"wave", "false"}, {"service", "geometric"}, {"mean-service", "20"}, {"scale-up", "100000"},
			{"scale-down", "0"}, {"rate", "0.4"}, {"block", "none"}, {"min-servers", "10"}, {"max-servers", "10"},
			{"queues", "per-server"}, {"policy", policy}} {
			if err := cfg.Set(kv[0], kv[1]); err != nil {
				t.Fatal(kv, err)
			}
		}
		s, err := New(Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		return s.TheoryLines()
	}
	// c = 10, λ = 0.4, m = 20: ρ = 0.8, Wq = 0.8·20/0.2 = 80.
	random := lines("random")
	if !strings.Contains(random[0], "c × M/M/1") || !slices.ContainsFunc(random, func(l string) bool { return strings.HasPrefix(l, "wait Wq (cycles)\t80.0\t") }) {
		t.Errorf("random routing: %q", random)
	}
	rr := lines("round-robin")
	if len(rr) < 3 || rr[1] != "\tbounds\tmeasured" || !strings.Contains(rr[2], "–80.0") {
		t.Errorf("round-robin routing: want bounds up to random's 80, got %q", rr)
	}
	sw := lines("swrr")
	if len(sw) < 3 || sw[1] != "does not apply to this run, because:" || !strings.Contains(sw[2], "swrr") {
		t.Errorf("swrr routing: %q", sw)
	}
}

// TestQueuesChoiceRestarts: the queues control restarts the run in the
// other mode, keeping a policy the mode runs and falling back to the
// mode's default for one it refuses.
func TestQueuesChoiceRestarts(t *testing.T) {
	for _, tc := range []struct {
		from, policy string
		to           sim.QueueMode
		want         sim.Policy
	}{
		{"pooled", "first-idle", sim.PerServer, sim.RoundRobin}, // first-idle needs a central queue
		{"pooled", "random", sim.PerServer, sim.Random},
		{"per-server", "hash", sim.Pooled, sim.FirstIdle}, // hash routes at arrival
		{"per-server", "round-robin", sim.Pooled, sim.RoundRobin},
	} {
		s := running(t, configWith(t, "queues", tc.from, "policy", tc.policy))
		s.step(50, false)
		s.setControl(widgetByID(WQueues), int64(tc.to))
		got := s.m.Config()
		if got.Queues != tc.to || got.Policy != tc.want || s.m.Cycle() != 0 || s.paused {
			t.Errorf("%s %s → %s: queues %s policy %s at cycle %d paused %v; want policy %s, cycle 0, running",
				tc.from, tc.policy, tc.to, got.Queues, got.Policy, s.m.Cycle(), s.paused, tc.want)
		}
		if v := s.valueText(slices.IndexFunc(widgets, func(w widget) bool { return w.id == WQueues }), widgetByID(WQueues)); v != tc.to.String() {
			t.Errorf("the control shows %q, want %q", v, tc.to)
		}
	}
}

// TestServerMenu picks each fault of the server menu, by pointer and by
// keyboard (G, ← → for the server, Tab, Enter), and checks the change it
// schedules: the same change `lbsim run --set` reads from its text.
func TestServerMenu(t *testing.T) {
	for _, tc := range []struct {
		before       string // a change server 2 has had, or ""
		action, want string // the entry, and the change as --set reads it
		hidden       string // an entry the menu leaves out, or ""
	}{
		{"", "down", "down=2", "up"},
		{"", "slow", "slow=2x" + MenuSlow, "heal"},
		{"", "fail", "fail=2", "heal"},
		{"", "hang", "hang=2", "heal"},
		{"fail=2", "heal", "heal=2", "fail"},
		{"slow=2x" + MenuSlow, "fail", "fail=2", "slow"},
		{"down=2", "up", "up=2", "down"},
	} {
		for _, keyboard := range []bool{false, true} {
			s := drawn(t, 20)
			s.Apply(TogglePause)
			if tc.before != "" {
				name, value, _ := strings.Cut(tc.before, "=")
				if err := s.Set(name, value); err != nil {
					t.Fatal(err)
				}
				s.Apply(StepOne)
			}
			if keyboard {
				s.HandleInput(Input{Keys: []Key{RuneKey('g'), KeyRight}})
				s.Draw(BaseW, BaseH)
				if st := s.State(); st.Focus != WServerPick || s.menu.id != 2 {
					t.Fatalf("G →: focus %q, server %d", st.Focus, s.menu.id)
				}
				ws := s.controls()
				if slices.ContainsFunc(ws, func(w widget) bool { return w.id == WServerPrefix+tc.hidden }) {
					t.Errorf("after %q the menu offers %s", tc.before, tc.hidden)
				}
				for s.focus >= 0 && ws[s.focus].id != WServerPrefix+tc.action {
					s.HandleInput(Input{Keys: []Key{KeyTab}})
					if s.focus == 0 {
						t.Fatalf("Tab never reaches %s", tc.action)
					}
				}
				s.HandleInput(Input{Keys: []Key{KeyEnter}})
			} else {
				l := NewLayout(BaseW, BaseH, 1)
				pl := s.m.Pool()
				box := NewGrid(l.Lanes[0].Pool, pl.Live+pl.Down, l.Unit).BoxAt(1).Center()
				s.HandleInput(Input{X: box.X, Y: box.Y, Pressed: true, Down: true})
				s.Draw(BaseW, BaseH)
				r := control(t, s, WServerPrefix+tc.action).R
				s.HandleInput(Input{X: r.X + 3, Y: r.Y + 3, Pressed: true, Down: true})
			}
			want, err := sim.NewChange(s.m.Cycle()+1, tc.want[:strings.Index(tc.want, "=")], tc.want[strings.Index(tc.want, "=")+1:])
			if err != nil {
				t.Fatal(err)
			}
			if p := s.m.Pending(); len(p) != 1 || p[0] != want || s.dialog != dialogNone {
				t.Errorf("%s (keyboard %v): pending %v, want %v; dialog %d", tc.action, keyboard, p, want, s.dialog)
			}
		}
	}
	// Esc closes the menu without a change.
	s := drawn(t, 20)
	s.HandleInput(Input{Keys: []Key{RuneKey('g'), KeyEscape}})
	if p := s.m.Pending(); len(p) != 0 || s.dialog != dialogNone {
		t.Errorf("G Esc: pending %v, dialog %d", p, s.dialog)
	}
}

// TestServerMenuChangesReplay picks slow, fail and hang in the server
// menu on three servers, runs on, and replays the saved run and its share
// link: both reach the same state hash, errors and all.
func TestServerMenuChangesReplay(t *testing.T) {
	s := drawn(t, 20)
	for _, pick := range []struct {
		server int
		action string
	}{{1, "slow"}, {2, "fail"}, {3, "hang"}} {
		s.openServerMenu(0, 0, pick.server)
		ws := s.controls()
		i := slices.IndexFunc(ws, func(w widget) bool { return w.id == WServerPrefix+pick.action })
		if i < 0 {
			t.Fatalf("server %d's menu has no %s", pick.server, pick.action)
		}
		s.press1(ws[i])
		s.Apply(StepOne)
	}
	for range 200 {
		s.Apply(StepOne)
	}
	hash, cycle, errs := s.m.Hash(), s.m.Cycle(), s.m.Totals().Errors
	if st := s.State(); len(st.Changes) != 3 || errs == 0 {
		t.Fatalf("changes %v, %d errors", st.Changes, errs)
	}
	data, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for how, s2 := range replayedBothWays(t, data, cycle) {
		if s2.m.Hash() != hash || s2.m.Totals().Errors != errs {
			t.Errorf("%s replay at %d: hash %x errors %d, want %x and %d", how, cycle, s2.m.Hash(), s2.m.Totals().Errors, hash, errs)
		}
	}
}

// TestTheoryPanelShapes: with a heavy-tailed shape the panel sets M/G/c
// beside the measurement: the pooled queue by Allen–Cunneen (named an
// approximation), random routing to per-server queues by
// Pollaczek–Khinchine; round-robin has no model for the shape.
func TestTheoryPanelShapes(t *testing.T) {
	for _, c := range []struct {
		queues, policy, want string
	}{
		{"pooled", "first-idle", "Allen–Cunneen approximation"},
		{"per-server", "random", "Pollaczek–Khinchine"},
		{"per-server", "round-robin", "no queueing model"},
	} {
		cfg := testConfig()
		for _, kv := range [][2]string{{"wave", "false"}, {"service", "lognormal"}, {"mean-service", "20"}, {"service-cv", "2"},
			{"scale-up", "100000"}, {"scale-down", "0"}, {"rate", "0.4"}, {"block", "none"}, {"min-servers", "10"},
			{"max-servers", "10"}, {"queues", c.queues}, {"policy", c.policy}} {
			if err := cfg.Set(kv[0], kv[1]); err != nil {
				t.Fatal(kv, err)
			}
		}
		s, err := New(Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		now := clock()
		for range 10 {
			s.Update(now)
		}
		text := strings.Join(s.TheoryLines(), "\n")
		if !strings.Contains(text, c.want) || c.want != "no queueing model" && !strings.Contains(text, "\ttheory\tmeasured") {
			t.Errorf("%s %s: want %q and theory beside measured, got\n%s", c.queues, c.policy, c.want, text)
		}
	}
}
