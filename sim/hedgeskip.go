package sim

// This file says when hedging next acts, so that RunTo can pass the quiet
// cycles of a hedged run (skipAhead) instead of stepping each one. A hedge
// is considered only at step b of the cycle it falls due, s₀ + h·D, and
// every due is put on at a cycle before it: at a part's first sending
// (s₀ + D) or when its hedge h is considered (the next, s₀ + (h+1)·D). So
// between steps hedging acts first at the earliest cycle in its dues, or,
// where a stretch admits arrivals, at the first of their first hedges, no
// earlier than D cycles after the stretch begins. The order hedges take at
// each cycle is Step's own (hedgesDue): a stretch only ends before it.

// add puts hedge d on the dues of cycle at, and at on the heap of their
// cycles when it is new there.
func (h *hedgeState) add(at int64, d hedgeDue) {
	if len(h.due[at]) == 0 {
		h.pushCycle(at)
	}
	h.due[at] = append(h.due[at], d)
}

// pushCycle puts cycle c on the min-heap h.cycles.
func (h *hedgeState) pushCycle(c int64) {
	q := append(h.cycles, c)
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if q[p] <= q[i] {
			break
		}
		q[p], q[i] = q[i], q[p]
		i = p
	}
	h.cycles = q
}

// popCycle takes the earliest cycle off the min-heap h.cycles.
func (h *hedgeState) popCycle() {
	q := h.cycles
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		l, s := 2*i+1, i
		if l < n && q[l] < q[s] {
			s = l
		}
		if l+1 < n && q[l+1] < q[s] {
			s = l + 1
		}
		if s == i {
			break
		}
		q[s], q[i] = q[i], q[s]
		i = s
	}
	h.cycles = q
}

// next returns the earliest cycle after t at which a hedge is due, never
// if none is, or t+1 when it cannot tell: the dues must be exactly the
// heap's cycles after t (step b of each cycle up to t took its own), and
// anything that put a due on otherwise than through add leaves them
// apart, so that every cycle is stepped rather than one passed.
func (h *hedgeState) next(t int64) int64 {
	if len(h.cycles) > 0 && h.cycles[0] > t && len(h.cycles) == len(h.due) {
		return h.cycles[0] // nothing taken since: the usual case
	}
	return h.nextTaken(t)
}

// nextTaken is next once step b has taken dues: their cycles leave the
// heap first.
func (h *hedgeState) nextTaken(t int64) int64 {
	for len(h.cycles) > 0 && h.cycles[0] <= t {
		h.popCycle() // taken at its cycle's step b
	}
	if len(h.cycles) != len(h.due) {
		return t + 1
	}
	if len(h.cycles) == 0 {
		return never
	}
	return h.cycles[0]
}

// hedgeSkips reports whether RunTo may pass quiet cycles of a hedged run
// (skipAhead, up to hedgeNext): one balancer, no fleet, no client side,
// no trace, no random faults, which are what it is tested against
// stepping with (TestHedgeSkipsMatchStepping). Hedging met with anything
// else steps every cycle until that is tested too.
func (m *Model) hedgeSkips() bool {
	cfg := &m.cfg
	return len(m.bal) == 1 && m.bal[0].fleet == nil && !m.watching() && cfg.Trace == nil && cfg.MTBF == 0
}

// hedgeNext returns the first cycle in [t, never] at which hedging may
// act, for a stretch from t on (t the cycle after the current one) that
// admits arrivals if arrive: the earliest due, and with arrivals the
// first hedges of the parts they bring, D cycles after t at the soonest
// (D as in force: a change to it ends the stretch before it).
func (m *Model) hedgeNext(t int64, arrive bool) int64 {
	f := m.fan
	if f == nil || f.hedge == nil {
		return never
	}
	c := f.hedge.next(t - 1)
	if d := m.cfg.HedgeAfter; arrive && d > 0 {
		c = min(c, t+d)
	}
	return c
}
