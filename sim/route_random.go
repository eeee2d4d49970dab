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

// pickAmong picks uniformly among the candidates but those in skip, in
// the dense array's order (fan-out).
func (r *random) pickAmong(_ packed, _ int64, skip []int) int {
	ids := r.b.candidatesBut(skip)
	if len(ids) == 0 {
		return 0
	}
	return int(ids[r.b.m.routeDraw(len(ids))])
}

// pickAmongGaps is pickAmong given the positions of the candidates left
// out (ascending, distinct) and n, the candidates left: the same draw,
// without the list (fanadmit.go).
func (r *random) pickAmongGaps(_ packed, _ int64, _ []int, n int, gaps []int32) int {
	if n == 0 {
		return 0
	}
	return int(r.b.cands.ids[nthBut(r.b.m.routeDraw(n), gaps)])
}
