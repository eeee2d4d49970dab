package scene

import (
	"image/color"
	"math"
	"strings"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/mmc"
)

// fanoutTexts is the HUD's second line with fan-out or hedging on: texts
// with the p95 wait (a part's, not a request's) given up for the parts,
// the attempts cancelled, hedging's counts (hedgeTexts) and the p99
// readout (p99Text).
func (s *Session) fanoutTexts(texts []string) []string {
	sum := s.m.Summary()
	out := make([]string, 0, len(texts)+5)
	for _, t := range texts {
		if !strings.HasPrefix(t, "p95 wait ") {
			out = append(out, t)
		}
	}
	out = append(out, "parts "+Commas(sum.Parts), "cancelled "+Commas(sum.Cancelled))
	return append(append(out, hedgeTexts(s.m)...), s.p99Text())
}

// p99Text is the readout of a part's p99 against a request's, both
// measured (a part's by the page, partp99.go; a request's by the run),
// the theory beside each where it holds (low load; a hedged part's is the
// first of its attempts to complete).
func (s *Session) p99Text() string {
	cfg := s.m.Config()
	part, _ := s.PartP99(0)
	pt, rt := "part p99 "+Commas(part), "request p99 "+Commas(s.m.Summary().ResponseP99)
	s.tailTheory(cfg, mmc.TailOf(cfg))
	if s.tailErr == nil && s.tail.LowLoad != nil {
		th := s.tail.LowLoad.PartP99
		if s.tail.HedgeAfter > 0 {
			th = s.tail.LowLoad.HedgedPartP99
		}
		pt += " (theory " + Commas(int64(th)) + ")"
		rt += " (theory " + Commas(int64(s.tail.LowLoad.RequestP99)) + ")"
	}
	return pt + " · " + rt
}

// GroupTints are the tints of fan-out's part groups, one a request (by
// its id, in turn): neighbouring requests differ. Colour is not the only
// cue: a request's parts are tethered to the one point at the gate they
// set off from (Frame.part).
var GroupTints = [...]color.RGBA{
	{0xff, 0xd3, 0x3d, 0xff}, // amber
	{0xb3, 0x8c, 0xff, 0xff}, // violet
	{0x5c, 0xe1, 0xe6, 0xff}, // teal
	{0xff, 0x8f, 0xa3, 0xff}, // rose
	{0xa8, 0xe0, 0x63, 0xff}, // lime
}

// GroupTint is the tint of request id's parts.
func GroupTint(id int64) color.RGBA {
	return GroupTints[uint64(id)%uint64(len(GroupTints))]
}

// CancelCol is a cancelled attempt's colour: a hollow grey-white marker,
// crossed, fading where it was.
var CancelCol = color.RGBA{0xc8, 0xcf, 0xd6, 0xff}

// part draws the tint of a part of request id flying from origin to p
// (marker side d): a thin tether from the gate point its request's parts
// all set off from, and a ring in the request's tint around where its
// marker goes.
func (f *Frame) part(layer int, origin, p Point, d float32, id int64) {
	c := GroupTint(id)
	f.line(layer, origin, p, max(d*0.12, 1), fade(c, 0.45))
	r := d * 0.8
	f.stroke(layer, Rect{p.X - r, p.Y - r, 2 * r, 2 * r}, max(d*0.15, 1), c)
}

// cancelled draws a cancelled attempt at p, t of the way through its
// fade: a hollow marker crossed by an ×, shrinking and fading out.
func (f *Frame) cancelled(layer int, p Point, d float32, typ sim.Type, t float32) {
	a := 1 - t
	c := fade(CancelCol, a)
	f.abandoned(layer, p, d*(1-0.3*t), typ, c)
	h := d * 0.7
	w := max(d*0.16, 1)
	f.line(layer, Point{p.X - h, p.Y - h}, Point{p.X + h, p.Y + h}, w, c)
	f.line(layer, Point{p.X - h, p.Y + h}, Point{p.X + h, p.Y - h}, w, c)
}

// cancelAt is where a cancelled attempt fades: in its server's box when it
// was in service, just right of the box (where its queue's bar grows)
// when queued.
func cancelAt(box Rect, queued bool, d float32) Point {
	c := box.Center()
	if queued {
		c.X = box.X + box.W + d
	}
	return c
}

// line draws a segment from a to b of width w.
func (f *Frame) line(layer int, a, b Point, w float32, c color.RGBA) {
	dx, dy := b.X-a.X, b.Y-a.Y
	n := float32(math.Hypot(float64(dx), float64(dy)))
	if n == 0 || c.A == 0 {
		return
	}
	ox, oy := -dy/n*w/2, dx/n*w/2
	f.Layers[layer].Quads = append(f.Layers[layer].Quads, Quad{P: [4]Point{
		{a.X + ox, a.Y + oy}, {b.X + ox, b.Y + oy}, {b.X - ox, b.Y - oy}, {a.X - ox, a.Y - oy}}, C: c})
}

// fansOut reports whether a lane shown has fan-out on.
func (s *Session) fansOut() bool {
	for _, l := range s.set.Lanes {
		if l.Model.Config().Fanout > 1 {
			return true
		}
	}
	return false
}

// fanoutLaneText is a compare lane's entry in the HUD while a lane fans
// out or hedges: a request's median response and the parts sent (and the
// attempts cancelled, when any): a part's wait says little of a
// request's. compareTexts adds a hedging lane's counts (hedgeTexts).
func fanoutLaneText(label string, sum sim.Summary) string {
	t := label + ": p50 response " + Commas(sum.ResponseP50) + " · parts " + Commas(sum.Parts)
	if sum.Cancelled > 0 {
		t += " · cancelled " + Commas(sum.Cancelled)
	}
	return t
}
