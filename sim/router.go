package sim

// A router is one policy's routing in one balancer: it picks the server a
// request goes to and keeps whatever state its picks read, told of every
// change to that state through its hooks. Each policy has its router in a
// file of its own (route_*.go), made by the policy table's newRouter; the
// balancer calls the router in force and never asks which policy it is.
// What the RunTo shortcuts may assume of a router, they read from its
// capabilities (Caps), never from its name.
//
// The hooks, in the balancer's words:
//   - candidate(id, t): server id became a candidate at cycle t (created,
//     or back from a fault); uncandidate(id): it stopped being one (it
//     retires, leaves or goes down).
//   - joined(id, r, t): request r joined server id's queue at cycle t, or
//     went straight into service there (per-server; only for a router
//     that hears them, Caps.Hears).
//   - completed(id, t, empty, ok): server id, a candidate, finished an
//     attempt at cycle t, completed (ok) or in error; empty when it then
//     holds nothing (per-server; only for a router that hears them).
//   - left(id, r, t, empty): request r left server id's queue at cycle t
//     without being served (its client timed out); empty when the server
//     then holds nothing (per-server; only for a router that hears them).
//   - added(id, t): server id was created at cycle t, before it is a
//     candidate (at once, or when its warm-up ends).
//   - holding(id, t): server id, just made a candidate at cycle t (after
//     candidate, which takes it to hold nothing), holds work: back from an
//     ejection while still finishing its queue (per-server).
//   - abandon(id, r): the client of attempt r, in service at server id,
//     gave up on it; the server finishes the work, nobody waiting for it
//     (per-server; only for a router that hears them).
//   - idle(id, in): server id became idle (in) or busy (pooled; only for a
//     router whose Caps say it tracks the idle servers).
//
// A hook's id is the server's slot (slots.go): what reads the id's value,
// a weight or a hash position, asks Balancer.idOf.
type router interface {
	// caps returns what the router's picks read and promise, for the
	// configuration in force.
	caps() Caps
	// activate brings the router's state up to date with the balancer's
	// at cycle t, as the router comes into force (when the balancer is
	// built, or when the policy switches to it). A router keeps its state
	// while another is in force: swrr's scores
	// carry over a switch away and back.
	activate(t int64)
	// pickIdle chooses, for the central queue's oldest request, an idle
	// active server (there is one), or returns 0 when it can pick none.
	pickIdle() int
	// pick chooses the candidate whose queue request r, routed at cycle t,
	// joins (there is a candidate), or returns 0 when it can place r
	// nowhere.
	pick(r packed, t int64) int

	candidate(id int, t int64)
	uncandidate(id int)
	joined(id int, r packed, t int64)
	completed(id int, t int64, empty, ok bool)
	left(id int, r packed, t int64, empty bool)
	holding(id int, t int64)
	added(id int, t int64)
	abandon(id int, r packed)
	idle(id int, in bool)
	// renumber moves the router's state to the slots of rn (compact):
	// what it keeps by slot goes to the new slot, a given-up slot's goes,
	// and its arrays shrink to rn.n. Every router in b.routers hears it,
	// in force or not, and every later pick and hook reads as it would
	// have without the renumbering.
	renumber(rn *renumbering)

	// digest returns a word of the router's state for Model.Hash:
	// round-robin's pointer, 0 for the others.
	digest() int64
}

// Caps are what a router's picks read and promise; the RunTo shortcuts
// ask them, never the policy's name.
type Caps struct {
	// Reads says what the per-server picks read of the servers beyond
	// who the candidates are.
	Reads Reads
	// Draws: the picks draw from the routing generator.
	Draws bool
	// Order says in which order the pooled picks take idle servers.
	Order IdleOrder
	// MayRefuse: a pick can find no server (every one it may choose
	// weighs 0); Placeable then says whether one can be found now.
	MayRefuse bool
	// TracksIdle: the router keeps the idle servers itself (pooled), so
	// the balancer calls its idle hook.
	TracksIdle bool
	// Hears: the router's joined and completed hooks keep state its
	// picks read, so the balancer calls them (per-server).
	Hears bool
}

// IdleOrder is the order in which a pooled router takes the idle servers.
type IdleOrder uint8

