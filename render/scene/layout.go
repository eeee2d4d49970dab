package scene

import "math"

// Base is the design size: every length in the layout is given for a
// 1280×720 screen and scaled by Layout.Unit for other sizes.
const BaseW, BaseH = 1280, 720

// ControlsH is the height of the control bar in design pixels: two rows
// of controls; ControlsH3 with three (presentation mode, where the text is
// larger and two rows would cut the sliders' labels).
const (
	ControlsH  = 80
	ControlsH3 = 124
)

// Lane is the part of the screen one balancer uses: its queue and its
// server pool.
type Lane struct {
	Title Rect // the line above the queue and the pool
	Queue Rect // where queued requests are drawn
	Pool  Rect // where server boxes are drawn
	Gates Rect // a fleet's balancer gates, left of the lobby (empty for one balancer: FleetLane)
}

// Layout places the parts of the scene on a W×H screen.
type Layout struct {
	W, H     float32
	Unit     float32 // pixels per design pixel: min(W/1280, H/720)
	T        float32 // pixels per design pixel of text and of the strips that hold it: Unit, larger in presentation mode
	HUD      Rect    // two lines of text at the top
	Gate     Rect    // the firewall, at the left of every lane
	Lanes    []Lane  // one per balancer, top to bottom
	Charts   []Rect  // one per chart shown (Session.shownCharts), left to right
	Controls Rect    // two rows (three in presentation mode): the sliders, then the selectors, seed field and buttons
	// ControlRows is the number of rows of the control bar: 2, or 3 in
	// presentation mode, where the sliders have a row of their own; 0
	// when the page is embedded (no control bar: the keys still work).
	ControlRows int
	Footer      Rect // the key hint line
	Banner      Rect // the replay's strip under the HUD (empty unless WithStrip)
	Caption     Rect // the lesson's caption, under the banner (empty unless WithStrip)
	Message     Rect // the message's strip, under the caption (empty unless WithMessage)
	Theory      Rect // the theory panel, under the last pool (empty unless the session shows it)
	// Target is the server box the open server menu acts on (empty
	// otherwise): the menu stands beside it, never over it.
	Target Rect
}

// Stage is where dialogs and menus stand: under the HUD, the replay
// banner, the caption and the message, above the control bar, so that none covers
// them.
func (l Layout) Stage() Rect {
	u := l.Unit
	top := l.HUD.Y + l.HUD.H
	for _, r := range []Rect{l.Banner, l.Caption, l.Message} {
		if r.H > 0 {
			top = max(top, r.Y+r.H)
		}
	}
	top += 6 * u
	return Rect{l.HUD.X, top, l.HUD.W, l.Controls.Y - 6*u - top}
}

// centred returns a w×h rectangle centred in the stage, its top on the
// stage's when it is taller.
func (l Layout) centred(w, h float32) Rect {
	st := l.Stage()
	w = min(w, st.W)
	return Rect{st.X + st.W/2 - w/2, st.Y + max(st.H-h, 0)/2, w, h}
}

// BannerUnits is the height of the replay banner in design pixels, and
// CaptionLineUnits that of a line of a lesson's caption.
const (
	BannerUnits      = 44
	CaptionLineUnits = 18
)

// WithStrip returns the layout with a strip under the HUD for the replay
// banner (when banner) and a caption of captionLines lines: the gate and
// the lanes move down to make room, so the strip hides nothing.
func (l Layout) WithStrip(banner bool, captionLines int) Layout {
	u := l.T
	y := l.HUD.Y + l.HUD.H + 4*u
	if banner {
		l.Banner = Rect{l.HUD.X, y, l.HUD.W, (BannerUnits - 4) * u}
		y += BannerUnits * u
	}
	if captionLines > 0 {
		l.Caption = Rect{l.HUD.X, y, l.HUD.W, (float32(captionLines)*CaptionLineUnits + 8) * u}
		y += l.Caption.H + 4*u
	}
	return l.shiftDown(y - (l.HUD.Y + l.HUD.H + 4*u))
}

