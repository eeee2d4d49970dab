package scene

import (
	"fmt"
	"image/color"
	"strconv"

	"github.com/lbsim/lbsim/sim"
)

// Align places a text run relative to its X.
type Align uint8

// Text alignments.
const (
	AlignStart  Align = iota // X is the left edge
	AlignCenter              // X is the middle
	AlignEnd                 // X is the right edge
)

// Quad is a filled quadrilateral, corners in order (a triangle repeats its
// last corner).
type Quad struct {
	P [4]Point
	C color.RGBA
}

// Text is one line of text; Y is the top of the line and Size the font
// size in pixels.
type Text struct {
	S     string
	X, Y  float32
	Size  float32
	Bold  bool
	Align Align
	C     color.RGBA
}

// Layer is a set of quads drawn first and texts drawn over them.
type Layer struct {
	Quads []Quad
	Texts []Text
}

// The layers of a Frame, painted in order.
const (
	SceneLayer   = 0 // the model: gate, queue, servers, charts, HUD
	OverlayLayer = 1 // controls, theory panel, replay banner, messages
	TopLayer     = 2 // the problems banner and the help overlay, over everything
	numLayers    = 3
)

// Frame is everything to paint for one frame: what the Session draws,
// without any drawing API.
type Frame struct {
	W, H   int
	Layout Layout
	Layers [numLayers]Layer
}

func (f *Frame) reset(w, h int, l Layout) {
	f.W, f.H, f.Layout = w, h, l
	for i := range f.Layers {
		f.Layers[i].Quads = f.Layers[i].Quads[:0]
		f.Layers[i].Texts = f.Layers[i].Texts[:0]
	}
}

func (f *Frame) rect(layer int, r Rect, c color.RGBA) {
	if r.W <= 0 || r.H <= 0 || c.A == 0 {
		return
	}
	f.Layers[layer].Quads = append(f.Layers[layer].Quads, Quad{P: [4]Point{{r.X, r.Y}, {r.X + r.W, r.Y}, {r.X + r.W, r.Y + r.H}, {r.X, r.Y + r.H}}, C: c})
}

func (f *Frame) stroke(layer int, r Rect, w float32, c color.RGBA) {
	w = min(w, r.W/2, r.H/2)
	f.rect(layer, Rect{r.X, r.Y, r.W, w}, c)
	f.rect(layer, Rect{r.X, r.Y + r.H - w, r.W, w}, c)
	f.rect(layer, Rect{r.X, r.Y + w, w, r.H - 2*w}, c)
	f.rect(layer, Rect{r.X + r.W - w, r.Y + w, w, r.H - 2*w}, c)
}

func (f *Frame) diamond(layer int, c Point, r float32, col color.RGBA) {
	f.Layers[layer].Quads = append(f.Layers[layer].Quads, Quad{P: [4]Point{{c.X, c.Y - r}, {c.X + r, c.Y}, {c.X, c.Y + r}, {c.X - r, c.Y}}, C: col})
}

func (f *Frame) triangle(layer int, a, b, c Point, col color.RGBA) {
	f.Layers[layer].Quads = append(f.Layers[layer].Quads, Quad{P: [4]Point{a, b, c, c}, C: col})
}

func (f *Frame) text(layer int, s string, x, y, size float32, bold bool, al Align, c color.RGBA) {
	f.Layers[layer].Texts = append(f.Layers[layer].Texts, Text{S: s, X: x, Y: y, Size: size, Bold: bold, Align: al, C: c})
}

// request draws a request marker of side d centred on p: a square for P, a
// diamond for S.
func (f *Frame) request(layer int, p Point, d float32, t sim.Type, c color.RGBA) {
	if t == sim.Streaming {
		f.diamond(layer, p, d*0.62, c)
		return
	}
	f.rect(layer, Rect{p.X - d/2, p.Y - d/2, d, d}, c)
}

