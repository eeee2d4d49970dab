package scene_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/render/scene"
	"github.com/lbsim/lbsim/sim"
)

// keyMoments is the cycle at which each lesson (and ready-made
// comparison) is looked at: where its caption's claim shows.
var keyMoments = map[string]int64{
	"scaling-band": 10_000, "firewall": 2_000, "server-fails": 600, "erlang": 3_000, "overload": 10_000,
	"queues": 6_000, "speeds": 6_000, "fast-failing": 10_000, "heavy-tails": 6_000, "retry-storm": 50_000,
	"pooled-vs-split": 6_000, "unequal-speeds": 6_000, "swrr-weights": 6_000,
	"herding": 6_000,
	// The later lessons.
	"littles-law": 6_000, "hockey-stick": 20_000, "ejection": 3_000, "hash-ring": 6_000, "stale-boards": 6_000, "join-idle-queue": 6_000,
	"autoscalers":      40_000,
	"tail-at-scale":    60_000,
	"overload-control": 50_000,
}

// openAt opens ?param=name&present=… paused at cycle at (at its own
// pause-at, or its end, when at is negative).
func openAt(t *testing.T, param, name string, present bool, at int64) *scene.Session {
	t.Helper()
	pr := "0"
	if present {
		pr = "1"
	}
	ps := []preset.Param{{Name: param, Value: name}, {Name: "present", Value: pr}}
	if at >= 0 {
		ps = append(ps, preset.Param{Name: "pause-at", Value: strconv.FormatInt(at, 10)})
	}
	p := preset.Read(ps, func() uint64 { return 1 })
	if len(p.Problems) > 0 {
		t.Fatal(p.Problems)
	}
	s, err := scene.New(scene.Options{Config: p.Config, Speed: 1_000_000, PauseAt: p.PauseAt, Changes: p.Changes,
		Present: p.Present, Theory: p.Theory, Caption: p.Caption, Note: p.Note, Lanes: p.Lanes, Measure: p.Measure})
	if err != nil {
		t.Fatal(err)
	}
	var clk time.Duration
	now := func() time.Duration { clk += 20 * time.Millisecond; return clk }
	for !s.State().Paused && !s.State().Done {
		s.Update(now)
	}
	return s
}

// TestLessonsFit opens every lesson and ready-made comparison at its key
// moment, at 1280×720 and 1920×1080, in presentation mode and not, as it
// opens and (a single run) in the compare view, and checks the frame as a
// projector shows it: no two texts overlap, no number is cut, no key lies
// over a chart's data, every slider's label whole, every text that carries a value, and every
// server's state word, at ValueUnits or more (20.6 px at 1080p in presentation mode).
func TestLessonsFit(t *testing.T) {
	type open struct{ param, name string }
	var opens []open
	for _, l := range lesson.All {
		opens = append(opens, open{"lesson", l.Name})
	}
	for _, c := range lesson.Comparisons {
		opens = append(opens, open{"comparison", c.Name})
	}
	for _, o := range opens {
		at, ok := keyMoments[o.name]
		if !ok {
			t.Fatalf("%s has no key moment", o.name)
		}
		for _, present := range []bool{false, true} {
			for _, cmp := range []bool{false, true} {
				s := openAt(t, o.param, o.name, present, at)
				if cmp {
					if s.Comparing() {
						continue // it opens in the compare view
					}
					s.Apply(scene.ToggleCompare)
				}
				for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
					name := fmt.Sprintf("%s %dx%d present=%v compare=%v", o.name, size[0], size[1], present, s.Comparing())
					checkFits(t, name, s, s.Draw(size[0], size[1]))
					if o.param == "lesson" {
						checkMeasure(t, name, o.name, s, s.Draw(size[0], size[1]))
					}
					if err := scene.WritePNG(s.Draw(size[0], size[1]), strings.ReplaceAll(strings.ReplaceAll(name, " ", "_"), "=", "")); err != nil {
						t.Fatal(err)
					}
					checkBoxes(t, name, s.Draw(size[0], size[1]))
					for _, in := range []scene.Intent{scene.OpenShare, scene.OpenLessons, scene.OpenFirewall, scene.OpenServerMenu, scene.OpenClients, scene.OpenHealth, scene.OpenMore} {
						s.Apply(in)
						f := s.Draw(size[0], size[1])
						checkBoxes(t, fmt.Sprintf("%s dialog %d", name, in), f)
						checkDialog(t, fmt.Sprintf("%s dialog %d", name, in), f)
						s.Apply(scene.CloseDialog)
					}
					// A message, alone and under a dialog.
					s.Say("the link is in the address bar and on the clipboard: paste it to share this run", false)
					checkBoxes(t, name+" message", s.Draw(size[0], size[1]))
					s.Apply(scene.OpenHealth)
					checkBoxes(t, name+" message and health", s.Draw(size[0], size[1]))
					s.Apply(scene.CloseDialog)
					s.Say("", false)
				}
			}
		}
	}
}

