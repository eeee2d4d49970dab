package sim

// maxTurnover bounds the completions turnover takes in one cycle.
const maxTurnover = 8

// turnover is work and dispatch of a pooled balancer at cycle t in their
// most common case, run in one pass. It applies when the requests
// completing at t (at most maxTurnover) are on active servers, no server
// is idle, the queue holds at least as many requests, no events are
// recorded, and the router takes idle servers in an order known without
// asking it (Caps.Order: the lowest id, or round from its pointer) and
// keeps no idle servers of its own (Caps.TracksIdle).
// It reports false, doing nothing, in any other case.
//
// The invariant it keeps: the state after it is the state work(t) then
// dispatch(t) leave. Each completing server becomes the only idle ones,
// and dispatch gives each of them one of the oldest requests in the
// router's order; a server's completion touches no other, so completing
// and serving each in that order comes out the same. As many servers are
// busy after it as before, so the server-cycles need no catching up.
func (b *Balancer) turnover(t int64) bool {
	w := &b.wheel
	ids := w.buckets[t&w.mask]
	k := len(ids)
	if k == 0 || k > maxTurnover || b.idle.n > 0 || b.queue.n < k || !b.turnsOver() {
		return false
	}
	order := b.caps.Order
	var ids32 [maxTurnover]int32
	for i, id := range ids {
		s := &b.srv[id-1]
		if !s.busy || s.done != t || s.retiring {
			return false
		}
		// Insertion sort: k is small, and mostly 1.
		j := i
		for ; j > 0 && ids32[j-1] > id; j-- {
			ids32[j] = ids32[j-1]
		}
		if j > 0 && ids32[j-1] == id {
			return false // a stale entry: the server failed and was given a request due now again
		}
		ids32[j] = id
	}
	if order == OrderRotating {
		start := 0
		for start < k && int(ids32[start]) <= b.lastGiven {
			start++
		}
		if 0 < start && start < k { // it picks from the first id after the last one picked, round
			var rotated [maxTurnover]int32
			n := copy(rotated[:], ids32[start:k])
			copy(rotated[n:], ids32[:start])
			ids32 = rotated
		}
	}
	b.lastGiven = int(ids32[k-1]) // the last one served
	w.take(t)
	b.busy -= k // the k completions; serve counts the k dispatches
	b.tot.Completed += int64(k)
	b.last.Completed += k
	for _, id := range ids32[:k] {
		s := &b.srv[id-1]
		resp := t - s.req.arrival() // its response time kept
		b.tot.TotalResponse += resp
		b.resps.add(resp)
		s.busy = false
		b.serve(int(id), b.queue.popAhead(t), t)
	}
	return true
}

// turnsOver reports whether turnover can apply to b at all: no events
// are recorded, and its router takes idle servers in an order known
// without asking it and keeps none of its own.
func (b *Balancer) turnsOver() bool {
	order := b.caps.Order
	return !b.m.recordEvents && (order == OrderLowestID || order == OrderRotating) && !b.caps.TracksIdle
}
