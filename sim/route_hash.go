package sim

import "slices"

// hashRouter routes by consistent hashing of the source address: a ring of
// RingPoints points per server (RingPoint), a request's key (HashKey) goes
// to the candidate owning the first point at or after it, wrapping. So a
// source always lands on the same server while that server is a
// candidate, and only its keys move when the pool changes. The pooled
// queue refuses it (its table entry says so).
type hashRouter struct {
	quietRouter
	b    *Balancer
	ring ring
	// few is the ring of the candidates' points alone, in the same order,
	// for when they are few among the live servers (lookupRing): a lookup
	// on the whole ring would pass over the points of many servers that
	// are not candidates. fewOK: it is up to date.
	few   ring
	fewOK bool
	// sit is the active set but fan-out's siblings sitting out while a
	// request's parts are placed (sitting: it is in use; fanadmit.go).
	sit     rankedSet
	sitting bool
	// known is the highest slot whose points the ring holds (or will
	// hold when it is built at the next lookup).
	known int
	// Scratch space for owners: a cycle's keys and their owners, and what
	// the lookups read, kept so that they read it.
	keys    []uint64
	ids     []int32
	touched uint64
}

func newHash(b *Balancer) router { return &hashRouter{b: b} }

func (r *hashRouter) caps() Caps    { return Caps{} }
func (r *hashRouter) pickIdle() int { return 0 }

// activate has the ring built afresh at the next lookup: servers came and
// went while another policy was in force.
func (r *hashRouter) activate(int64) {
	r.ring.stale = true
	r.known = len(r.b.srv)
	r.fewOK = false
}

// added puts the points of a server just created on the ring, warming or
// not: a lookup passes over those of servers that are not candidates, so a
// warming server that becomes one after a later server still has them.
func (r *hashRouter) added(id int, t int64) { r.candidate(id, t) }

// candidate adds a server just created to the ring; one back from a fault
// has its points there still.
func (r *hashRouter) candidate(id int, _ int64) {
	r.fewOK = false
	if id > r.known {
		r.known = id
		r.ring.insert(r.b, id)
	}
}

func (r *hashRouter) uncandidate(int) { r.fewOK = false }

// renumber moves both rings to the new slots, dropping the points of the
// slots given up (servers that left), and known with them: the highest
// slot kept at or below it.
func (r *hashRouter) renumber(rn *renumbering) {
	r.ring.renumber(rn)
	r.few.renumber(rn)
	s := r.known
	for s > 0 && rn.of(s) == 0 {
		s--
	}
	r.known = rn.of(s)
	r.keys, r.ids = nil, nil
}

func (r *hashRouter) pick(q packed, _ int64) int {
	g, key := r.lookupRing(), HashKey(uint32(q.addr>>32))
	id, i := g.first(key, &r.b.active)
	return g.ownerFrom(id, i, key, &r.b.active)
}

// lookupRing returns the ring a lookup reads: the whole ring, or while
// fewer than a quarter of the live servers are candidates (many down), the
// ring of the candidates' points alone. Both give the same owner: the
// candidates' points keep their order, and a lookup on the whole ring
// passes over every other point.
func (r *hashRouter) lookupRing() *ring {
	if r.ring.stale {
		r.ring.rebuild(r.b)
		r.fewOK = false
	}
	if 4*r.b.active.n >= r.b.live {
		return &r.ring
	}
	if !r.fewOK {
		if len(r.ring.over) != 0 {
			r.ring.merge() // the few ring takes the points in ring order
		}
		active := &r.b.active
		r.few.points = r.few.points[:0]
		for _, p := range r.ring.points {
			if active.has(int(p.id)) {
				r.few.points = append(r.few.points, p)
			}
		}
		r.few.index()
		r.fewOK = true
	}
	return &r.few
}

// touchRingPoints is the ring's size (1,024 servers' points, 1 MB) from
// which a window looks a cycle's arrivals up together (owners): a smaller
// ring stays in the cache, and touching it first only costs.
const touchRingPoints = 1024 * RingPoints

func (r *hashRouter) batching() bool { return len(r.ring.points) >= touchRingPoints }

// owners returns the owner of each of batch's sources, as pick would find
// it. A ring of a large pool does not stay in the cache, so it reads the
// ring in three passes over the batch, where loads that do not wait on one
// another overlap their misses: first each key and its bucket's start,
// then each bucket's first points, then the lookups.
func (r *hashRouter) owners(batch []packed) []int32 {
	g := r.lookupRing()
	keys, ids := r.keys[:0], r.ids[:0]
	shift, sum := 64-g.bits, uint64(0)
	for _, q := range batch {
		key := HashKey(uint32(q.addr >> 32))
		keys = append(keys, key)
		sum += uint64(g.start[key>>shift])
	}
	last := len(g.points) - 1
	for _, key := range keys {
		i := int(g.start[key>>shift])
		sum += g.points[min(i, last)].at + g.points[min(i+4, last)].at
	}
	active := &r.b.active
	for _, key := range keys {
		id, i := g.first(key, active)
		ids = append(ids, int32(g.ownerFrom(id, i, key, active)))
	}
	r.keys, r.ids, r.touched = keys, ids, r.touched+sum
	return ids
}

// pickAmong walks the ring from the request's key on to the first point
// of a candidate but those in skip (fan-out): the owner pick would find
// with the skipped servers off the ring.
func (r *hashRouter) pickAmong(q packed, _ int64, skip []int) int {
	g, key := r.lookupRing(), HashKey(uint32(q.addr>>32))
	members := rankedSet{idset: idset{w: slices.Clone(r.b.active.w), n: r.b.active.n, low: r.b.active.low}}
	for _, id := range skip {
		members.idset.remove(id)
	}
	if members.n == 0 {
		return 0
	}
	id, i := g.first(key, &members)
	return g.ownerFrom(id, i, key, &members)
}

// sitOut, sitIn and pickSitting are pickAmong for fan-out's parts placed
// one after another (fanadmit.go): the active set copied once a request,
// each sibling taken out of it once.
func (r *hashRouter) sitOut(id int) {
	if !r.sitting {
		a := &r.b.active
		r.sit = rankedSet{idset: idset{w: append(r.sit.w[:0], a.w...), n: a.n, low: a.low}}
		r.sitting = true
	}
	r.sit.idset.remove(id)
}

func (r *hashRouter) sitIn([]int) { r.sitting = false }

func (r *hashRouter) pickSitting(q packed, _ int64) int {
	if !r.sitting || r.sit.n == 0 {
		return 0
	}
	g, key := r.lookupRing(), HashKey(uint32(q.addr>>32))
	id, i := g.first(key, &r.sit)
	return g.ownerFrom(id, i, key, &r.sit)
}
