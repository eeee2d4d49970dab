package sim

import "math"

// This file is the client side: attempts, their timeouts (step a′), and
// retries with backoff, jitter and a budget. A request's first attempt
// arrives as always; a retry is a new attempt of the same request (same
// id, addresses, time and type, and the same first arrival, from which
// its response time counts) arriving later. With every client setting off
// a balancer keeps no client state and a run is what it is without them.

// retryStream is the stream constant of the retry generator (jitter).
const retryStream = 0x6c6273696d2d7279 // "lbsim-ry"

// budgetWindow is how many cycles the retry budget looks back over.
const budgetWindow = 1000

// flight is the client side's record of a request whose current attempt
// is a retry (or a first attempt spilled out of the ring of first
// attempts, see deadlines.go), or that waits to retry.
type flight struct {
	req   packed // the request as its next (or current) attempt carries it
	at    int64  // the current attempt's arrival
	due   int64  // the cycle its timeout strikes, 0 for none
	tries int    // retries so far
	// server is the server serving the attempt (inService) or whose
	// queue holds it (per-server; 0: the central queue or the lobby).
	server    int
	inService bool
	waiting   bool // the request waits to retry; no attempt is out
	ended     bool // the request is done: its deadlines no longer hold
}

// clientSide is one balancer's client state.
type clientSide struct {
	flights   map[int64]*flight
	firsts    firstRing       // first attempts with a deadline (deadlines.go)
	epochs    []epoch         // the timeouts those arrived under
	deadlines deadlineHeap    // spilled first attempts' deadlines
	rq        []deadlineQueue // retries' deadlines, by the timeout they arrived under
	// dueFloor is a cycle before which no deadline falls: step a′ is
	// passed over before it (set by timeouts, lowered by noteDue, which
	// every deadline kept passes through; math.MaxInt64 while none is).
	dueFloor int64
	retries  retryHeap
	waiting  int64 // requests waiting to retry

	// The budget's window: the first attempts admitted and the retries
	// granted up to the end of each of the last budgetWindow cycles
	// (running totals, by cycle mod budgetWindow; stamp says which cycle a
	// slot holds). A cycle not recorded (before the state was made)
	// counts nothing: baseAdm holds the admissions then (no retry was
	// granted before). from is the cycle the state was made (0: the
	// window holds every cycle, budgetwindow.go); on says whether the
	// client side has come on (only then does its state join the hash).
	granted       int64
	from          int64
	on            bool
	recorded      int64 // the last cycle recorded
	cumAdm, cumGr [budgetWindow]int64
	stamp         [budgetWindow]int64
	baseAdm       int64
	// hint is where in queue hintQ the last attempt timed out at cycle
	// hintAt was (the next one of that cycle is likely after it);
	// searched counts the places looked at to find timed-out attempts.
	hint     int
	hintAt   int64
	hintQ    *fifo
	searched int64

	abandonAt          map[int]int64 // servers busy with abandoned work: the cycle it was abandoned
	wastedEnded        int64         // wasted cycles of abandoned work that has ended
	abandonedInService int64
}

// ending says how an attempt ended, for the retry rules.
type ending uint8

const (
	endError     ending = iota // in error (a failing server, a refusal, a server going down)
	endTimeout                 // its client gave up (timeout)
	endDiscarded               // a retry found its queue full
)

// client returns the balancer's client state, made the first time; the
// client side is on from then (its state joins the hash).
func (b *Balancer) client() *clientSide {
	if b.cl == nil {
		b.cl = b.newClient()
	}
	b.cl.on = true
	return b.cl
}

// newClient makes the balancer's client state at the current cycle.
func (b *Balancer) newClient() *clientSide {
	c := &clientSide{flights: map[int64]*flight{}, abandonAt: map[int]int64{}, dueFloor: math.MaxInt64}
	c.baseAdm = b.tot.Admitted
	c.from = b.m.cycle
	c.recorded = b.m.cycle - 1 // this cycle is recorded at its end
	for i := range c.stamp {
		c.stamp[i] = -1
	}
	return c
}

// arrived is told of every attempt that joins a queue at cycle t (a first
// attempt admitted, or a retry): with a timeout in force it gets its
// deadline, a first attempt as a word in the ring of first attempts.
func (b *Balancer) arrived(r packed, t int64) {
	T := b.m.cfg.Timeout
	if !r.retry() {
		if T > 0 {
			b.client().addFirst(r.id, t, T)
		}
		return
	}
	c := b.client()
	f := c.flights[r.id]                                                  // a retry's flight is made when it is granted
	f.at, f.due, f.waiting, f.server, f.inService = t, 0, false, 0, false // its wait counts from at
	if T > 0 {
		f.due = t + T
		c.retryDeadline(deadline{f.due, t, r.id, f}, T)
	}
}

