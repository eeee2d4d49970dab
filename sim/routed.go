package sim

// runRouted steps a per-server run over the cycles after the current one,
// before limit, visiting only those in which something happens: a
// completion, an arrival or a scaling evaluation. Each one runs steps a to
// d as Step does, with two shortcuts where nothing in between can tell
// (cycles without a scaling evaluation, queues without a cap): a server
// that completes with requests in its queue takes the next one at once
// (workEach), and an arrival routed to an idle server goes into service
// at once (serveNow). The cycles in between change nothing but the
// server-cycle totals, which catchUp adds. Events and the last cycle's row
// are left to Step, which RunTo always runs for the last cycle.
//
// The gate (shortcut) lets it run only for a per-server balancer, alone;
// it stops while a lobby waits to drain, before the next pending change
// and before the queued requests could pass their bound. A router that
// does not read loads, with no queue cap, runs in windows (window.go)
// while windowed says it can (with a discipline or shedding, while
// ruledStretch does: queuerules.go). It reports whether it advanced.
func (m *Model) runRouted(b *Balancer, limit int64) bool {
	cfg := &m.cfg
	end := min(limit-1, m.cycle+m.quietSpan())
	end = min(end, m.changeNext()-1)
	// A capped queue compares its length with the cap at arrival, and
	// scaling counts the queued requests, so neither may see a request
	// leave its queue early.
	// Fan-out's early hand-out comes before the arrivals, and a part
	// shed at step d cancels its siblings wherever they are: with a
	// discipline or shedding its parts wait for step d (queuerules.go).
	early := cfg.QueueCap == 0 && (m.fan == nil || !m.queueRuled())
	start := m.cycle
	if !early || b.caps.Reads == ReadsLoads || b.watching || b.fleet != nil || m.fan != nil && (m.fan.hedge != nil || !b.partsWindowed()) || cfg.Discipline == Lifo {
		// A window serves its requests apart from the client side, and
		// routes for one balancer (fan-out: see partsWindowed; hedges
		// fall due apart from arrivals and cancel across servers), each
		// queue oldest first (queuerules.go). The throttle bounds a
		// window where its draws need completions pass 1 has not served
		// yet (windowed).
		m.routeCycles(b, end, early)
		return m.cycle > start
	}
	if m.queueRuled() {
		m.ruledWindows(b, end, early) // windows as long as they keep step d's rules (queuerules.go)
		return m.cycle > start
	}
	// A policy whose picks pass 1 can work out runs windows (see
	// runWindow), and a cycle at a time while it cannot.
	for m.cycle < end {
		if m.windowed(b) && (b.lim == nil || m.limitWindowed(b, end)) {
			m.runWindow(b, end)
		} else if !m.routeCycles(b, m.cycle+1, early) {
			break
		}
	}
	return m.cycle > start
}

// routeCycles is runRouted's loop over the cycles after the current one up
// to end, visiting those in which something happens (see runRouted), for
// a policy that reads loads, a capped queue, or any other policy while it
// cannot run a window. It reports whether it advanced.
func (m *Model) routeCycles(b *Balancer, end int64, early bool) bool {
	cfg := &m.cfg
	start := m.cycle
	// Fan-out admits and completes through Step's own fanAdmit and
	// workParts (partsCycle); hedging visits the cycles with hedges due
	// too (hedgeskip.go).
	parts := m.partsMode(b) // one word in the loop (a plain run tests it, no more)
	// A discipline or shedding decides what goes early (queuerules.go).
	b.ruled = m.queueRuled()
	for m.cycle < end {
		if b.lobby.n > 0 && b.active.n > 0 {
			break // the lobby drains every cycle: Step does it
		}
		t := m.cycle + 1
		due := m.arr.nextDue(t) // the next cycle that may have arrivals
		c := min(due, m.nextScale, end+1)
		if parts >= partsHedged {
			c = min(c, m.fan.hedge.next(m.cycle)) // hedgeskip.go
		}
		if b.busy > 0 {
			c = b.wheel.next(t, c-1)
		}
		if c > end {
			m.cycle = end
			break
		}
		if b.cl != nil {
			b.cl.recordThrough(b, c-1) // the cycles passed changed nothing
		}
		m.cycle = c
		b.catchUp(c - 1)
		live := b.live // a retiring server that completes its last request leaves
		scales := c == m.nextScale
		if parts != 0 {
			b.partsCycle(c, early && !scales, parts >= partsHedged)
		} else if b.wheel.has(c) {
			b.workEach(c, early && !scales)
		}
		arrives := c == due
		if arrives {
			b.serveNow = early && !scales && parts&partsQueued == 0 && (!b.ruled || b.directServes())
			n := m.arr.count(cfg, c, m.pcg)
			for ; parts != 0 && n > 0; n-- { // a request of parts (fanroute.go)
				m.lastID++
				m.admit(m.makeRequest(m.lastID, c), c)
			}
			for ; n > 0; n-- { // arrive, for one balancer
				m.lastID++
				b.admit(m.makeRequest(m.lastID, c), c)
			}
			b.serveNow = false
		}
		acts := false
		if scales {
			m.nextScale += cfg.Cooldown
			if _, acts = b.scaleActs(b.queued); acts {
				b.scale()
			}
		}
		if b.ready.n > 0 {
			b.dispatchEach(c)
		}
		// The end of the cycle: only arrivals raise the queue, and only
		// scaling and leaving change the pool; the server-cycles are
		// caught up at the start of the next cycle visited.
		switch {
		case acts || b.live != live:
			b.record()
		case arrives || parts >= partsHedged: // hedges join queues too
			b.tot.PeakQueue = max(b.tot.PeakQueue, int64(b.queued))
		}
		if b.cl != nil || b.th != nil {
			end = min(end, b.booksThrough(c)) // a throttled attempt's retry (throttleskip.go)
		}
	}
	if b.cl != nil || b.th != nil {
		b.booksThrough(m.cycle)
	}
	return m.cycle > start
}
