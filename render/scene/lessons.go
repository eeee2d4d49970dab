package scene

import (
	"slices"
	"strings"

	"github.com/lbsim/lbsim/render/lesson"
)

// The dialogs; one at most is open, and it takes all input.
const (
	dialogNone = iota
	dialogShare
	dialogLessons
	dialogFirewall
	dialogServer // the server menu (servermenu.go)
	dialogClients
	dialogHealth // the clients and health panels (panels.go)
)

// WLessonPrefix starts the ids of the lessons menu's entries: "lesson:NAME";
// WComparisonPrefix those of its ready-made comparisons: "comparison:NAME";
// WTopicPrefix those of its topics' row: "topic:NAME".
const (
	WLessonPrefix     = "lesson:"
	WComparisonPrefix = "comparison:"
	WTopicPrefix      = "topic:"
)

// menuEntry is one entry of the lessons menu: a lesson or a ready-made
// comparison, under its topic.
type menuEntry struct {
	id, label string
	topic     lesson.Topic
	open      func(s *Session)
}

// menuEntries are the lessons menu's entries: the lessons, then the
// ready-made comparisons (under their own topic).
var menuEntries = func() []menuEntry {
	var es []menuEntry
	for _, l := range lesson.All {
		es = append(es, menuEntry{WLessonPrefix + l.Name, l.Title, l.Topic, func(s *Session) { s.OpenLesson(l.Name) }})
	}
	for _, c := range lesson.Comparisons {
		es = append(es, menuEntry{WComparisonPrefix + c.Name, "compare: " + c.Title, lesson.TopicComparisons,
			func(s *Session) { s.OpenComparison(c.Name) }})
	}
	return es
}()

// lessonWidgets are the lessons menu: a row of the topics, the chosen
// topic's entries, then cancel. One topic at a time keeps every entry's
// row tall and its text large however many lessons there are.
func (s *Session) lessonWidgets() []widget {
	return menuWidgets(menuEntries, lesson.Topics(), s.menuTopicOf())
}

// menuTopicOf is the topic the menu shows: the one last chosen, else the
// open lesson's (or comparison's), else the first.
func (s *Session) menuTopicOf() lesson.Topic {
	if s.menuTopic != lesson.NoTopic {
		return s.menuTopic
	}
	title := strings.TrimPrefix(strings.TrimPrefix(s.opts.Title, "Lesson: "), "Comparison: ")
	for _, e := range menuEntries {
		if t := strings.TrimPrefix(e.label, "compare: "); title != "" && (title == t || strings.HasPrefix(title, t+", now try: ")) {
			return e.topic
		}
	}
	return lesson.Topics()[0]
}

// menuWidgets are the menu of entries es under topics with topic shown:
// the topics' row (rowTab), topic's entries (rowList), cancel.
func menuWidgets(es []menuEntry, topics []lesson.Topic, topic lesson.Topic) []widget {
	var ws []widget
	for _, tp := range topics {
		ws = append(ws, widget{id: WTopicPrefix + tp.String(), kind: kButton, label: tp.String(), row: rowTab,
			act: func(s *Session) { s.menuTopic = tp },
			on:  func(s *Session) bool { return s.menuTopicOf() == tp }})
	}
	for _, e := range es {
		if e.topic == topic {
			ws = append(ws, widget{id: e.id, kind: kButton, label: e.label, row: rowList, act: e.open})
		}
	}
	return append(ws, widget{id: "lesson-cancel", kind: kButton, label: "cancel (Esc)", row: rowList, width: 160, intent: CloseDialog})
}

// menuKey moves the lessons menu by k: ← and → (or Page Up and Page Down)
// show the topic before or after, its tab focused (↑ and ↓ move along the
// list: listKey). It reports whether it took k.
func (s *Session) menuKey(k Key) bool {
	if s.dialog != dialogLessons {
		return false
	}
	ts := lesson.Topics()
	i := slices.Index(ts, s.menuTopicOf())
	switch k {
	case KeyLeft, KeyPageUp:
		i = (i - 1 + len(ts)) % len(ts)
	case KeyRight, KeyPageDown:
		i = (i + 1) % len(ts)
	default:
		return false
	}
	s.menuTopic, s.focus = ts[i], i
	return true
}

