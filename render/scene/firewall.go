package scene

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

// firewallState counts the requests each blocked range rejected, for the
// gate's list of ranges.
type firewallState struct {
	ranges []sim.Range // the blocked ranges in force, merged, ascending
	counts []int64     // rejections per range
	last   int64       // rejections in the last cycle, for the gate's flash
}

// reset starts counting for the block list of cfg.
func (f *firewallState) reset(cfg sim.Config) {
	fw := sim.NewFirewall(cfg.Blocked)
	f.ranges = fw.Ranges()
	f.counts = make([]int64, len(f.ranges))
	f.last = 0
}

// observe counts the rejections among one cycle's events.
func (f *firewallState) observe(evs []sim.Event) {
	f.last = 0
	for i := range evs {
		if evs[i].Kind != sim.Reject {
			continue
		}
		f.last++
		if k := RangeOf(f.ranges, evs[i].Request.Src); k >= 0 {
			f.counts[k]++
		}
	}
}

// RangeOf returns the index of the range of ranges (ascending, disjoint)
// that holds addr, or −1.
func RangeOf(ranges []sim.Range, addr uint32) int {
	lo, hi := 0, len(ranges)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ranges[mid].Last < addr {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(ranges) && ranges[lo].First <= addr {
		return lo
	}
	return -1
}

// CompactRange writes a range short enough for the gate: a CIDR block
// without its trailing zero octets ("10/8", "192.168/16", "172.16/12"),
// else "first–last".
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
	// Bricks: as bright as the share rejected; none when nothing is blocked.
	if len(s.fw.ranges) > 0 {
		a := float32(0.25 + 0.65*min(pct/25, 1))
		rows := max(int(g.H/(22*u)), 1)
		bh := g.H / float32(rows)
		for r := range rows {
			off := float32(0)
			if r%2 == 1 {
				off = g.W / 4
			}
			f.rect(SceneLayer, Rect{g.X + off, g.Y + float32(r)*bh + 2*u, g.W/2 - 3*u, bh - 4*u}, fade(GateColor, a))
		}
	}
	if s.fw.last > 0 {
		f.stroke(SceneLayer, g, 3*u, RejectFlash)
	}
	// The counter, then the ranges with their counts on dark plates.
	y := g.Y + 6*u
	plate := func(lines int) Rect { return Rect{g.X + 4*u, y - 2*u, g.W - 8*u, float32(lines)*15*u + 4*u} }
	f.rect(SceneLayer, plate(2), fade(Background, 0.9))
	f.text(SceneLayer, "rejected", g.X+g.W/2, y, 12*u, false, AlignCenter, TextColor)
	f.text(SceneLayer, Commas(t.Rejected)+fmt.Sprintf(" · %.1f%%", pct), g.X+g.W/2, y+14*u, 13*u, true, AlignCenter, RejectFlash)
	y += 38 * u
	if len(s.fw.ranges) == 0 {
		f.rect(SceneLayer, plate(1), fade(Background, 0.9))
		f.text(SceneLayer, "blocks nothing", g.X+g.W/2, y, 12*u, false, AlignCenter, TextColor)
		return
	}
	for i, r := range s.fw.ranges {
		if y+30*u > g.Y+g.H {
			f.text(SceneLayer, fmt.Sprintf("+%d more", len(s.fw.ranges)-i), g.X+g.W/2, y, 12*u, false, AlignCenter, TextColor)
			break
		}
		f.rect(SceneLayer, plate(2), fade(Background, 0.9))
		f.text(SceneLayer, CompactRange(r), g.X+8*u, y, 13*u, true, AlignStart, TextColor)
		f.text(SceneLayer, Commas(s.fw.counts[i]), g.X+g.W-8*u, y+14*u, 12*u, false, AlignEnd, DimText)
		y += 34 * u
	}
}
