package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/lbsim/lbsim/detmath"
)

// This file is fan-out: with Config.Fanout K > 1 an admitted request
// consists of K parts, each routed at arrival as an attempt of its own
// (per-server queues), to a candidate holding no live attempt of another
// part of the request where one is left. The request completes when its
// last part completes (its response time runs from its arrival to that
// cycle), and ends for good when a part does without completing (error
// or timeout with no retry left, or a retry the budget refuses): its
// other live attempts are then cancelled. With K = 1 (the default) the
// model keeps no fan-out state and a run is what it was without it.
//
// A part travels as an ordinary packed request whose id is the part's
// key, (request id − 1)·K + part + 1 (part from 0), so every structure
// keyed by an attempt's id (the timeouts' ring and flights, the requeue
// times, the queues' removal) holds one entry per part and a queued part
// takes the 24 bytes of any queued request. Beside them, each request in
// flight keeps one record (fanReq: 48 bytes, its attempts' places at 4
// bytes a slot — K slots, K·(1 + H) with H hedges a part — in the same
// allocation up to 8 slots, newReq) and a slot of 8 bytes in the ring of
// requests in flight (fanring.go, which keeps at most four slots a
// request in flight): about 56–80 + 4K bytes a request unhedged (with a
// map in place of the ring, of about 25 bytes an entry, the heap grew
// 89.5 bytes a request in flight at K = 4 and 104.8 at K = 8, a million
// parts queued, against plain requests).

// partsStream is the stream constant of the parts generator: the times
// of parts 2 … K, drawn right after their request is generated.
const partsStream = 0x6c6273696d2d7074 // "lbsim-pt"

// lobbyAt marks, in fanReq.at, a part waiting in the lobby; transitAt one
// a server gave back, being routed again (Balancer.transit).
const (
	lobbyAt   = -1
	transitAt = -2
)

// fanState is the model's fan-out state (nil with K = 1).
type fanState struct {
	k     int
	a     int // attempts a part may have: 1, or 1 + hedge-max with hedging
	hedge *hedgeState
	pcg   *rand.PCG // the parts generator
	reqs  reqRing
	times []uint32 // the parts' times of the request being admitted
	skip  []int    // scratch: the slots a part may not go to
	but   []int32  // scratch: the candidates a part may go to (candidatesBut)
	omit  []bool   // scratch: by slot, whether candidatesBut leaves it out
	gaps  []int32  // scratch: candidatesGaps's positions left out
	place []int    // scratch: the slots the parts of a request went to
	note  []uint8  // scratch: what became of each part at arrival (partPlaced …)

	// live counts the requests in flight, by balancer (P, S).
	live [2]int64
	// baseID and baseKey: with hedging turned on by a change, the
	// requests up to baseID (admitted before) keep their keys, stride 1
	// (up to baseKey = baseID·K), and later ones are keyed from baseKey
	// on, off = baseKey − baseID·K·a added to their keys; all 0 otherwise
	// (hedgeset.go).
	baseID, baseKey, off int64

	// sib and sibGaps: the siblings placed so far of the part fanAdmit
	// routes (fanadmit.go).
	sib     []int
	sibGaps []int32
	// gp and sp: the router as a gapsPicker and as a sittingPicker while
	// a request's parts are admitted (nil if it is not one).
	gp gapsPicker
	sp sittingPicker
}

// fanReq is one request in flight with its parts.
type fanReq struct {
	// left counts the parts not completed; tries the retries of all
	// parts (a request's --retries limit counts them together).
	left, tries int32
	// at holds, by attempt slot (part·a + attempt, the first attempt 0
	// and hedge h at h), where that attempt is live: a server id (not a
	// slot: slots are renumbered), lobbyAt, or 0 for none (completed,
	// waiting to retry, or abandoned by its client).
	at []int32
	// hedging's record (nil without hedging).
	*hedgeReq
	// latest is the last cycle a part completed at in a window's pass 2
	// (fanroute.go), which completes parts server by server.
	latest int64
}

// newFanState returns the fan-out state of a run of cfg, nil without
// fan-out or hedging.
func newFanState(cfg *Config) *fanState {
	if cfg.Fanout <= 1 && !hedgingFromStart(cfg) {
		return nil
	}
	f := makeFanState(cfg)
	if hedgingFromStart(cfg) {
		f.a = 1 + max(cfg.HedgeMax, 1)
		f.hedge = newHedgeState(cfg)
	}
	return f
}

