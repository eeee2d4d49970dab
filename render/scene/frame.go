package scene

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"image/color"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/render/lesson"
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
	OverlayLayer = 1 // controls, theory panel, replay banner, caption
	DialogLayer  = 2 // the open dialog: its panel, then its entries over it
	TopLayer     = 3 // messages, the problems banner and the help overlay, over everything
	numLayers    = 4
)

// Frame is everything to paint for one frame: what the Session draws,
// without any drawing API.
type Frame struct {
	W, H   int
	Layout Layout
	Layers [numLayers]Layer
	// Cuts are the texts drawn cut short with "…" (Frame.abbreviate):
	// what was meant and what is shown, so that tests check that no number
	// is ever cut (words may be). Sum leaves them out: they are in Layers.
	Cuts []Cut
	// Boxes are the panels drawn over the scene (dialogs, menus,
	// messages, the caption), named, so that tests check that none covers
	// another or what it acts on.
	Boxes []Box
}

// Cut is a text drawn cut short: Full is what was meant, Shown what is
// drawn (Full's start and "…", or "" when nothing fits).
type Cut struct{ Full, Shown string }

// Box is a named panel of a Frame: "caption", "dialog", "message", …
type Box struct {
	Name string
	R    Rect
}

// Sum returns a checksum of everything f paints (its size, every quad and
// every text run): two frames with the same Sum paint the same picture, so
// a renderer that keeps the screen between frames paints only when the
// Sum changes (a paused or ended run then costs no drawing).
func (f *Frame) Sum() uint64 {
	h := fnv.New64a()
	var b []byte
	f32 := func(v float32) { b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v)) }
	rgba := func(c color.RGBA) { b = append(b, c.R, c.G, c.B, c.A) }
	b = binary.LittleEndian.AppendUint64(b, uint64(f.W)<<32|uint64(uint32(f.H)))
	for li := range f.Layers {
		l := &f.Layers[li]
		b = binary.LittleEndian.AppendUint64(b, uint64(len(l.Quads))<<32|uint64(len(l.Texts)))
		for _, q := range l.Quads {
			for _, p := range q.P {
				f32(p.X)
				f32(p.Y)
			}
			rgba(q.C)
			if len(b) > 4096 {
				h.Write(b)
				b = b[:0]
			}
		}
		for _, t := range l.Texts {
			f32(t.X)
			f32(t.Y)
			f32(t.Size)
			rgba(t.C)
			b = append(b, byte(t.Align), boolByte(t.Bold))
			b = binary.LittleEndian.AppendUint32(b, uint32(len(t.S)))
			b = append(b, t.S...)
			if len(b) > 4096 {
				h.Write(b)
				b = b[:0]
			}
		}
	}
	h.Write(b)
	return h.Sum64()
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func (f *Frame) reset(w, h int, l Layout) {
	f.W, f.H, f.Layout = w, h, l
	for i := range f.Layers {
		f.Layers[i].Quads = f.Layers[i].Quads[:0]
		f.Layers[i].Texts = f.Layers[i].Texts[:0]
	}
	f.Cuts, f.Boxes = f.Cuts[:0], f.Boxes[:0]
}

// box records panel r, named name, in f.Boxes.
func (f *Frame) box(name string, r Rect) { f.Boxes = append(f.Boxes, Box{name, r}) }

// abbreviate is the package's abbreviate, recording a cut in f.Cuts.
func (f *Frame) abbreviate(s string, size float32, bold bool, w float32) string {
	t := abbreviate(s, size, bold, w)
	if t != s {
		f.Cuts = append(f.Cuts, Cut{Full: s, Shown: t})
	}
	return t
}

