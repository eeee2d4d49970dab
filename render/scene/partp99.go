package scene

import (
	"math/bits"

	"github.com/lbsim/lbsim/sim"
)

// A part's response, measured by the page: the run measures a request's
// response (arrival to its last part done); the page measures each
// part's from the events it draws, from the request's arrival to the
// first of the part's attempts to complete (its first attempt, a retry or
// a hedge), in a bounded histogram (waitDist, exact below partExact).

// partExact is the bound below which a part's response has its own
// bucket in partTimes: the p99s the lessons quote are exact.
const partExact = 4096

// partTimes counts one lane's parts' responses.
type partTimes struct {
	dist waitDist
	// done holds, by request, its parts completed so far (a bit each),
	// until all K have: a later attempt of a part done counts nothing. A
	// request that ends otherwise (given up) is dropped; the map starts
	// again past maxPartsNoted.
	done map[int64]uint64
	on   bool // the lane's requests have travelled as parts (fan-out or hedging)
}

// observe counts the parts completed in events evs of a run whose
// requests have k parts.
func (p *partTimes) observe(evs []sim.Event, k int) {
	for _, e := range evs {
		switch e.Kind {
		case sim.Complete:
			id, bit := e.Request.ID, uint64(1)<<(e.Request.Part%64)
			had := p.done[id]
			if had&bit != 0 {
				continue // the part was done already
			}
			p.dist.exact = partExact
			p.dist.add(e.Cycle - e.Request.Arrival)
			if bits.OnesCount64(had|bit) >= k {
				delete(p.done, id)
				continue
			}
			if p.done == nil || len(p.done) >= maxPartsNoted {
				p.done = make(map[int64]uint64)
			}
			p.done[id] = had | bit
		case sim.GiveUp:
			delete(p.done, e.Request.ID)
		}
	}
}

// observeParts counts lane li's parts completed in its last cycle, while
// its requests travel as parts (fan-out or hedging); cfg is its settings.
func (s *Session) observeParts(li int, m *sim.Model, cfg *sim.Config) {
	p := &s.parts[li]
	if !p.on {
		p.on = cfg.Fanout > 1 || cfg.HedgeAfter > 0 || m.Last().Hedges > 0
	}
	if p.on {
		p.observe(m.Events(), max(cfg.Fanout, 1))
	}
}

// PartP99 is the p99 of lane li's parts' responses so far, and how many
// parts it counts (0 while its requests do not travel as parts).
func (s *Session) PartP99(li int) (p99, n int64) {
	d := &s.parts[li].dist
	return d.percentile(99), d.n
}

// partMeasured is the theory panel's measured p99 of a part of the run
// shown: for the row of a hedged part (hedged) while it hedges, else for
// the row of a single attempt while it does not; "" otherwise or before a
// part completes.
func (s *Session) partMeasured(hedged bool) string {
	if p99, n := s.PartP99(0); n > 0 && hedged == hedgingOn(s.m) {
		return Commas(p99)
	}
	return ""
}