// shiftDown moves the gate and the lanes down by h, each lane giving up
// its share of it.
func (l Layout) shiftDown(h float32) Layout {
	if h == 0 {
		return l
	}
	l.Gate.Y += h
	l.Gate.H -= h
	lanes := make([]Lane, len(l.Lanes))
	n := float32(len(l.Lanes))
	for i, ln := range l.Lanes {
		// Each lane gives up its share of the strip.
		dy := h * (1 - float32(i)/n)
		sh := h / n
		ln.Title.Y += dy
		ln.Queue.Y += dy
		ln.Queue.H -= sh
		ln.Pool.Y += dy
		ln.Pool.H -= sh
		lanes[i] = ln
	}
	l.Lanes = lanes
	return l
}

// MessageLineUnits is the height of a line of a message, in design
// pixels.
const MessageLineUnits = 20

// WithMessage returns the layout with a strip of lines lines for a
// message under the banner and the caption: the gate and the lanes give
// up the room while it shows, so that it covers neither the pools nor
// the charts nor the controls.
func (l Layout) WithMessage(lines int) Layout {
	if lines <= 0 {
		return l
	}
	u := l.T
	y := l.HUD.Y + l.HUD.H + 4*u
	for _, r := range []Rect{l.Banner, l.Caption} {
		if r.H > 0 {
			y = max(y, r.Y+r.H+4*u)
		}
	}
	l.Message = Rect{l.W * 0.1, y, l.W * 0.8, (float32(lines)*MessageLineUnits + 16) * u}
	return l.shiftDown(l.Message.H + 4*u)
}

// NewLayout places the scene on a w×h screen for the given number of
// balancers (1, or 2 in a switch).
func NewLayout(w, h, balancers int) Layout { return NewLayoutScaled(w, h, balancers, 1) }

// PresentScale is how much larger presentation mode draws text and the
// strips that hold it (HUD, charts, controls, footer, banners).
const PresentScale = 1.25

// NewLayoutScaled is NewLayout with text and its strips k times as large
// (k = PresentScale in presentation mode); the model's parts (queue slots,
// server boxes) take the room that is left.
func NewLayoutScaled(w, h, balancers int, k float32) Layout {
	rows := 2
	if k > 1 {
		rows = 3
	}
	return newLayout(w, h, balancers, k, rows)
}

// newLayout is NewLayoutScaled with a control bar of rows rows: 2, 3 in
// presentation mode, or 0 in a page embedded in slides (Session.SetEmbedded).
func newLayout(w, h, balancers int, k float32, rows int) Layout {
	W, H := float32(max(w, 1)), float32(max(h, 1))
	u := min(W/BaseW, H/BaseH)
	t := u * k
	l := Layout{W: W, H: H, Unit: u, T: t}
	m := 16 * u // margin
	l.HUD = Rect{m, 8 * u, W - 2*m, 58 * t}
	l.Footer = Rect{m, H - 4*u - 22*t, W - 2*m, 22 * t}
	ch := float32(0)
	switch rows {
	case 2:
		ch = ControlsH
	case 3:
		ch = ControlsH3
	}
	l.ControlRows = rows
	l.Controls = Rect{m, l.Footer.Y - 4*u - ch*t, W - 2*m, ch * t}
	chartH := 118 * t
	chartY := l.Controls.Y - 8*u - chartH
	l.Charts = chartRow(W, m, chartY, chartH, defaultCharts)
	top := l.HUD.Y + l.HUD.H + 10*u
	bottom := chartY - 12*u
	l.Gate = Rect{m, top + 26*t, gateWidthUnits * t, bottom - top - 26*t}
	queueX := l.Gate.X + l.Gate.W + 22*u
	poolX := float32(math.Round(float64(0.47 * W)))
	n := max(balancers, 1)
	laneH := (bottom - top) / float32(n)
	for i := range n {
		y := top + float32(i)*laneH
		title := Rect{queueX, y, W - m - queueX, 24 * t}
		body := y + 26*t
		bh := laneH - 26*t - 6*u
		l.Lanes = append(l.Lanes, Lane{
			Title: title,
			Queue: Rect{queueX, body, poolX - 20*u - queueX, bh},
			Pool:  Rect{poolX, body, W - m - poolX, bh},
		})
	}
	return l
}

