package sim_test

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lbsim/lbsim/detmath"
	"github.com/lbsim/lbsim/sim"
)

// The reference model's fan-out, written the obvious way: a request's K
// parts are attempts of their own, each routed over the candidates
// holding no live attempt of the same request (found by looking at every
// queue and server), the request completes with its last part, and a
// part ending for good ends the request and cancels its other attempts.

// partTimes draws the times of request r's parts: part 1's is r's own,
// parts 2 … K draw from the parts generator under the shape in force
// (with a trace, every part takes the row's time).
func (m *refModel) partTimes(r sim.Request) []uint32 {
	times := []uint32{r.Time}
	for range m.fanK - 1 {
		if m.cfg.Trace != nil {
			times = append(times, r.Time)
			continue
		}
		times = append(times, m.partTime())
	}
	return times
}

// partTime is one draw of the shape in force: uniform from the low 32
// bits of a 64-bit draw by multiply-shift, a biased draw redrawn; no draw
// for constant; geometric by inversion; the other shapes by the model's
// inverse transforms of one 64-bit draw.
func (m *refModel) partTime() uint32 { return m.timeFrom(m.parts) }

// timeFrom is partTime's draw from generator g.
func (m *refModel) timeFrom(g *rand.PCG) uint32 {
	cfg := &m.cfg
	switch cfg.Service {
	case sim.Uniform:
		n := uint32(cfg.TaskMax - cfg.TaskMin + 1)
		for {
			prod := uint64(uint32(g.Uint64())) * uint64(n)
			if uint32(prod) >= -n%n {
				return uint32(cfg.TaskMin) + uint32(prod>>32)
			}
		}
	case sim.Constant:
		return uint32(cfg.MeanService)
	case sim.Geometric:
		u := g.Uint64()
		if cfg.MeanService <= 1 {
			return 1
		}
		k := 1 + math.Floor(detmath.Log(float64(u>>11+1)*0x1p-53)/detmath.Log(1-1/float64(cfg.MeanService)))
		return uint32(min(k, sim.MaxTaskTime))
	}
	return sim.ShapeTime(cfg, g.Uint64())
}

// fanArrive routes the parts of request r (past the firewall) at t, one
// after another: each is throttled, picked and placed; a part its client
// throttles, or a down server or a concurrency limit refuses, is noted,
// and ends in error (in part order) once the last part is placed. A part
// that finds its queue full discards the request: the parts placed
// leave, nothing noted happens, the later ones are not routed.
func (b *refBalancer) fanArrive(r sim.Request, times []uint32, t int64) {
	m := b.m
	const (
		placedOK = iota
		throttled
		down
		limited
	)
	type placed struct {
		s    *refServer
		q    refReq
		note int
	}
	var done []placed
	bal := 0 // one fleet draw for the request's parts
	if m.k > 1 {
		bal = m.fleet.IntN(m.k)
	}
	for j := range m.fanK {
		q := b.attempt(r, t)
		q.Time, q.Part, q.bal = times[j], uint8(j), bal
		m.seq++
		q.sent = m.seq
		if b.throttles(t) {
			done = append(done, placed{nil, q, throttled})
			continue
		}
		s := b.pick(&q)
		id, n := 0, len(b.lobby)
		if s != nil {
			id, n = s.id, len(s.queue)
			b.routedTo(s, &q)
		}
		if c := m.cfg.QueueCap; c > 0 && n >= c {
			for _, p := range done {
				if p.note == placedOK {
					b.takeQueued(p.s, p.q)
				}
			}
			b.tot.Discarded++
			b.last.Discarded++
			m.emit(b, sim.Discard, id, 0, q.Request)
			return
		}
		switch {
		case s == nil:
			b.lobby = append(b.lobby, q)
		case s.down: // a down server refuses after the last part is placed
			done = append(done, placed{s, q, down})
			continue
		case b.overLimit(s): // and so does a concurrency limit
			done = append(done, placed{s, q, limited})
			continue
		default:
			b.enqueue(s, q, t)
		}
		done = append(done, placed{s, q, placedOK})
	}
	b.admitted(t)
	b.parts += int64(m.fanK)
	m.fan[r.ID] = m.fanK
	m.fanBal[r.ID] = b.index
	if m.hedging {
		m.firstSent(r, times, t)
	}
	for _, p := range done {
		if p.note == throttled {
			continue
		}
		id := 0
		if p.s != nil {
			id = p.s.id
		}
		m.emit(b, sim.Arrive, id, 0, p.q.Request)
	}
	for _, p := range done {
		switch p.note {
		case throttled:
			b.throttled(p.q, t)
		case down:
			b.refuse(p.s, p.q, t)
		case limited:
			b.refuseLimited(p.s.id, p.q, t)
		}
	}
}