// checkFits checks frame f of session s: see TestLessonsFit.
func checkFits(t *testing.T, name string, s *scene.Session, f *scene.Frame) {
	t.Helper()
	for _, o := range scene.Overlaps(f) {
		t.Errorf("%s: %s", name, o)
	}
	for _, c := range f.Cuts {
		if dropped := strings.TrimPrefix(c.Full, strings.TrimSuffix(c.Shown, "…")); strings.ContainsAny(dropped, "0123456789") {
			t.Errorf("%s: %q cut to %q: a number is cut", name, c.Full, c.Shown)
		}
	}
	labels := s.SliderLabels()
	for _, c := range s.State().Controls {
		l, ok := labels[c.ID]
		if !ok || c.ID == scene.WScrub {
			continue
		}
		if !slices.ContainsFunc(f.Layers[scene.OverlayLayer].Texts, func(x scene.Text) bool {
			return (x.S == l[0] || x.S == l[1]) && c.R.Contains(scene.TextBox(x))
		}) {
			t.Errorf("%s: slider %s shows neither %q nor %q whole", name, c.ID, l[0], l[1])
		}
	}
	for _, b := range f.Boxes {
		if b.Name != "plot" {
			continue
		}
		for _, x := range f.Layers[scene.SceneLayer].Texts {
			if r := scene.TextBox(x); r.Overlaps(b.R) {
				t.Errorf("%s: %q %v lies over a chart's data %v", name, x.S, r, b.R)
			}
		}
	}
	least := scene.ValueUnits*f.Layout.T - 0.01
	for li, ly := range f.Layers[:scene.TopLayer] {
		for _, x := range ly.Texts {
			if x.Size < least && (strings.ContainsAny(x.S, "0123456789") || scene.IsStateWord(x.S)) {
				t.Errorf("%s: layer %d: %q at %.1f px, under %.1f px", name, li, x.S, x.Size, least)
			}
		}
	}
}

// checkBoxes checks the panels of frame f: the strips (HUD, replay
// banner, caption, message, control bar, footer) and the pools do not
// overlap; a dialog or menu covers none of the strips, nor the server it
// acts on.
func checkBoxes(t *testing.T, name string, f *scene.Frame) {
	t.Helper()
	fixed := map[string]bool{"hud": true, "banner": true, "caption": true, "message": true, "controls": true, "footer": true, "pool": true}
	bs := f.Boxes
	for i, a := range bs {
		for _, b := range bs[i+1:] {
			if !a.R.Overlaps(b.R) {
				continue
			}
			x, y := a.Name, b.Name
			if x > y {
				x, y = y, x
			}
			switch {
			case fixed[x] && fixed[y],
				x == "dialog" && fixed[y] && y != "pool",
				y == "dialog" && fixed[x] && x != "pool",
				x == "dialog" && y == "target":
				t.Errorf("%s: %s %v overlaps %s %v", name, a.Name, a.R, b.Name, b.R)
			}
		}
	}
}

// checkDialog checks that the open dialog of frame f holds its texts,
// none over another.
func checkDialog(t *testing.T, name string, f *scene.Frame) {
	t.Helper()
	i := slices.IndexFunc(f.Boxes, func(b scene.Box) bool { return b.Name == "dialog" })
	if i < 0 {
		t.Errorf("%s: no dialog", name)
		return
	}
	d := f.Boxes[i].R
	ts := f.Layers[scene.DialogLayer].Texts
	for k, x := range ts {
		a := scene.TextBox(x)
		if !d.Contains(a) {
			t.Errorf("%s: %q %v outside its dialog %v", name, x.S, a, d)
		}
		for _, y := range ts[k+1:] {
			if b := scene.TextBox(y); a.Overlaps(b) {
				t.Errorf("%s: %q %v overlaps %q %v", name, x.S, a, y.S, b)
			}
		}
	}
}