// Draw lays the session out on a w×h screen and returns what to paint. The
// Frame is reused by the next Draw. Draw only reads the model.
func (s *Session) Draw(w, h int) *Frame {
	bals := s.m.Balancers()
	l := NewLayout(w, h, len(bals))
	f := &s.frame
	f.reset(w, h, l)
	s.lastW, s.lastH = w, h
	u := l.Unit

	frac := s.pace.Frac()
	if s.paused {
		frac = 0
	}

	s.drawHUD(f, l)
	s.drawGate(f, l)

	queues := make([]QueueSpec, len(bals))
	grids := make([]GridSpec, len(bals))
	for i, b := range bals {
		lane := l.Lanes[i]
		q := NewQueue(lane.Queue, b.CentralLen(), u)
		queues[i] = q
		pl := b.Pool()
		g := NewGrid(lane.Pool, pl.Live+pl.Down, u)
		grids[i] = g
		s.drawLaneTitles(f, lane, b, len(bals) == 2)
		s.drawQueue(f, q, b, i)
		s.drawPool(f, g, b, i, frac)
	}
	s.drawFlights(f, l, queues, grids)
	s.drawCharts(f, l)
	s.drawFooter(f, l)
	s.drawTheory(f, l)
	s.drawControls(f, l)
	s.drawReplay(f, l)
	s.drawMessage(f, l)
	s.drawOverlays(f, l)
	if s.present {
		presentation(f)
	}
	return f
}

func (s *Session) drawHUD(f *Frame, l Layout) {
	u := l.Unit
	h := l.HUD
	cfg := s.m.Config()
	f.rect(SceneLayer, h, Panel)
	y1 := h.Y + 4*u
	f.text(SceneLayer, "cycle "+Commas(s.m.Cycle())+" / "+Commas(cfg.Cycles), h.X+10*u, y1, 24*u, true, AlignStart, TextColor)
	f.text(SceneLayer, "seed "+strconv.FormatUint(cfg.Seed, 10), h.X+h.W*0.42, y1, 24*u, true, AlignStart, TextColor)
	f.text(SceneLayer, s.status(), h.X+h.W-10*u, y1, 24*u, true, AlignEnd, s.statusColor())

	t := s.m.Totals()
	p := s.m.Pool()
	avg := 0.0
	if t.Dispatched > 0 {
		avg = float64(t.TotalWait) / float64(t.Dispatched)
	}
	items := []struct {
		s string
		w float32
	}{
		{"generated " + Commas(t.Generated), 1.1},
		{"rejected " + Commas(t.Rejected), 1},
		{"queued " + Commas(int64(s.m.QueueLen())), 1},
		{"completed " + Commas(t.Completed), 1.1},
		{fmt.Sprintf("avg wait %.1f", avg), 0.95},
		{fmt.Sprintf("p95 wait %d", s.m.Summary().WaitP95), 0.9},
		{fmt.Sprintf("live %d · active %d · busy %d", p.Live, p.Active, p.Busy), 1.55},
		{fmt.Sprintf("scale ↑%s ↓%s", Commas(t.ScaleUps), Commas(t.ScaleDowns)), 0.9},
	}
	var total float32
	for _, it := range items {
		total += it.w
	}
	x := h.X + 10*u
	for _, it := range items {
		f.text(SceneLayer, it.s, x, h.Y+33*u, 17*u, false, AlignStart, TextColor)
		x += (h.W - 20*u) * it.w / total
	}
}

// status is the HUD's play state: paused, end of run, or the speed.
func (s *Session) status() string {
	switch {
	case s.m.Err() != nil:
		return "stopped: too many requests queued · R restarts"
	case s.m.Done():
		return "end of run · R restarts"
	case s.paused:
		return "|| paused · " + SpeedName(s.speed)
	case s.speed == MaxSpeed:
		return "► max · " + Commas(s.rate.rate) + " cycles/s"
	}
	return "► " + SpeedName(s.speed)
}

