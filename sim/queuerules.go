package sim

// This file lets runs with a queue discipline (lifo, adaptive-lifo) or
// shedding (a codel target) on take RunTo's shortcuts as far as they keep
// step d's rules. Those rules read, at a queue's hand-out, which attempt
// joined last, how long the head has waited, and the queue's empty
// history (standing); the history is kept by the queue's own pushes and
// removals (fifo.filling, fifo.emptying), so a shortcut keeps it exactly
// when it pushes and removes in a cycle what stepping would, in an order
// that leaves the queue empty or not at each cycle's end as stepping does
// (a removal at step a followed by an arrival in the same cycle counts as
// never empty: filling reads emptied < t).
//
//   - skipAhead passes only cycles without a dispatch: nothing is handed
//     out, so nothing is shed, and queues only grow, each push at its own
//     cycle. It is exact whatever the discipline and shedding.
//   - runRouted's cycle loop (routeCycles) runs steps a to d in Step's
//     order, with Step's own dispatchEach (which sheds, then takes by the
//     discipline) at step d. Its two early hand-outs are kept only where
//     they hand out what step d would: a server that completes takes its
//     next attempt at step a only where ruledTakesEarly says so, and otherwise
//     waits for step d (it is ready, idle with a queue, as stepping leaves
//     it); an arrival goes straight to an idle server (serveNow) only
//     while every idle server's queue is empty and the discipline is not
//     lifo (directServes).
//   - Windows (window.go) route a stretch's arrivals before its
//     dispatches and serve each queue oldest first, unshed, keeping the
//     history as they go (popAhead). Under lifo runRouted runs the cycle
//     loop instead; under adaptive-lifo and shedding it ends each window
//     before a queue could stand or an attempt wait over the target
//     (ruledWindowEnd). A pooled saturated stretch (saturated.go) likewise
//     dispatches apart from the arrivals: the gate gives skipAhead alone.
//
//   - With fan-out, the cycle loop hands nothing out early (runRouted):
//     its early dispatch after step a (partsCycle) comes before the
//     arrivals, and a part shed at step d ends its request and cancels
//     its siblings, queued or in service, which an arrival sent straight
//     into service would have changed. The loop then runs Step's order.
//
// What stays gated to skipAhead alone (viaSkip): shedding while the client
// side retries (a shed attempt's retry may fall due inside the loop's
// stretch, which the watch's limit did not see).

// queueRuled reports whether a queue's hand-out depends on more than its
// order: a discipline other than fifo, or shedding, is in force.
func (m *Model) queueRuled() bool { return m.cfg.Discipline != Fifo || m.cfg.CodelTarget > 0 }

// ruledSkipsOnly reports whether, with a discipline or shedding in force,
// only skipAhead may pass cycles (see the file's comment): shedding while
// the client side watches with retries.
func (m *Model) ruledSkipsOnly(watching bool) bool {
	return watching && m.cfg.CodelTarget > 0 && m.cfg.Retries > 0
}

// ruledTakesEarly reports whether per-server queue q, whose server has
// just completed at step a of cycle t, hands out at once the attempt step
// d would hand out (workEach's early take), with a discipline or shedding
// in force (with neither it always does: see workEach):
//   - shedding: step d first sheds what waited over the limit; the limit
//     (one read of the history, unchanged between steps a and d while the
//     queue holds an attempt) and the head (arrivals join the tail) are
//     the same at step a, so if the head has not waited over it step d
//     sheds nothing. With attempts put at the head (requeued) it waits.
//   - the newest-first hand-out (lifo, or adaptive-lifo while standing):
//     step d takes an attempt that joins in step b if one does, so only
//     a cycle without arrivals (the arrivals say so without a draw)
//     takes it early. The oldest-first hand-out is fifo's.
func (b *Balancer) ruledTakesEarly(q *fifo, t int64) bool {
	m := b.m
	if m.shedding() && !q.keepsAll(t-m.shedLimit(q, t)) {
		return false
	}
	switch m.cfg.Discipline {
	case Lifo:
	case AdaptiveLifo:
		if !q.standing(t, m.codelInterval()) {
			return true
		}
	default:
		return true
	}
	return !m.arr.due(t)
}

// keepsAll reports whether shedding with cut would shed nothing without
// looking past the head: the queue is empty, or none was put at the head
// and the head joined at cut or later (the rest joined after it).
func (q *fifo) keepsAll(cut int64) bool {
	return q.n == 0 || q.front == 0 && q.joined(0) >= cut
}

