package scene

import (
	"fmt"
	"strconv"

	"github.com/lbsim/lbsim/sim"
)

// A fleet of balancers on screen: with Balancer.FleetSize() K > 1 each
// lane draws up to MaxGates gates between the firewall and its servers
// (the last one "+N" when K is larger), each request routed at arrival
// flies from the gate of its balancer (Request.Member), and a selected
// gate (a click, or V for the next one; a click again or Esc: none) shows
// beside every server's queue what that balancer believes the server's
// load to be, next to the truth, and with a periodic board its age.

// MaxGates is the most balancer gates a lane draws: with more balancers
// the last gate stands for all the others ("+N").
const MaxGates = 8

// gateColumnUnits is the width of a lane's column of gates, and
// gateGapUnits the room between it and the lobby, in design pixels.
const (
	gateColumnUnits = 72
	gateGapUnits    = 14
)

// fleetView is the fleet's side of a Session: the gate selected, if any.
type fleetView struct {
	on         bool
	lane, gate int // the lane (index in the set) and the gate (from 0)
}

// FleetLane returns a per-server lane with a column for the gates of its
// fleet of k balancers (Lane.Gates) at the left of its lobby; the lobby
// and the pool move right. Where the column's grid of gates is too small
// for their numbers at text scale t (presentation mode in a short lane),
// the gates stand in a row as wide as their numbers need, the room taken
// from the lobby first (it holds requests only when every queue is full).
func FleetLane(lane Lane, unit, t float32, k int) Lane {
	w := gateColumnUnits * unit
	if g := newGateGrid(Rect{lane.Queue.X, lane.Queue.Y, w, lane.Queue.H}, k, t); g.row {
		w = max(w, g.width())
	}
	lane.Gates = Rect{lane.Queue.X, lane.Queue.Y, w, lane.Queue.H}
	d := w + gateGapUnits*unit
	lobby := min(w-gateColumnUnits*unit, max(lane.Queue.W-minLobbyUnits*unit, 0))
	lane.Queue.X += d
	lane.Queue.W -= lobby
	lane.Pool.X += d - lobby
	lane.Pool.W -= d - lobby
	return lane
}

// minLobbyUnits is the narrowest a fleet's lobby gets for its gates'
// numbers, in design pixels.
const minLobbyUnits = 24

// GateRects places the gates of a fleet of k balancers in area at text
// scale t: the fewest columns that make the gates largest, filled top to
// bottom, each gate as wide as its column and at most as high as wide,
// the block centred in area; or, where those are too small for their
// numbers, one row of gates each as wide as its number needs (gateGrid).
func GateRects(area Rect, k int, t float32) []Rect {
	g := newGateGrid(area, k, t)
	rs := make([]Rect, g.n)
	for i := range rs {
		rs[i] = g.at(i)
	}
	return rs
}

// gateGrid is the arrangement GateRects makes, so that one gate's
// rectangle is found without the others (a flight's, every frame). In a
// row (row), gates before the last are w1 wide and the last wl.
type gateGrid struct {
	area        Rect
	n, rows     int
	cw, ch, gap float32
	top         float32
	row         bool
	w1, wl      float32
}

// Gate labels: the room around a number in a gate of a row, and the gap
// between gates there, in design pixels of text.
const (
	gatePadUnits = 6
	gateGapRow   = 2
)

func newGateGrid(area Rect, k int, t float32) gateGrid {
	n := gateCount(k)
	if n <= 0 || area.W <= 0 || area.H <= 0 {
		return gateGrid{}
	}
	cols, best := 1, float32(0)
	for c := 1; c <= n; c++ {
		rows := (n + c - 1) / c
		if side := min(area.W/float32(c), area.H/float32(rows)); side > best {
			cols, best = c, side
		}
	}
	g := gateGrid{area: area, n: n, rows: (n + cols - 1) / cols, cw: area.W / float32(cols)}
	g.ch = min(area.H/float32(g.rows), g.cw*0.8)
	g.gap = max(g.ch*0.14, 1)
	g.top = area.Y + (area.H-g.ch*float32(g.rows))/2
	r := g.at(0)
	for i := range n {
		if !gateLabelFits(r, GateLabel(i, k), t) {
			return gateRow(area, k, t)
		}
	}
	return g
}

