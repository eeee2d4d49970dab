package sim

import "slices"

// leastConnections routes, per-server, to the candidate with the least load
// (requests queued + the one in service) per weight, compared as
// load(a)·w(b) < load(b)·w(a), the lowest id on a tie; a server of weight
// 0 is never chosen. It keeps the loads in a tournament tree (ltree, load
// mode). Pooled, every idle server has load 0: it takes the lowest idle id,
// as first-idle.
type leastConnections struct {
	quietRouter
	b  *Balancer
	ix *ltree // per-server: the candidates of positive weight by load
	// zeroWeight: some server weighs 0, so a free server (load 0) is not
	// necessarily a pick.
	zeroWeight bool
	// vx is, in a fleet whose balancers read other than the true loads,
	// each balancer's index of the least load per weight by its view.
	vx *viewIndex
}

func newLeastConnections(b *Balancer) router { return &leastConnections{b: b} }

func (r *leastConnections) caps() Caps {
	return Caps{Reads: ReadsLoads, Order: OrderLowestID, MayRefuse: r.zeroWeight, Hears: true}
}

func (r *leastConnections) activate(int64) {
	b := r.b
	if !b.perServer {
		return
	}
	r.zeroWeight = slices.Contains(b.m.cfg.Weights, 0)
	r.vx = viewIndexFor(b, r.vx, false)
	ix := newLoadTree()
	ix.ensure(len(b.srv))
	for id := 1; id <= len(b.srv); id++ {
		ix.key[id-1], ix.weight[id-1] = b.load(id), int64(b.weightOf(id))
		ix.set(id, b.active.has(id) && ix.weight[id-1] > 0)
	}
	r.ix = ix
}

func (r *leastConnections) candidate(id int, _ int64) {
	if r.vx != nil {
		r.vx.candidate(id)
	}
	if ix := r.ix; ix != nil {
		ix.ensure(id)
		ix.key[id-1], ix.weight[id-1] = 0, int64(r.b.weightOf(id)) // it holds nothing
		ix.set(id, ix.weight[id-1] > 0)
	}
}

func (r *leastConnections) uncandidate(id int) {
	if r.vx != nil {
		r.vx.uncandidate(id)
	}
	if r.ix != nil {
		r.ix.set(id, false)
	}
}

func (r *leastConnections) joined(id int, _ packed, _ int64)       { r.ix.bump(id, 1) }
func (r *leastConnections) completed(id int, _ int64, _, _ bool)   { r.ix.bump(id, -1) }
func (r *leastConnections) left(id int, _ packed, _ int64, _ bool) { r.ix.bump(id, -1) }

// holding keys server id, back as a candidate, by what it holds.
func (r *leastConnections) holding(id int, _ int64) {
	if r.ix != nil {
		r.ix.key[id-1] = r.b.load(id)
		r.ix.set(id, r.ix.weight[id-1] > 0)
	}
}

// renumber moves the loads to their new slots.
func (r *leastConnections) renumber(rn *renumbering) {
	if r.ix != nil {
		r.ix.renumber(rn)
	}
}

// placeable reports whether some candidate weighs more than 0.
func (r *leastConnections) placeable() bool { return !r.b.perServer || r.ix.best() != 0 }

func (r *leastConnections) pickIdle() int { return r.b.idle.first() }

func (r *leastConnections) pick(packed, int64) int {
	if id := r.b.free.first(); id != 0 && !r.zeroWeight {
		return id // load 0, the least there is: the lowest id of those
	}
	return r.ix.best()
}

// fleetPick is the pick of attempt q's balancer of a fleet: by its view's
// index when it reads other than the true loads.
func (r *leastConnections) fleetPick(_ *fleet, q packed, t int64) int {
	if r.vx == nil {
		return r.pick(q, t)
	}
	return r.vx.least(q.member(), t)
}

func (r *leastConnections) ownPicks(*fleet) bool { return r.vx != nil }

// pickAmong takes the candidate of positive weight but those in skip
// with the least load per weight, the lowest id on a tie (fan-out).
func (r *leastConnections) pickAmong(q packed, _ int64, skip []int) int {
	b := r.b
	best, bl, bw := 0, int64(0), int64(0)
	for id := b.active.first(); id != 0; id = b.active.next(id + 1) {
		w := int64(b.weightOf(id))
		if w == 0 || slices.Contains(skip, id) {
			continue
		}
		if l := b.seenLoad(q.member(), id); best == 0 || l*bw < bl*w {
			best, bl, bw = id, l, w
		}
	}
	return best
}