// flightOf returns request id's flight, or nil.
func (b *Balancer) flightOf(id int64) *flight {
	if b.cl == nil || len(b.cl.flights) == 0 {
		return nil
	}
	return b.cl.flights[id]
}

// placed notes that request r's attempt joined server id's queue (0: the
// central queue or the lobby), or went into service there.
func (b *Balancer) placed(r packed, id int, inService bool) {
	c := b.cl
	if c == nil {
		return
	}
	if v := c.firsts.get(r.id); v != 0 {
		c.firsts.set(r.id, v&^locMask|locOf(id, inService))
		return
	}
	if len(c.flights) == 0 {
		return
	}
	if f := c.flights[r.id]; f != nil {
		f.server, f.inService = id, inService
	}
}

// ended forgets request r's attempt's record: it completed or gave up.
func (c *clientSide) ended(id int64) {
	if c.firsts.live > 0 {
		c.firsts.clear(id)
	}
	if len(c.flights) > 0 {
		if f := c.flights[id]; f != nil {
			f.ended = true
			delete(c.flights, id)
		}
	}
}

// succeeded is told that request r's attempt completed on server id with
// its client waiting: the request is done, and the server's run of errors
// ends.
func (b *Balancer) succeeded(id int, r packed) {
	if b.cl != nil {
		b.cl.ended(r.id)
	}
	b.serverCompleted(id)
}

// attemptEnded applies the retry rules to request r, whose attempt ended
// at cycle e as how says; bStarted says whether step b of cycle e has
// begun (a retry with no wait then arrives in the next cycle).
func (b *Balancer) attemptEnded(r packed, e int64, how ending, bStarted bool) {
	b.attemptEndedWith(r, b.flightOf(r.id), e, how, bStarted)
}

// attemptEndedWith is attemptEnded with request r's flight, f (nil: none).
func (b *Balancer) attemptEndedWith(r packed, f *flight, e int64, how ending, bStarted bool) {
	cfg := &b.m.cfg
	tries := 0
	if f != nil {
		tries = f.tries
	}
	var req *fanReq // fan-out: the request's retries count those of all its parts
	if b.m.fan != nil {
		if req = b.partEnded(r); req == nil {
			// Its request has ended: the part ends with it.
			if len(b.requeuedAt) > 0 {
				delete(b.requeuedAt, r.id)
			}
			if b.cl != nil {
				b.cl.ended(r.id)
			}
			return
		}
		if b.stillHedged(r) {
			// Another attempt of its part is live: this one ends alone.
			if len(b.requeuedAt) > 0 {
				delete(b.requeuedAt, r.id)
			}
			if b.cl != nil {
				b.cl.ended(r.id)
			}
			return
		}
		tries = int(req.tries)
	}
	if tries >= cfg.Retries {
		if how == endTimeout {
			b.tot.TimedOut++
		} else {
			b.tot.Failed++
		}
		b.giveUp(r)
		if req != nil {
			b.fanEnded(r, e)
		}
		return
	}
	c := b.client()
	if cfg.RetryBudget > 0 {
		adm, gr := c.window(b, e)
		if f := b.m.fan; f != nil {
			adm *= int64(f.k) // the parts first sent
		}
		if gr*DecimalScale >= int64(cfg.RetryBudget)*adm {
			b.tot.GaveUpBudget++
			b.giveUp(r)
			if req != nil {
				b.fanEnded(r, e)
			}
			return
		}
	}
	c.granted++
	if req != nil {
		req.tries++
		if req.hedgeReq != nil {
			r = b.hedgeRetry(r, req)
		}
	}
	k := tries + 1
	d := cfg.Backoff << (k - 1)
	if cfg.Jitter && d > 0 {
		d = b.m.yrng.Int64N(d + 1)
	}
	at := e + d
	if d == 0 && bStarted {
		at = e + 1
	}
	if f == nil {
		// A first attempt (giveUp forgets it otherwise): its word in the
		// ring gives way to a flight.
		if c.firsts.live > 0 {
			c.firsts.clear(r.id)
		}
		f = &flight{}
		c.flights[r.id] = f
	}
	if len(b.requeuedAt) > 0 {
		delete(b.requeuedAt, r.id) // its wait counts from the retry's arrival
	}
	r.meta = r.meta&^packedRequeued | packedRetry
	f.req, f.tries, f.waiting, f.due, f.server, f.inService = r, k, true, 0, 0, false
	c.waiting++
	c.retries.push(retryAt{at, r.id, f})
}

// giveUp ends request r without success (the caller counts how).
func (b *Balancer) giveUp(r packed) {
	if len(b.requeuedAt) > 0 {
		delete(b.requeuedAt, r.id) // it will not be dispatched again
	}
	if l := b.lim; l != nil && len(l.rejoined) > 0 {
		delete(l.rejoined, r.id) // nor join a queue
	}
	if b.cl != nil {
		b.cl.ended(r.id)
	}
	if b.m.recordEvents {
		b.emit(GiveUp, 0, 0, r.unpack())
	}
}

