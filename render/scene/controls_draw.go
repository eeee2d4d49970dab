package scene

import (
	"cmp"
	"fmt"
	"image/color"
	"strings"
)

// Colours of the controls.
var (
	Track    = color.RGBA{0x3a, 0x45, 0x52, 0xff}
	Knob     = color.RGBA{0xe6, 0xed, 0xf3, 0xff}
	FocusCol = color.RGBA{0xff, 0xd3, 0x3d, 0xff} // keyboard focus: yellow frame
	Button   = color.RGBA{0x27, 0x31, 0x3d, 0xff}
	InfoPane = color.RGBA{0x12, 0x3a, 0x5c, 0xf0}
	ReplayCo = color.RGBA{0x8a, 0x5c, 0xf6, 0xff} // the replay banner
)

// controlRects places the controls of s.controls() in l: the sliders in
// the first row of the control bar, the rest in the second, the scrub bar
// in the replay banner under the HUD.
func (s *Session) controlRects(l Layout) []Rect { return controlRectsOf(l, s.controls()) }

// controlRectsOf places the controls ws in l.
func controlRectsOf(l Layout, ws []widget) []Rect {
	if l.ControlRows == 3 {
		return controlRects3(l, ws)
	}
	u := l.T
	c := l.Controls
	rs := make([]Rect, len(ws))
	gap := 10 * u
	rowH := 36 * u
	// The first row: controls with a width have it, the sliders share
	// the rest equally.
	n, fixed, sliders := 0, float32(0), 0
	for _, w := range ws {
		if w.row == rowSliders {
			n++
			if w.width > 0 {
				fixed += w.width * u
			} else {
				sliders++
			}
		}
	}
	sw := (c.W - fixed - gap*float32(n-1)) / float32(max(sliders, 1))
	// The second row's widths, narrowed together when they do not fit.
	var row2 float32
	m := 0
	for _, w := range ws {
		if w.row == rowButtons {
			row2 += w.width * u
			m++
		}
	}
	squeeze := float32(1)
	if avail := c.W - 8*u*float32(max(m-1, 0)); row2 > avail && row2 > 0 {
		squeeze = avail / row2
	}
	x, x1 := c.X, c.X
	for i, w := range ws {
		switch w.row {
		case rowSliders:
			ww := sw
			if w.width > 0 {
				ww = w.width * u
			}
			rs[i] = Rect{x1, c.Y, ww, rowH}
			x1 += ww + gap
		case rowBanner:
			rs[i] = scrubRect(l)
		case rowButtons:
			ww := w.width * u * squeeze
			rs[i] = Rect{x, c.Y + rowH + 8*u, ww, rowH}
			x += ww + 8*u
		}
	}
	dialogRects(l, ws, rs)
	return rs
}

// scrubRect is the scrub bar's place: the right half of the replay banner.
func scrubRect(l Layout) Rect {
	u, b := l.T, l.Banner
	return Rect{b.X + b.W*0.5, b.Y + 2*u, b.W*0.5 - 4*u, b.H - 4*u}
}

