package scene

import (
	"fmt"
	"image/color"
	"math"

	"github.com/lbsim/lbsim/sim"
)

// A failed server's request goes back to the head of the queue and is
// served by another (sim.Requeue, then its Dispatch). The view keeps each
// re-queue for requeueCycles so that a paused picture still shows it: an
// arrow from the failed server to the one that took the request, and the
// move in words in the lane's title.

// requeueCycles is how long a re-queue stays on the picture.
const requeueCycles = 60

// requeueNote is one re-queue: lane's balancer bal took request id back
// from server from at cycle; to is the server that took it next (0 while
// it waits).
type requeueNote struct {
	lane, bal int
	id        int64
	from, to  int
	cycle     int64
}

// observeRequeues records lane li's re-queues among its last cycle's
// events, and where each re-queued request went, dropping those older
// than requeueCycles.
func (s *Session) observeRequeues(li int, m *sim.Model) {
	now := m.Cycle()
	kept := s.requeues[:0]
	for _, n := range s.requeues {
		if now-n.cycle <= requeueCycles {
			kept = append(kept, n)
		}
	}
	s.requeues = kept
	for _, e := range m.Events() {
		switch e.Kind {
		case sim.Requeue:
			s.requeues = append(s.requeues, requeueNote{lane: li, bal: e.Balancer, id: e.Request.ID, from: e.Server, cycle: now})
		case sim.Dispatch:
			for i := range s.requeues {
				if n := &s.requeues[i]; n.lane == li && n.bal == e.Balancer && n.id == e.Request.ID && n.to == 0 {
					n.to = e.Server
				}
			}
		}
	}
}

// requeueText is the move of lane sb's latest re-queue in words, or "".
func (s *Session) requeueText(sb shownBalancer) string {
	for i := len(s.requeues) - 1; i >= 0; i-- {
		n := s.requeues[i]
		if n.lane != sb.lane || n.bal != sb.bal {
			continue
		}
		if n.to == 0 {
			return fmt.Sprintf("re-queued #%s from %d: at the queue's head", Commas(n.id), n.from)
		}
		return fmt.Sprintf("re-queued #%s: server %d → %d", Commas(n.id), n.from, n.to)
	}
	return ""
}

// drawRequeues draws, in grid g of balancer sb, an arrow from each
// recent re-queue's failed server to the server that took its request.
func (s *Session) drawRequeues(f *Frame, g GridSpec, sb shownBalancer) {
	index := map[int]int{}
	i := 0
	for v := range sb.b.Servers() {
		index[v.ID] = i
		i++
	}
	u := f.Layout.T
	for _, n := range s.requeues {
		a, okA := index[n.from]
		b, okB := index[n.to]
		if n.lane != sb.lane || n.bal != sb.bal || !okA || !okB || n.to == 0 {
			continue
		}
		from, to := g.BoxAt(a).Center(), g.BoxAt(b).Center()
		arrow(f, SceneLayer, from, to, max(2.5*u, 1.5), g.Box*0.3, RequeueCol)
	}
}

// RequeueCol is a re-queue's arrow and words: a pale lavender, lighter
// than the changes' marks and apart from the states' colours.
var RequeueCol = color.RGBA{0xe4, 0xd4, 0xff, 0xff}

// arrow draws a line of width w from a to b, its head of length head at
// b, in colour c.
func arrow(f *Frame, layer int, a, b Point, w, head float32, c color.RGBA) {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := float32(math.Hypot(float64(dx), float64(dy)))
	if l < head {
		return
	}
	ux, uy := dx/l, dy/l
	tip := Point{b.X - ux*head*0.6, b.Y - uy*head*0.6} // short of the box's centre
	base := Point{tip.X - ux*head, tip.Y - uy*head}
	nx, ny := -uy*w/2, ux*w/2
	f.Layers[layer].Quads = append(f.Layers[layer].Quads, Quad{P: [4]Point{{a.X + nx, a.Y + ny}, {base.X + nx, base.Y + ny}, {base.X - nx, base.Y - ny}, {a.X - nx, a.Y - ny}}, C: c})
	hx, hy := -uy*head*0.6, ux*head*0.6
	f.triangle(layer, tip, Point{base.X + hx, base.Y + hy}, Point{base.X - hx, base.Y - hy}, c)
}