// makeFanState returns fan-out's state for cfg's K, without hedging.
func makeFanState(cfg *Config) *fanState {
	k := max(cfg.Fanout, 1)
	return &fanState{k: k, a: 1, pcg: rand.NewPCG(cfg.Seed, partsStream), times: make([]uint32, k)}
}

// key returns the key of part j's (from 0) first attempt of request id.
func (f *fanState) key(id int64, j int) int64 { return f.keyAt(id, j*f.a) }

// keyAt returns the key of attempt slot i of request id (see fanReq.at).
func (f *fanState) keyAt(id int64, i int) int64 {
	if id <= f.baseID {
		return f.legacyKey(id, i)
	}
	return (id-1)*int64(f.k*f.a) + int64(i) + 1 + f.off
}

// split returns the request id and the part (from 0) of an attempt's key.
func (f *fanState) split(key int64) (id int64, j int) {
	if key <= f.baseKey {
		return f.legacySplit(key)
	}
	n := (key - 1 - f.off) / int64(f.a)
	return n/int64(f.k) + 1, int(n % int64(f.k))
}

// slot returns the attempt slot of an attempt's key (see fanReq.at).
func (f *fanState) slot(key int64) int {
	if key <= f.baseKey {
		_, j := f.legacySplit(key)
		return j * f.a
	}
	return int((key - 1 - f.off) % int64(f.k*f.a))
}

// of returns the record of the request attempt key belongs to (nil when
// it has ended) and the attempt's slot.
func (f *fanState) of(key int64) (*fanReq, int) {
	n, ka := key-1-f.off, int64(f.k*f.a)
	id, i := n/ka+1, n%ka
	if key <= f.baseKey { // admitted before a change turned hedging on
		id, i = (key-1)/int64(f.k)+1, (key-1)%int64(f.k)*int64(f.a)
	}
	return f.reqs.get(id), int(i)
}

// legacyKey and legacySplit are keyAt and split for the
// requests admitted before a change turned hedging on (hedgeset.go): one
// attempt a part, keyed (id − 1)·K + part + 1, the part's first slot j·a.
func (f *fanState) legacyKey(id int64, i int) int64 {
	return (id-1)*int64(f.k) + int64(i/f.a) + 1
}

func (f *fanState) legacySplit(key int64) (id int64, j int) {
	return (key-1)/int64(f.k) + 1, int((key - 1) % int64(f.k))
}

// drawParts, under fan-out, fills the parts' times of request r, just
// generated: part 1's is r's own, parts 2 … K draw theirs
// from the parts generator, or with a trace take the row's.
func (m *Model) drawParts(r packed) {
	f := m.fan
	f.times[0] = r.time()
	for j := 1; j < f.k; j++ {
		if m.cfg.Trace != nil {
			f.times[j] = r.time()
		} else {
			f.times[j] = m.partTime()
		}
	}
}

// partTime draws one part's time from the parts generator, computed as a
// request's time is under the shape in force: a uniform time from the
// low 32 bits of one 64-bit draw (with the rare biased draws redrawn),
// no draw for constant, one 64-bit draw for every other shape.
func (m *Model) partTime() uint32 { return m.timeFrom(m.fan.pcg) }

// timeFrom draws one time from generator g under the shape in force, as
// partTime says.
func (m *Model) timeFrom(g *rand.PCG) uint32 {
	cfg := &m.cfg
	switch cfg.Service {
	case Uniform:
		n := uint32(cfg.TaskMax - cfg.TaskMin + 1)
		prod := uint64(uint32(g.Uint64())) * uint64(n)
		for thresh := -n % n; uint32(prod) < thresh; {
			prod = uint64(uint32(g.Uint64())) * uint64(n)
		}
		return uint32(cfg.TaskMin) + uint32(prod>>32)
	case Constant:
		return uint32(cfg.MeanService)
	case Geometric:
		u := g.Uint64()
		if cfg.MeanService <= 1 {
			return 1
		}
		k := 1 + math.Floor(detmath.Log(float64(u>>11+1)*0x1p-53)/m.geoLog)
		return uint32(min(k, MaxTaskTime))
	}
	return m.svc.draw(g.Uint64(), cfg)
}