// TestChartsMarkChanges opens lessons with changes at their key moment:
// every time chart marks each change at its cycle (a dashed line of
// ChangeCol across its plot) and keys them; the retry storm's spike
// (arrivals raised at 20,000, lowered at 25,000) is shaded between.
func TestChartsMarkChanges(t *testing.T) {
	for _, tc := range []struct {
		lesson string
		at     int64
		marks  []int64
		spike  [2]int64
	}{
		{"server-fails", 1_000, []int64{300, 900}, [2]int64{}},
		{"retry-storm", 32_000, []int64{20_000, 25_000}, [2]int64{20_000, 25_000}},
	} {
		for _, present := range []bool{false, true} {
			s := openAt(t, "lesson", tc.lesson, present, tc.at)
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				name := fmt.Sprintf("%s %v present=%v", tc.lesson, size, present)
				f := s.Draw(size[0], size[1])
				end := s.State().Cycle + 1
				ci := 0
				for _, b := range f.Boxes {
					if b.Name != "plot" {
						continue
					}
					plot := b.R
					xAt := func(c int64) float32 { return plot.X + plot.W*float32(c)/float32(end) }
					quads := f.Layers[scene.SceneLayer].Quads
					for _, c := range tc.marks {
						n := 0
						for _, q := range quads {
							if q.C == scene.ChangeCol && plot.Contains(scene.Rect{X: q.P[0].X, Y: q.P[0].Y}) && q.P[0].X <= xAt(c) && q.P[1].X >= xAt(c) {
								n++
							}
						}
						if n < 3 {
							t.Errorf("%s: chart %d: %d dashes at cycle %d, want a dashed line", name, ci, n, c)
						}
					}
					if tc.spike[1] > 0 && !slices.ContainsFunc(quads, func(q scene.Quad) bool {
						return q.C != scene.ChangeCol && q.C.A < 0xff && q.P[0].X == xAt(tc.spike[0]) && q.P[1].X == xAt(tc.spike[1]) && q.P[0].Y == plot.Y
					}) {
						t.Errorf("%s: chart %d does not shade the spike from %d to %d", name, ci, tc.spike[0], tc.spike[1])
					}
					r := f.Layout.Charts[ci]
					if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool { return x.S == "changes" && r.Contains(scene.TextBox(x)) }) {
						t.Errorf("%s: chart %d does not key the changes", name, ci)
					}
					ci++
				}
				if ci == 0 {
					t.Fatalf("%s: no charts", name)
				}
			}
		}
	}
}

// checkMeasure checks that each lane's title in frame f shows the
// lesson's figure (lesson.Measure) of that lane, at the title's size.
func checkMeasure(t *testing.T, name, lessonName string, s *scene.Session, f *scene.Frame) {
	t.Helper()
	l, err := lesson.Find(lessonName)
	if err != nil {
		t.Fatal(err)
	}
	if l.Measure == lesson.NoMeasure || l.Measure == lesson.FinalQueue { // the queue's length is in the title anyway
		return
	}
	st := s.State()
	sums := []sim.Summary{st.Summary}
	if len(st.Lanes) > 0 {
		sums = nil
		for _, ln := range st.Lanes {
			sums = append(sums, ln.Summary)
		}
	}
	for i, sum := range sums {
		want := l.Measure.Of(sum)
		title := f.Layout.Lanes[i].Title
		if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool {
			return x.S == want && title.Contains(scene.TextBox(x)) && x.Size >= 17*f.Layout.T-0.01
		}) {
			t.Errorf("%s: lane %d's title does not show %q large", name, i, want)
		}
	}
}

// TestFastFailingShowsShares opens the fast-failing lesson at cycle 3,000
// (server 3 failing since 1,000): each server's share of its lane's
// requests is drawn beside its queue; round-robin gives server 3 about a
// tenth, least-connections gives it the most of any server, far more than
// a tenth: the claim "a fast-failing server attracts traffic" on screen.
func TestFastFailingShowsShares(t *testing.T) {
	s := openAt(t, "lesson", "fast-failing", true, 3_000)
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
		f := s.Draw(size[0], size[1])
		pct := func(str string) float64 {
			v, err := strconv.ParseFloat(strings.TrimSuffix(str, "%"), 64)
			if err != nil {
				t.Fatalf("share %q: %v", str, err)
			}
			return v
		}
		for lane := range 2 {
			sum, most, mostID := 0.0, 0.0, 0
			for id := 1; id <= 10; id++ {
				sh := s.ServerShare(lane, 0, id)
				ln := f.Layout.Lanes[lane]
				area := scene.Rect{X: ln.Queue.X, Y: ln.Pool.Y, W: ln.Pool.X + ln.Pool.W - ln.Queue.X, H: ln.Pool.H} // the pool widened over the queue (per-server)
				if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool {
					return x.S == sh && x.C == scene.ShareCol && area.Contains(scene.TextBox(x))
				}) {
					t.Errorf("%v lane %d: server %d's share %q is not drawn", size, lane, id, sh)
				}
				v := pct(sh)
				sum += v
				if v > most {
					most, mostID = v, id
				}
			}
			if sum < 95 || sum > 105 {
				t.Errorf("%v lane %d: the shares add up to %.0f%%", size, lane, sum)
			}
			three := pct(s.ServerShare(lane, 0, 3))
			switch lane {
			case 0:
				if three < 7 || three > 13 {
					t.Errorf("%v round-robin gives server 3 %.0f%%, want about a tenth", size, three)
				}
			case 1:
				if mostID != 3 || three < 30 {
					t.Errorf("%v least-connections gives server 3 %.0f%% (the most: server %d, %.0f%%), want the most", size, three, mostID, most)
				}
			}
		}
	}
}