// chartRow places n charts side by side across a screen W wide, with
// margins m, at y, h high.
func chartRow(W, m, y, h float32, n int) []Rect {
	nc := float32(max(n, 1))
	cw := (W - (nc+1)*m) / nc
	rs := make([]Rect, n)
	for i := range rs {
		rs[i] = Rect{m + float32(i)*(cw+m), y, cw, h}
	}
	return rs
}

// WithCharts returns the layout with n charts in the charts' row (the
// view shows the goodput chart only while the client side is on).
func (l Layout) WithCharts(n int) Layout {
	if n == len(l.Charts) || len(l.Charts) == 0 {
		return l
	}
	c := l.Charts[0]
	l.Charts = chartRow(l.W, c.X, c.Y, c.H, n)
	return l
}

// GridSpec is the arrangement of n server boxes in a pool rectangle:
// Cols×Rows cells, Cell high and CellW wide, filled row by row from the
// top left in id order. A box is square, at the left of its cell; a cell
// wider than high (per-server queues) holds the server's queue bar at the
// right of its box.
type GridSpec struct {
	Area       Rect
	N          int
	Cols, Rows int
	Cell       float32 // cell pitch, down
	CellW      float32 // cell pitch, across: Cell, or wider with a queue bar
	Box        float32 // box side within a cell (the rest is the gap)
}

// MaxCellUnits is the largest server cell in design pixels, so that a small
// pool does not draw giant boxes.
const MaxCellUnits = 96

// QueueBarAspect is how many times wider than high a server's cell is when
// it holds the server's own queue as a bar beside its box.
const QueueBarAspect = 2.6

// NewGrid arranges n boxes in area with the largest square cells that fit,
// no larger than MaxCellUnits·unit.
func NewGrid(area Rect, n int, unit float32) GridSpec { return NewGridAspect(area, n, unit, 1) }

// NewGridAspect arranges n boxes in area with the largest cells aspect
// times wider than high that fit (the height no larger than
// MaxCellUnits·unit); with an aspect above 1 each cell holds a queue bar.
func NewGridAspect(area Rect, n int, unit, aspect float32) GridSpec {
	g := GridSpec{Area: area, N: n}
	if n <= 0 || area.W <= 0 || area.H <= 0 {
		return g
	}
	aspect = max(aspect, 1)
	best := float32(0)
	for cols := 1; cols <= n; cols++ {
		rows := (n + cols - 1) / cols
		c := min(area.W/(float32(cols)*aspect), area.H/float32(rows))
		if c > best {
			best, g.Cols, g.Rows = c, cols, rows
		}
		if float32(cols)*c*aspect >= area.W && c < best {
			break
		}
	}
	g.Cell = min(best, MaxCellUnits*unit)
	g.CellW = g.Cell * aspect
	gap := max(g.Cell*0.12, 1)
	g.Box = g.Cell - gap
	return g
}

// MaxBarAspect is the widest a server's cell with a queue bar grows, in
// times its height, when the pool's height limits its boxes (widened).
const MaxBarAspect = 7

// widened returns g with its cells as wide as its area allows, up to
// maxAspect times their height, when they hold queue bars: a pool whose
// rows the height limits (many lanes, presentation mode) fills its width
// with longer bars and room for each server's count and share on a line.
func (g GridSpec) widened(maxAspect float32) GridSpec {
	if g.Cols == 0 || g.CellW <= g.Cell {
		return g
	}
	g.CellW = max(g.CellW, min(g.Area.W/float32(g.Cols), g.Cell*maxAspect))
	return g
}

