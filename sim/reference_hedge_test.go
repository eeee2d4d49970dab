package sim_test

import (
	"cmp"
	"slices"

	"github.com/lbsim/lbsim/sim"
)

// The reference model's hedging, written the obvious way: every cycle,
// every live request's parts not complete whose first sending lies a
// whole number h ≤ H of D cycles back get hedge h, in the order (first
// sent, request id, part); a hedge goes by the policy over the candidates
// holding no live attempt of the request (found by looking at every queue
// and server), if the budget (counted over the cycles of every hedge and
// every part sent) and the queue cap let it; the first attempt of a part
// to complete wins (on a tie in a cycle, the one sent first) and cancels
// the others.

// refHedged is a hedged request: as admitted, the cycle its parts were
// first sent, and which parts are complete.
type refHedged struct {
	r    sim.Request
	s0   int64
	done []bool
}

// fanOn reports whether requests go as parts (fan-out or hedging).
func (m *refModel) fanOn() bool { return m.fanK > 1 || m.hedging }

// attempts is how many attempts a part may have: 1, or 1 + H hedging.
func (m *refModel) attempts() int {
	if !m.hedging {
		return 1
	}
	return 1 + max(m.cfg.HedgeMax, 1)
}

// firstSent notes request r's parts, first sent at t.
func (m *refModel) firstSent(r sim.Request, t int64) {
	m.hedged[r.ID] = &refHedged{r: r, s0: t, done: make([]bool, m.fanK)}
	for range m.fanK {
		m.psent = append(m.psent, t)
	}
}

// hedges sends the hedges due at t.
func (b *refBalancer) hedges(t int64) {
	m := b.m
	D, H := m.cfg.HedgeAfter, int64(max(m.cfg.HedgeMax, 1))
	type due struct {
		s0, id int64
		j, h   int
	}
	var dues []due
	for id, x := range m.hedged {
		if _, live := m.fan[id]; !live {
			delete(m.hedged, id)
			continue
		}
		n := t - x.s0
		if n <= 0 || n%D != 0 || n/D > H {
			continue
		}
		for j, done := range x.done {
			if !done {
				dues = append(dues, due{x.s0, id, j, int(n / D)})
			}
		}
	}
	slices.SortFunc(dues, func(x, y due) int {
		return cmp.Or(cmp.Compare(x.s0, y.s0), cmp.Compare(x.id, y.id), cmp.Compare(x.j, y.j))
	})
	for _, d := range dues {
		b.hedge(d.id, d.j, d.h, t)
	}
}

// hedge considers hedge h of part j of request id at t.
func (b *refBalancer) hedge(id int64, j, h int, t int64) {
	m := b.m
	x := m.hedged[id]
	if _, live := m.fan[id]; !live || x.done[j] {
		return
	}
	q := b.attempt(x.r, t)
	q.Part, q.hedge = uint8(j), uint8(h)
	allowed := slices.DeleteFunc(slices.Clone(b.candidates()), func(s *refServer) bool { return holdsSibling(s, &q) })
	if len(allowed) == 0 {
		return // nothing counted
	}
	if F := int64(m.cfg.HedgeBudget); F > 0 {
		in := func(cs []int64) (n int64) {
			for _, c := range cs {
				if c >= t-999 && c <= t-1 {
					n++
				}
			}
			return n
		}
		if in(m.hsent)*sim.DecimalScale >= F*in(m.psent) {
			b.tot.HedgesDenied++
			return
		}
	}
	q.Time = m.timeFrom(m.hgen)
	s := m.policy().Route(b, &q, allowed)
	if s == nil {
		return
	}
	b.routedTo(s, &q)
	if c := m.cfg.QueueCap; c > 0 && len(s.queue) >= c {
		b.tot.HedgesDenied++
		return
	}
	m.seq++
	q.sent = m.seq
	m.hsent = append(m.hsent, t)
	b.tot.Hedges++
	b.last.Hedges++
	m.emit(b, sim.Hedge, s.id, 0, q.Request)
	if !s.down && b.overLimit(s) {
		b.refuseLimited(s.id, q, t) // sent, then refused like any attempt
		return
	}
	b.enqueue(s, q, t)
}

// partWon: the attempt s has in service completed its part at t; a hedge
// winning counts, and the part's other attempts are cancelled, in order.
func (b *refBalancer) partWon(s *refServer, t int64) {
	m := b.m
	r := s.req
	m.hedged[r.ID].done[r.Part] = true
	if r.hedge > 0 {
		b.tot.HedgesWon++
	}
	b.stepAt = s.id
	for h := range m.attempts() {
		if h != int(r.hedge) {
			b.cancelPart(r.ID, r.Part, uint8(h), t)
		}
	}
	b.stepAt = 0
}

// yields reports whether the attempt s completes at t yields to another
// attempt of its part sent earlier that also completes at t.
func (b *refBalancer) yields(s *refServer, t int64) bool {
	r := s.req
	for _, o := range b.servers {
		if o == s || o.gone || o.down || !o.busy || o.abandoned || o.done != t || o.ends == sim.Failing {
			continue
		}
		if o.req.ID == r.ID && o.req.Part == r.Part && o.req.sent < r.sent {
			return true
		}
	}
	return false
}

// partLive reports whether another attempt of r's part is live: queued
// (the lobby included), in service with its client waiting, or given back
// and not yet routed again.
func (b *refBalancer) partLive(r refReq) bool {
	other := func(q refReq) bool { return q.ID == r.ID && q.Part == r.Part && q.hedge != r.hedge }
	if slices.ContainsFunc(b.lobby, other) {
		return true
	}
	for _, d := range b.transit {
		if !d.taken && other(d.r) {
			return true
		}
	}
	for _, s := range b.servers {
		if !s.gone && ((s.busy && !s.abandoned && other(s.req)) || slices.ContainsFunc(s.queue, other)) {
			return true
		}
	}
	return false
}