// TestEmbeddedFits opens every lesson embedded in slides (no control bar)
// and presenting, at both sizes: no control is placed, the charts take the
// bar's room down to the footer, and the frame passes checkFits and
// checkBoxes; it keeps that through opening another lesson.
func TestEmbeddedFits(t *testing.T) {
	for _, l := range lesson.All {
		s := openAt(t, "lesson", l.Name, true, keyMoments[l.Name])
		s.SetEmbedded(true)
		for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
			name := fmt.Sprintf("%s %dx%d embedded", l.Name, size[0], size[1])
			f := s.Draw(size[0], size[1])
			checkFits(t, name, s, f)
			checkBoxes(t, name, f)
			if n := len(s.State().Controls); n != 0 || f.Layout.Controls.H != 0 {
				t.Errorf("%s: %d controls, a bar %v high", name, n, f.Layout.Controls.H)
			}
			if c := f.Layout.Charts[0]; c.Y+c.H < f.Layout.Footer.Y-20*f.Layout.Unit {
				t.Errorf("%s: the charts end at %.0f, the footer starts at %.0f: the bar's room is lost", name, c.Y+c.H, f.Layout.Footer.Y)
			}
		}
	}
}

// TestStateWordsReadable opens the lessons with a server in a state
// that has a word (fast-failing's server 3 failing in both lanes,
// server-fails' server 3 down) at their key moments, at both sizes,
// presenting or not: each such box shows its word, or a short form of it,
// at ValueUnits or more inside the box; the server menu opened on it
// names the state in full.
func TestStateWordsReadable(t *testing.T) {
	for _, tc := range []struct {
		lesson, state, word string
		at                  int64
	}{
		{"fast-failing", "failing", "failing", 3_000},
		{"server-fails", "down", "down", 600},
	} {
		for _, present := range []bool{false, true} {
			s := openAt(t, "lesson", tc.lesson, present, tc.at)
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				name := fmt.Sprintf("%s %v present=%v", tc.lesson, size, present)
				f := s.Draw(size[0], size[1])
				least := scene.ValueUnits*f.Layout.T - 0.01
				n := 0
				for _, b := range s.State().Servers {
					if !strings.Contains(b.Value, tc.state) {
						continue
					}
					n++
					if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool {
						return slices.Contains(scene.StateForms(tc.word), x.S) && x.Size >= least && b.R.Contains(scene.TextBox(x))
					}) {
						t.Errorf("%s: server %s (%s) shows no form of %q at %.1f px or more", name, b.ID, b.Value, tc.word, least)
					}
				}
				if n == 0 {
					t.Fatalf("%s: no server %s", name, tc.state)
				}
			}
			// G opens the menu on the first server, → twice picks server 3.
			s.HandleInput(scene.Input{Keys: []scene.Key{scene.RuneKey('g'), scene.KeyRight, scene.KeyRight}})
			s.Draw(1280, 720)
			if got, want := s.State().Controls[0].Value, "server 3 · "+tc.word; got != want {
				t.Errorf("%s present=%v: the server menu shows %q, want %q", tc.lesson, present, got, want)
			}
			s.Apply(scene.CloseDialog)
		}
	}
}

