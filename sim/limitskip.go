package sim

// This file says how far RunTo's shortcuts (see shortcut) take a run with
// a concurrency limit (conclimit.go) on. A limit acts at two moments
// only, both inside Step's own functions, which the shortcuts call as
// Step does:
//
//   - a refusal, at routing (route, admitLimited, fanAdmit, hedgeLimited):
//     it reads the attempts in flight at the server (load: its queue
//     plus the attempt in service) or at the pool (its queue plus busy
//     servers) at that moment;
//   - an adaptive limit's move, at step a (workEach, workParts, work):
//     it reads the same count just before the ending, and moves the
//     ending server's limit (pooled: the pool's) alone.
//
// skipAhead passes only cycles in which nothing but arrivals happens, and
// admits them through Step's admit while no server could take one: each
// check then reads the count stepping reads. The per-server cycle loop
// (routeCycles) visits every cycle with an arrival or an ending and runs
// them through route and workEach; its two early hand-outs keep every
// count the limit reads: a server that completes and takes its next
// queued attempt at once (workEach, early) holds one attempt fewer
// either way, and it samples before it takes it, as step a does; an
// arrival routed to an idle server goes into service (serveNow) after
// its check, and counts one either way. A server's limit moves only with
// its own endings, so the order of the servers' samples within a cycle
// (id order, kept all the same) changes nothing. With fan-out, the loop
// keeps every part queued until step d (partsQueued): a later part's
// refusal ends its request, and cancels the parts placed before it as
// stepping finds them, queued.
//
// A window (window.go) routes a stretch's arrivals before any of its
// completions, so it does not know the count a check would read; it runs
// only while it can prove that no check refuses and no adaptive limit
// moves (limitRoom, fits): the attempts routed to a server in the window
// raise its count by one each, and completions only lower it, so the
// highest count at the start plus the attempts the window routes bound
// every count a check or a sample reads. Below a fixed limit nothing is
// refused; below half of every adaptive limit, with no latency bound and
// no ending in error (the gate lets none in), nothing moves, and the
// window routes and serves as it does with the limit off. The window
// stops before the first cycle whose arrivals (decided, and counted,
// before they are drawn) would pass that bound; where the very next one
// would, the cycle loop takes it.
//
// A refusal is an error, and with retries its retry falls due a cycle or
// more later, maybe inside a stretch whose end the client side fixed
// before it (watchLimit): skipAhead and the cycle loop end a stretch
// before the earliest retry pending after each cycle they visit
// (booksThrough, as a throttled attempt's retry), where Step takes it.
// Hedges are refused where the cycle loop sends them (the hedges due,
// hedgeskip.go), through the same check.
//
// A pool with a limit takes skipAhead and the pooled cycle loop's own
// cycles (pooled.go), which run Step's order through the same check and
// sample, ending a stretch before a refusal's retry as above; the loop's
// early hand-outs while no server is idle (runQueued) and saturated
// stretches (saturated.go: they admit a stretch's arrivals before
// serving it) stay off with a limit, as they pass the limit's counts by.

// limitRoom returns how many attempts per-server balancer b may route in
// a window with no check refusing and no adaptive limit moving (see
// above): the fixed limit, or the least of half of each live server's
// adaptive limit (rounded up), less one, less the most attempts in flight
// at any live server now; 0 when there is no room, or an adaptive limit
// has a latency bound (any ending may lower it). No server joins within
// a window (it ends before an evaluation that could add one, and warming
// servers keep windows off), so none starts a limit there.
func (b *Balancer) limitRoom() int64 {
	l := b.lim
	bound := int64(l.fixed)
	if l.aimd {
		if l.r > 0 {
			return 0
		}
		bound = MaxConcurrencyLimit
		for i, v := range l.per {
			if !b.srv[i].gone {
				bound = min(bound, int64(v+1)/2)
			}
		}
	}
	most := int64(0)
	for i := range b.srv {
		if !b.srv[i].gone {
			most = max(most, b.load(i+1))
		}
	}
	return max(bound-1-most, 0)
}

// fits reports whether the attempts arriving at cycle c (its requests'
// parts with fan-out) fit, after the admitted ones, in a window's room:
// only when the arrivals have decided c, and its count, without a draw.
func (m *Model) fits(c, admitted, room int64) bool {
	if !m.arr.decided(c) {
		return false
	}
	n := int64(m.arr.n)
	if m.fan != nil {
		n *= int64(m.fan.k)
	}
	return admitted+n <= room
}

// limitWindowed reports whether per-server balancer b, with a limit and
// windowed, can run a window that ends no later than end: the first
// cycle with arrivals after the current one, which it decides (as the
// window would: nothing else draws from the arrivals' stream before it),
// has none past end, or they fit in the room.
func (m *Model) limitWindowed(b *Balancer, end int64) bool {
	room := b.limitRoom()
	if room == 0 {
		return false
	}
	c := m.arr.nextArrival(&m.cfg, m.cycle+1, end, m.pcg)
	return c > end || m.fits(c, 0, room)
}
