package sim

// This file lets the throttle's runs take RunTo's shortcuts (routed.go's
// cycle loop and skipAhead) where they keep its rules exactly. The
// throttle reads two things: the attempts that reached it and the attempts
// completed, per cycle over the last 1000, fixed for a whole cycle; and it
// draws from its own generator for every attempt that reaches it. Both
// shortcuts keep the invariant that, at every cycle they stop at and at
// every attempt they admit, the window is what stepping leaves there:
//
//   - An attempt reaches the throttle only in a cycle the shortcut visits
//     (arrivals, through Step's own admit and route, in Step's order), and
//     that cycle's first draw passes the cycles not yet recorded before it
//     (throttles), so each draw is against the window fixed for its cycle
//     and the draws come in Step's order.
//   - The cycles a shortcut passes have no arrival and no completion (the
//     cycle loop visits every completion cycle, skipAhead stops before
//     the next one): the throttle's record (throttle.pass) enters them
//     with nothing reached and nothing completed, touching only the slots
//     the gap spans, and a visited cycle is recorded at its end with what
//     it had.
//   - A throttled attempt ends in error through the client's rules
//     (attemptEnded). With retries on, that schedules a retry, at the
//     next cycle at the earliest, which Step must take: the stretch ends
//     before it (retryBound), the watch being quiet otherwise.
//
// Windows (window.go) route a stretch's arrivals before serving it, so a
// draw would not see the completions of the cycles before its own: a
// throttled window runs only as far as the accepts before it prove that
// no draw in it can throttle (throttle.go's windowBound), and its draws
// and record follow pass 2 (throttle.window).
//
// Where this does not hold, the gate keeps the throttle off a shortcut:
// a saturated stretch admits its arrivals apart from its dispatches, so a
// draw would not see the completions of the cycles before its own (gate: skipAhead instead); fan-out through the cycle
// loop sends a part straight into service (serveNow), where a sibling
// throttled after it ends their request and cancels it (gate: skipAhead,
// which admits only while no server could take a part at once).

// booksThrough records b's step e books that the shortcuts keep through
// cycle t (the retry budget's window and the throttle's), the cycles not
// recorded before t having changed nothing, and returns the last cycle
// before the earliest retry pending (see retryBound).
func (b *Balancer) booksThrough(t int64) int64 {
	if b.cl != nil {
		b.cl.recordThrough(b, t)
	}
	if b.th != nil {
		b.th.record(b, t)
	}
	return b.retryBound()
}

// retryBound returns the last cycle before b's earliest retry pending
// (never while none is): a shortcut stops before it, and Step takes it.
// A retry pending when the shortcut started bounds it already (the
// watch's limit); one scheduled within it (a throttled attempt's) comes
// a cycle after at the earliest.
func (b *Balancer) retryBound() int64 {
	if c := b.cl; c != nil && len(c.retries) > 0 {
		return c.retries[0].at - 1
	}
	return never
}
