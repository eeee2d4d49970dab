package sim

// roundRobin takes the server that comes next by id after the last one
// given a request, wrapping, even if that server has since left; the
// first request goes to the lowest id. Pooled it goes round the idle
// servers, per-server round the candidates. Its pointer is its only state
// and carries over a switch of policy away and back.
type roundRobin struct {
	quietRouter
	b      *Balancer
	lastID int // the last server given a request; 0 before the first
}

func newRoundRobin(b *Balancer) router { return &roundRobin{b: b} }

func (r *roundRobin) caps() Caps             { return Caps{Order: OrderRotating} }
func (r *roundRobin) pickIdle() int          { return r.next(&r.b.idle) }
func (r *roundRobin) pick(packed, int64) int { return r.next(&r.b.active.idset) }
func (r *roundRobin) digest() int64          { return int64(r.lastID) }
func (r *roundRobin) last() int              { return r.lastID }
func (r *roundRobin) setLast(id int)         { r.lastID = id }

// next picks the member of set that comes next by id after the last one
// picked, wrapping, and remembers it.
func (r *roundRobin) next(set *idset) int {
	id := set.next(r.lastID + 1)
	if id == 0 {
		id = set.first()
	}
	r.lastID = id
	return id
}