// fanAdmit is admit under fan-out for request r arriving at cycle t,
// whose parts' times drawParts filled: the firewall, then the parts in
// order, each throttled, picked and enqueued at once (a part its client
// throttles, or a down server or a concurrency limit refuses, is noted,
// and that takes effect after the last part is placed). If a part finds
// its queue (or the lobby) full the request is discarded: the parts
// placed leave their queues, nothing noted takes effect and later parts
// are not routed (the draws made and the policy state moved stay).
func (b *Balancer) fanAdmit(r packed, t int64) {
	m := b.m
	f := m.fan
	b.tot.Generated++
	b.last.Generated++
	first := r
	first.id = f.key(r.id, 0)
	if m.fw.Blocks(uint32(r.addr >> 32)) {
		b.tot.Rejected++
		b.last.Rejected++
		if m.recordEvents {
			b.emit(Reject, 0, 0, first.unpack())
		}
		return
	}
	if fl := b.fleet; fl != nil {
		r = fl.assign(r) // one balancer for the request's parts
	}
	var req *fanReq
	if f.hedge != nil {
		req = f.newHedgedReq(r)
	} else {
		req = f.newReq(f.k * f.a)
	}
	f.reqs.put(r.id, req)
	f.live[b.index]++
	place, note := f.place[:0], f.note[:0]
	f.startSiblings(b)
	noted, refusing := false, b.watching || b.lim != nil
	for j := range f.k {
		p := f.partOf(r, j)
		if b.th != nil && b.throttles(t) {
			// Rejected by its client before the pick: noted, it takes
			// effect after the last part is placed.
			place, note, noted = append(place, 0), append(note, partThrottled), true
			continue
		}
		id := 0
		if b.active.n > 0 {
			id = b.pickSibling(req, j, p, t)
		}
		q := &b.lobby
		if id != 0 {
			q = &b.sq[id-1]
			b.lastGiven = id
		}
		if c := m.cfg.QueueCap; c > 0 && q.Len() >= c {
			f.endSiblings()
			b.discardParts(r, place, note, t)
			if m.recordEvents {
				b.emit(Discard, id, 0, p.unpack())
			}
			return
		}
		place = append(place, id)
		if refusing {
			if n := b.partRefusal(id); n != partPlaced {
				req.at[j*f.a] = 0 // not live: refused, which takes effect after the last part is placed
				note, noted = append(note, n), true
				continue
			}
		}
		note = append(note, partPlaced)
		if id != 0 {
			f.placedSibling(b, id)
		}
		b.queued++
		if id == 0 {
			req.at[j*f.a] = lobbyAt
			q.pushBack(p, t)
		} else {
			req.at[j*f.a] = int32(b.idOf(id))
			b.enqueue(id, p, t)
		}
	}
	f.endSiblings()
	f.place, f.note = place, note
	b.tot.Admitted++
	b.tot.ExtraParts += int64(f.k - 1)
	if f.hedge != nil {
		b.hedgeFirstSent(r.id, req, t)
	}
	for j, id := range place {
		if note[j] == partThrottled {
			continue // no Arrive: its client never sent it
		}
		p := f.partOf(r, j)
		if m.recordEvents {
			b.emit(Arrive, id, 0, p.unpack())
		}
		if b.watching {
			b.arrived(p, t)
			if note[j] == partPlaced {
				b.placed(p, id, false)
			}
		}
	}
	if noted {
		b.notedParts(r, place, note, t)
	}
}

// partOf returns part j (from 0) of request r, its time from drawParts.
func (f *fanState) partOf(r packed, j int) packed {
	r.id = f.key(r.id, j)
	r.meta = r.meta&^(packedTimeMask<<packedTimeShift) | uint64(f.times[j])<<packedTimeShift
	return r
}

// takeOutQueued takes attempt key out of its queue (server slot sid's, or
// 0 for the lobby) at cycle t, as a timeout takes a queued attempt out
// (unqueue), and returns it.
func (b *Balancer) takeOutQueued(key int64, sid int, t int64) packed {
	r := b.removeQueued(key, sid, t)
	b.unqueued(r, sid, t)
	return r
}

// removeQueued takes attempt key out of its queue (server slot sid's, or
// 0 for the lobby) at cycle t; unqueued then tells the server.
func (b *Balancer) removeQueued(key int64, sid int, t int64) packed {
	q := &b.lobby
	if sid != 0 {
		q = &b.sq[sid-1]
	}
	r, _, _ := q.remove(key, 0, t)
	b.queued--
	return r
}