// gateRow lays the gates of a fleet of k in one row at the left of area,
// each as wide as its number at ValueUnits (the last, "+N", wider).
func gateRow(area Rect, k int, t float32) gateGrid {
	n := gateCount(k)
	size := ValueUnits * t
	g := gateGrid{area: area, n: n, rows: 1, row: true, gap: gateGapRow * t}
	g.ch = min(area.H, size*1.4)
	g.top = area.Y + (area.H-g.ch)/2
	for i := range n - 1 {
		g.w1 = max(g.w1, TextWidth(GateLabel(i, k), size, true)+gatePadUnits*t)
	}
	g.wl = TextWidth(GateLabel(n-1, k), size, true) + gatePadUnits*t
	return g
}

// width is the width of a row of gates.
func (g gateGrid) width() float32 { return float32(g.n-1)*(g.w1+g.gap) + g.wl }

// at returns gate i's rectangle (0 ≤ i < n).
func (g gateGrid) at(i int) Rect {
	if g.row {
		w := g.w1
		if i == g.n-1 {
			w = g.wl
		}
		return Rect{g.area.X + float32(i)*(g.w1+g.gap), g.top, w, g.ch}
	}
	c, r := i/g.rows, i%g.rows
	return Rect{g.area.X + float32(c)*g.cw + g.gap/2, g.top + float32(r)*g.ch + g.gap/2, g.cw - g.gap, g.ch - g.gap}
}

// gateStroke is the frame of gate r, thicker when selected; gateLabelSize
// the size of its number at text scale t.
func gateStroke(r Rect, selected bool) float32 {
	if selected {
		return max(r.H*0.14, 2)
	}
	return max(r.H*0.06, 1)
}

func gateLabelSize(r Rect, t float32) float32 { return max(min(r.H*0.55, 16*t), ValueUnits*t) }

// gateLabelFits reports whether label fits whole in gate r, selected
// (its thicker frame) or not.
func gateLabelFits(r Rect, label string, t float32) bool {
	size := gateLabelSize(r, t)
	return size <= r.H && TextWidth(label, size, true) <= r.W-2*gateStroke(r, true)
}

// gateCount is the number of gates a fleet of k balancers draws.
func gateCount(k int) int {
	if k <= 1 {
		return 0
	}
	return min(k, MaxGates)
}

// GateOf returns the gate (from 0) balancer member (from 0) of a fleet of
// k flies from: its own, or the last one's "+N" beyond MaxGates − 1.
func GateOf(member, k int) int { return min(member, gateCount(k)-1) }

// GateLabel returns gate i's label in a fleet of k: the balancer's number
// from 1, or "+N" for the last gate that stands for N balancers.
func GateLabel(i, k int) string {
	if i == MaxGates-1 && k > MaxGates {
		return "+" + strconv.Itoa(k-MaxGates+1)
	}
	return strconv.Itoa(i + 1)
}

// gates returns the gates' rectangles of lane (laid out by laneGeom) for
// balancer b, none without a fleet.
func gates(lane Lane, b *sim.Balancer, t float32) []Rect {
	if lane.Gates.W <= 0 {
		return nil
	}
	return GateRects(lane.Gates, b.FleetSize(), t)
}

// selectedGate returns the gate selected in lane, if any; a selection the
// lane's fleet no longer has (a restart, another lesson) is none.
func (s *Session) selectedGate(lane int) (int, bool) {
	g := s.fleet
	if !g.on || g.lane != lane || lane >= len(s.set.Lanes) {
		return 0, false
	}
	bs := s.set.Lanes[lane].Model.Balancers()
	if len(bs) != 1 || g.gate >= gateCount(bs[0].FleetSize()) {
		return 0, false
	}
	return g.gate, true
}

// clickGate selects the gate at p (again: none) and focuses its lane; it
// reports whether p was on a gate.
func (s *Session) clickGate(l Layout, p Point) bool {
	for k, sb := range s.shown() {
		if k >= len(l.Lanes) {
			break
		}
		lane, _ := s.laneGeom(l, k, sb)
		for i, r := range gates(lane, sb.b, l.T) {
			if !inside(r, p) {
				continue
			}
			if g, ok := s.selectedGate(sb.lane); ok && g == i {
				s.fleet.on = false
			} else {
				s.fleet = fleetView{on: true, lane: sb.lane, gate: i}
			}
			s.lane = sb.lane
			return true
		}
	}
	return false
}

