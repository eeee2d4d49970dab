package scene

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

// firewallState counts the requests each blocked range rejected, for the
// gate's list of ranges. A request is counted for the first range of the
// block list that holds its source.
type firewallState struct {
	ranges []sim.Range // the block list in force, in its order
	counts []int64     // rejections per range
	last   int64       // rejections in the last cycle, for the gate's flash
	// recent are the cycles of the last rejections (at most maxBounces,
	// oldest first): their bounce marks stay beside the gate for
	// bounceCycles, a paused picture included.
	recent []int64
}

// maxBounces is the most bounce marks beside the gate; bounceCycles how
// long one stays.
const (
	maxBounces   = 6
	bounceCycles = 40
)

// reset starts counting for the block list of cfg.
func (f *firewallState) reset(cfg sim.Config) {
	*f = firewallState{}
	f.follow(cfg.Blocked)
}

// follow takes a new block list (a block or unblock change), keeping the
// counts of the ranges that stay.
func (f *firewallState) follow(blocked []sim.Range) {
	if f.ranges != nil && slices.Equal(f.ranges, blocked) {
		return
	}
	old := map[sim.Range]int64{}
	for i, r := range f.ranges {
		old[r] += f.counts[i]
	}
	f.ranges = append([]sim.Range{}, blocked...)
	f.counts = make([]int64, len(f.ranges))
	for i, r := range f.ranges {
		f.counts[i] = old[r]
	}
}

// observe counts the rejections among one cycle's events.
func (f *firewallState) observe(evs []sim.Event) {
	f.last = 0
	for i := range evs {
		if evs[i].Kind != sim.Reject {
			continue
		}
		f.last++
		f.recent = append(f.recent, evs[i].Cycle)
		if len(f.recent) > maxBounces {
			f.recent = f.recent[1:]
		}
		if k := RangeOf(f.ranges, evs[i].Request.Src); k >= 0 {
			f.counts[k]++
		}
	}
}

// RangeOf returns the index of the first range of ranges that holds addr,
// or −1.
func RangeOf(ranges []sim.Range, addr uint32) int {
	for i, r := range ranges {
		if r.Contains(addr) {
			return i
		}
	}
	return -1
}

// CompactRange writes a range short enough for the gate: a CIDR block
// without its trailing zero octets ("10/8", "192.168/16", "172.16/12"),
// a block of 0.0.0.0 in full ("0.0.0.0/1": a lone "0" reads as no
// address), else "first–last".
func CompactRange(r sim.Range) string {
	s := r.String()
	addr, bits, ok := strings.Cut(s, "/")
	if !ok {
		return s
	}
	n, err := strconv.Atoi(bits)
	if err != nil {
		return s
	}
	if strings.Trim(addr, "0.") == "" {
		return s
	}
	octets := strings.Split(addr, ".")
	keep := max((n+7)/8, 1)
	for len(octets) > keep && octets[len(octets)-1] == "0" {
		octets = octets[:len(octets)-1]
	}
	return strings.Join(octets, ".") + "/" + bits
}

// gateWidthUnits is the firewall's width in design pixels: room for its
// list of ranges.
const gateWidthUnits = 104

func (s *Session) drawGate(f *Frame, l Layout) {
	u := l.T
	g := l.Gate
	t := s.m.Totals()
	pct := 0.0
	if t.Generated > 0 {
		pct = 100 * float64(t.Rejected) / float64(t.Generated)
	}
	f.text(SceneLayer, "firewall", g.X+g.W/2, g.Y-24*u, 16*u, true, AlignCenter, GateColor)
	f.rect(SceneLayer, g, Panel)
	// Bricks: a wall as bright as the share rejected, inside the plates'
	// margins (a plate hides what is under it whole); none when nothing
	// is blocked.
	if len(s.fw.ranges) > 0 {
		a := float32(0.25 + 0.65*min(pct/25, 1))
		rows := max(int(g.H/(22*u)), 1)
		bh := g.H / float32(rows)
		in0, in1 := g.X+4*u, g.X+g.W-4*u
		for r := range rows {
			off := float32(0)
			if r%2 == 1 {
				off = -g.W / 4
			}
			for x := g.X + off; x < in1; x += g.W / 2 {
				x0, x1 := max(x+1.5*u, in0), min(x+g.W/2-1.5*u, in1)
				if x1 > x0 {
					f.rect(SceneLayer, Rect{x0, g.Y + float32(r)*bh + 2*u, x1 - x0, bh - 4*u}, fade(GateColor, a))
				}
			}
		}
	}
	s.drawBounces(f, g, u)
	// The counter, then the ranges with their counts on dark plates, over
	// the requests that fly into the gate and bounce off it (they pass
	// under the plates: the counts stay readable at every speed).
	y := g.Y + 6*u
	plate := func(lines int) Rect { return Rect{g.X + 4*u, y - 2*u, g.W - 8*u, float32(lines)*15*u + 4*u} }
	f.rect(OverlayLayer, plate(2), Background)
	if s.fw.last > 0 {
		// A rejection this cycle: the counter's plate flashes (not the
		// gate's frame, which would read as a selection).
		f.stroke(OverlayLayer, plate(2), 2*u, RejectFlash)
	}
	f.text(OverlayLayer, "rejected", g.X+g.W/2, y, 12*u, false, AlignCenter, TextColor)
	f.text(OverlayLayer, Commas(t.Rejected)+fmt.Sprintf(" · %.1f%%", pct), g.X+g.W/2, y+14*u, 13*u, true, AlignCenter, RejectFlash)
	y += 38 * u
	if len(s.fw.ranges) == 0 {
		f.rect(OverlayLayer, plate(1), Background)
		f.text(OverlayLayer, "blocks nothing", g.X+g.W/2, y, 12*u, false, AlignCenter, TextColor)
		return
	}
	for i, r := range s.fw.ranges {
		if y+30*u > g.Y+g.H {
			f.text(OverlayLayer, fmt.Sprintf("+%d more", len(s.fw.ranges)-i), g.X+g.W/2, y, 12*u, false, AlignCenter, TextColor)
			break
		}
		f.rect(OverlayLayer, plate(2), Background)
		f.text(OverlayLayer, CompactRange(r), g.X+8*u, y, 13*u, true, AlignStart, TextColor)
		f.text(OverlayLayer, Commas(s.fw.counts[i]), g.X+g.W-8*u, y+14*u, 12*u, false, AlignEnd, DimText)
		y += 34 * u
	}
}