func (s *Session) statusColor() color.RGBA {
	if s.paused {
		return DiscardCol
	}
	return DoneColor
}

// SpeedName formats a speed for the HUD: "5 cycles/s", "max".
func SpeedName(sp int64) string {
	switch {
	case sp == MaxSpeed:
		return "max speed"
	case sp == 1:
		return "1 cycle/s"
	case sp > TPS && sp%TPS == 0:
		return Commas(sp/TPS) + " cycles/frame"
	}
	return Commas(sp) + " cycles/s"
}

func (s *Session) drawGate(f *Frame, l Layout) {
	u := l.Unit
	g := l.Gate
	f.text(SceneLayer, "firewall", g.X+g.W/2, g.Y-24*u, 16*u, true, AlignCenter, GateColor)
	f.rect(SceneLayer, g, Panel)
	// Bricks: a wall with gaps the admitted requests pass through.
	rows := max(int(g.H/(22*u)), 1)
	bh := g.H / float32(rows)
	for r := range rows {
		off := float32(0)
		if r%2 == 1 {
			off = g.W / 4
		}
		f.rect(SceneLayer, Rect{g.X + off, g.Y + float32(r)*bh + 2*u, g.W/2 - 3*u, bh - 4*u}, fade(GateColor, 0.85))
	}
	t := s.m.Totals()
	pct := 0.0
	if t.Generated > 0 {
		pct = 100 * float64(t.Rejected) / float64(t.Generated)
	}
	f.text(SceneLayer, fmt.Sprintf("%.1f%%", pct), g.X+g.W/2, g.Y+g.H+2*u, 15*u, true, AlignCenter, RejectColor)
}

func (s *Session) drawLaneTitles(f *Frame, lane Lane, b *sim.Balancer, named bool) {
	u := lane.Title.H / 24
	name := ""
	if named {
		name = b.Name() + " balancer · "
	}
	f.text(SceneLayer, name+"queue "+Commas(int64(b.QueueLen())), lane.Queue.X, lane.Title.Y, 18*u, true, AlignStart, TextColor)
	p := b.Pool()
	txt := fmt.Sprintf("servers: live %d · active %d · busy %d", p.Live, p.Active, p.Busy)
	if p.Retiring > 0 {
		txt += fmt.Sprintf(" · retiring %d", p.Retiring)
	}
	f.text(SceneLayer, txt, lane.Pool.X, lane.Title.Y, 18*u, true, AlignStart, TextColor)
}

// hiddenSlot reports whether queue slot i of balancer b is in flight.
func (s *Session) hiddenSlot(b, i int) bool {
	for k := range s.anim.flights {
		fl := &s.anim.flights[k]
		if fl.kind == flyArrive && fl.bal == b && fl.slot == i {
			if _, ok := fl.progress(s.tick); ok {
				return true
			}
		}
	}
	return false
}

func (s *Session) drawQueue(f *Frame, q QueueSpec, b *sim.Balancer, bi int) {
	u := q.Pitch / QueuePitchUnits
	f.rect(SceneLayer, Rect{q.Area.X - 4*u, q.Area.Y - 4*u, q.Area.W + 8*u, q.Area.H + 8*u}, fade(Panel, 0.6))
	checkHidden := len(s.anim.flights) > 0
	for i := range q.Shown {
		if checkHidden && s.hiddenSlot(bi, i) {
			continue
		}
		r := q.SlotAt(i)
		req := b.QueueAt(i)
		f.request(SceneLayer, r.Center(), q.Slot, req.Type, RequestColor(req.Type))
	}
	if q.Hidden > 0 {
		bl := q.Block
		f.rect(SceneLayer, bl, fade(PColor, 0.35))
		for k := float32(0); k < bl.H; k += 6 * u {
			f.rect(SceneLayer, Rect{bl.X, bl.Y + k, bl.W, 2 * u}, fade(PColor, 0.55))
		}
		size := min(16*u, bl.W/5)
		f.text(SceneLayer, "+"+Commas(int64(q.Hidden)), bl.X+bl.W/2, bl.Y+bl.H/2-size*0.6, size, true, AlignCenter, TextColor)
		f.text(SceneLayer, "more", bl.X+bl.W/2, bl.Y+bl.H/2+size*0.5, size*0.8, false, AlignCenter, TextColor)
	}
}