// nextGate selects the focused lane's next gate (V), none after the last.
func (s *Session) nextGate() {
	bs := s.set.Lanes[s.lane].Model.Balancers()
	if len(bs) != 1 || gateCount(bs[0].FleetSize()) == 0 {
		s.say("no fleet here: one balancer routes every request (set balancers above 1)", false)
		return
	}
	g, ok := s.selectedGate(s.lane)
	switch {
	case !ok:
		s.fleet = fleetView{on: true, lane: s.lane}
	case g+1 < gateCount(bs[0].FleetSize()):
		s.fleet.gate = g + 1
	default:
		s.fleet.on = false
	}
}

// clearGate deselects the gate (Esc); it reports whether one was selected.
func (s *Session) clearGate() bool {
	on := s.fleet.on
	s.fleet.on = false
	return on
}

// drawGates draws lane's gates for balancer sb (none without a fleet):
// each a box with its balancer's number, the selected one framed in the
// focus colour, thicker.
func (s *Session) drawGates(f *Frame, lane Lane, sb shownBalancer) {
	t := f.Layout.T
	rs := gates(lane, sb.b, t)
	if len(rs) == 0 {
		return
	}
	k := sb.b.FleetSize()
	sel, on := s.selectedGate(sb.lane)
	for i, r := range rs {
		f.rect(SceneLayer, r, Panel)
		c := DimText
		if on && i == sel {
			c = FocusCol
		}
		f.stroke(SceneLayer, r, gateStroke(r, on && i == sel), c)
		label := GateLabel(i, k)
		if size := gateLabelSize(r, t); gateLabelFits(r, label, t) {
			f.text(SceneLayer, label, r.X+r.W/2, r.Y+(r.H-size)/2, size, true, AlignCenter, c)
		}
	}
}

// gateFrom returns where a flight of shown balancer fl.bal (lane, laid
// out by laneGeom) leaves from: the gate of its balancer in a fleet, else
// from; t is the text scale.
func (s *Session) gateFrom(fl *flight, lane Lane, from Point, t float32) Point {
	if lane.Gates.W <= 0 {
		return from // no fleet
	}
	var k int
	i := 0
	for _, l := range s.set.Lanes { // the shown balancers, in order, without a slice each flight
		for _, b := range l.Model.Balancers() {
			if i == fl.bal {
				k = b.FleetSize()
			}
			i++
		}
	}
	g := newGateGrid(lane.Gates, k, t)
	if g.n == 0 {
		return from
	}
	return g.at(GateOf(fl.member, k)).Center()
}

// load is the truth a belief is set beside: the requests server v holds,
// queued and in service.
func load(v sim.ServerView) int64 {
	n := int64(v.Queued)
	if v.State == sim.Busy || v.State == sim.Retiring {
		n++
	}
	return n
}

// drawBelief draws, when a gate of balancer sb's lane is selected, server
// v's queue bar in room with the truth and what that balancer believes
// the load to be above it: "load 3 · thinks 0", "3 · thinks 0" or "3 · 0"
// where less room (the belief in the focus colour, the lane's title
// keys it), the first form that fits whole at the count's size or
// smaller, down to ValueUnits. It reports whether it drew; when no form
// fits, the plain queue bar is drawn instead.
func (s *Session) drawBelief(f *Frame, room Rect, v sim.ServerView, sb shownBalancer, scale int, label bool) bool {
	gate, ok := s.selectedGate(sb.lane)
	if !ok || !label {
		return false
	}
	think, ok := sb.b.Belief(gate, v.ID) // the "+N" gate shows the first balancer it stands for
	if !ok {
		return false
	}
	least := ValueUnits * f.Layout.T
	size0 := min(max(room.H*0.3, least), room.H*idShare)
	truth, belief := Commas(load(v)), Commas(think)
	forms := [][2]string{{"load " + truth + " · ", "thinks " + belief}, {truth + " · ", "thinks " + belief}, {truth + " · ", belief}}
	for _, form := range forms {
		for size := size0; size >= least; size = max(size*0.9, least) {
			if TextWidth(form[0]+form[1], size, true) <= room.W {
				top := size*1.15 + room.H*0.04
				drawQueueBar(f, Rect{room.X, room.Y + top, room.W, room.H - top}, v, sb.b, scale, false, "")
				f.text(SceneLayer, form[0], room.X, room.Y+room.H*0.04, size, true, AlignStart, TextColor)
				f.text(SceneLayer, form[1], room.X+TextWidth(form[0], size, true), room.Y+room.H*0.04, size, true, AlignStart, FocusCol)
				return true
			}
			if size == least {
				break
			}
		}
	}
	return false
}

