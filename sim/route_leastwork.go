package sim

import "slices"

// leastWork routes, per-server, to the candidate with the least remaining
// work: the cycles of the request in service still to run plus the service
// cycles, at the server's speed, of every request queued there, the lowest
// id on a tie. It keeps, for each busy candidate, the cycle it will have
// done all it holds, in a tournament tree (ltree, by key): only routing
// moves that cycle, until the server reaches it and is free. Free servers
// (idle, empty queue) wait outside the tree; the lowest of them is the
// pick. Pooled it takes the fastest idle server, then the lowest id: with
// unequal speeds it keeps the idle servers by speed in a second tree.
type leastWork struct {
	quietRouter
	b       *Balancer
	ix      *ltree // per-server: the busy candidates by the cycle they are done
	fastest *ltree // pooled with unequal speeds: the idle servers, fastest first
	// vx is, in a fleet whose balancers read other than the true work,
	// each balancer's index of the least work by its view.
	vx *viewIndex
}

func newLeastWork(b *Balancer) router { return &leastWork{b: b} }

func (r *leastWork) caps() Caps {
	order := OrderLowestID
	if r.fastest != nil {
		order = OrderOther
	}
	return Caps{Reads: ReadsWork, Order: order, TracksIdle: r.fastest != nil, Hears: true}
}

func (r *leastWork) activate(t int64) {
	b := r.b
	r.ix, r.fastest = nil, nil
	switch {
	case b.perServer:
		r.vx = viewIndexFor(b, r.vx, true)
		ix := &ltree{}
		ix.ensure(len(b.srv))
		for id := 1; id <= len(b.srv); id++ {
			s := &b.srv[id-1]
			at := t
			if s.busy {
				at = s.done
			}
			ix.key[id-1] = at + b.queuedWork(id)
			ix.set(id, b.active.has(id) && !b.free.has(id))
		}
		r.ix = ix
	case len(b.m.cfg.Speeds) > 0:
		ix := &ltree{}
		ix.ensure(len(b.srv))
		for id := 1; id <= len(b.srv); id++ {
			ix.key[id-1] = -int64(b.srv[id-1].speed)
			ix.set(id, b.idle.has(id))
		}
		r.fastest = ix
	}
}

func (r *leastWork) candidate(id int, t int64) {
	if r.vx != nil {
		r.vx.candidate(id)
	}
	switch {
	case r.ix != nil:
		r.ix.ensure(id)
		r.ix.key[id-1] = t
		r.ix.set(id, false) // free servers wait outside the tree
	case r.fastest != nil:
		r.fastest.ensure(id)
		r.fastest.key[id-1] = -int64(r.b.srv[id-1].speed) // the fastest first
	}
}

func (r *leastWork) uncandidate(id int) {
	if r.vx != nil {
		r.vx.uncandidate(id)
	}
	if r.ix != nil {
		r.ix.set(id, false)
	}
}

func (r *leastWork) idle(id int, in bool) { r.fastest.set(id, in) }

// renumber moves the busy candidates' cycles, or the idle servers'
// speeds, to their new slots.
func (r *leastWork) renumber(rn *renumbering) {
	for _, ix := range [...]*ltree{r.ix, r.fastest} {
		if ix != nil {
			ix.renumber(rn)
		}
	}
}

// joined moves the server's cycle on by r's service at its speed: from t
// when the server is free (it holds nothing); the balancer calls it before
// it takes the server out of the free ones.
func (r *leastWork) joined(id int, q packed, t int64) {
	r.addWork(id, int64(r.b.srv[id-1].speed.Cycles(q.time())), t)
	r.ix.set(id, true)
}

// completed: a server left with nothing is free, outside the tree.
func (r *leastWork) completed(id int, t int64, empty, _ bool) {
	if empty {
		r.ix.key[id-1] = t
		r.ix.set(id, false)
	}
}

// left takes request q's work off server id's cycle: it left the queue
// unserved at cycle t; a server left with nothing is free.
func (r *leastWork) left(id int, q packed, t int64, empty bool) {
	if empty {
		r.completed(id, t, true, false)
		return
	}
	r.ix.key[id-1] -= int64(r.b.srv[id-1].speed.Cycles(q.time()))
	r.ix.set(id, true)
}

// holding keys server id, back as a candidate at cycle t, by the cycle it
// will have done all it holds.
func (r *leastWork) holding(id int, t int64) {
	if r.ix == nil {
		return
	}
	s := &r.b.srv[id-1]
	at := t
	if s.busy {
		at = s.done
	}
	r.ix.key[id-1] = at + r.b.queuedWork(id)
	r.ix.set(id, true)
}

// addWork moves server id's cycle on by work cycles routed to it at cycle
// t: from t when the server is free (it holds nothing).
func (r *leastWork) addWork(id int, work, t int64) {
	k := &r.ix.key[id-1]
	if r.b.free.has(id) {
		*k = t
	}
	*k += work
}

