package sim

// This file is fan-out and hedging beside the overload controls: a
// part's client may throttle it, a concurrency limit may refuse it, and
// a queue may shed it, each ending that attempt in error like any other
// (the part's and the request's rules then apply).

// What became of a part at its request's arrival (fanState.note): placed
// in a queue (or the lobby), or noted to end in error after the last part
// is placed: throttled by its client, refused by a down server the health
// checks have not found out, or refused by a concurrency limit.
const (
	partPlaced uint8 = iota
	partThrottled
	partDown
	partLimited
)

// shedAt marks, in fanReq.at, an attempt a queue has just shed and whose
// turn to end has not come yet (shedParts): cancelled before it, it is
// only counted.
const shedAt = -3

// partRefusal says what becomes of a part just picked to server slot id
// (0: the lobby), after the queue cap let it through: refused by a down
// server the health checks have not found out, then by the server's
// concurrency limit, else placed.
func (b *Balancer) partRefusal(id int) uint8 {
	switch {
	case id == 0:
		return partPlaced
	case b.watching && b.srv[id-1].down:
		return partDown
	case b.lim != nil && b.overLimit(id):
		return partLimited
	}
	return partPlaced
}

// discardParts discards request r at cycle t, a part having found its
// queue full: the parts placed (place and note, by part) leave their
// queues, nothing noted takes effect, and only discarded moves.
func (b *Balancer) discardParts(r packed, place []int, note []uint8, t int64) {
	f := b.m.fan
	for i, s := range place {
		if note[i] == partPlaced {
			b.takeOutQueued(f.key(r.id, i), s, t)
		}
	}
	f.place, f.note = place, note
	f.reqs.del(r.id)
	f.live[b.index]--
	b.tot.Discarded++
	b.last.Discarded++
}

// notedParts makes what was noted of request r's parts at its arrival
// at cycle t take effect, in part order, once the last part is placed:
// each ends in error, throttled, refused by a down server, or limited
// (an error may end the request and cancel its parts still live; a part
// noted after that is an error too, its request already ended).
func (b *Balancer) notedParts(r packed, place []int, note []uint8, t int64) {
	f := b.m.fan
	for j, n := range note {
		p := f.partOf(r, j)
		switch n {
		case partThrottled:
			b.throttled(p, t)
		case partDown:
			b.refuse(place[j], p, t)
		case partLimited:
			b.refuseLimited(place[j], p, t)
		}
	}
}

// hedgeLimited reports whether server slot id's concurrency limit
// refuses hedge p of request req, just sent at cycle t (attempt slot
// slot): after its Hedge event it then ends in error at once, limited,
// and ends alone while another attempt of its part is live.
func (b *Balancer) hedgeLimited(id int, p packed, req *fanReq, slot int, t int64) bool {
	if b.lim == nil || !b.overLimit(id) {
		return false
	}
	if b.m.recordEvents {
		b.emit(Hedge, id, 0, p.unpack())
	}
	req.at[slot] = 0 // never live: refused
	b.refuseLimited(id, p, t)
	return true
}

// hedgeJoins notes, for an adaptive limit with a latency bound, that
// hedge p joins its queue at cycle t (its latency counts from there, not
// from its request's arrival).
func (b *Balancer) hedgeJoins(p packed, t int64) {
	if l := b.lim; l != nil && l.r > 0 {
		l.rejoin(p, t)
	}
}

// shedParts is shed's ending of the attempts out, just shed from server
// slot id's queue at cycle t, under fan-out or hedging: each in queue
// order leaves the queue and ends in error, unless an earlier one's ending
// has cancelled it (its request ended, or its part completed): it is
// still queued then, and leaves as a cancelled attempt does. The server,
// idle, is told it holds nothing when its queue is left with nothing: at
// the cancellation that empties it (before the rest of that request's
// cancellations), or else once the last one has ended.
func (b *Balancer) shedParts(id int, out []packed, t int64) {
	f := b.m.fan
	q := &b.sq[id-1]
	for j, r := range out {
		b.unheld(id, r, q.n+len(out)-1-j, t)
		if req, i := f.of(r.id); req != nil {
			req.at[i] = shedAt
		}
	}
	b.shedOut, b.shedFrom, b.shedLeft = out, id, len(out)
	for _, r := range out {
		if req, i := f.of(r.id); req == nil || req.at[i] != shedAt {
			continue // cancelled by an earlier one's ending
		}
		b.shedLeft--
		b.shedOne(id, r, t)
	}
	b.shedOut = nil
	if b.shedFrom == id && q.n == 0 {
		b.ready.remove(id)
		b.emptied(id, t) // the server stays idle: free, or it leaves or rejoins
	}
	b.shedFrom = 0
}

// shedEmptied tells server slot id, idle, that its queue holds nothing
// any more at cycle t after a cancellation, unless it is shedding and an
// attempt it shed is still to end (shedParts tells it then).
func (b *Balancer) shedEmptied(id int, t int64) {
	if id == b.shedFrom {
		if b.shedLeft > 0 {
			return
		}
		b.shedFrom = -1 // told: shedParts does not tell it again
	}
	b.ready.remove(id)
	b.emptied(id, t)
}

// cancelShed cancels attempt key, shed at this step d from server slot
// b.shedFrom's queue and not yet ended (shedParts), at cycle t: it leaves
// the queue as a queued attempt does, so the last one to leave it tells
// the server it holds nothing.
func (b *Balancer) cancelShed(key int64, t int64) {
	for _, r := range b.shedOut {
		if r.id == key {
			if req, i := b.m.fan.of(key); req != nil {
				req.at[i] = 0
			}
			b.cancelled(r, 0)
			b.shedLeft--
			if id := b.shedFrom; id > 0 && b.sq[id-1].n == 0 {
				b.shedEmptied(id, t)
			}
			return
		}
	}
}
