package sim

// firstIdle gives the central queue's oldest request to the idle active
// server with the lowest id. It reads nothing and keeps nothing; the
// per-server mode refuses it (its table entry says so), so pick is never
// asked.
type firstIdle struct {
	quietRouter
	b *Balancer
}

func newFirstIdle(b *Balancer) router { return &firstIdle{b: b} }

func (r *firstIdle) caps() Caps             { return Caps{Order: OrderLowestID} }
func (r *firstIdle) pickIdle() int          { return r.b.idle.first() }
func (r *firstIdle) pick(packed, int64) int { return 0 }