func (r *leastWork) pickIdle() int {
	if r.fastest != nil {
		return r.fastest.best() // the fastest, then the lowest id
	}
	return r.b.idle.first()
}

func (r *leastWork) pick(_ packed, t int64) int {
	if id := r.b.free.first(); id != 0 {
		// No work at all: the lowest id, unless, before step a, a busy
		// server of a lower id is done this very cycle (work 0 as well).
		if r.b.rerouting {
			if w := r.ix.best(); w != 0 && w < id && r.ix.key[w-1] <= t {
				return w
			}
		}
		return id
	}
	return r.ix.best()
}

// windowReady: pass 1 reads the tree's root at every arrival, to free the
// servers that have done all they hold; with servers free, the cycle loop
// picks the lowest free one and reads the tree seldom, and does better.
func (r *leastWork) windowReady() bool { return r.b.free.n == 0 }

// placeWork places request q, admitted at cycle c, in pass 1 of a window:
// on the lowest free server, or else on the one that will have done all it
// holds first (the tree's root), whose cycle moves on by the request's
// service at its speed. In the common case (a tree by key below 2^32 with
// no walk waiting: freeDone, run before each cycle's arrivals, leaves
// none, and the climb below none) it writes the root's leaf and climbs from
// it; any other case goes through pick and the window's place. No server
// it picks was free at the window's start: a window starts with none free
// and none ready (windowReady), so every candidate was busy, and pass 1
// frees only busy ones.
func (r *leastWork) placeWork(q packed, c int64) {
	b, ix := r.b, r.ix
	node := ix.node
	id, k := b.free.first(), c // a free server holds nothing: its work starts at c
	if id == 0 && len(node) >= 2 && node[1] != noNode {
		id = int(node[1] & (1<<32 - 1))
		k = ix.key[id-1]
	}
	i := len(node)/2 + id - 1
	if id == 0 || ix.mixed || len(ix.dirty) > 0 || i >= len(node) {
		b.place(q, r.pick(q, c), c)
		return
	}
	if k += int64(b.srv[id-1].speed.Cycles(q.time())); k >= 1<<32-1 {
		b.place(q, r.pick(q, c), c) // the tree turns mixed
		return
	}
	ix.key[id-1] = k
	node[i] = uint64(k)<<32 | uint64(id)
	climb(node, i)
	b.lastGiven = id
	b.tally.add(0, id) // a window routes for one balancer
	b.free.remove(id)
	b.tot.Admitted++
	b.queued++
	b.sq[id-1].pushBack(q, c)
}

// freeDone frees every server that will have done all it holds by cycle c:
// its last request completes by then, so at c it is free, as Step would
// have freed it at that completion. Its key is that cycle, as completed
// sets it. Pass 1 calls it before routing the arrivals of cycle c, and the
// window after pass 2 for its last cycle.
func (r *leastWork) freeDone(c int64) {
	ix := r.ix
	if node := ix.node; !ix.mixed && len(ix.dirty) == 0 && len(node) >= 2 && int64(node[1]>>32) > c {
		return // the usual case: the root's cycle (all ones for none) is after c
	}
	for id := ix.best(); id != 0 && ix.key[id-1] <= c; id = ix.best() {
		ix.set(id, false)
		r.b.free.add(id)
	}
}

// reschedule moves server id's cycle on by d: the attempt it has just
// started on a gray server ends d cycles after the estimate it was routed
// with (slower, sooner in error, or never, for a hanging one).
func (r *leastWork) reschedule(id int, d int64) {
	if r.ix == nil || d == 0 {
		return
	}
	r.ix.key[id-1] += d
	r.ix.set(id, r.b.active.has(id)) // a retiring server takes no part
}

// fleetPick is the pick of attempt q's balancer of a fleet at cycle t: by
// its view's index when it reads other than the true work.
func (r *leastWork) fleetPick(_ *fleet, q packed, t int64) int {
	if r.vx == nil {
		return r.pick(q, t)
	}
	return r.vx.least(q.member(), t)
}

func (r *leastWork) ownPicks(*fleet) bool { return r.vx != nil }

// pickAmong takes the candidate but those in skip with the least
// remaining work (a free server none; a busy one until the cycle it will
// have done all it holds), the lowest id on a tie (fan-out).
func (r *leastWork) pickAmong(q packed, t int64, skip []int) int {
	b := r.b
	best, bw := 0, int64(0)
	f := b.fleet
	for id := b.active.first(); id != 0; id = b.active.next(id + 1) {
		if slices.Contains(skip, id) {
			continue
		}
		w := int64(0)
		switch {
		case f != nil && f.viewed():
			w = f.v.work(q.member(), id, t) // what the attempt's balancer knows
		case !b.free.has(id):
			w = max(r.ix.key[id-1]-t, 0)
		}
		if best == 0 || w < bw {
			best, bw = id, w
		}
	}
	return best
}