// listKey moves the focus of a list dialog (the lessons menu, the
// question's answers, the firewall's list, the server menu) up or down by
// ↑ or ↓, wrapping at the ends, when the focused control did not take the
// key. It reports whether it took k.
func (s *Session) listKey(ws []widget, k Key) bool {
	if s.dialog == dialogNone || (k != KeyUp && k != KeyDown) || countRow(ws, rowList) == 0 {
		return false
	}
	s.focus = nextFocus(s.focus, len(ws), k == KeyUp)
	return true
}

// listDialog is the rectangle of a dialog that lists n entries (the
// lessons menu, the firewall's block list, the server menu).
func listDialog(l Layout, n int) Rect { return listGeom(l, n, 0).d }

// listLayout is a list dialog's geometry: its rectangle, its entries in
// cols columns of rows, pitch apart, from y0 down; a row of tabs at tabY.
type listLayout struct {
	d          Rect
	cols, rows int
	pitch      float32
	y0, tabY   float32
}

// tabRowUnits is the height a dialog's row of tabs takes, in design pixels.
const tabRowUnits = 46

// listGeom places a list of n entries in the stage: one column of 42
// design pixels a row, or less when that does not fit; two columns across
// the stage when a row would be under 30 (many entries under a caption in
// presentation mode). The server menu, narrower, stands beside its server
// (Layout.Target). With tabs > 0 a row of tabs heads the list in the
// title's place (the lessons menu: its topics).
func listGeom(l Layout, n, tabs int) listLayout {
	u := l.T
	st := l.Stage()
	n = max(n, 1)
	head := float32(48) * u // the title
	if tabs > 0 {
		head = (12 + tabRowUnits) * u
	}
	room := st.H - head - 12*u
	lg := listLayout{cols: 1, rows: n}
	lg.pitch = min(42*u, room/float32(n))
	w := float32(760) * u
	if lg.pitch < 30*u {
		lg.cols, lg.rows = 2, (n+1)/2
		lg.pitch = min(42*u, room/float32(lg.rows))
		w = st.W
	}
	h := float32(lg.rows)*lg.pitch + head + 12*u
	if l.Target.W > 0 && lg.cols == 1 && tabs == 0 {
		lg.d = besideTarget(l, 480*u, h)
	} else {
		lg.d = l.centred(w, h)
	}
	lg.tabY, lg.y0 = lg.d.Y+12*u, lg.d.Y+head
	return lg
}

// besideTarget places a w×h dialog in the stage beside the box
// l.Target: at its left when there is room, else at its right, else
// above or under it; level with it where the stage allows.
func besideTarget(l Layout, w, h float32) Rect {
	st, t, gap := l.Stage(), l.Target, 10*l.Unit
	y := min(max(t.Y+t.H/2-h/2, st.Y), st.Y+st.H-h)
	for _, x := range []float32{t.X - gap - w, t.X + t.W + gap} {
		if r := (Rect{x, y, w, h}); st.Contains(r) && !r.Overlaps(t) {
			return r
		}
	}
	// Narrowed to the wider side's room, down to two thirds of w.
	left, right := t.X-gap-st.X, st.X+st.W-(t.X+t.W+gap)
	if nw := max(left, right); nw >= w*2/3 {
		if left >= right {
			return Rect{t.X - gap - nw, y, nw, h}
		}
		return Rect{t.X + t.W + gap, y, nw, h}
	}
	x := min(max(t.X+t.W/2-w/2, st.X), st.X+st.W-w)
	if t.Y-gap-h >= st.Y {
		return Rect{x, t.Y - gap - h, w, h}
	}
	return Rect{x, t.Y + t.H + gap, w, h}
}

