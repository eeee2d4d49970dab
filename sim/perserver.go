package sim

import "slices"

// This file is the per-server queue mode: routing at arrival, each
// server's own FIFO, the lobby, and dispatch from each server's queue.

// routeMode says what is being routed: a fresh arrival, a retry, or a
// request routed again (taken back from a failed server).
type routeMode uint8

const (
	routeFresh routeMode = iota
	routeRetry
	routeAgain
)

// route sends request r at cycle t to the candidate the policy picks, or
// to the lobby when there is none. A fresh arrival is counted admitted,
// or discarded when the chosen queue already holds QueueCap requests (the
// policy has picked by then, so its state has moved on); a retry is
// likewise discarded (retries_discarded); a request taken back from a
// failed server or out of the lobby was admitted before and is never
// discarded. A down server that health checks have not found out refuses
// the attempt (it ends in error). It reports whether r was queued.
func (b *Balancer) route(r packed, t int64, mode routeMode) bool {
	if f := b.fleet; f != nil && mode != routeAgain {
		r = f.assign(r)
	}
	if b.th != nil && mode != routeAgain && b.throttles(t) {
		if mode == routeFresh {
			b.tot.Admitted++ // a throttled first attempt is admitted, and ends
		}
		b.throttled(r, t)
		return false
	}
	id := 0
	if b.active.n > 0 {
		if b.m.fan == nil {
			id = b.pickFor(r, t)
		} else {
			id = b.pickPart(r, t) // it notes where the part goes
		}
	}
	q := &b.lobby
	if id != 0 {
		q = &b.sq[id-1]
		b.lastGiven = id
	}
	if mode != routeAgain {
		if c := b.m.cfg.QueueCap; c > 0 && q.Len() >= c {
			if mode == routeRetry {
				b.discardRetry(r, id, t)
				return false
			}
			b.tot.Discarded++
			b.last.Discarded++
			if b.m.recordEvents {
				b.emit(Discard, id, 0, r.unpack())
			}
			return false
		}
		if mode == routeFresh {
			b.tot.Admitted++
		}
		if b.m.recordEvents {
			kind := Arrive
			if mode == routeRetry {
				kind = Retry
			}
			b.emit(kind, id, 0, r.unpack())
		}
		if b.watching {
			b.arrived(r, t)
		}
	}
	if id != 0 && b.watching && b.srv[id-1].down {
		b.refuse(id, r, t)
		return false
	}
	if b.lim != nil && id != 0 && mode != routeAgain && b.overLimit(id) {
		b.refuseLimited(id, r, t)
		return false
	}
	b.queued++
	if id == 0 {
		if b.m.fan != nil {
			b.placedPart(r, 0)
		}
		q.pushBack(r, t)
		b.placed(r, 0, false)
		return true
	}
	b.enqueue(id, r, t)
	return true
}

// enqueue puts r at the tail of server id's queue at cycle t. When
// serveNow is set (runRouted, see there) and the server is idle, the
// server takes r at once, as step d would.
func (b *Balancer) enqueue(id int, r packed, t int64) {
	s := &b.srv[id-1]
	now := b.serveNow && !s.busy
	if b.watching {
		b.placed(r, id, false)
	}
	b.cands.addLoad(id, 1)
	b.hold(id, r, 1)
	if b.caps.Hears {
		b.rt.joined(id, r, t) // before it leaves the free servers: least-work reads that
	}
	if !now {
		b.sq[id-1].pushBack(r, t)
		if !s.busy {
			b.ready.add(id)
		}
	}
	b.free.remove(id)
	if now {
		b.queued--
		b.serve(id, r, t)
	}
}

// freed is step a for server id of a per-server balancer, whose request
// completed at cycle t: a retiring server with an empty queue leaves; any
// other server with a queue is ready to take its next request in step d;
// an active one with an empty queue is free.
func (b *Balancer) freed(id int, t int64, ok bool) {
	s := &b.srv[id-1]
	empty := b.sq[id-1].n == 0
	if s.retiring {
		if empty {
			b.leave(id)
			return
		}
		b.ready.add(id)
		return
	}
	if b.watching && !b.active.has(id) {
		// Ejected, or back and draining what it held: it finishes its
		// queue, then rejoins if it may.
		if empty {
			b.rejoin(id, t)
		} else {
			b.ready.add(id)
		}
		return
	}
	if b.caps.Hears {
		b.rt.completed(id, t, empty, ok) // before it joins the free servers, as joined
	}
	if !empty {
		b.ready.add(id)
	} else {
		b.free.add(id)
	}
}