// unqueued tells server slot sid (0: the lobby) that attempt r has left
// its queue at cycle t without being served: its router, and, the
// server holding nothing more, what an emptied server does.
func (b *Balancer) unqueued(r packed, sid int, t int64) {
	if sid == 0 {
		return
	}
	q := &b.sq[sid-1]
	b.hold(sid, r, -1)
	s := &b.srv[sid-1]
	if b.active.has(sid) {
		b.cands.addLoad(sid, -1)
		if b.caps.Hears {
			b.rt.left(sid, r, t, q.n == 0 && !s.busy)
		}
	}
	if q.n == 0 && !s.busy {
		b.shedEmptied(sid, t)
	}
}

// pickPart picks the server attempt p of a request with fan-out goes to
// at cycle t: by the policy, among the candidates holding no live attempt
// of another part of the request; if that leaves none the policy can
// pick, among all candidates. It notes the part there (a discard or a
// refusal then ends the attempt, which takes the note back).
func (b *Balancer) pickPart(p packed, t int64) int {
	req, j := b.m.fan.of(p.id) // looked up once, for the choice and the note
	id := b.pickPartFrom(req, j, p, t)
	if id != 0 && req != nil {
		req.at[j] = int32(b.idOf(id)) // placedPart
	}
	return id
}

// pickPartFrom is pickPart's choice for attempt p, in slot j of request
// record req (nil: ended).
func (b *Balancer) pickPartFrom(req *fanReq, j int, p packed, t int64) int {
	f := b.m.fan
	skip := f.skip[:0]
	if req != nil {
		for i, w := range req.at {
			if i != j && w > 0 {
				if s := b.slotOf(int(w)); s != 0 && b.active.has(s) {
					skip = append(skip, s)
				}
			}
		}
	}
	f.skip = skip
	return b.pickPartAmong(p, t, skip)
}

// pickPartAmong is pickPartFrom's choice for part p given the slots in
// skip, its siblings' places.
func (b *Balancer) pickPartAmong(p packed, t int64, skip []int) int {
	if len(skip) > 0 {
		if ap, ok := b.rt.(amongPicker); ok {
			if id := ap.pickAmong(p, t, skip); id != 0 {
				b.tally.add(p.member(), id)
				if f := b.fleet; f != nil {
					f.picked(p.member(), id, p)
				}
				return id
			}
		}
	}
	return b.pickFor(p, t)
}

// amongPicker is a router that can pick, per-server, among the
// candidates but those in skip (slots), running its policy unchanged over
// that set; it returns 0 when it can pick none there (fan-out).
type amongPicker interface {
	pickAmong(r packed, t int64, skip []int) int
}

// fanoutPolicy reports whether fan-out can route its parts with policy p:
// its router picks among a set (amongPicker).
func fanoutPolicy(p Policy) bool { return p < numPolicies && partPolicies[p] }

// partPolicies holds, by policy, whether its router is an amongPicker
// (a router made for no balancer only to ask: none reads it when made).
var partPolicies = func() (out [numPolicies]bool) {
	for p := range numPolicies {
		_, out[p] = policies[p].newRouter(&Balancer{}).(amongPicker)
	}
	return out
}()

// fanoutPolicyNames lists the policies fan-out routes its parts with, for
// messages.
func fanoutPolicyNames() string {
	var names []string
	for p := range numPolicies {
		if partPolicies[p] {
			names = append(names, p.String())
		}
	}
	return strings.Join(names, ", ")
}

// seenLoad is server slot id's load as balancer k of a fleet knows it
// (the true load without a fleet).
func (b *Balancer) seenLoad(k, id int) int64 {
	if f := b.fleet; f != nil {
		return f.v.load(k, id)
	}
	return b.load(id)
}

// candidatesBut returns the candidates, in the dense array's order, but
// those in skip.
func (b *Balancer) candidatesBut(skip []int) []int32 {
	f := b.m.fan
	if f == nil {
		var out []int32
		for _, id := range b.cands.ids {
			if !slices.Contains(skip, int(id)) {
				out = append(out, id)
			}
		}
		return out
	}
	// Scratch space: the routers read the list only while they pick.
	if len(f.omit) < len(b.srv) {
		f.omit = make([]bool, len(b.srv))
	}
	for _, s := range skip {
		f.omit[s-1] = true
	}
	out := f.but[:0]
	for _, id := range b.cands.ids {
		if !f.omit[id-1] {
			out = append(out, id)
		}
	}
	for _, s := range skip {
		f.omit[s-1] = false
	}
	f.but = out
	return out
}

