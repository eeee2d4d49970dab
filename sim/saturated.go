package sim

// Bounds of a saturated stretch (see runSaturated).
const (
	minSaturated = 4
	maxSaturated = 4096
)

// runSaturated takes a stretch of cycles after the current one, before
// limit, in which the queue is so long that every request dispatched in
// them was queued before them. Arrivals then cannot affect completions and
// dispatches within the stretch, nor these the arrivals, so the two are
// run apart: first every arrival of the stretch, in cycle order, then
// every completion, scaling evaluation and dispatch, with the queue
// length each cycle would have had worked out from the arrivals' running
// count. The random stream is drawn in the same order, and the state,
// counters and peaks come out exactly as stepping gives them.
//
// The gate (shortcut) lets it run only for a pooled balancer, alone,
// with an unbounded queue (a cap compares each arrival with the queue as
// dispatches leave it), a router that does not draw, and no server idle.
// It stretches no further than the next pending change, and only as far as
// the queue holds every request the servers could take in the stretch. It
// reports whether it advanced.
func (m *Model) runSaturated(b *Balancer, limit int64) bool {
	cfg := &m.cfg
	t := m.cycle + 1
	end := min(limit-1, t+maxSaturated-1, m.cycle+m.quietSpan())
	end = min(end, m.changeNext()-1)
	// A server takes at most 1 + span/shortest requests in span cycles
	// (one at the start, then one per completion), and scaling adds at
	// most one server per evaluation; the queue must hold them all.
	shortest := shortestService(cfg)
	q0 := int64(b.queue.Len())
	for end-t+1 >= minSaturated {
		span := end - t + 1
		if b.stretchNeeds(span, shortest) <= q0 {
			break
		}
		end = t + span/2 - 1
	}
	if end-t+1 < minSaturated || b.nextCompletion(t, end) > end {
		// Too short, or without a completion: skipAhead takes such a
		// stretch, and on to the next completion, for less.
		return false
	}

	// The arrivals: admitted[i] counts those admitted in cycles t..t+i,
	// summed up after the pass (an int32 holds them: the mean is at most
	// MaxRate, 10,000, for at most maxSaturated cycles).
	admitted := m.admitted[:end-t+1]
	clear(admitted)
	for c := m.arr.nextDue(t); c <= end; c = m.arr.nextDue(c + 1) {
		var in int32
		for n := m.arr.count(cfg, c, m.pcg); n > 0; n-- {
			m.lastID++
			if b.admit(m.makeRequest(m.lastID, c), c) {
				in++
			}
		}
		admitted[c-t] = in
	}
	var sum int32
	for i, n := range admitted {
		sum += n
		admitted[i] = sum
	}
	// The queue's length at the end of cycle c's arrivals, given the
	// dispatches so far, is base + admitted[c−t] − b.tot.Dispatched
	// (written out below: a closure would not inline).
	base := q0 + b.tot.Dispatched

	// The completions, scaling evaluations and dispatches, cycle by cycle.
	// The queue is longest just before a dispatch or at the end.
	peak := b.tot.PeakQueue
	for c := t; ; c++ {
		c = min(b.wheel.next(c, end), m.nextScale)
		if c > end {
			break
		}
		if c > t {
			peak = max(peak, base+int64(admitted[c-1-t])-b.tot.Dispatched)
		}
		evaluates, scales, queued := c == m.nextScale, false, 0
		if evaluates {
			m.nextScale += cfg.Cooldown
			queued = int(base + int64(admitted[c-t]) - b.tot.Dispatched) // no completion changes it
			_, scales = b.scaleActs(queued)
		}
		// turnover completes no retiring server, so the pool it leaves is
		// the one scaling was just asked about; and as many servers are
		// busy after it as before, so the server-cycles need no catching
		// up for it.
		if !scales && b.turnover(c) {
			continue // the servers that finished took the next requests
		}
		b.catchUp(c - 1)
		if b.wheel.has(c) {
			b.work(c) // a retiring server may leave: ask scaling after it
		}
		if evaluates {
			b.scaleFor(queued)
		}
		if b.idle.n > 0 {
			b.dispatch(c)
		}
		b.tot.ServersMin = min(b.tot.ServersMin, b.live)
		b.tot.ServersPeak = max(b.tot.ServersPeak, b.live)
		b.catchUp(c)
	}
	b.tot.PeakQueue = max(peak, base+int64(admitted[end-t])-b.tot.Dispatched)
	m.cycle = end
	return true
}

// stretchNeeds returns the queue runSaturated needs for a stretch of span
// cycles: every request b's servers could take in them, each taking at
// least shortest cycles.
func (b *Balancer) stretchNeeds(span, shortest int64) int64 {
	return (int64(b.active.n) + span/b.m.cfg.Cooldown + 1) * (1 + span/shortest)
}

// saturable reports whether a saturated stretch may serve b now (see
// runSaturated): a pooled balancer with an unbounded queue, a router that
// does not draw, no server idle and no client side to tell.
func (b *Balancer) saturable() bool {
	return b.m.cfg.QueueCap == 0 && !b.caps.Draws && b.idle.n == 0 && !b.watching && !b.limited && !b.m.queueRuled() // a limit: limitskip.go
}

// shortestService returns the fewest cycles a generated request can take
// at the fastest server under cfg (at least 1).
func shortestService(cfg *Config) int64 {
	shortest := int64(1) // geometric
	switch cfg.Service {
	case Uniform:
		shortest = int64(cfg.TaskMin)
	case Constant:
		shortest = int64(cfg.MeanService)
	}
	fastest := Speed(SpeedScale) // servers beyond the list serve at speed 1
	for _, v := range cfg.Speeds {
		fastest = max(fastest, v)
	}
	return max(int64(fastest.Cycles(uint32(shortest))), 1)
}
