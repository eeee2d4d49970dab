package sim

// runPooled steps a pooled balancer over the cycles after the current
// one, before limit, visiting only those in which something happens: a
// completion, an arrival or a scaling evaluation. Each one runs steps a
// to d as Step does: the servers whose requests complete are freed (a
// retiring one leaves), the arrivals pass the firewall into the queue,
// scaling is evaluated, and the idle servers take the oldest queued
// requests; the pool is recorded at the end of a cycle that changed it,
// and the queue's peak at the end of a cycle with arrivals (only they
// raise it). The cycles in between change nothing but the server-cycle
// totals, which catchUp adds. While no server is idle, runQueued takes
// the cycles; where the queue is also long enough (saturable), a
// saturated stretch (runSaturated) takes them for less, tried where
// completions are dense or one is due next (a stretch without one it
// declines). Events and the last cycle's row are left to Step, which
// RunTo always runs for the last cycle.
//
// The gate (shortcut) lets it run only for a pooled balancer, alone,
// with the oldest-first hand-out and no overload control (shedding, a
// throttle or a concurrency limit read or move the queue and the servers
// between steps a and d, which runQueued hands out apart; they may
// extend it later). It stops before the next pending change and before
// the queued requests could pass their bound. It reports whether it
// advanced.
func (m *Model) runPooled(b *Balancer, limit int64) bool {
	cfg := &m.cfg
	end := min(limit-1, m.cycle+m.quietSpan())
	end = min(end, m.changeNext()-1)
	start := m.cycle
	// The shortest saturated stretch needs this long a queue, while the
	// pool stays as it is.
	shortest := shortestService(cfg)
	needs := b.stretchNeeds(minSaturated, shortest)
	// runQueued may run (a limit: limitskip.go); with a discipline or
	// shedding, no early hand-out (queuerules.go): each cycle visited runs
	// in Step's order.
	queues := cfg.QueueCap == 0 && !b.watching && b.turnsOver() && b.lim == nil && !m.queueRuled()
	for m.cycle < end {
		if b.idle.n == 0 && int64(b.queue.n) >= needs && b.saturable() &&
			(b.denseCompletions() || b.wheel.has(m.cycle+1)) && m.runSaturated(b, end+1) {
			needs = b.stretchNeeds(minSaturated, shortest) // it may have scaled
			continue
		}
		if queues && b.idle.n == 0 {
			if m.runQueued(b, end); m.cycle >= end {
				break
			}
		}
		c := m.nextPooled(b, end)
		if c > end {
			m.cycle = end
			break
		}
		if b.cl != nil {
			b.cl.recordThrough(b, c-1) // the cycles passed changed nothing
		}
		m.cycle = c
		b.catchUp(c - 1)
		live := b.live // a retiring server that completes leaves
		if b.wheel.has(c) {
			b.work(c)
		}
		arrives := m.arr.due(c)
		if arrives {
			for n := m.arr.count(cfg, c, m.pcg); n > 0; n-- {
				m.lastID++
				b.admit(m.makeRequest(m.lastID, c), c)
			}
		}
		acts := false
		if c == m.nextScale {
			m.nextScale += cfg.Cooldown
			if _, acts = b.scaleActs(b.queue.n); acts {
				b.scale()
			}
		}
		if b.queue.n > 0 && b.idle.n > 0 {
			b.dispatch(c)
		}
		// The end of the cycle: only arrivals raise the queue, and only
		// scaling and leaving change the pool.
		switch {
		case acts || b.live != live:
			b.record()
			needs = b.stretchNeeds(minSaturated, shortest)
		case arrives:
			b.tot.PeakQueue = max(b.tot.PeakQueue, int64(b.queue.n))
		}
		if b.cl != nil {
			b.cl.recordThrough(b, c)
			if b.limited {
				end = min(end, b.retryBound()) // a refusal's retry (limitskip.go)
			}
		}
	}
	if b.cl != nil {
		b.cl.recordThrough(b, m.cycle)
	}
	return m.cycle > start
}

// nextPooled returns runPooled's next cycle to visit after the current
// one: the first with a completion, an arrival or a scaling evaluation
// (with shedding, the next one while requests wait beside idle servers),
// or end+1 when none comes by end. Where the arrivals' next block is
// undecided and nothing else comes first, it decides the blocks up to
// the next arrival at once (nextArrival): nothing but the arrivals draws
// from their stream in the cycles passed.
func (m *Model) nextPooled(b *Balancer, end int64) int64 {
	t := m.cycle + 1
	if m.cfg.CodelTarget > 0 && b.queue.n > 0 && b.idle.n > 0 {
		// The router picked none of the idle servers (weights 0): step
		// d sheds in every cycle while that lasts (queuerules.go).
		return t
	}
	c := min(m.arr.nextDue(t), m.nextScale, end+1)
	if b.busy > 0 {
		c = b.wheel.next(t, c-1)
	}
	if c <= end && c%WaveStep == 0 && !m.arr.decided(c) && c != m.nextScale && !b.wheel.has(c) {
		stop := b.nextCompletion(c, min(m.nextScale-1, end))
		c = m.arr.nextArrival(&m.cfg, c, stop-1, m.pcg)
	}
	return c
}

// runQueued is runPooled's loop while no server is idle, up to end: the
// arrivals only join the queue, and a completion that turnover takes
// (every server that completes finds a request queued for it, the router
// takes idle servers in a known order) hands the queue's oldest requests
// to the servers that completed at once, before the cycle's arrivals
// join. It stops at end, or just before the first cycle it cannot take:
// a scaling evaluation or a completion turnover declines, which runPooled
// visits. The queue rises only with arrivals, so its peak is taken after
// each cycle's.
//
// The invariant the early hand-out keeps (no cap, no evaluation in the
// cycle, no client side: the gate and runPooled see to them): step d
// gives the queue's oldest requests, one by one, to the idle servers the
// router picks in turn; the requests queued at step a are older than the
// cycle's arrivals, which join behind them, and nothing between steps a
// and d reads the queue or the idle servers, so handing them out at step
// a makes the same picks in the same order and leaves the same queue,
// pool and timing wheel. The queue's empty history comes out the same
// too: emptied at step a rather than in step d, the queue does not count
// as filled afresh by the cycle's arrivals (a queue emptied and filled in
// one cycle keeps the cycle since which it has held requests).
func (m *Model) runQueued(b *Balancer, end int64) {
	cfg := &m.cfg
	for {
		t := m.cycle + 1
		stop := b.nextCompletion(t, min(m.nextScale-1, end))
		for c := m.arr.nextDue(t); c < stop; c = m.arr.nextDue(c + 1) {
			if !m.arr.decided(c) {
				if c = m.arr.nextArrival(cfg, c, stop-1, m.pcg); c >= stop {
					break
				}
			}
			for n := m.arr.count(cfg, c, m.pcg); n > 0; n-- {
				m.lastID++
				b.admit(m.makeRequest(m.lastID, c), c)
			}
			b.tot.PeakQueue = max(b.tot.PeakQueue, int64(b.queue.n))
		}
		m.cycle = stop - 1
		if stop > end || stop == m.nextScale || !b.turnover(stop) {
			return
		}
		// turnover leaves as many servers busy as before: the
		// server-cycles need no catching up.
		m.cycle = stop
		if m.arr.due(stop) {
			for n := m.arr.count(cfg, stop, m.pcg); n > 0; n-- {
				m.lastID++
				b.admit(m.makeRequest(m.lastID, stop), stop)
			}
			b.tot.PeakQueue = max(b.tot.PeakQueue, int64(b.queue.n))
		}
	}
}