// The orders the turnover shortcut can follow without asking the router.
const (
	// OrderOther: any other order (scores, draws, speeds).
	OrderOther IdleOrder = iota
	// OrderLowestID: the idle server with the lowest id.
	OrderLowestID
	// OrderRotating: the idle server next by id after the last one
	// given a request (Balancer.lastGiven), wrapping.
	OrderRotating
)

// placer is a router that can say whether a pick would find a server now
// (Caps.MayRefuse).
type placer interface {
	placeable() bool
}

// quietRouter gives the hooks that do nothing and a digest of 0: a router
// embeds it and writes only the hooks its picks need.
type quietRouter struct{}

func (quietRouter) activate(int64)                   {}
func (quietRouter) candidate(int, int64)             {}
func (quietRouter) uncandidate(int)                  {}
func (quietRouter) joined(int, packed, int64)        {}
func (quietRouter) completed(int, int64, bool, bool) {}
func (quietRouter) left(int, packed, int64, bool)    {}
func (quietRouter) holding(int, int64)               {}
func (quietRouter) added(int, int64)                 {}
func (quietRouter) abandon(int, packed)              {}
func (quietRouter) idle(int, bool)                   {}
func (quietRouter) renumber(*renumbering)            {}
func (quietRouter) digest() int64                    { return 0 }

// workPlacer is a router whose per-server picks read work (Caps.Reads is
// ReadsWork): the window shortcut places each arrival through it and has
// it free the servers that have done all they hold.
type workPlacer interface {
	// windowReady reports whether a window may start now.
	windowReady() bool
	// placeWork places request r, admitted at cycle c, in pass 1.
	placeWork(r packed, c int64)
	// freeDone frees every server that will have done all it holds by
	// cycle c.
	freeDone(c int64)
	// reschedule moves server id's done cycle on by d: a gray server's
	// attempt ends d cycles after the estimate it was routed with.
	reschedule(id int, d int64)
}

// batcher is a router that looks a cycle's arrivals up together when
// batching says it pays (the window shortcut asks it).
type batcher interface {
	batching() bool
	// owners returns the server each request of batch goes to, as pick
	// would return it.
	owners(batch []packed) []int32
}

// router returns the balancer's router for policy p, made the first time
// it is asked for and kept.
func (b *Balancer) routerFor(p Policy) router {
	if b.routers[p] == nil {
		if f := b.fleet; f != nil && f.k > 1 && policies[p].PerBalancer {
			b.routers[p] = newFleetRouter(b, p, f.k)
		} else {
			b.routers[p] = policies[p].newRouter(b)
		}
	}
	return b.routers[p]
}

// useRouter puts the router of the policy in force into force at cycle t
// (with the fleet state it needs). The dense array of candidates keeps no
// loads unless the router asks.
func (b *Balancer) useRouter(t int64) {
	b.ensureFleet()
	b.cands.loads, b.cands.load = false, b.cands.load[:0]
	b.rt = b.routerFor(b.m.cfg.Policy)
	if f := b.fleet; f != nil {
		f.v.ix = nil // the router makes its index of the view, if it keeps one
	}
	b.rt.activate(t)
	if f := b.fleet; f != nil {
		f.v.hearsServe = f.v.ix != nil && f.v.ix.work && f.v.count != nil
		f.picker = nil
		if fp, ok := b.rt.(fleetPicker); ok && fp.ownPicks(f) {
			f.picker = fp
		}
	}
	b.caps = b.rt.caps()
}

// routerDigest adds up the routers' digests (Router.digest) for Model.Hash.
func (b *Balancer) routerDigest() int64 {
	var d int64
	for _, r := range b.routers {
		if r != nil {
			d += r.digest()
		}
	}
	return d
}

// pickFor is the pick of attempt r at cycle t: the router's, or in a
// fleet its balancer's, counted in the tally (and, in a fleet, noted as
// its balancer's).
func (b *Balancer) pickFor(r packed, t int64) int {
	f := b.fleet
	var id int
	if f == nil {
		id = b.rt.pick(r, t)
	} else {
		id = f.pick(r, t)
	}
	if id != 0 {
		b.tally.add(r.member(), id)
		if f != nil {
			f.picked(r.member(), id, r)
		}
	}
	return id
}

// placeable reports whether the router in force can place a request now.
func (b *Balancer) placeable() bool {
	if !b.caps.MayRefuse {
		return true
	}
	return b.rt.(placer).placeable()
}