// window returns the first attempts admitted and the retries granted in
// cycles e−999 … e, as counted so far.
func (c *clientSide) window(b *Balancer, e int64) (adm, gr int64) {
	adm0, gr0 := c.baseAdm, int64(0)
	if base := e - budgetWindow; base >= 0 {
		if i := base % budgetWindow; c.stamp[i] == base {
			adm0, gr0 = c.cumAdm[i], c.cumGr[i]
		}
	}
	return b.tot.Admitted - adm0, c.granted - gr0
}

// recordWindow keeps cycle t's running totals for the budget (step e).
func (c *clientSide) recordWindow(b *Balancer, t int64) {
	i := t % budgetWindow
	c.cumAdm[i], c.cumGr[i], c.stamp[i] = b.tot.Admitted, c.granted, t
	c.recorded = t
}

// recordThrough keeps the running totals as they are now for the cycles
// after the last one recorded, up to t (only the last budgetWindow of
// them can be read): a shortcut passed them, and they admitted and
// granted nothing since.
func (c *clientSide) recordThrough(b *Balancer, t int64) {
	for u := max(c.recorded+1, t-budgetWindow+1); u <= t; u++ {
		c.recordWindow(b, u)
	}
}

// timeouts is step a′ at cycle t: every attempt whose deadline is t is
// abandoned, oldest first. The deadlines come from the heap and from each
// epoch's cursor over the first attempts (deadlines.go), merged.
func (b *Balancer) timeouts(t int64) {
	c := b.cl
	const fromHeap, fromRetries = -2, -3
	for {
		// k: the epoch of best, or fromHeap, or fromRetries (queue r).
		best, k, r := deadline{}, -1, 0
		for len(c.deadlines) > 0 && c.deadlines[0].due <= t {
			d := c.deadlines[0]
			if !d.live() {
				c.deadlines.pop() // the attempt has ended
				continue
			}
			best, k = d, fromHeap
			break
		}
		for i := range c.rq {
			if d, ok := c.retryHead(i); ok && d.due <= t && (k == -1 || d.less(best)) {
				best, k, r = d, fromRetries, i
			}
		}
		for i := range c.epochs {
			id, v, ok := c.nextFirst(i)
			if !ok {
				continue
			}
			at := int64(v >> locBits)
			if d := (deadline{at + c.epochs[i].timeout, at, id, nil}); d.due <= t && (k == -1 || d.less(best)) {
				best, k = d, i
			}
		}
		switch k {
		case -1:
			c.dropEpochs()
			for len(c.rq) > 1 && len(c.rq[0].q) == c.rq[0].head {
				c.rq = c.rq[1:]
			}
			if c.dueFloor = c.nextDue(); c.dueFloor == 0 {
				c.dueFloor = math.MaxInt64
			}
			return
		case fromHeap, fromRetries:
			if k == fromHeap {
				c.deadlines.pop()
			} else {
				c.popRetry(r)
			}
			b.timeOut(best.id, best.f, best.f.server, best.f.inService, t)
		default:
			server, inService := placeOf(c.firsts.get(best.id))
			b.timeOut(best.id, nil, server, inService, t)
		}
	}
}

// timeOut abandons request id's attempt, queued or in service at server
// (0: the central queue or the lobby), at cycle t; f is its flight (nil
// for a first attempt in the ring).
func (b *Balancer) timeOut(id int64, f *flight, server int, inService bool, t int64) {
	var r packed
	if inService {
		s := &b.srv[server-1]
		r = s.req
		b.tot.TimedOutInService++
		if b.endsOf(server) == hangs {
			b.release(server, t) // a hanging server is freed
		} else {
			if b.ends == nil {
				b.ends = map[int]outcome{}
			}
			b.ends[server] = abandons
			if l := b.lim; l != nil && l.r > 0 {
				l.abandoned(b, server, r, f)
			}
			b.cl.abandonAt[server] = t
			b.cl.abandonedInService++
			if b.perServer && b.caps.Hears && b.active.has(server) {
				b.rt.abandon(server, r)
			}
		}
	} else {
		r = b.unqueue(id, server, t)
		server = 0
		b.tot.TimedOutQueued++
	}
	b.last.TimedOut++
	if b.m.recordEvents {
		b.emit(TimedOut, server, 0, r.unpack())
	}
	b.attemptEndedWith(r, f, t, endTimeout, false)
}

