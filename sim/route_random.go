package sim

// random picks uniformly with the routing generator: pooled among the
// idle servers, per-server among the candidates (the balancer's dense
// array of them, in the order they became candidates).
type random struct {
	quietRouter
	b *Balancer
}

func newRandom(b *Balancer) router { return &random{b: b} }

func (r *random) caps() Caps { return Caps{Draws: true} }

func (r *random) pickIdle() int {
	b := r.b
	return b.idle.nth(b.m.routeDraw(b.idle.n))
}

func (r *random) pick(packed, int64) int {
	ids := r.b.cands.ids
	return int(ids[r.b.m.routeDraw(len(ids))])
}