// stripe draws the dark band across box r that marks a retiring server
// (Striped), from its bottom left to its top right.
func (f *Frame) stripe(layer int, r Rect) {
	d := r.W * 0.18
	f.Layers[layer].Quads = append(f.Layers[layer].Quads, Quad{P: [4]Point{
		{r.X, r.Y + r.H - d}, {r.X + r.W - d, r.Y}, {r.X + r.W, r.Y + d}, {r.X + d, r.Y + r.H}}, C: fade(Background, 0.7)})
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

// fitSize returns size, or the smaller size at which s fits in width w.
func fitSize(s string, size float32, bold bool, w float32) float32 {
	tw := TextWidth(s, size, bold)
	if tw <= w || tw == 0 {
		return size
	}
	return size * max(w, 0) / tw
}

// textRow draws items from x across width w with equal gaps (at least
// two spaces), at size or smaller so that they fit.
func (f *Frame) textRow(layer int, items []string, x, y, w, size float32, bold bool, c color.RGBA) {
	var total float32
	for _, it := range items {
		total += TextWidth(it, size, bold)
	}
	minGap := TextWidth("  ", size, bold)
	if n := float32(len(items) - 1); total+n*minGap > w && total > 0 {
		size *= w / (total + n*minGap)
		total = 0
		for _, it := range items {
			total += TextWidth(it, size, bold)
		}
	}
	gap := float32(0)
	if len(items) > 1 {
		gap = (w - total) / float32(len(items)-1)
	}
	for _, it := range items {
		f.text(layer, it, x, y, size, bold, AlignStart, c)
		x += TextWidth(it, size, bold) + gap
	}
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

// attempt draws attempt r's marker (request): a retry in the retry colour
// with a dark core, so that it reads by shape as well as by colour.
func (f *Frame) attempt(layer int, p Point, d float32, r sim.Request) {
	f.request(layer, p, d, r.Type, AttemptColor(r))
	if r.Retry && d >= 4 {
		f.request(layer, p, d*0.45, r.Type, Background)
	}
}

// abandoned draws a hollow marker in colour c: the work of a timed-out
// attempt that a server finishes with nobody waiting for it (light on its
// grey box), or a request its client gave up (grey, flying off).
func (f *Frame) abandoned(layer int, p Point, d float32, t sim.Type, c color.RGBA) {
	w := max(d*0.2, 1)
	if t == sim.Streaming {
		f.diamond(layer, p, d*0.62, c)
		f.diamond(layer, p, d*0.62-w*1.4, Background)
		return
	}
	f.stroke(layer, Rect{p.X - d/2, p.Y - d/2, d, d}, w, c)
}

// dashed draws a dashed frame of width w just inside r: about four dashes
// a side.
func (f *Frame) dashed(layer int, r Rect, w float32, c color.RGBA) {
	w = min(w, r.W/2, r.H/2)
	dash := max(r.W/7, 2*w)
	for x := r.X; x < r.X+r.W; x += 2 * dash {
		dw := min(dash, r.X+r.W-x)
		f.rect(layer, Rect{x, r.Y, dw, w}, c)
		f.rect(layer, Rect{x, r.Y + r.H - w, dw, w}, c)
	}
	for y := r.Y; y < r.Y+r.H; y += 2 * dash {
		dh := min(dash, r.Y+r.H-y)
		f.rect(layer, Rect{r.X, y, w, dh}, c)
		f.rect(layer, Rect{r.X + r.W - w, y, w, dh}, c)
	}
}

// layout places the scene on a w×h screen, with the replay banner during
// a replay.
func (s *Session) layout(w, h int) Layout {
	k := float32(1)
	if s.present {
		k = PresentScale
	}
	rows := 2
	switch {
	case s.embedded:
		rows = 0
	case s.present:
		rows = 3
	}
	l := newLayout(w, h, len(s.shown()), k, rows).WithStrip(s.replay != nil, len(s.captionShown()))
	l = l.WithMessage(len(s.messageLines(l))).WithCharts(len(s.shownCharts()))
	if s.theory {
		// The theory panel takes the bottom of the last pool: the server
		// boxes shrink to fit above it, nothing is hidden.
		last := &l.Lanes[len(l.Lanes)-1]
		t := l.T
		n := len(theoryText(s.TheoryLines(), 13*t, last.Pool.W-20*t))
		ph := min(float32(n)*theoryLineUnits*t+10*t, last.Pool.H*0.8)
		l.Theory = Rect{last.Pool.X, last.Pool.Y + last.Pool.H - ph, last.Pool.W, ph}
		last.Pool.H -= ph + 6*l.Unit
	}
	if s.dialog == dialogServer {
		l.Target = s.menuTarget(l)
	}
	return l
}

// Draw lays the session out on a w×h screen and returns what to paint. The
// Frame is reused by the next Draw. Draw never steps the model or changes
// a setting.
func (s *Session) Draw(w, h int) *Frame {
	bals := s.shown()
	l := s.layout(w, h)
	f := &s.frame
	f.reset(w, h, l)
	s.lastW, s.lastH = w, h
	u := l.Unit

	frac := s.pace.Frac()
	if s.paused {
		frac = 0
	}

	f.box("hud", l.HUD)
	f.box("controls", l.Controls)
	f.box("footer", l.Footer)
	if l.Banner.H > 0 {
		f.box("banner", l.Banner)
	}
	if len(s.captionShown()) > 0 {
		f.box("caption", l.Caption)
	}
	if l.Message.H > 0 {
		f.box("message", l.Message)
	}
	s.drawHUD(f, l)
	s.drawGate(f, l)

	queues := make([]QueueSpec, len(bals))
	grids := make([]GridSpec, len(bals))
	geoms := make([]Lane, len(bals))
	for i, sb := range bals {
		lane, g := s.laneGeom(l, i, sb)
		q := NewQueue(lane.Queue, sb.b.CentralLen(), u)
		queues[i], grids[i], geoms[i] = q, g, lane
		f.box("pool", lane.Pool)
		s.drawLaneTitles(f, l.Lanes[i], sb, g)
		if g.CellW == g.Cell || q.Len > 0 { // per-server: the lobby only when it holds requests
			s.drawQueue(f, q, sb.b, i)
		}
		s.drawPool(f, g, sb, i, frac, sb.m.Config().ProvisionDelay)
		s.drawGates(f, lane, sb)
	}
	s.drawFlights(f, l, geoms, queues, grids)
	s.drawCharts(f, l)
	s.drawFooter(f, l)
	s.drawTheory(f, l)
	s.drawShareDialog(f, l)
	s.drawLessonsDialog(f, l)
	s.drawQuizDialog(f, l)
	s.drawFirewallDialog(f, l)
	s.drawServerMenu(f, l)
	s.drawPanel(f, l)
	s.drawCaption(f, l)
	s.drawReplay(f, l) // under the scrub bar
	s.drawControls(f, l)
	s.drawMessage(f, l)
	s.drawOverlays(f, l)
	if s.present {
		presentation(f)
	}
	return f
}

func (s *Session) drawHUD(f *Frame, l Layout) {
	u := l.T
	h := l.HUD
	cfg := s.m.Config()
	f.rect(SceneLayer, h, Panel)
	y1 := h.Y + 4*u
	top := []string{"cycle " + Commas(s.m.Cycle()) + " / " + Commas(cfg.Cycles), "seed " + strconv.FormatUint(cfg.Seed, 10), s.status()}
	size := fitSize(strings.Join(top, "      "), 24*u, true, h.W-20*u)
	f.text(SceneLayer, top[0], h.X+10*u, y1, size, true, AlignStart, TextColor)
	f.text(SceneLayer, top[1], h.X+h.W*0.42, y1, size, true, AlignStart, TextColor)
	// The status never reaches the seed.
	ss := min(size, fitSize(top[2], size, true, h.X+h.W-10*u-(h.X+h.W*0.42+TextWidth(top[1], size, true)+20*u)))
	f.text(SceneLayer, top[2], h.X+h.W-10*u, y1, ss, true, AlignEnd, s.statusColor())

	t := s.m.Totals()
	p := s.m.Pool()
	sum := s.m.Summary()
	// The counters, spread over the line; another counter is one more
	// entry.
	texts := []string{
		"generated " + Commas(t.Generated),
		"rejected " + Commas(t.Rejected),
		"queued " + Commas(int64(s.m.QueueLen())),
		"completed " + Commas(t.Completed),
		"errors " + Commas(t.Errors),
		lesson.AvgWait.Of(sum) + " cycles", // as a lane's title writes it
		"p95 wait " + Commas(sum.WaitP95) + " cycles",
		fmt.Sprintf("live %d · active %d · busy %d", p.Live, p.Active, p.Busy),
		fmt.Sprintf("scale ↑%s ↓%s", Commas(t.ScaleUps), Commas(t.ScaleDowns)),
	}
	if cfg.MinServers == cfg.MaxServers || t.Requeued > 0 {
		// Requests taken back from a failed server (a fixed pool never
		// scales: the count takes the scale events' place).
		rq := "requeued " + Commas(t.Requeued)
		if cfg.MinServers == cfg.MaxServers {
			texts[len(texts)-1] = rq
		} else {
			texts = append(texts, rq)
		}
	}
	if s.clientSide() {
		texts = s.clientTexts()
	}
	if partsOn(s.m) {
		texts = s.fanoutTexts(texts)
	}
	if cfg.Discipline != sim.Fifo {
		texts = append(texts, "discipline "+cfg.Discipline.String())
	}
	texts = append(texts, overloadTexts(sum, cfg)...)
	if c := costText(s.m.Summary(), cfg); c != "" {
		texts = append(texts, c)
	}
	if s.Comparing() {
		texts = s.compareTexts()
	}
	f.textRow(SceneLayer, texts, h.X+10*u, h.Y+33*u, h.W-20*u, 17*u, false, TextColor)
}

// costText is what a run has cost so far, server-cycles × server-cost
// ("cost 4,723"), or "" without a price.
func costText(sum sim.Summary, cfg sim.Config) string {
	switch {
	case cfg.ServerCost == 0:
		return ""
	case sum.Cost >= 100:
		return "cost " + Commas(int64(sum.Cost+0.5))
	}
	return "cost " + strconv.FormatFloat(sum.Cost, 'g', 3, 64)
}

// anyClientSide reports whether any lane shown has the client side on
// (see clientSide).
func (s *Session) anyClientSide() bool {
	for _, l := range s.set.Lanes {
		if clientSideOf(l.Model) {
			return true
		}
	}
	return false
}

// clientSide reports whether the run shown has the client side on (a
// timeout, retries, health checks, ejection, warm-up or replacement), now
// or earlier: the HUD then counts its outcomes.
func (s *Session) clientSide() bool { return clientSideOf(s.m) }

func clientSideOf(m *sim.Model) bool {
	cfg := m.Config()
	return cfg.ClientSide() || m.Totals().ClientActed()
}

// clientTexts is the HUD's second line while the client side is on: the
// requests, goodput (completed ÷ cycles), errors, timeouts (queued and
// in service), retries and amplification (attempts ÷ admitted) and the
// p95 wait (the pool's counts are in the lane's title).
func (s *Session) clientTexts() []string {
	sum := s.m.Summary()
	amp := 1.0
	if sum.Admitted > 0 {
		amp = float64(sum.Attempts) / float64(sum.Admitted)
	}
	return []string{
		"generated " + Commas(sum.Generated),
		"queued " + Commas(int64(s.m.QueueLen())),
		"completed " + Commas(sum.Completed),
		lesson.Goodput.Of(sum), // as a lane's title writes it
		"errors " + Commas(sum.Errors),
		"timeouts " + Commas(sum.TimedOutQueued+sum.TimedOutInService),
		"retries " + Commas(sum.Retries),
		"amplification ×" + strconv.FormatFloat(amp, 'f', 2, 64),
		"p95 wait " + Commas(sum.WaitP95),
	}
}

// compareTexts is the HUD's second line in the compare view: the requests
// all lanes share, then each lane's p95 wait and server-cycles (its cost).
func (s *Session) compareTexts() []string {
	sums := s.laneStates()
	texts := []string{"generated " + Commas(sums[0].Summary.Generated)}
	for i, l := range sums {
		t := fmt.Sprintf("%s: p95 wait %s · server-cycles %s", l.Label, Commas(l.Summary.WaitP95), Commas(l.Summary.ServerCycles))
		if cfg := s.set.Lanes[i].Model.Config(); cfg.ClientSide() {
			// A lane whose clients time out or retry: what gets through,
			// and its retries (the p95 wait when it retries none).
			t = fmt.Sprintf("%s: %s · retries %s", l.Label, lesson.Goodput.Of(l.Summary), Commas(l.Summary.Retries))
			if cfg.Retries == 0 && l.Summary.Retries == 0 {
				t = fmt.Sprintf("%s: %s · p95 wait %s", l.Label, lesson.Goodput.Of(l.Summary), Commas(l.Summary.WaitP95))
			}
		}
		if s.fansOut() || s.anyHedging() { // a request's median and its parts, not a part's wait
			t = fanoutLaneText(l.Label, l.Summary)
			for _, h := range hedgeTexts(s.set.Lanes[i].Model) {
				t += " · " + h
			}
		}
		if l.Summary.Errors > l.Summary.Shed+l.Summary.Limited+l.Summary.Throttled {
			t += " · errors " + Commas(l.Summary.Errors) // a lane with a failing server
		}
		for _, o := range overloadTexts(l.Summary, s.set.Lanes[i].Model.Config()) {
			t += " · " + o
		}
		if c := costText(l.Summary, s.set.Lanes[i].Model.Config()); c != "" {
			t += " · " + c
		}
		texts = append(texts, t)
	}
	return texts
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
	case s.rate.rate > 0 && s.rate.rate < s.speed*9/10:
		// The machine cannot keep up: say what it achieves.
		return "► " + SpeedName(s.speed) + " · achieved " + Commas(s.rate.rate)
	}
	return "► " + SpeedName(s.speed)
}

func (s *Session) statusColor() color.RGBA {
	if s.paused {
		return DiscardCol
	}
	return DoneColor
}

// SpeedName formats a speed, always in cycles per second: "5 cycles/s",
// "3,000 cycles/s", "max speed".
func SpeedName(sp int64) string {
	switch {
	case sp == MaxSpeed:
		return "max speed"
	case sp == 1:
		return "1 cycle/s"
	}
	return Commas(sp) + " cycles/s"
}

// titleUnits is the size of a lane's title in design pixels of text: the
// HUD's counters' size. A title that does not fit is abbreviated, never
// shrunk.
const titleUnits = 17

func (s *Session) drawLaneTitles(f *Frame, lane Lane, sb shownBalancer, g GridSpec) {
	b := sb.b
	u := lane.Title.H / 24
	size := titleUnits * u
	x := lane.Queue.X
	queueEnd := lane.Pool.X - 20*u
	name := ""
	if len(sb.m.Balancers()) == 2 {
		name = b.Name() + " balancer · "
	}
	if s.Comparing() {
		s.drawLaneMark(f, lane, sb)
		// The lane's marker, as in the charts, then its label.
		m := size * 0.36
		LaneMarker(f, SceneLayer, Point{x + m, lane.Title.Y + size*0.58}, m, sb.lane, LaneColor(sb.lane))
		x += 2*m + 6*u
		label := f.abbreviate(s.set.Lanes[sb.lane].Label, size, true, (queueEnd-x)*0.6)
		f.text(SceneLayer, label, x, lane.Title.Y, size, true, AlignStart, LaneColor(sb.lane))
		x += TextWidth(label, size, true)
		name = " · " + name
	}
	cfg := sb.m.Config()
	p := b.Pool()
	th := s.laneFigures(sb, cfg, p)
	// The queue's length, then the figures in what room is left; what
	// does not fit whole is left out (the queue's blocks and charts still
	// show it).
	room := queueEnd - x
	// The lesson's figure, large and first: the claim, per lane.
	if ms := s.opts.Measure; ms != lesson.NoMeasure && ms != lesson.FinalQueue { // the queue is in the title anyway
		m := ms.Of(sb.b.Summary())
		room -= TextWidth(m, size, true) + 12*u
		defer func(x0 float32) {
			f.text(SceneLayer, m, x0, lane.Title.Y, size, true, AlignStart, MeasureCol)
		}(queueEnd - TextWidth(m, size, true))
		queueEnd -= TextWidth(m, size, true) + 12*u
	}
	queue := "queue " + Commas(int64(b.QueueLen()))
	short := name + "q " + Commas(int64(b.QueueLen()))
	q := f.fitFirst(size, true, room, name+queue, short, "")
	if q == name+queue && s.Comparing() && !s.queueWordFits(f, lane, size) {
		q = short // one form in every lane: "queue 9" never beside "q 0"
	}
	f.text(SceneLayer, q, x, lane.Title.Y, size, true, AlignStart, TextColor)
	x += TextWidth(q, size, true)
	if l, ok := b.Limit(0); ok && q != "" && x+TextWidth(" ≤"+Commas(int64(l)), size, true) <= queueEnd {
		// The pool's concurrency limit, right after its queue's count.
		lim := " ≤" + Commas(int64(l))
		f.text(SceneLayer, lim, x, lane.Title.Y, size, true, AlignStart, LimitCol)
		x += TextWidth(lim, size, true)
	}
	x += 10 * u
	small := 13 * u
	if w := queueEnd - x; len(th) > 0 {
		f.text(SceneLayer, f.fitFirst(small, false, w, append(th, "")...), x, lane.Title.Y+(size-small)*0.8, small, false, AlignStart, DimText)
	}
	items := []string{fmt.Sprintf("servers: live %d", p.Live), fmt.Sprintf("active %d", p.Active), fmt.Sprintf("busy %d", p.Busy)}
	if p.Retiring > 0 {
		items = append(items, fmt.Sprintf("retiring %d", p.Retiring))
	}
	end := lane.Title.X + lane.Title.W
	var cands []string
	for k := len(items); k > 0; k-- {
		cands = append(cands, strings.Join(items[:k], " · "))
	}
	txt := f.fitFirst(size, true, end-lane.Pool.X, cands...)
	f.text(SceneLayer, txt, lane.Pool.X, lane.Title.Y, size, true, AlignStart, TextColor)
	if rq := s.requeueText(sb); rq != "" && g.CellW == g.Cell && TextWidth(rq, size, true) <= end-lane.Pool.X-TextWidth(txt, size, true)-16*u {
		f.text(SceneLayer, rq, end, lane.Title.Y, size, true, AlignEnd, RequeueCol)
	}
	if g.CellW > g.Cell && !s.drawBeliefKey(f, lane, sb, lane.Pool.X+TextWidth(txt, size, true)) {
		// The bars' scale: a full bar is this many requests.
		sc := "bar = " + Commas(int64(s.barScale())) + " queued"
		x := lane.Pool.X + TextWidth(txt, size, true) + 12*u
		if w := end - x; w > TextWidth(sc, small, false) {
			// The shares' key, in their colour, when it fits too.
			key := "% = share of requests · "
			if w > TextWidth(key+sc, small, false) && sharesShown(f, g) {
				f.text(SceneLayer, key, end-TextWidth(sc, small, false), lane.Title.Y+(size-small)*0.8, small, false, AlignEnd, ShareCol)
			}
			f.text(SceneLayer, sc, end, lane.Title.Y+(size-small)*0.8, small, false, AlignEnd, DimText)
		}
	}
}

// queueWordFits reports whether every lane's title has room for the
// word "queue" before its count (in lane's room, at size): the widest
// label, lesson figure and count of any lane decide.
func (s *Session) queueWordFits(f *Frame, lane Lane, size float32) bool {
	u := lane.Title.H / 24
	m := size * 0.36
	x0 := lane.Queue.X + 2*m + 6*u
	var labelW, figW, countW float32
	for _, sb := range s.shown() {
		l := s.set.Lanes[sb.lane].Label
		labelW = max(labelW, TextWidth(f.abbreviate(l, size, true, (lane.Pool.X-20*u-x0)*0.6), size, true))
		if ms := s.opts.Measure; ms != lesson.NoMeasure && ms != lesson.FinalQueue {
			figW = max(figW, TextWidth(ms.Of(sb.b.Summary()), size, true)+12*u)
		}
		countW = max(countW, TextWidth(" · queue "+Commas(int64(sb.b.QueueLen())), size, true))
	}
	return x0+labelW+countW <= lane.Pool.X-20*u-figW
}

// laneFigures are the forms, longest first, of what a lane's title says
// after its queue: what the thresholds mean for the queue now (it grows
// the pool above U·S and shrinks it below D·S, when it can scale); in the
// compare view, the lane's figures. Whole items only: a number is never
// cut.
func (s *Session) laneFigures(sb shownBalancer, cfg sim.Config, p sim.Pool) []string {
	act := float64(p.Active)
	var th []string
	if cfg.MinServers < cfg.MaxServers {
		up, down := Sig3(cfg.ScaleUp.Float()*act), Sig3(cfg.ScaleDown.Float()*act)
		th = []string{"grows above U·S " + up + " · shrinks below D·S " + down, "U·S " + up + " · D·S " + down}
	}
	if s.Comparing() {
		sum := sb.b.Summary()
		items := []string{"p95 wait " + Commas(sum.WaitP95), "server-cycles " + Commas(sum.ServerCycles)}
		if s.opts.Measure == lesson.P95Wait {
			items = items[1:] // large, before it
		}
		if l := s.set.Lanes[sb.lane].Label; l != cfg.Policy.String() {
			items = append(items, cfg.Policy.String())
		}
		th = nil
		for k := len(items); k > 0; k-- {
			th = append(th, strings.Join(items[:k], " · "))
		}
	}
	return th
}

// ValueUnits is the smallest size, in design pixels of text (Layout.T),
// of a text that carries a value: 20.6 px at 1920×1080 in presentation
// mode. A value that cannot have it is left out, never drawn smaller.
const ValueUnits = 11

// fitFirst returns the first of candidates that fits in width w at size;
// when none does, the last one cut short (a cut, recorded).
func (f *Frame) fitFirst(size float32, bold bool, w float32, candidates ...string) string {
	for _, c := range candidates {
		if TextWidth(c, size, bold) <= w {
			return c
		}
	}
	if len(candidates) == 0 {
		return ""
	}
	return f.abbreviate(candidates[len(candidates)-1], size, bold, w)
}

// abbreviate returns s, or s cut short with "…" so that it fits in width w
// at size (empty when not even that fits).
func abbreviate(s string, size float32, bold bool, w float32) string {
	if TextWidth(s, size, bold) <= w {
		return s
	}
	r := []rune(s)
	for n := len(r) - 1; n > 0; n-- {
		if t := string(r[:n]) + "…"; TextWidth(t, size, bold) <= w {
			return t
		}
	}
	return ""
}

// drawLaneMark draws the compare view's bar at the left of a lane: yellow
// for the focused lane (a balancer setting changes it), dim for the others.
func (s *Session) drawLaneMark(f *Frame, lane Lane, sb shownBalancer) {
	u := lane.Title.H / 24
	c := Grid
	if sb.lane == s.lane {
		c = FocusCol
	}
	f.rect(SceneLayer, Rect{lane.Queue.X - 12*u, lane.Title.Y, 4 * u, lane.Pool.Y + lane.Pool.H - lane.Title.Y}, c)
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
		f.attempt(SceneLayer, r.Center(), q.Slot, b.QueueAt(i))
	}
	if q.Hidden > 0 {
		bl := q.Block
		f.rect(SceneLayer, bl, fade(PColor, 0.35))
		for k := float32(0); k < bl.H; k += 6 * u {
			f.rect(SceneLayer, Rect{bl.X, bl.Y + k, bl.W, 2 * u}, fade(PColor, 0.55))
		}
		size := min(16*u, bl.W/5)
		f.text(SceneLayer, "+"+Commas(int64(q.Hidden)), bl.X+bl.W/2, bl.Y+bl.H/2-size*0.6, size, true, AlignCenter, TextColor)
		f.text(SceneLayer, "more", bl.X+bl.W/2, bl.Y+bl.H/2+size*0.56, size*0.8, false, AlignCenter, TextColor)
	}
}