// placedPart notes that attempt r of a request with fan-out was routed to
// server slot id (0: the lobby).
func (b *Balancer) placedPart(r packed, id int) {
	if req, j := b.m.fan.of(r.id); req != nil {
		if id == 0 {
			req.at[j] = lobbyAt
		} else {
			req.at[j] = int32(b.idOf(id))
		}
	}
}

// workParts is step a for a per-server balancer with fan-out at cycle t:
// workEach's loop without its early dispatch (the routed shortcut
// dispatches after it, fanroute.go), in server-id order (an error
// may cancel a sibling due this cycle), a part's completion completing
// its request at the last one. Kept apart so that workEach pays nothing
// for fan-out.
func (b *Balancer) workParts(t int64) {
	ids := b.wheel.take(t)
	slices.Sort(ids)
	for _, id32 := range ids {
		id := int(id32)
		s := &b.srv[id-1]
		if !s.busy || s.done != t {
			continue // stale entry
		}
		ok := len(b.ends) == 0 || b.endsOf(id) == completes
		if ok && b.m.fan.hedge != nil && b.yields(s.req, t) {
			continue // an earlier sibling completes its part this cycle and cancels it
		}
		if b.sampling {
			b.sample(id, t, b.load(id)) // a cancellation takes no sample
		}
		abandoned := false
		switch {
		case ok:
			b.stepAt = id // a sibling at a higher id has not been served this cycle
			b.partDone(id, s, t)
			b.stepAt = 0
		case b.endsOf(id) == abandons:
			abandoned = true // counted once the router has heard (peak-ewma reads it)
		default:
			b.stepAt = id // a sibling at a higher id has not been served this cycle
			b.errored(id, t)
			b.stepAt = 0
		}
		s.busy = false
		b.busy--
		b.cands.addLoad(id, -1)
		b.hold(id, s.req, -1)
		b.freed(id, t, ok)
		if abandoned {
			b.abandonedEnds(id, t)
		}
	}
}

// partDone is step a for server slot id, whose part (of a request with
// fan-out) completed at cycle t with its client waiting.
func (b *Balancer) partDone(id int, s *server, t int64) {
	b.partCompleted(s, t)
	if b.watching {
		b.succeeded(id, s.req)
	}
	if b.m.recordEvents {
		b.emit(Complete, id, 0, s.req.unpack())
	}
}

// partCompleted counts at cycle t the completion of the part server s had
// in service: the request completes with its last part.
func (b *Balancer) partCompleted(s *server, t int64) {
	f := b.m.fan
	id, j := f.split(s.req.id)
	req := f.reqs.get(id)
	if req == nil {
		return // cannot happen: a cancelled attempt does not complete
	}
	req.at[f.slot(s.req.id)] = 0
	if req.hedgeReq != nil {
		b.hedgedPartDone(id, j, req, s.req, t)
	}
	req.left--
	if req.left > 0 {
		b.tot.PartsDone++
		return
	}
	f.reqs.del(id)
	f.live[b.index]--
	b.resps.add(b.completed(s, t))
}

// partEnded notes that attempt r of a request with fan-out ended without
// completing (error, timeout, discarded retry) and returns its request's
// record (nil if the request has ended: it cannot, a cancelled attempt
// does not end again).
func (b *Balancer) partEnded(r packed) *fanReq {
	req, j := b.m.fan.of(r.id)
	if req != nil {
		req.at[j] = 0
	}
	if l := b.lim; l != nil && len(l.rejoined) > 0 {
		delete(l.rejoined, r.id) // the attempt that joined has ended
	}
	return req
}

// fanEnded ends for good at cycle t the request attempt r belongs to,
// whose part ended without completing (counted by the caller): its other
// live attempts are cancelled, in part order.
func (b *Balancer) fanEnded(r packed, t int64) {
	f := b.m.fan
	id, _ := f.split(r.id)
	req := f.reqs.get(id)
	if req == nil {
		return
	}
	f.reqs.del(id)
	f.live[b.index]--
	for i, w := range req.at {
		if w != 0 {
			b.cancel(f.keyAt(id, i), w, t)
		}
	}
}

