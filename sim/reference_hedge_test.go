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
// first sent, the hedge-after then (0: its parts are not hedged), and
// which parts are complete.
type refHedged struct {
	r     sim.Request
	s0    int64
	d     int64
	done  []bool
	times []uint32 // by part: a retry carries its part's time
}

// refHedging reports whether a run of cfg with changes sends its requests
// as parts with room for hedges from the start: hedging on at the start
// or by any change (a part keeps the hedge-after in force when it is
// first sent), or a hedge-max or hedge-budget given where hedging could
// be on.
func refHedging(cfg sim.Config, changes []sim.Change) bool {
	return refHedgingFromStart(cfg) || slices.ContainsFunc(changes, func(c sim.Change) bool { return c.Setting == sim.SetHedgeAfter && c.Value > 0 })
}

// refHedgingFromStart reports whether a run of cfg is hedged, or keeps
// what hedging needs, from its start: hedging on, or a hedge-max or
// hedge-budget given where hedging could be on. Such a run, like one of
// several parts, counts its initial queue in requests admitted; one
// hedged only from a change counts the requests queued, as a plain run.
func refHedgingFromStart(cfg sim.Config) bool {
	on := cfg.Clone()
	on.HedgeAfter = 1
	return cfg.HedgeAfter > 0 || (cfg.HedgeMax > 0 || cfg.HedgeBudget > 0) && on.Validate() == nil
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

// firstSent notes request r's parts, first sent at t, with their times.
func (m *refModel) firstSent(r sim.Request, times []uint32, t int64) {
	m.hedged[r.ID] = &refHedged{r: r, s0: t, d: m.cfg.HedgeAfter, done: make([]bool, m.fanK), times: times}
	b := m.balOf(r)
	for range m.fanK {
		m.psent[b.index] = append(m.psent[b.index], t)
	}
}

// hedges sends the hedges due at t of b's requests.
func (b *refBalancer) hedges(t int64) {
	m := b.m
	H := int64(max(m.cfg.HedgeMax, 1))
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
		D := x.d
		if m.balOf(x.r) != b || D == 0 {
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
		if in(m.hsent[b.index])*sim.DecimalScale >= F*in(m.psent[b.index]) {
			b.tot.HedgesDenied++
			return
		}
	}
	q.Time = m.timeFrom(m.hgen)
	if m.k > 1 {
		q.bal = m.fleet.IntN(m.k) // each hedge draws its balancer anew
	}
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
	m.hsent[b.index] = append(m.hsent[b.index], t)
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
	if r.hedge > 0 && !r.Retry {
		b.tot.HedgesWon++ // a hedge, not the retry of one
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
// (the lobby included), in service with its client waiting, given back
// and not yet routed again, or taken by this step a′ and not yet timed
// out.
func (b *refBalancer) partLive(r refReq) bool {
	other := func(q refReq) bool { return q.ID == r.ID && q.Part == r.Part && q.hedge != r.hedge }
	if slices.ContainsFunc(b.lobby, other) {
		return true
	}
	for _, d := range append(slices.Clone(b.transit), b.dues...) {
		if !d.taken && other(d.r) {
			return true // given back, or due to time out later in this step a′
		}
	}
	for _, s := range b.servers {
		if !s.gone && ((s.busy && !s.abandoned && other(s.req)) || slices.ContainsFunc(s.queue, other)) {
			return true
		}
	}
	return false
}

// retryPending reports whether a retry of r's part waits to arrive (a
// part has at most one).
func (b *refBalancer) retryPending(r refReq) bool {
	return slices.ContainsFunc(b.retrying, func(x refRetry) bool { return x.r.ID == r.ID && x.r.Part == r.Part })
}

// partDone reports whether r's part has completed (a hedge won it while
// a retry of it was pending).
func (m *refModel) partDone(r refReq) bool {
	x := m.hedged[r.ID]
	return x != nil && x.done[r.Part]
}