// TestLessonsPauseAtTheirMoments: a lesson with a moment a class should
// not miss pauses there (its pause-at, which its caption names) and shows
// it: server-fails just after the re-queue, the HUD counting it;
// fast-failing when server 3 has taken far more than a tenth of
// least-connections' requests; the retry storm as its spike ends, the
// spike shaded and both lanes retrying.
func TestLessonsPauseAtTheirMoments(t *testing.T) {
	for _, tc := range []struct {
		name  string
		at    int64
		shows func(s *scene.Session, f *scene.Frame) error
	}{
		{"server-fails", 301, func(s *scene.Session, f *scene.Frame) error {
			if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool { return x.S == "requeued 1" }) {
				return fmt.Errorf("the HUD does not count the re-queue")
			}
			// The move itself, in words in the lane's title and as an
			// arrow from the failed server (RequeueCol).
			if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool {
				return strings.HasPrefix(x.S, "re-queued #") && strings.Contains(x.S, "server 3 → ")
			}) {
				return fmt.Errorf("the picture does not say where the re-queued request went")
			}
			if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Quads, func(q scene.Quad) bool { return q.C == scene.RequeueCol }) {
				return fmt.Errorf("no re-queue arrow")
			}
			return nil
		}},
		{"fast-failing", 10_000, func(s *scene.Session, f *scene.Frame) error {
			if sh := s.ServerShare(1, 0, 3); sh == "" || len(sh) < 3 || sh[:2] < "30" {
				return fmt.Errorf("least-connections gives server 3 %q of its requests", sh)
			}
			return nil
		}},
		{"overload-control", 50_000, func(s *scene.Session, f *scene.Frame) error {
			// The AIMD lane writes each of its ten servers' limits beside
			// its queue; the HUD counts what each defence turned away.
			limits := 0
			for _, x := range f.Layers[scene.SceneLayer].Texts {
				if x.C == scene.LimitCol && strings.HasPrefix(x.S, " ≤") {
					limits++
				}
			}
			if limits != 10 {
				return fmt.Errorf("%d limits drawn beside the queues, want the AIMD lane's ten", limits)
			}
			ls := s.State().Lanes
			for _, w := range []string{"shed " + scene.Commas(ls[1].Summary.Shed), "limited " + scene.Commas(ls[2].Summary.Limited)} {
				if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool { return strings.Contains(x.S, w) }) {
					return fmt.Errorf("the HUD does not say %q", w)
				}
			}
			return nil
		}},
		{"retry-storm", 50_000, func(s *scene.Session, f *scene.Frame) error {
			for i, l := range s.State().Lanes {
				if l.Summary.Retries == 0 {
					return fmt.Errorf("lane %d has not retried", i)
				}
			}
			if !slices.ContainsFunc(f.Layers[scene.SceneLayer].Texts, func(x scene.Text) bool { return x.S == "changes" }) {
				return fmt.Errorf("the spike is not marked")
			}
			return nil
		}},
	} {
		l, err := lesson.Find(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		want := "pauses at cycle " + scene.Commas(tc.at)
		if !slices.Contains(l.Params(), [2]string{"pause-at", strconv.FormatInt(tc.at, 10)}) || !strings.Contains(strings.Join(l.Caption, " "), want) {
			t.Errorf("%s: want pause-at=%d and its caption saying %q", tc.name, tc.at, want)
			continue
		}
		s := openAt(t, "lesson", tc.name, true, -1)
		if st := s.State(); !st.Paused || st.Cycle != tc.at {
			t.Errorf("%s: cycle %d, paused %v: want paused at %d", tc.name, st.Cycle, st.Paused, tc.at)
			continue
		}
		if err := tc.shows(s, s.Draw(1920, 1080)); err != nil {
			t.Errorf("%s at cycle %d: %v", tc.name, tc.at, err)
		}
	}
}

// TestPausedPagesShowTheirCaptions opens every lesson that pauses at its
// pause and checks what its caption says of that picture (CheckPause) on
// the page's own lanes there: the figures in the lanes' titles are the
// caption's (the CLI checks the same on its run stopped at the pause).
func TestPausedPagesShowTheirCaptions(t *testing.T) {
	for _, l := range lesson.All {
		if !slices.ContainsFunc(l.Params(), func(p [2]string) bool { return p[0] == "pause-at" }) {
			continue
		}
		if l.CheckPause == nil {
			t.Errorf("%s pauses but has no CheckPause", l.Name)
			continue
		}
		s := openAt(t, "lesson", l.Name, true, -1)
		sums := []sim.Summary{s.State().Summary} // a single run
		if lanes := s.State().Lanes; lanes != nil {
			sums = nil
			for _, ln := range lanes {
				sums = append(sums, ln.Summary)
			}
		}
		if err := l.CheckPause(sums); err != nil {
			t.Errorf("%s paused at cycle %d: %v", l.Name, s.State().Cycle, err)
		}
	}
}