// drawBounces draws a mark for each of the last rejections (at most
// maxBounces, each for bounceCycles) just right of gate g: a yellow
// arrowhead pointing back out, the newest at the top and brightest, so
// that a paused picture still shows that requests bounce off the gate.
func (s *Session) drawBounces(f *Frame, g Rect, u float32) {
	now := s.m.Cycle()
	m := 5 * u
	x := g.X + g.W + 3*u
	k := 0
	for i := len(s.fw.recent) - 1; i >= 0; i-- {
		age := now - s.fw.recent[i]
		if age > bounceCycles {
			break
		}
		y := g.Y + g.H*0.35 + float32(k)*2.6*m
		if y+m > g.Y+g.H {
			break
		}
		a := 1 - 0.6*float32(age)/bounceCycles
		f.triangle(SceneLayer, Point{x, y}, Point{x + 1.6*m, y - m}, Point{x + 1.6*m, y + m}, mix(Panel, RejectFlash, a))
		k++
	}
}

// WFirewallPrefix starts the ids of the firewall dialog's entries:
// "range:10.0.0.0/8".
const WFirewallPrefix = "range:"

// candidateRanges are offered in the firewall dialog besides the ranges
// blocked now: the default list and a few large blocks.
var candidateRanges = func() []sim.Range {
	rs := sim.DefaultBlocked()
	for _, s := range []string{"0.0.0.0/1", "128.0.0.0/1", "64.0.0.0/2", "100.64.0.0/10"} {
		r, err := sim.ParseRange(s)
		if err == nil {
			rs = append(rs, r)
		}
	}
	return rs
}()

// blockedNext reports whether r will be in the block list at the next
// cycle: in force now, or blocked or unblocked by a change the viewer made
// for the next cycle.
func (s *Session) blockedNext(r sim.Range) bool {
	on := slices.Contains(s.m.Config().Blocked, r)
	next := s.m.Cycle() + 1
	for _, c := range s.m.Pending() {
		if c.Cycle == next && (c.Setting == sim.SetBlock || c.Setting == sim.SetUnblock) && sim.ValueRange(c.Value) == r {
			on = c.Setting == sim.SetBlock
		}
	}
	return on
}

// firewallWidgets are the firewall dialog's entries: each range blocked
// now or offered, which a click blocks or allows at the next cycle (a
// block or unblock change, recorded like any other), then close.
func (s *Session) firewallWidgets() []widget {
	rs := slices.Clone(s.m.Config().Blocked)
	for _, r := range candidateRanges {
		if !slices.Contains(rs, r) {
			rs = append(rs, r)
		}
	}
	var ws []widget
	for _, r := range rs {
		ws = append(ws, widget{id: WFirewallPrefix + r.String(), kind: kButton, row: rowList, label: r.String(),
			text: func(s *Session) string {
				if s.blockedNext(r) {
					return r.String() + ": blocked — click to allow"
				}
				return r.String() + ": allowed — click to block"
			},
			act: func(s *Session) {
				name := "block"
				if s.blockedNext(r) {
					name = "unblock"
				}
				if err := s.Set(name, r.String()); err != nil {
					s.say(err.Error(), true)
				}
			}})
	}
	return append(ws, widget{id: "firewall-close", kind: kButton, label: "close (Esc)", row: rowList, width: 160, intent: CloseDialog})
}

func (s *Session) drawFirewallDialog(f *Frame, l Layout) {
	if s.dialog != dialogFirewall {
		return
	}
	u := l.T
	d := listDialog(l, len(s.controls()))
	f.box("dialog", d)
	f.rect(DialogLayer, d, Background)
	f.stroke(DialogLayer, d, 2*u, BusyColor)
	f.text(DialogLayer, "the firewall's block list: changes apply at the next cycle and are recorded", d.X+16*u, d.Y+14*u, 17*u, true, AlignStart, TextColor)
}