// dispatchEach is step d in per-server mode: every idle server whose queue
// is non-empty takes its oldest request, in id order (with fan-out and
// shedding, again over the servers a shed part's cancellations freed
// behind it).
func (b *Balancer) dispatchEach(t int64) {
	shedding := b.m.shedding()
	for {
		for id := b.ready.first(); id != 0; id = b.ready.next(id + 1) {
			if shedding {
				if b.shed(id, t); b.sq[id-1].n == 0 {
					continue
				}
			}
			r := b.sq[id-1].take(b.m.cfg.Discipline, t, b.m.codelInterval())
			b.queued--
			b.ready.remove(id)
			b.serve(id, r, t)
		}
		if !shedding || b.m.fan == nil || b.ready.first() == 0 {
			return
		}
		// A shed part ended its request and cancelled a sibling in
		// service at a server step d had passed: free at once, it takes
		// work in this step d too (another pass, in id order).
	}
}

// drainLobby routes the lobby's requests, oldest first, while there are
// candidates; one the policy cannot place (every candidate weighs 0) stays,
// and so do the ones behind it.
func (b *Balancer) drainLobby(t int64) {
	for b.lobby.Len() > 0 && b.active.n > 0 {
		r := b.lobby.at(0)
		var id int
		if b.m.fan != nil {
			id = b.pickPart(r, t)
		} else {
			id = b.pickFor(r, t)
		}
		if id == 0 {
			return
		}
		b.lastGiven = id
		b.lobby.popFront(t)
		if b.watching && b.srv[id-1].down {
			b.queued--
			b.refuse(id, r, t)
			continue
		}
		if l := b.lim; l != nil && l.r > 0 {
			l.rejoin(r, t)
		}
		b.enqueue(id, r, t)
	}
}

// queuedWork returns the service cycles, at server id's speed, of the requests in
// its queue. Only least-work needs them, and reads them this way only when
// it comes into force; from then on its index keeps them.
func (b *Balancer) queuedWork(id int) int64 {
	q, speed := &b.sq[id-1], b.srv[id-1].speed
	var w int64
	for i := range q.n {
		w += int64(speed.Cycles(q.at(i).time()))
	}
	return w
}

// load returns the requests queued at server id plus the one in service.
func (b *Balancer) load(id int) int64 {
	n := int64(b.sq[id-1].n)
	if b.srv[id-1].busy {
		n++
	}
	return n
}

// workEach is step a for a per-server balancer at cycle t: every request
// whose completion cycle is t completes, and its server is freed. With
// early set, a server whose queue holds requests takes its oldest one now
// rather than in step d (runRouted's arrivals likewise go straight to an
// idle server, see serveNow): nothing in between reads that request, the
// server's load (its queue plus the request in service) is one less either
// way, and the cycle it will have done all it holds stays, so step d would
// dispatch the same. Its entry in the timing wheel may then come before
// those of the servers step d dispatches in the same cycle; nothing but the
// order of events (which runRouted does not record) reads that order. With
// a discipline or shedding in force (ruled), only where ruledTakesEarly
// says step d would hand out the same attempt (queuerules.go); the others
// wait for it.
func (b *Balancer) workEach(t int64, early bool) {
	ids := b.due(t)
	if b.sampling && len(ids) > 1 {
		slices.Sort(ids) // samples in id order, as the pool's are
	}
	for _, id32 := range ids {
		id := int(id32)
		s := &b.srv[id-1]
		if !s.busy || s.done != t {
			continue // stale entry
		}
		if b.sampling {
			b.sample(id, t, b.load(id))
		}
		ok := len(b.ends) == 0 || b.endsOf(id) == completes
		abandoned := false
		switch {
		case ok:
			b.resps.add(b.completed(s, t))
			if b.watching {
				b.succeeded(id, s.req)
			}
			if b.m.recordEvents {
				b.emit(Complete, id, 0, s.req.unpack())
			}
		case b.endsOf(id) == abandons:
			abandoned = true // counted once the router has heard (peak-ewma reads it)
		default:
			b.errored(id, t)
		}
		s.busy = false
		b.busy--
		b.cands.addLoad(id, -1)
		b.hold(id, s.req, -1)
		if sq := &b.sq[id-1]; early && sq.n > 0 {
			if !b.ruled || b.ruledTakesEarly(sq, t) {
				if !s.retiring && b.caps.Hears {
					b.rt.completed(id, t, false, ok) // one request fewer, as freed counts it
				}
				r := sq.take(b.m.cfg.Discipline, t, b.m.codelInterval())
				b.queued--
				if abandoned {
					b.abandonedEnds(id, t)
				}
				b.serve(id, r, t)
				continue
			}
		}
		b.freed(id, t, ok)
		if abandoned {
			b.abandonedEnds(id, t)
		}
	}
}
