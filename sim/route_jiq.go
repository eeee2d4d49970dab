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