// drawBeliefKey draws, when a gate of sb's lane is selected, the key of
// the beliefs at the right of the lane's title, after x (where the
// servers' counts end): whose beliefs, and a periodic board's age. It
// reports whether a gate is selected (then the title's other keys give
// way).
func (s *Session) drawBeliefKey(f *Frame, lane Lane, sb shownBalancer, x float32) bool {
	gate, ok := s.selectedGate(sb.lane)
	if !ok {
		return false
	}
	u := lane.Title.H / 24
	small := 13 * u
	y := lane.Title.Y + (titleUnits*u-small)*0.8
	k := sb.b.FleetSize()
	who := fmt.Sprintf("balancer %d of %d", gate+1, k)
	var cands []string
	if at, ok := sb.b.BoardAt(); ok {
		age := "board " + Commas(sb.m.Cycle()-at) + " cycles old"
		cands = append(cands, who+": load · thinks (yellow) · "+age, who+" · "+age, age)
	}
	cands = append(cands, who+": load · thinks (yellow)", who)
	end := lane.Title.X + lane.Title.W
	for _, c := range cands {
		if w := TextWidth(c, small, false); w <= end-x-12*u {
			f.text(SceneLayer, c, end, y, small, false, AlignEnd, FocusCol)
			break
		}
	}
	return true
}

// gateControls are the gates on screen for State: "gate:N" (in the
// compare view "LANE/gate:N"), valued by their label, ",selected" after
// the selected one's.
func (s *Session) gateControls(l Layout) []Control {
	var out []Control
	for k, sb := range s.shown() {
		if k >= len(l.Lanes) {
			break
		}
		lane, _ := s.laneGeom(l, k, sb)
		sel, on := s.selectedGate(sb.lane)
		for i, r := range gates(lane, sb.b, l.T) {
			id := "gate:" + strconv.Itoa(i+1)
			if s.Comparing() {
				id = strconv.Itoa(sb.lane+1) + "/" + id
			}
			val := GateLabel(i, sb.b.FleetSize())
			if on && i == sel {
				val += ",selected"
			}
			out = append(out, Control{ID: id, R: r, Value: val})
		}
	}
	return out
}

// staleTheory returns why no queueing model applies to cfg's routing when
// its balancers read stale or partial loads (a periodic board, or local
// counts in a fleet) with a policy that reads load, or "" when the
// information is exact (or does not matter, as for random routing and
// p2c drawing one candidate): the models of one balancer still hold then.
func staleTheory(cfg sim.Config) string {
	if cfg.Queues != sim.PerServer || !cfg.Policy.Info().ReadsLoad || cfg.Policy.TheoryFor(cfg.Choices) == sim.TheorySplit {
		return ""
	}
	k := max(cfg.Balancers, 1)
	var what string
	switch t, periodic := cfg.LoadInfo.Periodic(); {
	case periodic:
		what = fmt.Sprintf("a board refreshed every %s cycles", Commas(t))
	case cfg.LoadInfo == sim.LoadLocal && k > 1:
		what = "local counts (each balancer its own requests only)"
	default:
		return ""
	}
	return fmt.Sprintf("no closed form: %d balancers reading %s pick from stale loads, and %v's models (for exact loads) do not hold; "+
		"random routing keeps c × M/M/1, p2c with exact loads the supermarket model", k, what, cfg.Policy)
}
