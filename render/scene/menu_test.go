package scene

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
)

// manyEntries are n made-up menu entries, as long as the longest real
// titles, spread over the topics in turn; opened records the one opened.
func manyEntries(n int, opened *string) []menuEntry {
	var es []menuEntry
	ts := lesson.Topics()
	for i := range n {
		id := fmt.Sprintf("%slesson-%d", WLessonPrefix, i)
		label := fmt.Sprintf("lesson %d: a title as long as the longest ones in the menu, seventy characters", i)
		es = append(es, menuEntry{id, label, ts[i%len(ts)], func(s *Session) { *opened = id; s.dialog, s.focus = dialogNone, -1 }})
	}
	return es
}

// menuSession is a session presenting with a four-line caption and the
// theory panel (the least room a menu gets), with the menu's entries es.
func menuSession(t *testing.T, present bool) *Session {
	t.Helper()
	s, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: 1, Present: present, Theory: true,
		Caption: []string{"one line of a caption", "a second", "a third", "and a fourth, as the longest captions have"}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkMenuReadable opens the menu and checks, for every topic shown in
// turn, that each entry's button is at least 25 design pixels tall (rows
// 30 apart), its text
// whole inside it at 15 or more (a projector's back row), inside the
// dialog, no two texts overlapping; and that every entry of es is shown
// under one topic or another.
func checkMenuReadable(t *testing.T, name string, s *Session, es []menuEntry, w, h int) {
	t.Helper()
	s.Apply(CloseDialog)
	s.Apply(OpenLessons)
	u := s.layout(w, h).T
	seen := map[string]bool{}
	for range lesson.Topics() {
		f := s.Draw(w, h)
		checkDialogTexts(t, name, f)
		for _, c := range s.State().Controls {
			if !strings.HasPrefix(c.ID, WLessonPrefix) && !strings.HasPrefix(c.ID, WComparisonPrefix) {
				continue
			}
			seen[c.ID] = true
			if c.R.H < 25*u {
				t.Errorf("%s: entry %s's row is %.1f px tall, under 25 design pixels (%.1f)", name, c.ID, c.R.H, 25*u)
			}
			i := slices.IndexFunc(f.Layers[DialogLayer].Texts, func(x Text) bool { return x.S == c.Value })
			if i < 0 {
				t.Errorf("%s: entry %s's text %q not drawn", name, c.ID, c.Value)
				continue
			}
			x := f.Layers[DialogLayer].Texts[i]
			if x.Size < 15*u || !c.R.Contains(TextBox(x)) {
				t.Errorf("%s: entry %s's text at %.1f px (want 15 design pixels, %.1f), box %v in row %v", name, c.ID, x.Size, 15*u, TextBox(x), c.R)
			}
		}
		s.HandleInput(Input{Keys: []Key{KeyRight}})
	}
	for _, e := range es {
		if !seen[e.id] {
			t.Errorf("%s: entry %s is under no topic shown", name, e.id)
		}
	}
}

// checkDialogTexts: every text of the dialog's layer inside the dialog,
// none over another.
func checkDialogTexts(t *testing.T, name string, f *Frame) {
	t.Helper()
	i := slices.IndexFunc(f.Boxes, func(b Box) bool { return b.Name == "dialog" })
	if i < 0 {
		t.Fatalf("%s: no dialog", name)
	}
	d, ts := f.Boxes[i].R, f.Layers[DialogLayer].Texts
	for k, x := range ts {
		a := TextBox(x)
		if !d.Contains(a) {
			t.Errorf("%s: %q %v outside its dialog %v", name, x.S, a, d)
		}
		for _, y := range ts[k+1:] {
			if b := TextBox(y); a.Overlaps(b) {
				t.Errorf("%s: %q %v overlaps %q %v", name, x.S, a, y.S, b)
			}
		}
	}
}

// TestLessonsMenuHoldsMany: with 30 entries (eight more than the menu
// held when it was one list) and with the real ones, at 1280×720 and
// 1920×1080, presenting or not, under a caption and the theory panel,
// every entry is shown under its topic in a row a projector's back row
// reads. The one list put 30 entries in two columns whose texts shrank
// under 15 design pixels presenting at both sizes.
func TestLessonsMenuHoldsMany(t *testing.T) {
	var opened string
	for _, tc := range []struct {
		name string
		es   []menuEntry
	}{{"real", menuEntries}, {"30 entries", manyEntries(30, &opened)}, {"40 entries", manyEntries(40, &opened)}} {
		old := menuEntries
		menuEntries = tc.es
		for _, present := range []bool{false, true} {
			s := menuSession(t, present)
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				checkMenuReadable(t, fmt.Sprintf("%s %v present=%v", tc.name, size, present), s, tc.es, size[0], size[1])
			}
		}
		menuEntries = old
	}
}

