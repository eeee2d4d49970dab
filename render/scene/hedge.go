package scene

import (
	"image/color"

	"github.com/lbsim/lbsim/sim"
)

// Hedging on the page: a hedge (a second attempt of a part, sent when the
// first is late) flies from the gate to its server like a part, joined to
// its part's group (tether and ring in its request's tint), its marker in
// HedgeCol with a dark bar across it, so that it reads by shape as well as
// by colour; the HUD counts the hedges sent, won and denied.

// HedgeCol is a hedge's colour: a light blue, apart from the requests'
// cyan and pink and the retries' vermillion (the bar across it is its
// cue besides colour).
var HedgeCol = color.RGBA{0xa5, 0xb4, 0xff, 0xff}

// hedge draws a hedge's marker at p (side d): the request's shape in
// HedgeCol, crossed by a dark bar (a retry has a dark core instead).
func (f *Frame) hedge(layer int, p Point, d float32, typ sim.Type) {
	f.request(layer, p, d, typ, HedgeCol)
	if d >= 4 {
		f.rect(layer, Rect{p.X - d*0.5, p.Y - d*0.12, d, d * 0.24}, Background)
	}
}

// hedgingOn reports whether m hedges, now or earlier (a change may turn
// hedging on or off in mid-run).
func hedgingOn(m *sim.Model) bool {
	return m.Config().HedgeAfter > 0 || m.Totals().Hedges > 0
}

// partsOn reports whether m's requests travel as parts, each an attempt
// of its own: fan-out (K > 1) or hedging on.
func partsOn(m *sim.Model) bool {
	return m.Config().Fanout > 1 || hedgingOn(m)
}

// hedgeTexts are the HUD's counts of hedging, when m hedges: hedges
// sent, parts a hedge completed (won), (with a budget, or when any was)
// hedges denied, and the attempts a request (parts, retries and hedges ÷
// requests admitted): what hedging costs.
func hedgeTexts(m *sim.Model) []string {
	if !hedgingOn(m) {
		return nil
	}
	sum := m.Summary()
	out := []string{"hedges " + Commas(sum.Hedges), "won " + Commas(sum.HedgesWon)}
	if m.Config().HedgeBudget > 0 || sum.HedgesDenied > 0 {
		out = append(out, "denied "+Commas(sum.HedgesDenied))
	}
	if sum.Admitted > 0 {
		out = append(out, "attempts/req "+Sig3(float64(sum.Attempts)/float64(sum.Admitted)))
	}
	return out
}

// anyHedging reports whether a lane shown hedges (see hedgingOn).
func (s *Session) anyHedging() bool {
	for _, l := range s.set.Lanes {
		if hedgingOn(l.Model) {
			return true
		}
	}
	return false
}
