package sim

import "slices"

// roundRobin takes the server that comes next by id after the last one
// given a request (Balancer.lastGiven, whatever policy gave it), wrapping,
// even if that server has since left; the first request goes to the lowest
// id. Pooled it goes round the idle servers, per-server round the
// candidates. It keeps no state of its own.
type roundRobin struct {
	quietRouter
	b *Balancer
}

func newRoundRobin(b *Balancer) router { return &roundRobin{b: b} }

func (r *roundRobin) caps() Caps             { return Caps{Order: OrderRotating} }
func (r *roundRobin) pickIdle() int          { return r.next(&r.b.idle) }
func (r *roundRobin) pick(packed, int64) int { return r.next(&r.b.active.idset) }

// fleetPick: each balancer of a fleet goes on from the server it last
// routed to.
func (r *roundRobin) fleetPick(f *fleet, q packed, _ int64) int {
	return f.nextAfter(f.last[q.member()])
}

func (r *roundRobin) ownPicks(*fleet) bool { return true }

// digest returns the id of the last server given a request, 0 for none.
func (r *roundRobin) digest() int64 {
	if g := r.b.lastGiven; g > 0 {
		return int64(r.b.idOf(g))
	}
	return 0
}

// next picks the member of set that comes next by id after the last one
// given a request, wrapping.
func (r *roundRobin) next(set *idset) int {
	id := set.next(r.b.lastGiven + 1)
	if id == 0 {
		id = set.first()
	}
	return id
}

// pickAmong takes the candidate but those in skip that comes next by id
// after the last one given a request (in a fleet, by attempt q's
// balancer), wrapping (fan-out).
func (r *roundRobin) pickAmong(q packed, _ int64, skip []int) int {
	b := r.b
	set := &b.active.idset
	start := b.lastGiven + 1
	if f := b.fleet; f != nil && f.picker != nil {
		from, _ := slices.BinarySearch(b.ids, int32(f.last[q.member()])+1) // the first slot of a later id
		start = from + 1
	}
	for id := set.next(start); id != 0; id = set.next(id + 1) {
		if !slices.Contains(skip, id) {
			return id
		}
	}
	for id := set.first(); id != 0 && id < start; id = set.next(id + 1) {
		if !slices.Contains(skip, id) {
			return id
		}
	}
	return 0
}