// drawPool draws balancer sb's servers (the bi-th shown) in grid g (warm
// is the warm-up delay in force in its lane), and the ghosts of those
// leaving.
func (s *Session) drawPool(f *Frame, g GridSpec, sb shownBalancer, bi int, frac float32, warm int64) {
	b := sb.b
	cycle := s.m.Cycle()
	cfg := s.m.Config() // the lanes share the request stream and its shape
	mean := cfg.NominalMean()
	// A box holds its id, its queue's count and its speed only when they
	// can be read: at ValueUnits at least.
	label := g.Box*idShare >= ValueUnits*f.Layout.T
	// A box too small for its count over its bar may still have room for
	// one line of it beside the bar (drawInlineBar).
	inline := !label && g.CellW > g.Cell && g.Box >= ValueUnits*f.Layout.T*inlineRoom
	scale := 0
	if g.CellW > g.Cell {
		scale = s.barScale()
	}
	i := 0
	for v := range b.Servers() {
		r := g.BoxAt(i)
		i++
		if gr := s.anim.growth(bi, v.ID, s.tick); gr < 1 {
			c := r.Center()
			r = Rect{c.X - r.W*gr/2, c.Y - r.H*gr/2, r.W * gr, r.H * gr}
		}
		s.drawServer(f, r, v, serverClock{cycle, frac, mean, warm}, label)
		if d, ok := s.steps.shown(); ok && s.paused && d.lane == sb.lane && d.bal == sb.bal && d.server == v.ID {
			// Step mode: the server this decision chose, ringed.
			u := f.Layout.T
			f.stroke(SceneLayer, r.Inset(-3*u), 2.5*u, MeasureCol)
		}
		if kind, age, ok := s.anim.flash(bi, v.ID, s.tick); ok {
			drawFlash(f, r, kind, age)
		}
		switch bar := g.BarAt(i - 1); {
		case bar.W <= 0:
		case inline:
			s.drawInlineBar(f, bar, v, sb, scale)
		case !s.drawBelief(f, bar, v, sb, scale, label):
			drawQueueBar(f, bar, v, b, scale, label, s.serverShare(sb.lane, sb.bal, v.ID))
		}
	}
	s.drawRequeues(f, g, sb)
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

// drawFlash draws a ring that widens and fades around box r, age 0…1
// after the server was ejected (white-grey), restored (green) or became
// ready after its warm-up (sky blue).
func drawFlash(f *Frame, r Rect, kind sim.EventKind, age float32) {
	c := EjectColor
	switch kind {
	case sim.Restore:
		c = IdleColor
	case sim.Ready:
		c = WarmColor
	}
	g := max(r.W*0.05, 1)
	grow := r.W * 0.12 * (1 + age)
	f.stroke(SceneLayer, Rect{r.X - grow, r.Y - grow, r.W + 2*grow, r.H + 2*grow}, g, fade(c, 1-age))
}

// serverClock is what drawServer needs besides the server: the cycle
// and the fraction of the next one shown, the shape's mean time (a
// longer request is drawn longer) and the warm-up delay in force.
type serverClock struct {
	cycle int64
	frac  float32
	mean  float64
	warm  int64
}

// drawServer draws server v in box r: its state's colour and shape, the
// progress of the request in service (a long one, against the shape's
// mean time, drawn longer: requestLength; a retry in the retry colour;
// abandoned work hollow and grey), its id, its speed, a gray state's
// frame, an ejected server dimmed and a warming one with its warm-up, and
// the state's word.
func (s *Session) drawServer(f *Frame, r Rect, v sim.ServerView, k serverClock, label bool) {
	col, shape := ServerLook(v.State)
	bw := max(r.W*0.08, 1.5)
	switch shape {
	case Hollow:
		f.rect(SceneLayer, r, Panel)
		switch {
		case v.Warming:
			f.dashed(SceneLayer, r, bw, WarmColor)
			drawWarmUp(f, r, v, k, bw)
		case !v.Ejected: // an ejected idle server takes nothing: no green frame, its dashed one below
			f.stroke(SceneLayer, r, bw, col)
		}
	case Crossed:
		f.rect(SceneLayer, r, col)
		d := max(r.W*0.08, 1)
		f.Layers[SceneLayer].Quads = append(f.Layers[SceneLayer].Quads,
			Quad{P: [4]Point{{r.X + d, r.Y}, {r.X + r.W, r.Y + r.H - d}, {r.X + r.W - d, r.Y + r.H}, {r.X, r.Y + d}}, C: RejectColor},
			Quad{P: [4]Point{{r.X + r.W - d, r.Y}, {r.X + r.W, r.Y + d}, {r.X + d, r.Y + r.H}, {r.X, r.Y + r.H - d}}, C: RejectColor})
	default:
		if v.Abandoned {
			col = Abandoned // nobody waits for this work
		}
		f.rect(SceneLayer, r, col)
		if shape == Striped {
			f.stripe(SceneLayer, r)
		}
		// Progress bar of the request in service, interpolated within the cycle.
		span := float32(max(v.Done-v.Start, 1))
		p := min(max((float32(k.cycle-v.Start)+k.frac)/span, 0), 1)
		bar := Rect{r.X + bw, r.Y + r.H*0.76, r.W - 2*bw, r.H*0.24 - bw}
		f.rect(SceneLayer, bar, fade(Background, 0.8))
		f.rect(SceneLayer, Rect{bar.X, bar.Y, bar.W * p, bar.H}, ProgressBar)
		if r.W >= 14 {
			drawInService(f, r, v, k.mean)
		}
	}
	if gc, ok := GrayFrame(v.Gray); ok {
		// A gray server: a thick frame in its state's colour, outside
		// the box so that idle and busy still read.
		g := max(r.W*0.07, 1.5)
		f.stroke(SceneLayer, Rect{r.X - g, r.Y - g, r.W + 2*g, r.H + 2*g}, g, gc)
	}
	if v.Ejected {
		// Out of the candidates: dimmed, a dashed frame inside its edge.
		f.rect(SceneLayer, r, fade(Background, 0.45))
		f.dashed(SceneLayer, r, bw, EjectColor)
	}
	if label {
		s.drawServerLabels(f, r, v, shape)
	}
}

// drawInService draws the marker of the attempt server v serves in its box
// r: a long request stretched down the box's right edge, a retry in the
// retry colour, abandoned work hollow and grey.
func drawInService(f *Frame, r Rect, v sim.ServerView, mean float64) {
	d := r.W * 0.2
	c := Point{r.X + r.W - d*0.9, r.Y + d*0.9}
	if v.Abandoned {
		f.abandoned(SceneLayer, c, d, v.Request.Type, TextColor)
		return
	}
	if k := requestLength(v.Request.Time, mean); k > 1 {
		// A long request: its box stretched down the box's right
		// edge, k boxes long.
		col := AttemptColor(v.Request)
		f.rect(SceneLayer, Rect{c.X - d*0.4, c.Y, d * 0.8, (k - 1) * d}, col)
		f.request(SceneLayer, Point{c.X, c.Y + (k-1)*d}, d, v.Request.Type, col)
	}
	f.attempt(SceneLayer, c, d, v.Request)
}

// drawWarmUp draws a warming server's warm-up in its box r: a bar that
// fills from the cycle it was added (its ready cycle less the warm-up
// delay in force) to its ready cycle.
func drawWarmUp(f *Frame, r Rect, v sim.ServerView, k serverClock, bw float32) {
	bar := Rect{r.X + bw*1.5, r.Y + r.H*0.56, r.W - 3*bw, r.H * 0.1}
	f.rect(SceneLayer, bar, fade(Background, 0.8))
	p := float32(1)
	if k.warm > 0 {
		p = min(max(1-(float32(v.Ready-k.cycle)-k.frac)/float32(k.warm), 0), 1)
	}
	f.rect(SceneLayer, Rect{bar.X, bar.Y, bar.W * p, bar.H}, WarmColor)
}

// drawServerLabels draws a server box's words: its id, its speed when
// it is not 1, and its state's on a dark band across its foot.
func (s *Session) drawServerLabels(f *Frame, r Rect, v sim.ServerView, shape Shape) {
	c := TextColor
	if shape == Hollow {
		c = IdleColor
	}
	// The id: 22/96 of a large box, larger in a small one so that it
	// reads (ValueUnits), up to idShare of the box; with a speed under it,
	// both above the state's band.
	t := f.Layout.T
	top := float32(idShare)
	if v.Speed != sim.SpeedScale {
		top = 0.29
	}
	id := strconv.Itoa(v.ID)
	size := min(max(22*r.H/96, ValueUnits*t), top*r.H)
	size = min(size, fitSize(id, size, true, r.W*0.6))
	y := r.Y + r.H*0.06
	f.text(SceneLayer, id, r.X+r.W*0.1, y, size, true, AlignStart, c)
	under := y + size*1.1 // where the texts over the state's band end
	if v.Speed != sim.SpeedScale {
		// Under the id, as large and bold: a slow server reads from
		// the back of a room, in amber, a fast one in green.
		sc := DoneColor
		if v.Speed < sim.SpeedScale {
			sc = DownLineCol
		}
		sp := "×" + v.Speed.String()
		ss := min(size, fitSize(sp, size, true, r.W*0.6))
		f.text(SceneLayer, sp, r.X+r.W*0.1, y+size*1.15, ss, true, AlignStart, sc)
		under = y + size*1.15 + ss*1.1
	}
	drawStateWord(f, r, v, under)
}

// drawStateWord draws server v's state word (StateWord) on a dark band
// across the foot of its box r (over the progress bar: a gray attempt's
// end is the state's, not its time's), under the texts that end at y: at
// ValueUnits at least, in the longest of its forms that fits the box's
// width (StateForms), or not at all when none does (its frame and shape
// still tell; the server menu names it).
func drawStateWord(f *Frame, r Rect, v sim.ServerView, y float32) {
	word, wc := StateWord(v)
	if word == "" {
		return
	}
	const band = 1.15 // the band's height, in sizes of its text
	least := ValueUnits * f.Layout.T
	size := min(max(r.H*0.24, least), (r.Y+r.H-y)/band)
	for _, form := range StateForms(word) {
		sz := min(size, fitSize(form, size, true, r.W*0.92))
		if sz < least {
			continue
		}
		b := Rect{r.X, r.Y + r.H - sz*band, r.W, sz * band}
		f.rect(SceneLayer, b, fade(Background, 0.85))
		f.text(SceneLayer, form, r.X+r.W/2, b.Y+sz*0.03, sz, true, AlignCenter, wc)
		return
	}
}

// idShare is the largest share of a server box's height its id takes.
const idShare = 0.45

// grayShown yields each gray state (slow, failing, hanging) that a server
// on screen is in, once, in their order.
func (s *Session) grayShown() iter.Seq[sim.Gray] {
	var in [sim.Hanging + 1]bool
	for _, sb := range s.shown() {
		for v := range sb.b.Servers() {
			if v.Gray != sim.Healthy && int(v.Gray) < len(in) {
				in[v.Gray] = true
			}
		}
	}
	return func(yield func(sim.Gray) bool) {
		for g, ok := range in {
			if ok && !yield(sim.Gray(g)) {
				return
			}
		}
	}
}

// legendKey is a key of the footer's legend: a name and how to draw its
// look in a small box.
type legendKey struct {
	name string
	draw func(f *Frame, r Rect, u float32)
}

// clientKeys are the client side's keys, in legend order: retries,
// abandoned work, ejected and warming servers.
var clientKeys = [...]legendKey{
	{"retry", func(f *Frame, r Rect, _ float32) {
		f.attempt(SceneLayer, r.Center(), r.W, sim.Request{Retry: true})
	}},
	{"abandoned", func(f *Frame, r Rect, _ float32) { // a grey box, a hollow request in it
		f.rect(SceneLayer, r, Abandoned)
		f.abandoned(SceneLayer, r.Center(), r.W*0.55, sim.Processing, TextColor)
	}},
	{"ejected", func(f *Frame, r Rect, u float32) { f.dashed(SceneLayer, r, 2*u, EjectColor) }},
	{"warming", func(f *Frame, r Rect, u float32) { f.dashed(SceneLayer, r, 2*u, WarmColor) }},
}

// clientShown returns the keys of clientKeys the view shows now: retries
// while a lane retries (or has retried), and each server look while a
// server on screen has it.
func (s *Session) clientShown() []legendKey {
	var in [len(clientKeys)]bool
	for _, sb := range s.shown() {
		in[0] = in[0] || sb.m.Config().Retries > 0 || sb.b.Totals().Retries > 0
		for v := range sb.b.Servers() {
			in[1] = in[1] || v.Abandoned
			in[2] = in[2] || v.Ejected
			in[3] = in[3] || v.Warming
		}
	}
	var ks []legendKey
	for i, ok := range in {
		if ok {
			ks = append(ks, clientKeys[i])
		}
	}
	return ks
}

// barScale is the number of requests a full queue bar stands for, one
// scale for every balancer on screen (every lane's): the longest server
// queue of any rounded up to 1, 2 or 5 times a power of ten, at least 5,
// so that bars compare across servers and lanes and a short queue is not
// drawn full.
func (s *Session) barScale() int {
	longest := 0
	for _, sb := range s.shown() {
		for v := range sb.b.Servers() {
			longest = max(longest, v.Queued)
		}
	}
	for p := 1; ; p *= 10 {
		for _, k := range [...]int{1, 2, 5} {
			if n := k * p; n >= max(longest, 5) {
				return n
			}
		}
	}
}

// drawQueueBar draws server v's own queue (per-server queues) in room,
// right of its box: a bar growing from the box, scale requests long at
// full length, one mark per request (front first) when each has room,
// else solid; above it the count and, at the right, the server's share of
// the requests so far, when the boxes are labelled.
func drawQueueBar(f *Frame, room Rect, v sim.ServerView, b *sim.Balancer, scale int, label bool, share string) {
	bar := Rect{room.X, room.Y + room.H*0.2, room.W, room.H * 0.6}
	size := min(max(room.H*0.3, ValueUnits*f.Layout.T), room.H*idShare)
	t := Plural(v.Queued, "queued", "queued")
	// The share ends short of the next server's box: "10%" never runs
	// into its id ("16 10%5").
	gap := max(f.Layout.T*3, room.W*0.03)
	lim := limitText(b, v) // the server's concurrency limit, right after the count
	if label {
		// The count over the bar, at ValueUnits at least: "N queued",
		// or "N" where the word does not fit (beside the share first).
		sw := TextWidth(lim, size, true)
		if share != "" {
			sw += size + TextWidth(share, size, true)
		}
		switch short := Commas(int64(v.Queued)); {
		case TextWidth(t, size, true)+sw <= room.W-gap:
		case TextWidth(short, size, true)+sw <= room.W-gap:
			t = short
		default:
			share = ""
			t = f.fitFirst(size, true, room.W-TextWidth(lim, size, true), t, short)
		}
		bar = Rect{room.X, room.Y + size*1.15 + room.H*0.04, room.W, room.H*0.94 - size*1.15}
	}
	f.rect(SceneLayer, bar, fade(Panel, 0.8))
	if label {
		f.text(SceneLayer, t, room.X, room.Y+room.H*0.04, size, true, AlignStart, TextColor)
		if lim != "" && TextWidth(t+lim, size, true) <= room.W {
			f.text(SceneLayer, lim, room.X+TextWidth(t, size, true), room.Y+room.H*0.04, size, true, AlignStart, LimitCol)
		}
		// The server's share of the requests so far, at the right, when it
		// fits whole beside the count.
		if share != "" {
			f.text(SceneLayer, share, room.X+room.W-gap, room.Y+room.H*0.04, size, true, AlignEnd, ShareCol)
		}
	}
	if v.Queued == 0 {
		return
	}
	n := min(v.Queued, scale)
	pitch := bar.W / float32(scale)
	if pitch >= 3 && pitch >= bar.H*0.5 {
		d := min(pitch*0.8, bar.H*0.8)
		for i := range n {
			f.attempt(SceneLayer, Point{bar.X + pitch*(float32(i)+0.5), bar.Y + bar.H/2}, d, b.ServerQueueAt(v.ID, i))
		}
		return
	}
	f.rect(SceneLayer, Rect{bar.X, bar.Y, max(pitch*float32(n), 1), bar.H}, PColor)
}

// drawInlineBar draws server v's queue bar in room (a cell too low for
// a count over its bar) on one line at ValueUnits: the server's id (dim)
// and its count — with a fleet's gate selected, its load and what that
// balancer thinks (yellow) — then the bar, then its share of the
// requests at the right; what does not fit is left out, the share first,
// then the id.
func (s *Session) drawInlineBar(f *Frame, room Rect, v sim.ServerView, sb shownBalancer, scale int) {
	u, size := f.Layout.T, ValueUnits*f.Layout.T
	y := room.Y + (room.H-size*1.1)/2
	type part struct {
		t string
		c color.RGBA
	}
	lead := []part{{fmt.Sprintf("%d:", v.ID), DimText}, {" " + Commas(int64(v.Queued)), TextColor}}
	if gate, ok := s.selectedGate(sb.lane); ok {
		if think, ok := sb.b.Belief(gate, v.ID); ok {
			lead = []part{{fmt.Sprintf("%d:", v.ID), DimText}, {" " + Commas(load(v)) + " · ", TextColor}, {Commas(think), FocusCol}}
		}
	}
	if lim := limitText(sb.b, v); lim != "" {
		lead = append(lead, part{lim, LimitCol})
	}
	share := s.serverShare(sb.lane, sb.bal, v.ID)
	width := func(ps []part) float32 {
		w := float32(0)
		for _, p := range ps {
			w += TextWidth(p.t, size, true)
		}
		return w
	}
	minBar := 12 * u
	if !inlineShares(room.W, u, size) {
		share = ""
	}
	if n := len(lead); n > 2 && lead[n-1].c == LimitCol && share != "" &&
		width(lead)+minBar+6*u+TextWidth(share, size, true)+6*u > room.W {
		lead = lead[:n-1] // no room for the limit beside the share
	}
	if width(lead)+minBar+6*u > room.W {
		lead = lead[1:]
		lead[0].t = strings.TrimPrefix(lead[0].t, " ")
	}
	if width(lead)+minBar+6*u > room.W {
		drawQueueBar(f, room, v, sb.b, scale, false, "")
		return
	}
	x := room.X
	for _, p := range lead {
		f.text(SceneLayer, p.t, x, y, size, true, AlignStart, p.c)
		x += TextWidth(p.t, size, true)
	}
	end := room.X + room.W - max(u*3, room.W*0.03) // short of the next box
	if share != "" {
		f.text(SceneLayer, share, end, y, size, true, AlignEnd, ShareCol)
		end -= TextWidth(share, size, true) + 6*u
	}
	drawQueueBar(f, Rect{x + 6*u, room.Y, end - x - 6*u, room.H}, v, sb.b, scale, false, "")
}

// inlineRoom is how many times ValueUnits a box must be high for its
// count on one line beside it (drawInlineBar).
const inlineRoom = 1.0

// inlineShares reports whether a one-line bar room (drawInlineBar) w wide
// holds the shares: whether every server's does, a two-digit id and count
// and "10%" with room for the bar, so that the shares' key in the lane's
// title is true of every server or shown for none.
func inlineShares(w, u, size float32) bool {
	return TextWidth("10: 10", size, true)+TextWidth("10%", size, true)+12*u+12*u <= w
}

// sharesShown reports whether grid g's servers show their shares: over
// their bars (a label over each), or beside them on one line when they
// have the room (drawInlineBar).
func sharesShown(f *Frame, g GridSpec) bool {
	least := ValueUnits * f.Layout.T
	if g.Box*idShare >= least {
		return true
	}
	bar := g.BarAt(0)
	return g.Box >= least*inlineRoom && bar.W > 0 && inlineShares(bar.W, f.Layout.T, least)
}

func (s *Session) drawFlights(f *Frame, l Layout, geoms []Lane, queues []QueueSpec, grids []GridSpec) {
	if len(s.anim.flights) == 0 {
		return
	}
	u := l.Unit
	// Box index by id for each balancer, built only when something flies
	// to or from a server.
	ids := make([][]int, len(grids))
	for bi, sb := range s.shown() {
		for v := range sb.b.Servers() {
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
		lane := geoms[fl.bal]
		y := lane.Queue.Y + lane.Queue.H/2 + fl.jit*lane.Queue.H*0.3
		entry := Point{0, y}
		gate := Point{l.Gate.X + l.Gate.W/2, y}
		col := RequestColor(fl.typ)
		if fl.retry {
			col = RetryColor
		}
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
		case flyRetry:
			// A retry sets off again from the gate, in its own colour.
			f.attempt(SceneLayer, lerp(gate, q.SlotAt(fl.slot).Center(), smooth(t)), d, sim.Request{Type: fl.typ, Retry: true})
		case flyBack:
			// An attempt that ended in error or timed out goes back to the
			// gate: in the retry colour when its client retries it, else
			// red (error) or grey (timed out), to leave from there.
			from := q.SlotAt(0).Center()
			if box, ok := boxOf(fl.bal, fl.server); ok && fl.server != 0 {
				from = box.Center()
			}
			p := lerp(from, gate, smooth(t))
			if fl.retry {
				f.attempt(SceneLayer, p, d, sim.Request{Type: fl.typ, Retry: true})
				break
			}
			c := FailColor
			if fl.timed {
				c = TimeoutCol
			}
			f.request(SceneLayer, p, d, fl.typ, fade(c, 1-0.4*t))
		case flyGiveUp:
			// The client gives up: from the gate off to the left, fading.
			to := Point{l.Gate.X - 2*d, y + fl.jit*30*u}
			f.abandoned(SceneLayer, lerp(gate, to, smooth(t)), d*(1-0.3*t), fl.typ, Abandoned)
		case flyReject, flyDiscard:
			// A rejected request runs into the firewall and bounces back
			// over it, on screen (the gate stands at the screen's left
			// edge); a discarded one turns at the full queue.
			turn := Point{l.Gate.X + l.Gate.W*0.6, y}
			back := Point{l.Gate.X + l.Gate.W*0.12, y + fl.jit*40*u}
			c2 := RejectFlash
			if fl.kind == flyDiscard {
				turn = q.SlotAt(min(fl.slot, max(q.Shown-1, 0))).Center()
				turn.X -= q.Pitch
				back = Point{turn.X - 110*u, y + fl.jit*40*u}
				c2 = DiscardCol
			}
			if t < 0.5 {
				f.request(SceneLayer, lerp(entry, turn, smooth(t/0.5)), d, fl.typ, col)
			} else {
				k := (t - 0.5) / 0.5
				a := 1 - k
				if fl.kind == flyReject {
					a = 1 - 0.6*k // stays bright: it must read against the wall
				}
				f.request(SceneLayer, lerp(turn, back, smooth(k)), d*(1+0.4*k), fl.typ, fade(mix(col, c2, k*3), a))
			}
		case flyShed, flyRefuse:
			// The server's own queue (per-server) or the pooled queue's
			// front, and the server's box (the pool's queue tail).
			from, box := q.SlotAt(0).Center(), Rect{}
			if b, ok := boxOf(fl.bal, fl.server); ok && fl.server != 0 {
				box = b
				if bar := grids[fl.bal].BarAt(boxIndex(ids[fl.bal], fl.server)); bar.W > 0 {
					from = Point{bar.X + min(bar.H*0.5, bar.W*0.5), bar.Y + bar.H*0.6}
				} else {
					from = b.Center()
				}
			}
			if fl.kind == flyShed {
				drawShed(f, fl, from, d, t, lane.Queue.H)
				break
			}
			turn := from
			if box.W > 0 {
				turn = Point{box.X, box.Y + box.H/2}
			} else { // the pool: its queue's tail
				turn = q.SlotAt(max(q.Shown-1, 0)).Center()
				turn.X -= q.Pitch
			}
			drawRefusal(f, fl, gate, turn, d, t, col)
		case flyThrottle:
			from := entry // a first attempt comes in from the left edge, a retry from the gate
			if fl.retry {
				from = gate
			}
			drawThrottle(f, fl, from, l.Gate, d, t, col)
		case flyDispatch:
			box, ok := boxOf(fl.bal, fl.server)
			if !ok {
				continue
			}
			from := q.SlotAt(0).Center()
			if (fl.retry || fl.group != 0) && grids[fl.bal].CellW > grids[fl.bal].Cell { // per-server: a retry or a part routed at its arrival comes from the gate
				from = gate
			}
			from = s.gateFrom(fl, lane, from, f.Layout.T)
			p := lerp(from, box.Center(), smooth(t))
			if fl.group != 0 {
				f.part(SceneLayer, from, p, d, fl.group)
			}
			if fl.hedge {
				f.hedge(SceneLayer, p, d, fl.typ)
				break
			}
			f.attempt(SceneLayer, p, d, sim.Request{Type: fl.typ, Retry: fl.retry})
		case flyCancel:
			box, ok := boxOf(fl.bal, fl.server)
			if !ok {
				continue
			}
			f.cancelled(SceneLayer, cancelAt(box, fl.queued, d), d, fl.typ, t)
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

// drawFooter draws the key hint line at the left and the legend at the
// right; the hint gives up its last items when the legend needs the room.
func (s *Session) drawFooter(f *Frame, l Layout) {
	u := l.T
	r := l.Footer
	// The legend, drawn with the same shapes as the scene, each shape just
	// before its name.
	d, size, gap := 12*u, 15*u, 5*u
	items := []struct {
		name string
		draw func(p Point)
	}{
		{"P", func(p Point) { f.request(SceneLayer, p, d, sim.Processing, PColor) }},
		{"S", func(p Point) { f.request(SceneLayer, p, d, sim.Streaming, SColor) }},
		{"idle", func(p Point) { f.stroke(SceneLayer, Rect{p.X - d/2, p.Y - d/2, d, d}, 2*u, IdleColor) }},
		{"busy", func(p Point) { f.rect(SceneLayer, Rect{p.X - d/2, p.Y - d/2, d, d}, BusyColor) }},
		// Keys whose colours are near for some viewers differ in shape
		// too: retiring striped as its boxes, a rejected request turning
		// back (◄), a done one leaving to the right (►).
		{"retiring", func(p Point) {
			r := Rect{p.X - d/2, p.Y - d/2, d, d}
			f.rect(SceneLayer, r, Retiring)
			f.stripe(SceneLayer, r)
		}},
		{"rejected", func(p Point) {
			f.rect(SceneLayer, Rect{p.X - d*0.1, p.Y - d*0.3, d * 0.6, d * 0.6}, RejectFlash)
			f.triangle(SceneLayer, Point{p.X - d/2, p.Y}, Point{p.X - d*0.15, p.Y - d*0.4}, Point{p.X - d*0.15, p.Y + d*0.4}, RejectFlash)
		}},
		{"done", func(p Point) {
			f.rect(SceneLayer, Rect{p.X - d/2, p.Y - d*0.3, d * 0.6, d * 0.6}, DoneColor)
			f.triangle(SceneLayer, Point{p.X + d/2, p.Y}, Point{p.X + d*0.15, p.Y - d*0.4}, Point{p.X + d*0.15, p.Y + d*0.4}, DoneColor)
		}},
		{"down", func(p Point) { f.rect(SceneLayer, Rect{p.X - d/2, p.Y - d/2, d, d}, DownColor) }},
	}
	// The gray states' frames, while a server shown is in one.
	for g := range s.grayShown() {
		col, _ := GrayFrame(g)
		items = append(items, struct {
			name string
			draw func(p Point)
		}{g.String(), func(p Point) { f.stroke(SceneLayer, Rect{p.X - d/2, p.Y - d/2, d, d}, 3*u, col) }})
	}
	// The client side's looks, while one is on screen.
	for _, k := range s.clientShown() {
		items = append(items, struct {
			name string
			draw func(p Point)
		}{k.name, func(p Point) { k.draw(f, Rect{p.X - d/2, p.Y - d/2, d, d}, u) }})
	}
	// Fan-out's and hedging's cancelled attempts, while a lane fans out
	// or hedges; hedges while a lane hedges.
	if s.fansOut() || s.anyHedging() {
		items = append(items, struct {
			name string
			draw func(p Point)
		}{"cancelled", func(p Point) { f.cancelled(SceneLayer, p, d*0.8, sim.Processing, 0) }})
	}
	if s.anyHedging() {
		items = append(items, struct {
			name string
			draw func(p Point)
		}{"hedge", func(p Point) { f.hedge(SceneLayer, p, d*0.8, sim.Processing) }})
	}
	if s.anyShedding() {
		// A shed attempt drops out of its queue (▼), orange.
		items = append(items, struct {
			name string
			draw func(p Point)
		}{"shed", func(p Point) {
			f.rect(SceneLayer, Rect{p.X - d*0.3, p.Y - d/2, d * 0.6, d * 0.45}, ShedCol)
			f.triangle(SceneLayer, Point{p.X, p.Y + d/2}, Point{p.X - d*0.4, p.Y + d*0.05}, Point{p.X + d*0.4, p.Y + d*0.05}, ShedCol)
		}})
	}
	if s.anyThrottling() {
		// A throttled attempt stops dead at its client's bar (●|).
		items = append(items, struct {
			name string
			draw func(p Point)
		}{"throttled", func(p Point) { drawThrottleKey(f, p, d) }})
	}
	var total float32
	for _, it := range items {
		total += d + gap + TextWidth(it.name, size, false) + 3*gap
	}
	x := r.X + r.W - total + 3*gap
	legendX := x
	y := r.Y + r.H/2
	for _, it := range items {
		it.draw(Point{x + d/2, y})
		f.text(SceneLayer, it.name, x+d+gap, y-0.6*size, size, false, AlignStart, DimText)
		x += d + gap + TextWidth(it.name, size, false) + 3*gap
	}
	hint := ""
	for _, part := range footerHint {
		if s.embedded && (part == "Tab focus" || part == "←→ adjust") {
			continue // no control bar to move over
		}
		next := part
		if hint != "" {
			next = hint + " · " + part
		}
		if r.X+TextWidth(next, 14*u, false) > legendX-4*gap {
			break
		}
		hint = next
	}
	f.text(SceneLayer, hint, r.X, r.Y+2*u, 14*u, false, AlignStart, DimText)
}

// footerHint are the key hint line's items, most useful first: from
// bindings, with Tab and the arrows on a focused control.
var footerHint = func() []string {
	var h []string
	for i, b := range bindings {
		if b.short == "" {
			continue
		}
		h = append(h, b.label+" "+b.short)
		if i == 2 {
			h = append(h, "Tab focus", "←→ adjust")
		}
	}
	return h
}()

// helpLines are the lines of the help overlay: the shortcuts two a line,
// then the keys of a focused control, the mouse, and the picture.
var helpLines = func() []string {
	var lines []string
	for i := 0; i < len(bindings); i += 2 {
		line := bindings[i].label + " — " + bindings[i].what
		if i+1 < len(bindings) {
			line += "     " + bindings[i+1].label + " — " + bindings[i+1].what
		}
		lines = append(lines, line)
	}
	return append(lines,
		"Tab / Shift+Tab — move the focus over the controls (yellow frame)",
		"  slider: ← → (↑ ↓) one step, PgUp/PgDn ten, Home/End; or drag it",
		"  policy: ← → or click;  buttons: Enter or Space;  lists: ↑ ↓;  Esc leaves",
		"0–9 — type a seed (or click the seed field), Enter restarts with it",
		"lessons — ready scenarios by topic (← →); 1–4 answer a question, Y tries more",
		"compare (C) — lanes on the same requests: arrival sliders change every lane,",
		"  the others the focused lane (N, or click a lane). Ready-made: in the lessons",
		"  menu, or ?comparison="+strings.Join(comparisonNames(), " | "),
		"Click a server — take it down at the next cycle; click again — up",
		"Click the firewall (or B) — block or allow address ranges at the next cycle",
		"clients, health (buttons) — timeouts, retries, budget; health checks, ejection, warm-up",
		"Every change takes effect at the next cycle and is recorded.",
		"",
		"Requests enter at the left: the firewall rejects blocked sources (yellow),",
		"the rest wait in the FIFO queue (front at the right) and fly to idle",
		"servers. P = cyan square, S = pink diamond. Servers: idle = hollow green,",
		"busy = blue with progress, retiring = amber striped, down = dark red, crossed.",
		"Clients: a retry is orange with a dark core; work nobody waits for (timed out) is",
		"grey and hollow; ejected = dimmed with a dashed frame, warming = dashed blue frame.",
		"Scaling, every K cycles (cooldown): with S active servers, the pool grows by one",
		"when the queue is above U·S and shrinks by one when it is below D·S (charts: lines).",
		"Times are in cycles; the arrival rate is requests per cycle.")
}()

// HelpLines returns the help overlay's text.
func HelpLines() []string { return slices.Clone(helpLines) }

func (s *Session) drawOverlays(f *Frame, l Layout) {
	u := l.T
	if s.banner && len(s.opts.Problems) > 0 {
		size := 18 * u
		var lines []string
		for _, p := range s.opts.Problems {
			lines = append(lines, wrapWidth(p, size, l.W*0.8-24*u)...)
		}
		lines = append(lines, "press any key to hide this message")
		h := float32(len(lines))*24*u + 16*u
		r := Rect{l.W * 0.1, l.HUD.Y + l.HUD.H + 12*u, l.W * 0.8, h}
		f.rect(TopLayer, r, ErrorPanel)
		f.stroke(TopLayer, r, 2*u, RejectColor)
		for i, line := range lines {
			f.text(TopLayer, line, r.X+12*u, r.Y+8*u+float32(i)*24*u, size, false, AlignStart, TextColor)
		}
	}
	if s.help {
		k := min(u, l.H/(float32(len(helpLines)+1)*26+40), l.W/880) // the overlay's unit: as large as fits
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
