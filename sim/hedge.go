package sim

import (
	"math/rand/v2"
	"slices"
)

// This file is hedging (Config.HedgeAfter D > 0, per-server queues): a
// part first sent at cycle s₀ that has not completed gets its h-th hedge
// at step b of s₀ + h·D (after retries, before arrivals), h = 1 … H, a new
// attempt of the same part routed by the policy among the candidates
// holding no live attempt of its request, its time a fresh draw from the
// hedge generator. The first attempt of a part to complete completes it
// and its live siblings are cancelled in that same step a; on a tie in
// one cycle the attempt sent first wins. A hedge budget F lets a hedge go
// only while the hedges sent in the last 1000 cycles are fewer than F ×
// the parts first sent in them.
//
// Hedging rides on fan-out's records (fanout.go): with hedging a request
// of K parts (K = 1 included) keeps 1 + H attempt slots a part, attempt
// h of part j under the key (id − 1)·K·(1 + H) + j·(1 + H) + h + 1.

// hedgeStream is the stream constant of the hedge generator: the times
// of hedges, drawn when each is sent.
const hedgeStream = 0x6c6273696d2d6867 // "lbsim-hg"

// hedgeWindow is the hedge budget's window, in cycles.
const hedgeWindow = 1000

// hedgeState is the model's hedging state.
type hedgeState struct {
	pcg *rand.PCG // the hedge generator
	// lanes holds the hedges due, a lane a delay (hedgeskip.go: add,
	// take, next); batch is take's scratch space.
	lanes []dueLane
	batch []hedgeDue
	// soonest is the earliest cycle of a due (never if none is).
	soonest int64
	// seq numbers the attempts in the order they are sent (a tie's rule).
	seq int64
	// win holds the budget's window of each balancer: P's, then S's with
	// the switch (a fleet shares its balancer's).
	win []*hedgeBooks
}

// hedgeBooks is one balancer's hedge budget window: by cycle mod
// hedgeWindow, the cycle held, the parts first sent and the hedges sent
// in it.
type hedgeBooks struct {
	stamp, parts, hedges [hedgeWindow]int64
}

// hedgeDue is hedge h of part j of request id, first sent at s0 with
// hedging's delay d then, to be sent by balancer b (its request's).
type hedgeDue struct {
	s0, id int64
	d      int32 // at most MaxCycles
	j, h   int32
	b      int32
}

// hedgeReq is a request's hedging record.
type hedgeReq struct {
	r    packed  // the request as admitted (its first part's time)
	sent []int64 // by attempt slot, its place in the order of sending
	done uint64  // the parts completed, a bit each
	// pending holds the parts with a retry pending, a bit each (at most
	// one a part); times the parts' times with K > 1 (a retry carries its
	// part's time, a hedge's own is a fresh draw).
	pending uint64
	times   []uint32
}

// newHedgeState returns the hedging state of a run of cfg.
func newHedgeState(cfg *Config) *hedgeState {
	h := &hedgeState{pcg: rand.NewPCG(cfg.Seed, hedgeStream), soonest: never}
	n := 1
	if cfg.Switch {
		n = 2
	}
	for range n {
		w := &hedgeBooks{}
		for i := range w.stamp {
			w.stamp[i] = -1
		}
		h.win = append(h.win, w)
	}
	return h
}

// count adds n to the window's counter c for cycle t.
func (h *hedgeBooks) count(c *[hedgeWindow]int64, t, n int64) {
	i := t % hedgeWindow
	if h.stamp[i] != t {
		h.stamp[i], h.parts[i], h.hedges[i] = t, 0, 0
	}
	c[i] += n
}

// allows reports whether the budget F (millionths, 0 = none) lets a
// hedge go at cycle t: hedges·10⁶ < F·parts over cycles t − 999 … t − 1.
func (h *hedgeBooks) allows(f Decimal, t int64) bool {
	if f == 0 {
		return true
	}
	var parts, hedges int64
	for i, c := range h.stamp {
		if c >= t-(hedgeWindow-1) && c <= t-1 {
			parts += h.parts[i]
			hedges += h.hedges[i]
		}
	}
	return hedges*DecimalScale < int64(f)*parts
}

