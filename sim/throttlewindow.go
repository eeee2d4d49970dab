package sim

// This file lets a window (window.go) route and serve a throttled run.
// Pass 1 routes a window's arrivals before pass 2 serves any of them, so
// a draw in pass 1 at cycle c cannot see the completions of the window's
// cycles before c, which join the throttle's accepts. It does know the
// rest of the window fixed for c: the requests (every attempt that
// reaches the throttle in a window is one of pass 1's arrivals, recorded
// as it goes) and the accepts of the cycles before the window. The
// accepts only grow with the window's completions, so the threshold
// 100·requests − K·accepts of the window fixed for c is at most the one
// with the accepts before the window alone. Where that is not above 0,
// no draw at c can throttle, whatever pass 2 adds (a draw v is never
// negative), and the window goes on; else it ends before c and the cycle
// loop takes c. Each draw is made in order, from the bound the requests
// fix (exact). A window lasts at most throttleWindow cycles, so the
// cycles that leave the sums within it are older than its start, with
// their counts complete; pass 2 adds each completion to its cycle's slot
// and to the sums (every cycle of the window is in the window fixed for
// the cycle after its last), and the completed count is then as step e of
// the last cycle leaves it.

// cannotThrottle reports whether no draw can throttle while the sums
// hold as they are or gain accepts: 100·requests ≤ K·accepts.
func (th *throttle) cannotThrottle(k Hundredths) bool {
	return HundredthsScale*th.sumReq <= int64(k)*th.sumAcc
}

// windowCycle readies the window for pass 1's arrivals at cycle c (the
// cycles before it passed, with their requests and the accepts before the
// window), and reports whether no draw at c can throttle (see above).
func (th *throttle) windowCycle(c int64, k Hundredths) bool {
	if th.at < c-1 {
		th.pass(c - 1)
	}
	return th.cannotThrottle(k)
}

// accepted adds an attempt completed at cycle c of a window (pass 2) to
// the window's slot for c and the sums.
func (th *throttle) accepted(c int64) {
	th.accs[c&(throttleSlots-1)]++
	th.sumAcc++
}