// controlRects3 places the controls ws in a control bar of three rows:
// the sliders alone in the first, sharing it equally (so that their
// labels fit at a projector's size), then the first row's other controls
// and the buttons' row flowing over the second and third rows in Tab
// order, each at its width, the last row narrowed when it does not fit.
func controlRects3(l Layout, ws []widget) []Rect {
	u := l.T
	c := l.Controls
	rs := make([]Rect, len(ws))
	gap, rowH := 10*u, 36*u
	sliders := 0
	for _, w := range ws {
		if w.row == rowSliders && w.width == 0 {
			sliders++
		}
	}
	sw := (c.W - gap*float32(max(sliders-1, 0))) / float32(max(sliders, 1))
	// The flow: which of rows 2 and 3 each control takes.
	var flow []int
	for i, w := range ws {
		if (w.row == rowSliders && w.width > 0) || w.row == rowButtons {
			flow = append(flow, i)
		}
	}
	row := make([]int, len(ws))
	used := [2]float32{}
	r := 0
	for _, i := range flow {
		ww := ws[i].width * u
		if r == 0 && used[0] > 0 && used[0]+8*u+ww > c.W {
			r = 1
		}
		if used[r] > 0 {
			used[r] += 8 * u
		}
		used[r] += ww
		row[i] = r
	}
	squeeze := [2]float32{1, 1}
	for k := range used {
		if used[k] > c.W {
			squeeze[k] = c.W / used[k]
		}
	}
	x, xs := c.X, [2]float32{c.X, c.X}
	for i, w := range ws {
		switch {
		case w.row == rowSliders && w.width == 0:
			rs[i] = Rect{x, c.Y, sw, rowH}
			x += sw + gap
		case w.row == rowBanner:
			rs[i] = scrubRect(l)
		case w.row == rowSliders || w.row == rowButtons:
			k := row[i]
			ww := w.width * u * squeeze[k]
			rs[i] = Rect{xs[k], c.Y + float32(k+1)*(rowH+8*u), ww, rowH}
			xs[k] += ww + 8*u*squeeze[k]
		}
	}
	dialogRects(l, ws, rs)
	return rs
}

// sliderTexts returns what a slider w wide (less its padding) shows: its
// label (the full one, else the short one, never cut) and its value (as
// written, else compact, shrunk only when even that does not fit) at
// size vs.
func sliderTexts(label, short, value string, u, w float32) (string, string, float32) {
	ls, vs := 13*u, 15*u
	fits := func(l, v string) bool { return TextWidth(l, ls, false)+8*u+TextWidth(v, vs, true) <= w }
	for _, v := range []string{value, compactValue(value)} {
		for _, l := range []string{label, short} {
			if l != "" && fits(l, v) {
				return l, v, vs
			}
		}
	}
	if short == "" {
		short = label
	}
	v := compactValue(value)
	return short, v, fitSize(v, vs, true, w-8*u-TextWidth(short, ls, false))
}

// compactValue is a slider's value in fewer characters: speeds per second
// as "/s", max speed as "max", a reason in parentheses left out.
func compactValue(v string) string {
	if i := strings.Index(v, " ("); i > 0 {
		v = v[:i]
	}
	v = strings.Replace(v, " cycles/s", "/s", 1)
	v = strings.Replace(v, " cycle/s", "/s", 1)
	return strings.Replace(v, "max speed", "max", 1)
}

// sliderTrack is the track of a slider drawn in r.
func sliderTrack(r Rect, u float32) Rect {
	return Rect{r.X + 8*u, r.Y + r.H - 11*u, r.W - 16*u, 6 * u}
}

// drawControls draws the controls; while a dialog is open, the control bar
// is drawn under it (not taking input) and the dialog's controls over it.
func (s *Session) drawControls(f *Frame, l Layout) {
	if s.dialog != dialogNone {
		d := s.dialog
		s.dialog = dialogNone
		s.drawWidgets(f, l, s.controls(), -1)
		s.dialog = d
	}
	s.drawWidgets(f, l, s.controls(), s.focus)
}