// hedgeFirstSent notes at cycle t the first attempts of request id's
// parts, just placed: their order of sending, the budget's count and
// their first hedges (none while hedge-after is 0: the delay in force at
// a part's first sending is the part's).
func (b *Balancer) hedgeFirstSent(id int64, req *fanReq, t int64) {
	f := b.m.fan
	h := f.hedge
	w := h.win[b.index]
	w.count(&w.parts, t, int64(f.k))
	d := b.m.cfg.HedgeAfter
	if f.k > 1 {
		req.times = slices.Clone(f.times)
	}
	for j := range f.k {
		h.seq++
		req.sent[j*f.a] = h.seq
		if d > 0 {
			h.add(hedgeDue{s0: t, id: id, d: int32(d), j: int32(j), h: 1, b: int32(b.index)})
		}
	}
}

// hedgesDue is the hedges' part of step b at cycle t: the hedges due,
// P's then S's with the switch, each balancer's by first sending,
// request id and part; each goes through its request's balancer.
func (m *Model) hedgesDue(t int64) {
	for _, d := range m.fan.hedge.take(t) {
		m.bal[d.b].hedgeOne(d, t)
	}
}

// hedgeOne considers hedge d at cycle t: if its request is live and its
// part not complete, with no candidate left nothing is counted; the budget
// refusing it, or its queue full, it is denied; else it is sent.
func (b *Balancer) hedgeOne(d hedgeDue, t int64) {
	m := b.m
	f := m.fan
	h := f.hedge
	req := f.reqs.get(d.id)
	if req == nil || req.done&(1<<d.j) != 0 {
		return
	}
	if int(d.h) < f.a-1 {
		h.add(hedgeDue{s0: d.s0, id: d.id, d: d.d, j: d.j, h: d.h + 1, b: d.b})
	}
	slot := int(d.j)*f.a + int(d.h)
	if !b.anyCandidateFor(req) {
		return
	}
	w := h.win[b.index]
	if !w.allows(m.cfg.HedgeBudget, t) {
		b.hedgeDenied()
		return
	}
	p := req.r
	p.id = f.keyAt(d.id, slot)
	p.meta = p.meta&^(packedTimeMask<<packedTimeShift) | uint64(m.timeFrom(h.pcg))<<packedTimeShift
	if fl := b.fleet; fl != nil {
		p = fl.assign(p) // each hedge draws its balancer anew
	}
	id := b.pickHedge(p, req, t)
	if id == 0 {
		return // the policy could pick none among them
	}
	b.lastGiven = id
	if c := m.cfg.QueueCap; c > 0 && b.sq[id-1].Len() >= c {
		b.hedgeDenied()
		return
	}
	h.seq++
	req.sent[slot] = h.seq
	w.count(&w.hedges, t, 1)
	b.tot.Hedges++
	b.last.Hedges++
	if b.watching {
		b.hedgeArrived(p, t)
		if b.srv[id-1].down {
			// A down server the health checks have not found out refuses
			// it: sent, never live, it ends in error at once.
			if m.recordEvents {
				b.emit(Hedge, id, 0, p.unpack())
			}
			b.refuse(id, p, t)
			return
		}
	}
	req.at[slot] = int32(b.idOf(id))
	if b.hedgeLimited(id, p, req, slot, t) {
		return // sent, and refused by the server's concurrency limit
	}
	if b.requeuedAt == nil {
		b.requeuedAt = map[int64]int64{}
	}
	b.requeuedAt[p.id] = t // it waits from now
	b.hedgeJoins(p, t)
	b.queued++
	b.enqueue(id, p, t)
	if m.recordEvents {
		b.emit(Hedge, id, 0, p.unpack())
	}
}

// hedgeArrived gives hedge p, sent at cycle t, a deadline of its own
// under the timeout in force: a flight with an explicit deadline (hedges
// are sent out of their keys' order, so they take no word in the ring of
// first attempts).
func (b *Balancer) hedgeArrived(p packed, t int64) {
	T := b.m.cfg.Timeout
	if T <= 0 {
		return
	}
	c := b.client()
	f := &flight{req: p, at: t, due: t + T}
	c.flights[p.id] = f
	c.keepDeadline(deadline{f.due, t, p.id, f})
}

// pickHedge picks the server hedge p of request req goes to at cycle t:
// by the policy among the candidates holding no live attempt of req; 0
// if it can pick none there.
func (b *Balancer) pickHedge(p packed, req *fanReq, t int64) int {
	f := b.m.fan
	skip := f.skip[:0]
	for _, w := range req.at {
		if w > 0 {
			if s := b.slotOf(int(w)); s != 0 && b.active.has(s) {
				skip = append(skip, s)
			}
		}
	}
	f.skip = skip
	if len(skip) == 0 {
		return b.pickFor(p, t)
	}
	id := b.rt.(amongPicker).pickAmong(p, t, skip)
	if id != 0 {
		b.tally.add(p.member(), id)
		if fl := b.fleet; fl != nil {
			fl.picked(p.member(), id, p)
		}
	}
	return id
}