// cancel cancels attempt key, live at w (a server id, or lobbyAt), at
// cycle t: queued, it leaves its queue; in service, its server stops it
// and is free at once (it may take work at step d of this cycle), the
// cycles it served counted as wasted. The event comes first, then what
// the server does (a retiring server left with nothing leaves).
func (b *Balancer) cancel(key int64, w int32, t int64) {
	sid := 0
	if w > 0 {
		sid = b.slotOf(int(w))
	}
	var r packed
	if w == shedAt {
		b.cancelShed(key, t)
		return
	}
	if w == transitAt {
		// Given back by its server and not yet routed again: it is not
		// routed (takeBack passes over it).
		i := slices.IndexFunc(b.transit, func(p packed) bool { return p.id == key })
		b.cancelled(b.transit[i], 0)
		return
	}
	inService := sid != 0 && b.srv[sid-1].busy && b.srv[sid-1].req.id == key && b.endsOf(sid) != abandons
	if inService {
		r = b.srv[sid-1].req
	} else {
		r = b.removeQueued(key, sid, t)
	}
	at := 0
	if inService {
		at = sid
	}
	b.cancelled(r, at)
	if inService {
		b.stopServing(sid, t)
	} else {
		b.unqueued(r, sid, t)
	}
}

// cancelled forgets cancelled attempt r (its requeue note, its client's
// deadline) and counts it, with its event at server at (0: it was not in
// service): what every cancellation shares, wherever the attempt was.
func (b *Balancer) cancelled(r packed, at int) {
	if len(b.requeuedAt) > 0 {
		delete(b.requeuedAt, r.id)
	}
	if b.cl != nil {
		b.cl.ended(r.id)
	}
	if l := b.lim; l != nil && len(l.rejoined) > 0 {
		delete(l.rejoined, r.id)
	}
	b.tot.Cancelled++
	b.last.Cancelled++
	if b.m.recordEvents {
		b.emit(Cancel, at, 0, r.unpack())
	}
}

// stopServing stops the attempt server slot id has in service at cycle
// t and frees the server as an ending at step a frees it; the cycles it
// was served (t − its dispatch cycle, one less before step a has reached
// the server) count as wasted.
func (b *Balancer) stopServing(id int, t int64) {
	s := &b.srv[id-1]
	r := s.req
	start := s.done - int64(s.speed.Cycles(r.time()))
	if g, ok := b.grayStart[id]; ok && g[1] == s.done {
		start = g[0]
	}
	served := t - start
	if b.stepAt != 0 && id > b.stepAt {
		served-- // step a has not reached it this cycle
	}
	b.tot.WastedCycles += max(served, 0)
	if b.caps.Reads == ReadsWork && b.active.has(id) {
		b.rt.(workPlacer).reschedule(id, t-s.done) // it ends now
	}
	delete(b.ends, id)
	s.busy = false
	b.busy--
	b.hold(id, r, -1)
	b.cands.addLoad(id, -1)
	b.freed(id, t, false)
}

// toTransit notes the parts of again, which a server gave back at the
// start of a cycle, as live on no server until each is routed again.
func (b *Balancer) toTransit(again []packed) {
	b.transit = again
	for _, r := range again {
		if req, j := b.m.fan.of(r.id); req != nil {
			req.at[j] = transitAt
		}
	}
}

// endedInTransit reports whether part r, given back by its server, was
// cancelled before its turn to be routed again: its request has ended.
func (b *Balancer) endedInTransit(r packed) bool {
	req, i := b.m.fan.of(r.id)
	return req == nil || req.at[i] == 0
}

// fanDigest adds the fan-out state to the model's hash (only while fan-out
// is on: older hashes stay).
func (b *Balancer) fanDigest(put func(int64)) {
	t := &b.tot
	for _, v := range []int64{t.ExtraParts, t.PartsDone, t.Cancelled, t.Hedges, t.HedgesWon, t.HedgesDenied, int64(b.m.fan.reqs.len())} {
		put(v)
	}
	if h := b.m.fan.hedge; h != nil {
		put(h.seq)
		put(int64(h.dueCycles()))
	}
}

// request returns the Request that p packs, with fan-out its request's id
// and its part rather than the part's key.
func (b *Balancer) request(p packed) Request {
	r := p.unpack()
	if f := b.m.fan; f != nil {
		id, j := f.split(r.ID)
		r.ID, r.Part = id, uint8(j)
	}
	return r
}