// directServes reports whether, with a discipline or shedding in force,
// runRouted may send an arrival routed to an idle server straight into
// service (serveNow) in the current cycle: no server waits for step d
// (ready), so the server's queue is empty and step d would hand out that
// arrival, the oldest, unless a later one joins the same queue in the
// cycle and the discipline takes the newest. An empty queue that fills at
// t is not standing at t, so adaptive-lifo takes the oldest; lifo does
// not (its arrivals wait for step d: the cycle's count is drawn only
// after serveNow is set, and asking it first costs the plain run).
// Nothing joined before t, so shedding sheds nothing.
func (b *Balancer) directServes() bool {
	return b.ready.n == 0 && b.m.cfg.Discipline != Lifo
}

// Under adaptive-lifo or shedding, a window shorter than minRuledWindow
// cycles costs more than the cycle loop over the same cycles, and asking
// ruledWindowEnd (a look at every queue) after each cycle costs more
// again: runRouted then runs the cycle loop for ruledChunk cycles before
// it asks. (Round-robin per-server at utilisation 0.8, adaptive-lifo with
// the default interval: 50.2 M instructions with a window from every cycle,
// 37.9 M with these, 42.4 M with the cycle loop alone; plain 30.1 M.)
const (
	minRuledWindow = 8
	ruledChunk     = 32
)

// ruledWindows is runRouted's loop over windows and the cycle loop up to
// end for a policy whose picks pass 1 can work out, with adaptive-lifo or
// shedding in force: a window while ruledStretch says it keeps their
// rules and is worth it (and a limit's, limitWindowed), else the cycle
// loop.
func (m *Model) ruledWindows(b *Balancer, end int64, early bool) {
	for m.cycle < end {
		if e, loop := m.ruledStretch(b, end); e > m.cycle && m.windowed(b) && (b.lim == nil || m.limitWindowed(b, e)) {
			m.runWindow(b, e)
		} else if !m.routeCycles(b, loop, early) {
			return
		}
	}
}

// ruledStretch returns the end of the window to run from the current
// cycle, or the current cycle and the end of the cycle loop to run
// instead (at most end): see minRuledWindow. A window that cannot run
// (windowed) gives way to the cycle loop for one cycle, as without rules.
func (m *Model) ruledStretch(b *Balancer, end int64) (window, loop int64) {
	c0 := m.cycle
	if e := m.ruledWindowEnd(b, end); e >= c0+minRuledWindow || e == end && e > c0 {
		return e, c0 + 1
	}
	return c0, min(end, c0+ruledChunk)
}

// ruledWindowEnd returns the last cycle, at most end, up to which a window
// (runWindow) from the current cycle c0 hands out what step d would with
// adaptive-lifo or shedding in force: each queue's oldest attempt, none
// shed (c0 or less when none may run). Pass 2 hands out at cycles c0+1 …
// e−1 (popAhead keeps the empty history as it goes); at the window's
// last cycle e, Step's own dispatchEach does, which applies the rules.
//   - adaptive-lifo with interval N takes the oldest while the queue is
//     not standing (non-empty at the end of the last N cycles). A queue
//     empty at c0, or emptied in the window, fills at a cycle f > c0 and
//     cannot stand before f+N: e−1 < c0+1+N. One holding attempts stands
//     from since+N on unless it empties first: e−1 < since+N.
//   - shedding with target M ≤ N sheds only attempts that waited over M:
//     one joining in the window, at c0+1 or later, waits at most e−c0−2;
//     one queued at c0 at most e−1 less its queue's head's joined cycle
//     (the body is in joined order; attempts put at the head may not be:
//     no window then).
func (m *Model) ruledWindowEnd(b *Balancer, end int64) int64 {
	cfg, c0 := &m.cfg, m.cycle
	n, target := m.codelInterval(), cfg.CodelTarget
	adaptive := cfg.Discipline == AdaptiveLifo
	if adaptive {
		end = min(end, c0+n+1)
	}
	if target > 0 {
		end = min(end, c0+target+2)
	}
	for i := range b.sq {
		q := &b.sq[i]
		if q.n == 0 {
			continue
		}
		if adaptive {
			end = min(end, q.since+n)
		}
		if target > 0 {
			if q.front > 0 {
				return c0
			}
			end = min(end, q.joined(0)+target+1)
		}
	}
	return end
}