// hedgeDenied counts a hedge denied.
func (b *Balancer) hedgeDenied() {
	b.tot.HedgesDenied++
}

// anyCandidateFor reports whether a candidate holds no live attempt of
// request req. It marks the slots holding one once (scratch: fan-out's
// omit, cleared again before it returns), so its cost is the request's
// attempt slots plus the candidates, not their product.
func (b *Balancer) anyCandidateFor(req *fanReq) bool {
	f := b.m.fan
	if len(f.omit) < len(b.srv) {
		f.omit = make([]bool, len(b.srv))
	}
	held := f.skip[:0]
	for _, w := range req.at {
		if w > 0 {
			if s := b.slotOf(int(w)); s != 0 && !f.omit[s-1] {
				f.omit[s-1] = true
				held = append(held, s)
			}
		}
	}
	found := false
	for _, id := range b.cands.ids {
		if !f.omit[id-1] {
			found = true
			break
		}
	}
	for _, s := range held {
		f.omit[s-1] = false
	}
	f.skip = held
	return found
}

// hedgedPartDone, at cycle t, completes part j of request id (record req)
// with attempt r: a hedge winning is counted, and the part's other live
// attempts are cancelled in attempt order.
func (b *Balancer) hedgedPartDone(id int64, j int, req *fanReq, r packed, t int64) {
	f := b.m.fan
	req.done |= 1 << j
	if f.slot(r.id) != j*f.a && !r.retry() {
		b.tot.HedgesWon++ // a hedge, not the retry of one
	}
	for i := j * f.a; i < (j+1)*f.a; i++ {
		if w := req.at[i]; w != 0 {
			req.at[i] = 0
			b.cancel(f.keyAt(id, i), w, t)
		}
	}
}

// yields reports whether attempt r, completing its part at cycle t,
// yields to a sibling sent earlier that also completes its part at t
// (that sibling cancels it).
func (b *Balancer) yields(r packed, t int64) bool {
	f := b.m.fan
	req, i := f.of(r.id)
	if req == nil {
		return false
	}
	j := i / f.a
	for k := j * f.a; k < (j+1)*f.a; k++ {
		w := req.at[k]
		if k == i || w <= 0 || req.sent[k] > req.sent[i] {
			continue
		}
		sid := b.slotOf(int(w))
		s := &b.srv[sid-1]
		if id, _ := f.split(r.id); s.busy && s.done == t && s.req.id == f.keyAt(id, k) && (len(b.ends) == 0 || b.endsOf(sid) == completes) {
			return true
		}
	}
	return false
}

// stillHedged reports whether attempt r's part, hedged, keeps a live
// attempt after r ended: r then ends alone (its part and request go on).
func (b *Balancer) stillHedged(r packed) bool {
	f := b.m.fan
	if f.hedge == nil {
		return false
	}
	req, i := f.of(r.id)
	if req == nil {
		return false
	}
	j := i / f.a
	if req.pending&(1<<j) != 0 {
		return true // a retry of its part is pending: at most one is
	}
	for k := j * f.a; k < (j+1)*f.a; k++ {
		if k != i && req.at[k] != 0 {
			return true
		}
	}
	return false
}

// hedgeRetry is a retry just granted to attempt r of hedged request
// record req: the part has a retry pending, which keeps the attempt's
// slot (no other attempt holds it: hedges take slots of their own) and
// carries the part's time (a hedge's own was a fresh draw).
func (b *Balancer) hedgeRetry(r packed, req *fanReq) packed {
	f := b.m.fan
	_, j := f.split(r.id)
	req.pending |= 1 << j
	if f.slot(r.id) == j*f.a {
		return r // the part's first attempt, or its retry: the part's time already
	}
	t := req.r.time()
	if req.times != nil {
		t = req.times[j]
	}
	r.meta = r.meta&^(packedTimeMask<<packedTimeShift) | uint64(t)<<packedTimeShift
	return r
}

// hedgeRetryArrives is a retry of part j (slot i) of hedged request req
// arriving: the part no longer has a retry pending; a part completed (by
// a hedge) drops it (it reports false), else it is sent now.
func (b *Balancer) hedgeRetryArrives(req *fanReq, i int) bool {
	f := b.m.fan
	j := i / f.a
	req.pending &^= 1 << j
	if req.done&(1<<j) != 0 {
		return false
	}
	f.hedge.seq++
	req.sent[i] = f.hedge.seq
	return true
}