func (s *Session) drawWidgets(f *Frame, l Layout, ws []widget, focus int) {
	u := l.T
	rs := controlRectsOf(l, ws)
	for i, w := range ws {
		r := rs[i]
		focused := i == focus
		layer := OverlayLayer
		if w.row == rowDialog || w.row == rowList || w.row == rowPanel || w.row == rowTab {
			layer = DialogLayer // over the dialog's panel
		}
		switch w.kind {
		case kSlider:
			f.rect(layer, r, Panel)
			// The value and the label, each whole: the label's short form
			// and the value's compact one where they do not fit together.
			label, v, vs := sliderTexts(w.label, w.short, s.valueText(i, w), u, r.W-16*u)
			f.text(layer, label, r.X+8*u, r.Y+3*u, 13*u, false, AlignStart, DimText)
			f.text(layer, v, r.X+r.W-8*u, r.Y+2*u, vs, true, AlignEnd, TextColor)
			t := sliderTrack(r, u)
			f.rect(layer, t, Track)
			fr := sliderFrac(w, s.value(i, w))
			f.rect(layer, Rect{t.X, t.Y, t.W * fr, t.H}, BusyColor)
			f.rect(layer, Rect{t.X + t.W*fr - 4*u, t.Y - 5*u, 8 * u, t.H + 10*u}, Knob)
		case kChoice:
			f.rect(layer, r, Button)
			if w.row == rowDialog || w.row == rowList || w.row == rowPanel {
				// The label whole where it fits beside the value, else its
				// short form (a row's control: the setting's name).
				v := "< " + s.valueText(i, w) + " >"
				room := r.W - 28*u - TextWidth(v, 16*u, true)
				label := f.fitFirst(16*u, false, room, w.label, cmp.Or(w.short, w.id))
				f.text(layer, label, r.X+10*u, r.Y+9*u, 16*u, false, AlignStart, DimText)
				f.text(layer, v, r.X+r.W-10*u, r.Y+9*u, 16*u, true, AlignEnd, TextColor)
				break
			}
			ls, vy, vs := 11*u, 15*u, 16*u
			if w.row == rowSliders {
				ls, vy, vs = 13*u, 17*u, 15*u // as the sliders' labels and values beside it
			}
			f.text(layer, w.label, r.X+8*u, r.Y+2*u, ls, false, AlignStart, DimText)
			v := "< " + s.valueText(i, w) + " >"
			f.text(layer, v, r.X+8*u, r.Y+vy, fitSize(v, vs, true, r.W-16*u), true, AlignStart, TextColor)
		case kField:
			f.rect(layer, r, Button)
			f.text(layer, "seed", r.X+10*u, r.Y+9*u, 16*u, false, AlignStart, DimText)
			box := Rect{r.X + 58*u, r.Y + 5*u, r.W - 64*u, r.H - 10*u}
			f.rect(layer, box, Background)
			txt := s.valueText(i, w)
			if s.seedEdit.editing && focused {
				txt += "_"
			}
			f.text(layer, txt, box.X+6*u, r.Y+9*u, fitSize(txt, 16*u, true, box.W-12*u), true, AlignStart, TextColor) // a 20-digit seed too
		case kButton:
			if w.on != nil {
				s.drawTab(f, layer, r, w, u)
				break
			}
			f.rect(layer, r, Button)
			// Centred in the button at any size: a label shrunk to fit
			// ("compare: on") sits on the others' line, and a list's
			// row (the lessons menu) holds its text off its edges.
			size := float32(16) * u
			if w.row == rowList {
				size = min(size, (r.H-2*u)/1.1) // a crowded list: each text within its row
			}
			size = fitSize(s.valueText(i, w), size, false, r.W-10*u)
			f.text(layer, s.valueText(i, w), r.X+r.W/2, r.Y+r.H/2-0.55*size, size, false, AlignCenter, TextColor)
		}
		if focused {
			f.stroke(layer, r.Inset(-2*u), 2*u, FocusCol)
		}
	}
}

// drawTab draws tab w in r: the one shown filled and framed, its name in
// bold and underlined (not by colour alone), the others plain.
func (s *Session) drawTab(f *Frame, layer int, r Rect, w widget, u float32) {
	on := w.on(s)
	size := fitSize(w.label, 16*u, on, r.W-12*u)
	if !on {
		f.rect(layer, r, Button)
		f.text(layer, w.label, r.X+r.W/2, r.Y+r.H/2-0.55*size, size, false, AlignCenter, DimText)
		return
	}
	f.rect(layer, r, Panel)
	f.stroke(layer, r, 2*u, BusyColor)
	f.text(layer, w.label, r.X+r.W/2, r.Y+r.H/2-0.55*size, size, true, AlignCenter, TextColor)
	tw := TextWidth(w.label, size, true)
	f.rect(layer, Rect{r.X + r.W/2 - tw/2, r.Y + r.H - 7*u, tw, 2 * u}, TextColor)
}