// BoxAt returns the rectangle of the i-th box (0-based, in id order).
func (g GridSpec) BoxAt(i int) Rect {
	if g.Cols == 0 {
		return Rect{}
	}
	c, r := i%g.Cols, i/g.Cols
	return Rect{g.Area.X + float32(c)*g.CellW, g.Area.Y + float32(r)*g.Cell, g.Box, g.Box}
}

// BarAt returns the room for the i-th server's queue bar and its count:
// right of its box, as high as the box, up to the cell's gap; empty when
// the cells hold no bars.
func (g GridSpec) BarAt(i int) Rect {
	b := g.BoxAt(i)
	gap := g.Cell - g.Box
	w := g.CellW - g.Cell - gap
	if w <= 0 {
		return Rect{}
	}
	return Rect{b.X + b.W + gap, b.Y, w, b.H}
}

// QueueSpec is the arrangement of a queue in its rectangle: slots in
// columns, the front (oldest request) in the rightmost column, filling each
// column top to bottom and then the next column to the left. A queue longer
// than the slots shows the oldest Shown requests and a block at the left
// end labelled with the number Hidden that are not drawn.
type QueueSpec struct {
	Area       Rect
	Len        int // requests in the queue
	Cols, Rows int
	Pitch      float32 // slot pitch
	Slot       float32 // slot side
	Shown      int     // slots drawn, oldest first
	Hidden     int     // Len − Shown
	Block      Rect    // the compressed block, when Hidden > 0
}

// QueuePitchUnits is the slot pitch in design pixels.
const QueuePitchUnits = 16

// NewQueue arranges a queue of n requests in area.
func NewQueue(area Rect, n int, unit float32) QueueSpec {
	q := QueueSpec{Area: area, Len: n, Pitch: QueuePitchUnits * unit}
	q.Slot = q.Pitch * 0.75
	q.Rows = max(int(area.H/q.Pitch), 1)
	q.Cols = max(int(area.W/q.Pitch), 1)
	if n <= q.Rows*q.Cols {
		q.Shown = n
		return q
	}
	blockCols := min(max(int(math.Ceil(float64(72*unit/q.Pitch))), 1), q.Cols)
	q.Shown = q.Rows * (q.Cols - blockCols)
	q.Hidden = n - q.Shown
	x := area.X + area.W - float32(q.Cols)*q.Pitch
	q.Block = Rect{x, area.Y, float32(blockCols)*q.Pitch - (q.Pitch - q.Slot), float32(q.Rows)*q.Pitch - (q.Pitch - q.Slot)}
	return q
}

// SlotAt returns the rectangle of the i-th oldest request (0 = front). For
// an i beyond the shown slots it returns the compressed block.
func (q QueueSpec) SlotAt(i int) Rect {
	if i >= q.Shown && q.Hidden > 0 {
		return q.Block
	}
	col := q.Cols - 1 - i/q.Rows
	row := i % q.Rows
	return Rect{q.Area.X + q.Area.W - float32(q.Cols-col)*q.Pitch, q.Area.Y + float32(row)*q.Pitch, q.Slot, q.Slot}
}

// LobbyUnits is the width in design pixels of the lobby, the central
// queue of a balancer whose servers have queues of their own (it holds
// requests only while no server can take them); the server grid takes
// the rest of the queue's room.
const LobbyUnits = 70

// PerServerLane returns lane laid out for per-server queues: a narrow
// lobby at the left, and the pool widened over the room the central queue
// had.
func PerServerLane(lane Lane, unit float32) Lane {
	w := min(LobbyUnits*unit, lane.Queue.W)
	right := lane.Pool.X + lane.Pool.W
	lane.Queue.W = w
	lane.Pool.X = lane.Queue.X + w + 20*unit
	lane.Pool.W = right - lane.Pool.X
	return lane
}