// unqueue takes request id's queued attempt out of its queue (server
// sid's, or 0 for the central queue or the lobby) at cycle t and returns
// it.
func (b *Balancer) unqueue(id int64, sid int, t int64) packed {
	c := b.cl
	q := &b.queue
	switch {
	case !b.perServer:
	case sid == 0:
		q = &b.lobby
	default:
		q = &b.sq[sid-1]
	}
	hint := 0
	if c.hintAt == t && c.hintQ == q {
		hint = c.hint
	}
	r, at, searched := q.remove(id, hint, t)
	c.hint, c.hintAt, c.hintQ = at, t, q
	c.searched += int64(searched)
	if !b.perServer {
		return r
	}
	if sid == 0 {
		b.queued--
		return r
	}
	b.queued--
	b.hold(sid, r, -1)
	s := &b.srv[sid-1]
	candidate := b.active.has(sid)
	if candidate {
		b.cands.addLoad(sid, -1)
		if b.caps.Hears {
			b.rt.left(sid, r, t, q.n == 0 && !s.busy)
		}
	}
	if q.n == 0 && !s.busy {
		b.ready.remove(sid)
		b.emptied(sid, t)
	}
	return r
}

// release frees server id at cycle t, whose attempt in service hangs and
// has just been abandoned, as if it had finished it.
func (b *Balancer) release(id int, t int64) {
	s := &b.srv[id-1]
	delete(b.ends, id)
	if b.caps.Reads == ReadsWork && b.perServer && b.active.has(id) {
		b.rt.(workPlacer).reschedule(id, t-s.done) // it ends now, not never
	}
	s.busy = false
	b.busy--
	b.hold(id, s.req, -1)
	b.afterAttempt(id, t, false)
}

// afterAttempt frees server id, whose attempt ended at cycle t (ok: it
// completed with its client waiting), as step a does.
func (b *Balancer) afterAttempt(id int, t int64, ok bool) {
	s := &b.srv[id-1]
	if b.perServer {
		b.cands.addLoad(id, -1)
		b.freed(id, t, ok)
		return
	}
	switch {
	case s.retiring:
		b.leave(id)
	case b.active.has(id):
		b.setIdle(id)
	}
}

// retriesArrive is the retries' part of step b at cycle t: the retries
// due arrive, by request id, and join the queue (per-server: are routed)
// unless it is full.
func (b *Balancer) retriesArrive(t int64) {
	c := b.cl
	for len(c.retries) > 0 && c.retries[0].at <= t {
		ra := c.retries.pop()
		f := ra.f
		c.waiting--
		r := f.req
		if fan := b.m.fan; fan != nil {
			if req, i := fan.of(r.id); req == nil || req.hedgeReq != nil && !b.hedgeRetryArrives(req, i) {
				c.ended(r.id) // its request has ended, or its part completed: the retry is dropped
				continue
			}
		}
		b.tot.Retries++
		b.last.Retries++
		if b.perServer {
			b.route(r, t, routeRetry)
			continue
		}
		if b.th != nil && b.throttles(t) {
			b.throttled(r, t)
			continue
		}
		if cap := b.m.cfg.QueueCap; cap > 0 && b.queue.Len() >= cap {
			b.discardRetry(r, 0, t)
			continue
		}
		if b.m.recordEvents {
			b.emit(Retry, 0, 0, r.unpack())
		}
		b.arrived(r, t)
		if b.lim != nil && b.overLimit(0) {
			b.refuseLimited(0, r, t)
			continue
		}
		b.queue.pushBack(r, t)
	}
}

// discardRetry counts retry r discarded at cycle t by the capacity of its
// queue (server id's, or 0 for the central one) and applies the retry
// rules to it.
func (b *Balancer) discardRetry(r packed, id int, t int64) {
	b.tot.RetriesDiscarded++
	if b.m.recordEvents {
		b.emit(Discard, id, 0, r.unpack())
	}
	b.attemptEnded(r, t, endDiscarded, true)
}

// abandonedEnds counts the end at cycle t of the abandoned work server id
// had in service (it ran to its end, or the server went down).
func (b *Balancer) abandonedEnds(id int, t int64) {
	c := b.cl
	c.wastedEnded += t - c.abandonAt[id]
	delete(c.abandonAt, id)
	if l := b.lim; l != nil && l.abandonedJoined != nil {
		delete(l.abandonedJoined, id)
	}
	delete(b.ends, id)
	c.abandonedInService--
}

// clientLevels adds the client side's levels and its wasted cycles so far
// to tot, as of the end of cycle now.
func (b *Balancer) clientLevels(tot *Totals, now int64) {
	c := b.cl
	if c == nil {
		return
	}
	tot.Abandoned = c.abandonedInService
	tot.Waiting = c.waiting
	tot.WastedCycles += c.wastedEnded // b.tot's own: cancellations' (fan-out)
	for _, at := range c.abandonAt {
		tot.WastedCycles += now - at + 1
	}
}