func (s *Session) drawReplay(f *Frame, l Layout) {
	if s.replay == nil {
		return
	}
	u := l.T
	b := l.Banner
	f.rect(OverlayLayer, b, fade(ReplayCo, 0.9))
	r0 := s.replay.Lanes[0]
	what := "REPLAY"
	if len(s.replay.Lanes) > 1 {
		what = fmt.Sprintf("REPLAY of %d lanes", len(s.replay.Lanes))
	}
	line1 := fmt.Sprintf("%s · seed %d · %s cycles · %s", what, r0.Config.Seed, Commas(r0.Config.Cycles),
		Plural(len(r0.Changes), "change", "changes"))
	line2 := "move a control to take over from here"
	if s.verdict != "" {
		line2 = s.verdict
	}
	f.text(OverlayLayer, line1, b.X+10*u, b.Y+3*u, 15*u, true, AlignStart, TextColor)
	f.text(OverlayLayer, line2, b.X+10*u, b.Y+21*u, 13*u, false, AlignStart, TextColor)
}

// messageTicks is how long a message stays before it fades (8 s).
const messageTicks = 8 * TPS

// messageLines are the lines of the message shown, wrapped for layout l
// (none when there is no message).
func (s *Session) messageLines(l Layout) []string {
	u := l.T
	if s.message == "" {
		var out []string
		for _, line := range s.stepLines() { // step mode's decision, while no message
			out = append(out, wrapText(line, 16*u, l.W*0.8-24*u, true)...)
		}
		return out
	}
	return wrapText(s.message+"  (Esc hides)", 16*u, l.W*0.8-24*u, true) // drawn bold
}

// drawMessage shows the message in its strip under the HUD, the banner
// and the caption (the scene gives up the room: it covers neither the
// pools nor the charts nor the controls), wrapped; it fades out after
// messageTicks.
func (s *Session) drawMessage(f *Frame, l Layout) {
	lines := s.messageLines(l)
	if len(lines) == 0 {
		return
	}
	age := s.tick - s.messageTick
	a := float32(1)
	if age > messageTicks && s.message != "" {
		a = max(1-float32(age-messageTicks)/TPS, 0)
	}
	u := l.T
	r := l.Message
	bg, edge := InfoPane, BusyColor
	switch {
	case s.isError && s.message != "":
		bg, edge = ErrorPanel, RejectColor
	case s.message == "": // step mode's decision: edged like the ring on its server
		edge = MeasureCol
	}
	f.rect(TopLayer, r, fade(bg, a))
	f.stroke(TopLayer, r, 2*u, fade(edge, a))
	for i, line := range lines {
		f.text(TopLayer, line, r.X+12*u, r.Y+8*u+float32(i)*MessageLineUnits*u, 16*u, true, AlignStart, fade(TextColor, a))
	}
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// presentation makes the frame easier to read on a projector: full-white
// text on black panels. The text is larger because the layout's text unit
// is (NewLayoutScaled with PresentScale), so everything grows together.
func presentation(f *Frame) {
	for li := range f.Layers {
		l := &f.Layers[li]
		for i := range l.Texts {
			t := &l.Texts[i]
			if t.C == DimText || t.C == TextColor {
				t.C = color.RGBA{0xff, 0xff, 0xff, 0xff}
			}
		}
		for i := range l.Quads {
			q := &l.Quads[i]
			if q.C == Panel || q.C == Button {
				q.C = color.RGBA{0, 0, 0, 0xff}
			}
		}
	}
}

// Plural writes n with the singular or plural noun: "1 change", "3 changes".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Commas(int64(n)) + " " + many
}
