package sim

// jiq is join-idle-queue (Lu et al., 2011): an idle server with an empty
// queue registers with one balancer of the fleet (fleet.register, at the
// end of each cycle while jiq is in force), and a balancer routes to the
// head of its queue of registered servers, or, with none, uniformly among
// the candidates on the routing generator, as random does. It reads no
// load at all. Its queues live in the balancer's fleet state, which a jiq
// run always has (K = 1 too), so that a server leaving the candidates
// leaves its queue whichever policy is in force.
type jiq struct {
	quietRouter
	b *Balancer
}

func newJIQ(b *Balancer) router { return &jiq{b: b} }

func (r *jiq) caps() Caps    { return Caps{Draws: true} }
func (r *jiq) pickIdle() int { return 0 } // per-server only

func (r *jiq) pick(q packed, _ int64) int { return r.b.fleet.idleHead(q.member()) }

// pickAmong is join-idle-queue among the candidates but those in skip
// (fan-out): the first registered candidate of attempt q's balancer's
// I-queue that is not skipped (the skipped ones keep their places), or
// with none a uniform draw among the members.
func (r *jiq) pickAmong(q packed, _ int64, skip []int) int {
	b := r.b
	if s := b.fleet.idleHeadBut(q.member(), skip); s != 0 {
		return s
	}
	ids := b.candidatesBut(skip)
	if len(ids) == 0 {
		return 0
	}
	return int(ids[b.m.routeDraw(len(ids))])
}
