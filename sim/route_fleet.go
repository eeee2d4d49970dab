package sim

// fleetRouter gives each balancer of a fleet its own router of a policy
// that keeps state of its own picks (PolicyInfo.PerBalancer: swrr's
// scores, peak-ewma's costs): a pick goes to the attempt's balancer's
// router, and so do the hooks that name an attempt (joined, left,
// abandon, and completed, whose attempt is the server's request in
// service); the hooks about servers go to every one.
type fleetRouter struct {
	b    *Balancer
	each []router
}

func newFleetRouter(b *Balancer, p Policy, k int) *fleetRouter {
	w := &fleetRouter{b: b, each: make([]router, k)}
	for j := range w.each {
		w.each[j] = policies[p].newRouter(b)
		if pe, ok := w.each[j].(*peakEWMA); ok {
			pe.member = j
		}
	}
	return w
}

func (w *fleetRouter) caps() Caps { return w.each[0].caps() }

func (w *fleetRouter) activate(t int64) {
	for _, r := range w.each {
		r.activate(t)
	}
}

func (w *fleetRouter) pickIdle() int { return 0 } // per-server only

// fleetPick is the pick of attempt q's balancer's router, by what it
// reads of the fleet.
func (w *fleetRouter) fleetPick(f *fleet, q packed, t int64) int {
	if fp, ok := w.each[q.member()].(fleetPicker); ok {
		return fp.fleetPick(f, q, t)
	}
	return w.pick(q, t)
}

func (w *fleetRouter) ownPicks(f *fleet) bool {
	fp, ok := w.each[0].(fleetPicker)
	return ok && fp.ownPicks(f)
}

func (w *fleetRouter) pick(q packed, t int64) int { return w.each[q.member()].pick(q, t) }

func (w *fleetRouter) candidate(id int, t int64) {
	for _, r := range w.each {
		r.candidate(id, t)
	}
}

func (w *fleetRouter) uncandidate(id int) {
	for _, r := range w.each {
		r.uncandidate(id)
	}
}

func (w *fleetRouter) holding(id int, t int64) {
	for _, r := range w.each {
		r.holding(id, t)
	}
}

func (w *fleetRouter) added(id int, t int64) {
	for _, r := range w.each {
		r.added(id, t)
	}
}

func (w *fleetRouter) idle(id int, in bool) {
	for _, r := range w.each {
		r.idle(id, in)
	}
}

func (w *fleetRouter) renumber(rn *renumbering) {
	for _, r := range w.each {
		r.renumber(rn)
	}
}

func (w *fleetRouter) joined(id int, q packed, t int64) { w.each[q.member()].joined(id, q, t) }
func (w *fleetRouter) left(id int, q packed, t int64, empty bool) {
	w.each[q.member()].left(id, q, t, empty)
}
func (w *fleetRouter) abandon(id int, q packed) { w.each[q.member()].abandon(id, q) }
func (w *fleetRouter) completed(id int, t int64, empty, ok bool) {
	w.each[w.b.srv[id-1].req.member()].completed(id, t, empty, ok)
}

func (w *fleetRouter) digest() int64 {
	var d int64
	for _, r := range w.each {
		d += r.digest()
	}
	return d
}

// placeable asks the first balancer's router: the candidates that may be
// chosen are the same for every one.
func (w *fleetRouter) placeable() bool { return w.each[0].(placer).placeable() }

// pickAmong is the pick among a set (fan-out) of attempt q's balancer's
// router.
func (w *fleetRouter) pickAmong(q packed, t int64, skip []int) int {
	if ap, ok := w.each[q.member()].(amongPicker); ok {
		return ap.pickAmong(q, t, skip)
	}
	return 0
}