func (s *Session) drawPool(f *Frame, g GridSpec, b *sim.Balancer, bi int, frac float32) {
	u := g.Area.H / 400
	cycle := s.m.Cycle()
	label := g.Box >= 30*u && g.Box >= 18
	i := 0
	for v := range b.Servers() {
		r := g.BoxAt(i)
		i++
		if gr := s.anim.growth(bi, v.ID, s.tick); gr < 1 {
			c := r.Center()
			r = Rect{c.X - r.W*gr/2, c.Y - r.H*gr/2, r.W * gr, r.H * gr}
		}
		s.drawServer(f, r, v, cycle, frac, label)
	}
	for _, gh := range s.anim.ghosts {
		if gh.bal != bi {
			continue
		}
		a := 1 - float32(s.tick-gh.start)/ServerAnimTicks
		r := g.BoxAt(gh.index)
		c := r.Center()
		sc := 0.5 + 0.5*a
		r = Rect{c.X - r.W*sc/2, c.Y - r.H*sc/2, r.W * sc, r.H * sc}
		f.stroke(SceneLayer, r, max(r.W*0.1, 1), fade(DownMark, a))
	}
}

func (s *Session) drawServer(f *Frame, r Rect, v sim.ServerView, cycle int64, frac float32, label bool) {
	col, shape := ServerLook(v.State)
	bw := max(r.W*0.08, 1.5)
	switch shape {
	case Hollow:
		f.rect(SceneLayer, r, Panel)
		f.stroke(SceneLayer, r, bw, col)
	case Crossed:
		f.rect(SceneLayer, r, col)
		d := max(r.W*0.08, 1)
		f.Layers[SceneLayer].Quads = append(f.Layers[SceneLayer].Quads,
			Quad{P: [4]Point{{r.X + d, r.Y}, {r.X + r.W, r.Y + r.H - d}, {r.X + r.W - d, r.Y + r.H}, {r.X, r.Y + d}}, C: RejectColor},
			Quad{P: [4]Point{{r.X + r.W - d, r.Y}, {r.X + r.W, r.Y + d}, {r.X + d, r.Y + r.H}, {r.X, r.Y + r.H - d}}, C: RejectColor})
	default:
		f.rect(SceneLayer, r, col)
		if shape == Striped {
			d := r.W * 0.18
			f.Layers[SceneLayer].Quads = append(f.Layers[SceneLayer].Quads, Quad{P: [4]Point{
				{r.X, r.Y + r.H - d}, {r.X + r.W - d, r.Y}, {r.X + r.W, r.Y + d}, {r.X + d, r.Y + r.H}}, C: fade(Background, 0.7)})
		}
		// Progress bar of the request in service, interpolated within the cycle.
		span := float32(max(v.Done-v.Start, 1))
		p := min(max((float32(cycle-v.Start)+frac)/span, 0), 1)
		bar := Rect{r.X + bw, r.Y + r.H*0.76, r.W - 2*bw, r.H*0.24 - bw}
		f.rect(SceneLayer, bar, fade(Background, 0.8))
		f.rect(SceneLayer, Rect{bar.X, bar.Y, bar.W * p, bar.H}, ProgressBar)
		if r.W >= 14 {
			d := r.W * 0.2
			f.request(SceneLayer, Point{r.X + r.W - d*0.9, r.Y + d*0.9}, d, v.Request.Type, RequestColor(v.Request.Type))
		}
	}
	if label {
		c := TextColor
		if shape == Hollow {
			c = IdleColor
		}
		size := min(r.H*0.32, 22*r.H/96)
		f.text(SceneLayer, strconv.Itoa(v.ID), r.X+r.W*0.1, r.Y+r.H*0.08, size, true, AlignStart, c)
		if v.Speed != sim.SpeedScale {
			f.text(SceneLayer, "×"+v.Speed.String(), r.X+r.W*0.9, r.Y+r.H*0.08, size*0.8, false, AlignEnd, c)
		}
		if v.Queued > 0 {
			f.text(SceneLayer, "+"+Commas(int64(v.Queued)), r.X+r.W*0.1, r.Y+r.H*0.62, size*0.9, true, AlignStart, TextColor)
		}
	}
}