// pick is the policy's choice for attempt r: with fan-out, among the
// candidates holding no live attempt of another part of its request when
// some do (the policy unchanged over that set), else, or when it picks
// none there, among all; nil for the lobby.
func (b *refBalancer) pick(r *refReq) *refServer {
	if len(b.cands) == 0 {
		return nil
	}
	cands := b.candidates()
	if b.m.fanOn() {
		allowed := slices.DeleteFunc(slices.Clone(cands), func(s *refServer) bool { return holdsSibling(s, r) })
		if len(allowed) < len(cands) && len(allowed) > 0 {
			if s := b.m.policy().Route(b, r, allowed); s != nil {
				return s
			}
		}
	}
	return b.m.policy().Route(b, r, cands)
}

// holdsSibling reports whether s holds a live attempt of another part of
// r's request: queued, or in service with its client waiting.
func holdsSibling(s *refServer, r *refReq) bool {
	other := func(q refReq) bool { return q.ID == r.ID && (q.Part != r.Part || q.hedge != r.hedge) }
	return (s.busy && !s.abandoned && other(s.req)) || slices.ContainsFunc(s.queue, other)
}

// takeQueued takes attempt q out of server s's queue (nil: the lobby);
// a server left holding nothing is freed.
func (b *refBalancer) takeQueued(s *refServer, q refReq) {
	same := func(x refReq) bool { return x.ID == q.ID && x.Part == q.Part && x.hedge == q.hedge }
	if s == nil {
		b.lobby = slices.DeleteFunc(b.lobby, same)
		return
	}
	s.queue = slices.DeleteFunc(s.queue, same)
	if b.emptied(s) {
		b.freed(s)
	}
}

// fanEnd ends request r's other attempts at e, its part having ended for
// good: each live one, by part, is cancelled (queued: it leaves; in
// service: the server stops it, the cycles it served wasted, and is free).
func (b *refBalancer) fanEnd(r refReq, e int64) {
	m := b.m
	if !m.fanOn() {
		return
	}
	delete(m.fan, r.ID)
	for j := range m.fanK {
		for h := range m.attempts() {
			if j == int(r.Part) && h == int(r.hedge) {
				continue
			}
			b.cancelPart(r.ID, uint8(j), uint8(h), e)
		}
	}
}

// cancelPart cancels attempt h of part j of request id at e, if it is
// live (h 0 the part's first attempt or its retry, h ≥ 1 its hedge h), if
// there is one: queued at a server or in the lobby, in service, or taken
// by this cycle's step a′ and not yet timed out.
func (b *refBalancer) cancelPart(id int64, j, h uint8, e int64) {
	m := b.m
	is := func(x refReq) bool { return x.ID == id && x.Part == j && x.hedge == h }
	cancelled := func(server int, q refReq) {
		b.tot.Cancelled++
		b.last.Cancelled++
		m.emit(b, sim.Cancel, server, 0, q.Request)
	}
	for _, d := range b.transit {
		if !d.taken && is(d.r) {
			d.taken = true
			cancelled(0, d.r) // given back by its server, not routed again
			return
		}
	}
	for _, d := range b.dues {
		if !d.taken && is(d.r) {
			d.taken = true
			if s := d.server; s != nil {
				cancelled(s.id, s.req)
				b.stop(s, e)
				return
			}
			cancelled(0, d.r)
			if q := d.queue; q != nil && b.emptied(q) {
				b.freed(q)
			}
			return
		}
	}
	if i := slices.IndexFunc(b.lobby, is); i >= 0 {
		cancelled(0, b.lobby[i])
		b.lobby = slices.Delete(b.lobby, i, i+1)
		return
	}
	for _, s := range b.servers {
		if s.gone {
			continue
		}
		if s.busy && !s.abandoned && is(s.req) {
			cancelled(s.id, s.req)
			b.stop(s, e)
			return
		}
		if i := slices.IndexFunc(s.queue, is); i >= 0 {
			q := s.queue[i]
			s.queue = slices.Delete(s.queue, i, i+1)
			cancelled(0, q)
			if b.emptied(s) {
				b.freed(s)
			}
			return
		}
	}
}

// stop stops the attempt s has in service at e (cancelled): the cycles
// it was served, e − its dispatch (one less if step a has not reached s
// this cycle), are wasted, and s is free.
func (b *refBalancer) stop(s *refServer, e int64) {
	served := e - s.started
	if b.stepAt != 0 && s.id > b.stepAt {
		served--
	}
	b.tot.WastedCycles += max(served, 0)
	s.busy = false
	if b.emptied(s) {
		b.freed(s)
	}
}

// shedEach is shedding at step d of t for server s's queue with fan-out
// or hedging, one attempt at a time: the first (in queue order) that has
// waited more than limit leaves and ends in error, which may end its
// request and cancel its siblings still queued (an old one among them is
// then cancelled, not shed); again until none is left. It returns the
// queue.
func (b *refBalancer) shedEach(s *refServer, limit, t int64) []refReq {
	for {
		i := slices.IndexFunc(s.queue, func(r refReq) bool { return t-r.joined > limit })
		if i < 0 {
			return s.queue
		}
		r := s.queue[i]
		s.queue = slices.Delete(s.queue, i, i+1)
		b.tot.Shed++
		b.last.Shed++
		b.tot.Errors++
		b.last.Errors++
		b.m.emit(b, sim.Shed, s.id, 0, r.Request)
		b.ended(r, t, refErrored, true)
	}
}