// OpenLesson restarts with the lesson's settings (through Options.Lesson,
// which the platform supplies) and shows its caption.
func (s *Session) OpenLesson(name string) { s.openPreset("lesson", name, s.opts.Lesson) }

// OpenComparison opens the ready-made comparison's compare view (through
// Options.Comparison, which the platform supplies).
func (s *Session) OpenComparison(name string) { s.openPreset("comparison", name, s.opts.Comparison) }

// openPreset restarts with the options open gives for name, keeping the
// controls' state and the frame counters.
func (s *Session) openPreset(what, name string, open func(string) (Options, error)) {
	s.dialog, s.focus = dialogNone, -1
	if open == nil {
		s.say(what+"s are not available here", true)
		return
	}
	o, err := open(name)
	if err == nil {
		o.Lesson, o.Comparison, o.RandomSeed = s.opts.Lesson, s.opts.Comparison, s.opts.RandomSeed
		var n *Session
		if n, err = New(o); err == nil {
			keep := s.controlState
			frames, tick, words := s.frames, s.tick, s.words.after(n.words)
			*s = *n
			s.words = words
			s.controlState = keep
			s.focus, s.dragging = -1, -1
			if s.quiz.asking {
				s.focus = 0 // the first answer
			}
			s.frames, s.tick = frames, tick
			return
		}
	}
	s.say(what+" "+name+": "+err.Error(), true)
}

// drawLessonsDialog draws the lessons menu's panel; its topics' row
// heads it (the caption gives it its room while it is open: captionShown).
func (s *Session) drawLessonsDialog(f *Frame, l Layout) {
	if s.dialog != dialogLessons {
		return
	}
	u := l.T
	ws := s.lessonWidgets()
	d := listGeom(l, countRow(ws, rowList), countRow(ws, rowTab)).d
	f.box("dialog", d)
	f.rect(DialogLayer, d, Background)
	f.stroke(DialogLayer, d, 2*u, BusyColor)
}

// drawCaption shows the lesson's caption in its strip under the HUD.
func (s *Session) drawCaption(f *Frame, l Layout) {
	if len(s.captionShown()) == 0 {
		return
	}
	u := l.T
	r := l.Caption
	f.rect(OverlayLayer, r, InfoPane)
	f.stroke(OverlayLayer, r, max(u, 1), BusyColor)
	for i, line := range s.captionShown() {
		f.text(OverlayLayer, line, r.X+10*u, r.Y+5*u+float32(i)*CaptionLineUnits*u, 14*u, i == 0 && false, AlignStart, TextColor)
	}
	f.text(OverlayLayer, "Esc hides", r.X+r.W-10*u, r.Y+5*u, 12*u, false, AlignEnd, DimText)
}

// comparisonNames lists the ready-made comparisons (lesson.Comparisons).
func comparisonNames() []string {
	var ns []string
	for _, c := range lesson.Comparisons {
		ns = append(ns, c.Name)
	}
	return ns
}

// CaptionLineChars is the most characters a line of a caption holds: the
// strip under the HUD shows that many at every screen size.
const CaptionLineChars = 100

// CaptionLines wraps a caption's text (a teacher's words) into lines of at
// most CaptionLineChars characters, at spaces where it can.
func CaptionLines(text string) []string {
	var lines []string
	line := []rune{}
	for _, w := range strings.Fields(text) {
		word := []rune(w)
		for len(word) > CaptionLineChars { // a word longer than a line
			if len(line) > 0 {
				lines, line = append(lines, string(line)), nil
			}
			lines, word = append(lines, string(word[:CaptionLineChars])), word[CaptionLineChars:]
		}
		switch {
		case len(line) == 0:
			line = word
		case len(line)+1+len(word) <= CaptionLineChars:
			line = append(append(line, ' '), word...)
		default:
			lines, line = append(lines, string(line)), word
		}
	}
	if len(line) > 0 {
		lines = append(lines, string(line))
	}
	return lines
}