func (s *Session) drawFlights(f *Frame, l Layout, queues []QueueSpec, grids []GridSpec) {
	if len(s.anim.flights) == 0 {
		return
	}
	u := l.Unit
	// Box index by id for each balancer, built only when something flies
	// to or from a server.
	var ids [2][]int
	for bi, b := range s.m.Balancers() {
		for v := range b.Servers() {
			ids[bi] = append(ids[bi], v.ID)
		}
	}
	boxOf := func(bi, id int) (Rect, bool) {
		lo, hi := 0, len(ids[bi])
		for lo < hi {
			mid := (lo + hi) / 2
			if ids[bi][mid] < id {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < len(ids[bi]) && ids[bi][lo] == id {
			return grids[bi].BoxAt(lo), true
		}
		return Rect{}, false
	}
	for k := range s.anim.flights {
		fl := &s.anim.flights[k]
		t, ok := fl.progress(s.tick)
		if !ok || fl.bal >= len(queues) {
			continue
		}
		q := queues[fl.bal]
		d := q.Slot * 1.15
		lane := l.Lanes[fl.bal]
		y := lane.Queue.Y + lane.Queue.H/2 + fl.jit*lane.Queue.H*0.3
		entry := Point{0, y}
		gate := Point{l.Gate.X + l.Gate.W/2, y}
		col := RequestColor(fl.typ)
		switch fl.kind {
		case flyArrive:
			to := q.SlotAt(fl.slot).Center()
			var p Point
			if t < 0.4 {
				p = lerp(entry, gate, smooth(t/0.4))
			} else {
				p = lerp(gate, to, smooth((t-0.4)/0.6))
			}
			f.request(SceneLayer, p, d, fl.typ, col)
		case flyReject, flyDiscard:
			turn := gate
			c2 := RejectColor
			if fl.kind == flyDiscard {
				turn = q.SlotAt(min(fl.slot, max(q.Shown-1, 0))).Center()
				turn.X -= q.Pitch
				c2 = DiscardCol
			}
			back := Point{turn.X - 110*u, y + fl.jit*40*u}
			if t < 0.5 {
				f.request(SceneLayer, lerp(entry, turn, smooth(t/0.5)), d, fl.typ, col)
			} else {
				k := (t - 0.5) / 0.5
				f.request(SceneLayer, lerp(turn, back, smooth(k)), d*(1+0.3*k), fl.typ, fade(mix(col, c2, k*3), 1-k))
			}
		case flyDispatch:
			box, ok := boxOf(fl.bal, fl.server)
			if !ok {
				continue
			}
			from := q.SlotAt(0).Center()
			f.request(SceneLayer, lerp(from, box.Center(), smooth(t)), d, fl.typ, col)
		case flyComplete:
			box, ok := boxOf(fl.bal, fl.server)
			if !ok {
				continue
			}
			c := box.Center()
			to := Point{l.W + d, c.Y + fl.jit*30*u}
			f.request(SceneLayer, lerp(c, to, t*t), d, fl.typ, fade(DoneColor, 1-t*0.6))
		}
	}
}

func (s *Session) drawCharts(f *Frame, l Layout) {
	u := l.Unit
	n := s.hist.Len()
	span := s.hist.Stride() * HistoryLen
	titles := [2]string{"queue length", "live servers"}
	for ci, r := range l.Charts {
		f.rect(SceneLayer, r, Panel)
		maxV := 1
		for i := range n {
			smp := s.hist.At(i)
			maxV = max(maxV, [2]int{smp.Queue, smp.Servers}[ci])
		}
		f.text(SceneLayer, titles[ci]+" · last "+Commas(span)+" cycles", r.X+8*u, r.Y+4*u, 15*u, true, AlignStart, TextColor)
		f.text(SceneLayer, "max "+Commas(int64(maxV)), r.X+r.W-8*u, r.Y+4*u, 15*u, false, AlignEnd, DimText)
		plot := Rect{r.X + 8*u, r.Y + 26*u, r.W - 16*u, r.H - 34*u}
		f.rect(SceneLayer, Rect{plot.X, plot.Y + plot.H, plot.W, max(u, 1)}, Grid)
		bw := plot.W / HistoryLen
		col := PColor
		if ci == 1 {
			col = BusyColor
		}
		x0 := plot.X + plot.W - float32(n)*bw
		for i := range n {
			smp := s.hist.At(i)
			v := [2]int{smp.Queue, smp.Servers}[ci]
			hgt := plot.H * float32(v) / float32(maxV)
			x := x0 + float32(i)*bw
			f.rect(SceneLayer, Rect{x, plot.Y + plot.H - hgt, max(bw-0.5, 1), hgt}, col)
			m := 5 * u
			if smp.Ups > 0 {
				f.rect(SceneLayer, Rect{x, plot.Y, max(bw, 1.5*u), plot.H}, fade(UpMark, 0.25))
				f.triangle(SceneLayer, Point{x + bw/2, plot.Y}, Point{x + bw/2 + m, plot.Y + m*1.6}, Point{x + bw/2 - m, plot.Y + m*1.6}, UpMark)
			}
			if smp.Downs > 0 {
				f.rect(SceneLayer, Rect{x, plot.Y, max(bw, 1.5*u), plot.H}, fade(DownMark, 0.25))
				f.triangle(SceneLayer, Point{x + bw/2, plot.Y + plot.H}, Point{x + bw/2 - m, plot.Y + plot.H - m*1.6}, Point{x + bw/2 + m, plot.Y + plot.H - m*1.6}, DownMark)
			}
		}
	}
}

// presentScale and helpPresentScale are how much larger presentation mode
// draws the footer's legend and the help overlay, which lay themselves out
// at that size (the overlay then still fits a 16:9 screen).
const (
	presentScale     = 1.3
	helpPresentScale = 1.18
)

// drawFooter draws the key hint line at the left and the legend at the
// right. In presentation mode the key line gives way (H still shows the
// keys) and the legend is drawn larger.
func (s *Session) drawFooter(f *Frame, l Layout) {
	u := l.Unit
	r := l.Footer
	k := float32(1)
	if s.present {
		k = presentScale
	} else {
		f.text(SceneLayer, "Tab focus · ←→ adjust · Space play · → step · R restart · S save · L load · K share · T theory · P present · H help", r.X, r.Y+2*u, 14*u, false, AlignStart, DimText)
	}
	// The legend, drawn with the same shapes as the scene, each shape just
	// before its name. Names are measured by an estimate of the font's
	// advance (8.2 design pixels a letter at 15), so an error shows as a gap
	// after a name, never between a shape and its name.
	d, size, gap := 12*u*k, 15*u*k, 5*u*k
	items := []struct {
		name string
		draw func(p Point)
	}{
		{"P", func(p Point) { f.request(SceneLayer, p, d, sim.Processing, PColor) }},
		{"S", func(p Point) { f.request(SceneLayer, p, d, sim.Streaming, SColor) }},
		{"idle", func(p Point) { f.stroke(SceneLayer, Rect{p.X - d/2, p.Y - d/2, d, d}, 2*u, IdleColor) }},
		{"busy", func(p Point) { f.rect(SceneLayer, Rect{p.X - d/2, p.Y - d/2, d, d}, BusyColor) }},
		{"retiring", func(p Point) { f.rect(SceneLayer, Rect{p.X - d/2, p.Y - d/2, d, d}, Retiring) }},
		{"rejected", func(p Point) { f.rect(SceneLayer, Rect{p.X - d/2, p.Y - d/2, d, d}, RejectColor) }},
		{"down", func(p Point) { f.rect(SceneLayer, Rect{p.X - d/2, p.Y - d/2, d, d}, DownColor) }},
	}
	width := func(name string) float32 { return float32(len([]rune(name))) * 8.2 * u * k }
	var total float32
	for _, it := range items {
		total += d + gap + width(it.name) + 3*gap
	}
	x := r.X + r.W - total + 3*gap
	y := r.Y + r.H/2
	for _, it := range items {
		it.draw(Point{x + d/2, y})
		f.text(SceneLayer, it.name, x+d+gap, y-0.6*size, size, false, AlignStart, DimText)
		x += d + gap + width(it.name) + 3*gap
	}
}

// HelpLines are the lines of the help overlay.
var helpLines = [...]string{
	"Space — play / pause          → — one cycle (pauses first)",
	"+ / − (↑ ↓) — faster / slower  R — restart (a replay: from its start)",
	"Tab / Shift+Tab — move the focus over the controls (yellow frame)",
	"  slider: ← → (↑ ↓) one step, PgUp/PgDn ten, Home/End; or drag it",
	"  policy: ← → or click;  buttons: Enter or Space;  Esc leaves the focus",
	"0–9 — type a seed (or click the seed field), Enter restarts with it",
	"D — dice: a random seed     S — save the run (.lbsnap)",
	"L — load a snapshot (or drop a file)     K — share link (#r=…)",
	"T — theory panel (Erlang C)     P — presentation mode     F — fullscreen",
	"Click a server — take it down at the next cycle; click again — up",
	"Every change takes effect at the next cycle and is recorded.",
	"",
	"Requests enter at the left: the firewall rejects blocked sources (red),",
	"the rest wait in the FIFO queue (front at the right) and fly to idle",
	"servers. P = cyan square, S = pink diamond. Servers: idle = hollow green,",
	"busy = blue with progress, retiring = amber striped, down = dark red, crossed.",
}

// HelpLines returns the help overlay's text.
func HelpLines() []string { return helpLines[:] }

func (s *Session) drawOverlays(f *Frame, l Layout) {
	u := l.Unit
	if s.banner && len(s.opts.Problems) > 0 {
		lines := append(append([]string{}, s.opts.Problems...), "press any key to hide this message")
		h := float32(len(lines))*24*u + 16*u
		r := Rect{l.W * 0.1, l.HUD.Y + l.HUD.H + 12*u, l.W * 0.8, h}
		f.rect(TopLayer, r, ErrorPanel)
		f.stroke(TopLayer, r, 2*u, RejectColor)
		for i, line := range lines {
			f.text(TopLayer, line, r.X+12*u, r.Y+8*u+float32(i)*24*u, 18*u, i < len(lines)-1, AlignStart, TextColor)
		}
	}
	if s.help {
		k := u // the overlay's unit: larger in presentation mode
		if s.present {
			k *= helpPresentScale
		}
		h := float32(len(helpLines)+1)*26*k + 30*k
		r := Rect{l.W/2 - 420*k, l.H/2 - h/2, 840 * k, h}
		f.rect(TopLayer, r, Overlay)
		f.stroke(TopLayer, r, 2*u, DimText)
		f.text(TopLayer, "lbsim — keys", r.X+24*k, r.Y+16*k, 26*k, true, AlignStart, TextColor)
		for i, line := range helpLines {
			f.text(TopLayer, line, r.X+24*k, r.Y+56*k+float32(i)*26*k, 18*k, false, AlignStart, TextColor)
		}
	}
}
