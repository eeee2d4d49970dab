package sim

import (
	"cmp"
	"slices"
)

// This file says when hedging next acts, so that RunTo can pass the quiet
// cycles of a hedged run (skipAhead) instead of stepping each one. A hedge
// is considered only at step b of the cycle it falls due, s₀ + h·D, and
// every due is put on at a cycle before it: at a part's first sending
// (s₀ + D) or when its hedge h is considered (the next, s₀ + (h+1)·D). So
// between steps hedging acts first at the earliest cycle in its dues, or,
// where a stretch admits arrivals, at the first of their first hedges, no
// earlier than D cycles after the stretch begins. The order hedges take at
// each cycle is Step's own (hedgesDue): a stretch only ends before it.

// dueLane holds the hedges due with one delay (hedgeDue.d), in a ring in
// the order of their cycles. A due of delay d is put on at some cycle u
// for u + d (at its part's first sending u, or when the hedge before it
// falls due at u), and u never decreases, so a lane's dues come in their
// cycles' order and push appends them: no map and no heap. Only a change
// of hedge-after puts dues of another delay on, and they take a lane of
// their own. A due put on out of its cycle's order (none is) still goes
// in its place, after those of its cycle (TestDueLanesMatchAMap).
type dueLane struct {
	d       int32
	buf     []hedgeDue // len a power of two
	head, n int
	cycles  int // the distinct cycles it holds
}

// cycle returns the cycle hedge d falls due: s₀ + h·D.
func (d *hedgeDue) cycle() int64 { return d.s0 + int64(d.h)*int64(d.d) }

// at returns the lane's i-th due (from 0, the earliest).
func (l *dueLane) at(i int) *hedgeDue { return &l.buf[(l.head+i)&(len(l.buf)-1)] }

// push puts due d on the lane, after every due of a cycle up to its own.
func (l *dueLane) push(d hedgeDue) {
	if l.n == len(l.buf) {
		buf := make([]hedgeDue, max(2*len(l.buf), 16))
		for i := range l.n {
			buf[i] = *l.at(i)
		}
		l.buf, l.head = buf, 0
	}
	c, i := d.cycle(), l.n
	for i > 0 && l.at(i-1).cycle() > c {
		*l.at(i) = *l.at(i - 1) // out of order: make room (never the case)
		i--
	}
	*l.at(i) = d
	l.n++
	if (i == 0 || l.at(i-1).cycle() != c) && (i == l.n-1 || l.at(i+1).cycle() != c) {
		l.cycles++
	}
}

// add puts hedge d on the dues (at its cycle, d.cycle()).
func (h *hedgeState) add(d hedgeDue) {
	h.soonest = min(h.soonest, d.cycle())
	for i := range h.lanes {
		if h.lanes[i].d == d.d {
			h.lanes[i].push(d)
			return
		}
	}
	h.lanes = append(h.lanes, dueLane{d: d.d})
	h.lanes[len(h.lanes)-1].push(d)
}

// take takes the hedges due at cycle t off the dues and returns them in
// the order step b takes them: by balancer (P's, then S's), then by first
// sending, request id and part, an order with no ties (a part's hedges
// fall due at distinct cycles). A lane gives them in that order already
// but at a change of hedge-after or with the switch, which sorts them.
// The list is scratch space, good until the next take.
func (h *hedgeState) take(t int64) []hedgeDue {
	if h.soonest > t {
		return nil // the usual case: none due
	}
	return h.takeAt(t)
}

// takeAt is take where some due may be at t.
func (h *hedgeState) takeAt(t int64) []hedgeDue {
	batch := h.batch[:0]
	for i := 0; i < len(h.lanes); i++ {
		l := &h.lanes[i]
		k := 0
		for ; k < l.n && l.at(k).cycle() == t; k++ {
			batch = append(batch, *l.at(k))
		}
		if k == 0 {
			continue
		}
		l.head, l.n = (l.head+k)&(len(l.buf)-1), l.n-k
		l.cycles--
		if l.n == 0 && len(h.lanes) > 1 {
			h.lanes = slices.Delete(h.lanes, i, i+1) // a delay no longer in force
			i--
		}
	}
	h.batch = batch
	h.soonest = never
	for i := range h.lanes {
		if l := &h.lanes[i]; l.n > 0 {
			h.soonest = min(h.soonest, l.at(0).cycle())
		}
	}
	for i := 1; i < len(batch); i++ {
		if !dueBefore(&batch[i-1], &batch[i]) {
			slices.SortFunc(batch, func(x, y hedgeDue) int { return dueOrder(&x, &y) })
			break
		}
	}
	return batch
}

// dueOrder is take's order of two hedges due at one cycle.
func dueOrder(x, y *hedgeDue) int {
	return cmp.Or(cmp.Compare(x.b, y.b), cmp.Compare(x.s0, y.s0), cmp.Compare(x.id, y.id), cmp.Compare(x.j, y.j))
}

// dueBefore reports whether x comes before y in dueOrder.
func dueBefore(x, y *hedgeDue) bool {
	switch {
	case x.b != y.b:
		return x.b < y.b
	case x.s0 != y.s0:
		return x.s0 < y.s0
	case x.id != y.id:
		return x.id < y.id
	}
	return x.j < y.j
}

// next returns the earliest cycle after t at which a hedge is due, never
// if none is, or t+1 if a due of a cycle up to t is left (step b of its
// cycle did not take it: it never will, and every cycle is stepped
// rather than one passed).
func (h *hedgeState) next(t int64) int64 {
	if h.soonest <= t {
		return t + 1
	}
	return h.soonest
}

// dueCycles returns how many distinct cycles have hedges due (the hash
// reads it).
func (h *hedgeState) dueCycles() int {
	if len(h.lanes) == 1 {
		return h.lanes[0].cycles
	}
	var cs []int64
	for i := range h.lanes {
		l := &h.lanes[i]
		for k := range l.n {
			cs = append(cs, l.at(k).cycle())
		}
	}
	slices.Sort(cs)
	return len(slices.Compact(cs))
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
