package scene

import (
	"fmt"

	"github.com/lbsim/lbsim/sim/snapshot"
)

// shareState is the share dialog: K (or the share button) opens it, and
// the viewer chooses what the link carries before it is made.
type shareState struct {
	upToNow  bool // share the run cut at the current cycle, not the whole run
	keepView bool // keep the page's speed and pause-at in the link
}

// Widget ids of the share dialog.
const (
	WShareWhat = "share-what"
	WShareView = "share-view"
	WShareMake = "share-make"
	WShareBack = "share-cancel"
)

func boolChoice(id, label string, names [2]string, field func(s *Session) *bool) widget {
	return widget{id: id, kind: kChoice, label: label, row: rowDialog,
		choices: func() []string { return names[:] },
		get: func(s *Session) int64 {
			if *field(s) {
				return 1
			}
			return 0
		},
		set:    func(s *Session, v int64) { *field(s) = v == 1 },
		format: func(v int64) string { return names[min(max(v, 0), 1)] }}
}

// shareWidgets are the dialog's controls, in Tab order.
var shareWidgets = []widget{
	boolChoice(WShareWhat, "share", [2]string{"the whole run", "up to this cycle"}, func(s *Session) *bool { return &s.share.upToNow }),
	boolChoice(WShareView, "view settings (speed, pause-at)", [2]string{"drop", "keep"}, func(s *Session) *bool { return &s.share.keepView }),
	{id: WShareMake, kind: kButton, label: "make the link (K)", row: rowDialog, width: 220, intent: Share},
	{id: WShareBack, kind: kButton, label: "cancel (Esc)", row: rowDialog, width: 160, intent: CloseDialog},
}

// shareDialog is the dialog's rectangle.
func shareDialog(l Layout) Rect {
	u := l.T
	return l.centred(560*u, 200*u)
}

// dialogRects places the dialog's controls: the choices one a row, the
// buttons side by side at the bottom.
func dialogRects(l Layout, ws []widget, rs []Rect) {
	u := l.T
	if countRow(ws, rowPanel) > 0 {
		panelRects(l, ws, rs)
		return
	}
	if n := countRow(ws, rowList); n > 0 {
		tabs := countRow(ws, rowTab)
		lg := listGeom(l, n, tabs)
		k, j := 0, 0
		colW := (lg.d.W - 32*u - 12*u*float32(lg.cols-1)) / float32(lg.cols)
		tabW := (lg.d.W - 32*u - 8*u*float32(max(tabs-1, 0))) / float32(max(tabs, 1))
		for i, w := range ws {
			switch w.row {
			case rowTab: // the tabs side by side over the list
				rs[i] = Rect{lg.d.X + 16*u + float32(j)*(tabW+8*u), lg.tabY, tabW, 36 * u}
				j++
			case rowList:
				ww := colW
				if w.width > 0 {
					ww = min(w.width*u, colW)
				}
				col, row := k/lg.rows, k%lg.rows
				rs[i] = Rect{lg.d.X + 16*u + float32(col)*(colW+12*u), lg.y0 + float32(row)*lg.pitch, ww, min(36*u, lg.pitch*0.86)}
				k++
			}
		}
		return
	}
	d := shareDialog(l)
	y := d.Y + 44*u
	x := d.X + 16*u
	for i, w := range ws {
		if w.row != rowDialog {
			continue
		}
		if w.kind == kChoice {
			rs[i] = Rect{d.X + 16*u, y, d.W - 32*u, 36 * u}
			y += 44 * u
			continue
		}
		rs[i] = Rect{x, d.Y + d.H - 52*u, w.width * u, 36 * u}
		x += w.width*u + 12*u
	}
}

func (s *Session) drawShareDialog(f *Frame, l Layout) {
	if s.dialog != dialogShare {
		return
	}
	u := l.T
	d := shareDialog(l)
	f.box("dialog", d)
	f.rect(DialogLayer, d, Background)
	f.stroke(DialogLayer, d, 2*u, BusyColor)
	f.text(DialogLayer, "share this run as a link", d.X+16*u, d.Y+12*u, 18*u, true, AlignStart, TextColor)
}

// ShareKeepView reports whether the share link should keep the page's
// view settings (speed, pause-at), as chosen in the share dialog.
func (s *Session) ShareKeepView() bool { return s.share.keepView }

// ShareSnapshot encodes what the share dialog chose: the whole run (the
// replayed recording, or this run to its last cycle with the changes made
// so far) or the run up to the current cycle.
func (s *Session) ShareSnapshot() ([]byte, error) {
	if s.share.upToNow {
		return s.Snapshot()
	}
	return s.WholeRun()
}

// WholeRun encodes the whole run: a replay's recording, or this run's
// settings to their last cycle with the changes made so far (re-simulated
// headless, so the snapshot's final hash is the run's end).
func (s *Session) WholeRun() ([]byte, error) {
	switch {
	case s.replay != nil:
		return s.encode(*s.replay)
	case s.m.Done():
		return s.Snapshot()
	}
	c, err := snapshot.RecordComparison(s.runSpecs())
	if err != nil {
		return nil, fmt.Errorf("share: %w", err)
	}
	return s.encode(c)
}

// countRow counts the controls of ws in row.
func countRow(ws []widget, row int) int {
	n := 0
	for _, w := range ws {
		if w.row == row {
			n++
		}
	}
	return n
}