// TestLessonsMenuByKeyAndMouse opens each of 30 entries, one by the keys
// (→ to its topic, ↓ to it, Enter) and one by the mouse (its topic's tab,
// then the entry), and checks the keys' moves at the ends: ← from the
// first topic wraps to the last, ↑ from the first row to cancel, Tab
// walks tabs, entries and cancel in order; Enter on a tab shows its topic.
func TestLessonsMenuByKeyAndMouse(t *testing.T) {
	var opened string
	es := manyEntries(30, &opened)
	old := menuEntries
	menuEntries = es
	defer func() { menuEntries = old }()
	s := menuSession(t, true)
	ts := lesson.Topics()
	for k, e := range es {
		s.menuTopic = lesson.NoTopic
		s.Draw(1280, 720)
		s.Apply(OpenLessons)
		ti := slices.Index(ts, e.topic)
		if k%2 == 0 { // by the keys
			for range ti {
				s.HandleInput(Input{Keys: []Key{KeyRight}})
			}
			if st := s.State(); ti > 0 && st.Focus != WTopicPrefix+e.topic.String() {
				t.Fatalf("%s: → %d times: focus %q", e.id, ti, st.Focus)
			}
			ws := s.lessonWidgets()
			for s.focus < len(ws) && ws[s.focus].id != e.id {
				s.HandleInput(Input{Keys: []Key{KeyDown}})
			}
			s.HandleInput(Input{Keys: []Key{KeyEnter}})
		} else { // by the mouse
			tab := control(t, s, WTopicPrefix+e.topic.String())
			s.HandleInput(Input{X: tab.R.X + tab.R.W/2, Y: tab.R.Y + tab.R.H/2, Pressed: true, Down: true})
			s.HandleInput(Input{Released: true})
			s.Draw(1280, 720)
			c := control(t, s, e.id)
			s.HandleInput(Input{X: c.R.X + c.R.W/2, Y: c.R.Y + c.R.H/2, Pressed: true, Down: true})
			s.HandleInput(Input{Released: true})
		}
		if opened != e.id || s.dialog != dialogNone {
			t.Fatalf("entry %d: opened %q, dialog %d, want %s", k, opened, s.dialog, e.id)
		}
	}
	// The ends.
	s.menuTopic = lesson.NoTopic
	s.Apply(OpenLessons)
	s.HandleInput(Input{Keys: []Key{KeyLeft}})
	if st := s.State(); s.menuTopicOf() != ts[len(ts)-1] || st.Focus != WTopicPrefix+ts[len(ts)-1].String() {
		t.Errorf("← from the first topic: topic %v, focus %q", s.menuTopicOf(), st.Focus)
	}
	s.HandleInput(Input{Keys: []Key{KeyRight}})
	ws := s.lessonWidgets()
	if s.menuTopicOf() != ts[0] {
		t.Errorf("→ from the last topic: topic %v", s.menuTopicOf())
	}
	s.focus = len(ts) // the first entry
	s.HandleInput(Input{Keys: []Key{KeyUp}})
	if s.focus != len(ts)-1 {
		t.Errorf("↑ from the first entry: focus %d, want the last tab %d", s.focus, len(ts)-1)
	}
	s.focus = len(ws) - 1
	s.HandleInput(Input{Keys: []Key{KeyDown}})
	if s.focus != 0 {
		t.Errorf("↓ from cancel: focus %d, want the first tab", s.focus)
	}
	var order []string
	for range ws {
		order = append(order, s.State().Focus)
		s.HandleInput(Input{Keys: []Key{KeyTab}})
	}
	if want := slices.Collect(func(yield func(string) bool) {
		for _, w := range ws {
			if !yield(w.id) {
				return
			}
		}
	}); !slices.Equal(order, want) {
		t.Errorf("Tab order %v, want %v", order, want)
	}
	// Enter on a tab shows its topic; the focus stays on the tab.
	s.focus = 2
	s.HandleInput(Input{Keys: []Key{KeyEnter}})
	if s.menuTopicOf() != ts[2] || s.State().Focus != WTopicPrefix+ts[2].String() {
		t.Errorf("Enter on tab 3: topic %v, focus %q", s.menuTopicOf(), s.State().Focus)
	}
	s.HandleInput(Input{Keys: []Key{KeyEscape}})
	if s.dialog != dialogNone {
		t.Error("Esc left the menu open")
	}
}

// TestLessonsMenuInWords: the words say a focused tab is a topic, and
// whether it is the one shown.
func TestLessonsMenuInWords(t *testing.T) {
	s := menuSession(t, false)
	s.Draw(1280, 720)
	s.Apply(OpenLessons)
	s.HandleInput(Input{Keys: []Key{KeyRight}})
	if w := s.State().Words.Status; !strings.Contains(w, "Focus: "+lesson.Topics()[1].String()+", the topic shown") {
		t.Errorf("→ in the menu: words %q", w)
	}
	s.focus = 0 // the first tab, not shown now
	if w := s.State().Words.Status; !strings.Contains(w, "Focus: "+lesson.Topics()[0].String()+", a topic (Enter shows it)") {
		t.Errorf("the first tab focused: words %q", w)
	}
}
