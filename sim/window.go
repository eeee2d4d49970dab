package sim

import "slices"

// This file runs a per-server balancer whose policy's picks can be worked
// out without serving the queues (Reads: nothing, or work) over a window of
// cycles in two passes, instead of cycle by cycle.
//
// Round-robin, random, swrr and hash read nothing of the servers: their
// picks depend only on the arrivals and the candidates, and the candidates
// change only when scaling acts or a server fails or comes back. Within a
// window that ends at the next scaling evaluation, every arrival can
// therefore be routed first (pass 1), in order, as Step would route it.
// Least-work reads the cycle each server will have done all it holds,
// which routing alone moves (by the request's service at that server's
// speed) until the server reaches it: pass 1 frees a server when an
// arrival comes at or after that cycle (freeDone), as its last completion
// would have freed it.
//
// Each server then serves its own queue as a single FIFO server
// (pass 2): its next request starts at max(its arrival, the cycle the
// server became free), the Lindley recursion. That is Step's order too: a
// request that completes at cycle c frees its server in step a, and the
// server takes the next request in step a (early, runRouted) or step d of c
// if it had arrived by then, or in the cycle it arrives otherwise. At the
// window's last cycle the servers free to take a request are left ready,
// as Step leaves them before step c, and step d dispatches them after
// scaling has looked at the queue.
//
// The servers do not see each other within a window, so pass 2 takes them
// one at a time; the totals are sums, the histograms counts. The
// server-cycles are counted from the intervals of service, and the peak of
// the queue from the arrivals and dispatches of each cycle.

// maxWindow bounds a window's cycles (its per-cycle counts).
const maxWindow = 4096

// windowRequests bounds the requests a window admits before it stops at the
// next scaling evaluation: pass 2 reads what pass 1 wrote, and the queues
// of a large pool would leave the cache.
const windowRequests = 512

// window is runWindow's scratch space, kept between windows.
type window struct {
	arrived    []arrivalCount // the cycles with admissions, in order
	peaks      bool           // the queue might pass its peak: count dispatches
	byCycle    bool           // counted by cycle (a short window), else listed
	dispatched []int32        // by cycle in the window (byCycle)
	dispatches []int64        // the cycle of each dispatch (not byCycle)
	woke       []int32        // servers free at the start that got a request
	late       []lateEntry
	longest    int64 // the longest service among the late entries
	// The changes to the server-cycles: the levels at the start, held to
	// the end of the window's last cycle but one, plus these.
	busyCycles, liveCycles int64
	leftBefore             int      // retiring servers that left before the last cycle
	batch                  []packed // a batcher's cycle of admitted requests
	// The window's first cycle (the current one when it starts), the
	// levels then, and the requests pass 1 admitted.
	c0               int64
	busy0, live0, q0 int64
	admitted         int64
	// room is how many attempts the window may route with a
	// concurrency limit on (limitRoom), −1 with none.
	room int64
	// A throttled window (throttle.go's windowBound): its last cycle at
	// most, the draws allowed before its last cycle, and the completions
	// of each of its cycles (windowAccepts).
	thr     bool
	thLast  int64
	drawCap int64
	accs    []int32
}

// arrivalCount is how many requests were admitted in a cycle of a window.
type arrivalCount struct {
	cycle int64
	n     int32
}

// lateEntry is a wheel entry that pass 2 adds after it has read the
// window's buckets (one it added while reading could land in a bucket it
// has yet to read, which wraps around to a later cycle).
type lateEntry struct {
	id   int32
	done int64
}

// windowed reports whether per-server balancer b, whose router does not
// read loads, with no queue cap, can run a window now: no lobby waiting, no
// server waiting for step d, a candidate, a router that can place every
// request (Caps.MayRefuse: placeable now, and so for the whole window, in
// which the candidates do not change), and a router that reads work ready
// for one.
func (m *Model) windowed(b *Balancer) bool {
	switch {
	case b.lobby.n > 0 || b.ready.n > 0 || b.active.n == 0 || !b.placeable():
		return false
	case b.th != nil && (b.lim != nil || !m.throttleWindowed(b)):
		return false // the next cycle's draws could throttle (a limit's room: routeWindow's alone)
	case b.caps.Reads == ReadsWork:
		return b.rt.(workPlacer).windowReady()
	}
	return true
}

// runWindow runs the cycles after the current one, up to the next scaling
// evaluation or end, in two passes (see above); m.windowed(b) holds. The
// window goes on past an evaluation when no queue it could see would make
// scaling act: the queue then holds between the requests there were and
// came, less as many as the servers could have taken (each at most one at
// the start and one a shortest service after), and all of them.
func (m *Model) runWindow(b *Balancer, end int64) {
	w := m.startWindow(b)
	if w.thr {
		end = min(end, w.thLast)
	}
	var e int64
	if w.thr {
		e, w.admitted = m.routeThrottled(b, min(end, w.c0+maxWindow))
		e = m.routed(b, e)
		b.th.windowAccepts(b, e)
	} else {
		e = m.routeWindow(b, min(end, w.c0+maxWindow))
	}
	m.serveWindow(b, e)
	if w.thr {
		b.th.window(b, e)
	}
	m.settleWindow(b, e)
	m.endWindow(b, e)
}

// startWindow readies the scratch space and notes the levels at the
// window's start.
func (m *Model) startWindow(b *Balancer) *window {
	if m.win == nil {
		m.win = &window{}
	}
	w := m.win
	w.arrived, w.woke, w.late = w.arrived[:0], w.woke[:0], w.late[:0]
	w.busyCycles, w.liveCycles, w.longest, w.leftBefore = 0, 0, 0, 0
	w.c0 = m.cycle
	b.catchUp(w.c0)
	w.busy0, w.live0, w.q0 = int64(b.busy), int64(b.live), int64(b.queued)
	w.admitted, w.room = 0, -1
	if b.lim != nil {
		w.room = b.limitRoom()
	}
	w.thr = b.th != nil
	return w
}

// routeWindow is pass 1: it routes every arrival after the window's start,
// in order, into its server's queue, and returns the window's last cycle
// e. A router that reads work places each one as it comes (placeWork), a
// batcher looks a cycle's arrivals up together (owners), and the others
// are placed in the drawing loop itself.
func (m *Model) routeWindow(b *Balancer, end int64) int64 {
	cfg, w := &m.cfg, m.win
	c0, shortest := w.c0, shortestService(cfg)
	var wp workPlacer
	if b.caps.Reads == ReadsWork {
		wp = b.rt.(workPlacer)
	}
	bt, batched := b.rt.(batcher)
	batched = batched && bt.batching()
	work := wp != nil
	own := work || batched // placed their own way
	e := min(m.nextScale, end)
	admitted := int64(0) // written back to w at the end: a local in the loops
	fan := m.fan != nil
	for c := m.arr.nextDue(c0 + 1); ; c = m.arr.nextDue(c + 1) {
		if c <= e && !m.arr.decided(c) {
			c = m.arr.nextArrival(cfg, c, e, m.pcg) // nothing else draws in pass 1
		}
		for ; c > e; e = min(m.nextScale, end) {
			if e != m.nextScale || b.retiring > 0 || admitted >= windowRequests {
				break
			}
			most := w.live0 * (1 + (e-1-c0)/shortest) // dispatches before e
			if !b.scaleQuiet(max(w.q0+admitted-most, 0), w.q0+admitted) {
				break
			}
			m.nextScale += cfg.Cooldown // an evaluation that does not act
		}
		if c > e {
			break
		}
		if w.room >= 0 && !m.fits(c, admitted, w.room) {
			e = c - 1 // the cycle's arrivals might reach a limit (limitskip.go)
			break
		}
		in := int32(0)
		w.batch = w.batch[:0]
		k := m.arr.count(cfg, c, m.pcg)
		if work && k > 0 {
			wp.freeDone(c) // before the cycle's arrivals, as completions come first
		}
		for ; k > 0; k-- {
			m.lastID++
			r := m.makeRequest(m.lastID, c)
			if fan {
				in += b.windowParts(r, c) // its parts (fanroute.go)
				continue
			}
			b.tot.Generated++
			b.last.Generated++
			if m.fw.Blocks(uint32(r.addr >> 32)) {
				b.tot.Rejected++
				b.last.Rejected++
				continue
			}
			if own { // one test in the loop for the others
				if work {
					wp.placeWork(r, c)
					in++
				} else {
					w.batch = append(w.batch, r) // routed below, together
				}
				continue
			}
			// place, written out, for the routers that read nothing: with
			// no freeing in pass 1, the servers free at the window's
			// start are those in free; the router places every request
			// (windowed).
			id := b.rt.pick(r, c)
			b.lastGiven = id
			b.tally.add(0, id) // a window routes for one balancer
			b.tot.Admitted++
			b.queued++
			b.sq[id-1].pushBack(r, c)
			if b.free.has(id) {
				b.free.remove(id)
				w.woke = append(w.woke, int32(id))
			}
			in++
		}
		if len(w.batch) > 0 {
			for j, id := range bt.owners(w.batch) {
				b.place(w.batch[j], int(id), c)
			}
			in = int32(len(w.batch))
		}
		if in > 0 {
			w.arrived = append(w.arrived, arrivalCount{c, in})
			admitted += int64(in)
		}
	}
	w.admitted = admitted
	// The queue can pass its peak within the window only if it could
	// without a dispatch; only then are the dispatches counted by cycle.
	w.peaks = w.q0+admitted > b.tot.PeakQueue
	// Counted by cycle, a window's peak costs a few instructions a cycle;
	// listed and sorted, a few a dispatch times the log of their number.
	w.byCycle = e-c0 <= 8*(admitted+w.busy0+1)
	if w.peaks && w.byCycle {
		w.dispatched = resize(w.dispatched, int(e-c0))
	}
	w.dispatches = w.dispatches[:0]
	return e
}

// routed ends pass 1 at the window's last cycle e, w.admitted requests
// admitted, and returns e.
func (m *Model) routed(b *Balancer, e int64) int64 {
	w, c0, admitted := m.win, m.win.c0, m.win.admitted
	// The queue can pass its peak within the window only if it could
	// without a dispatch; only then are the dispatches counted by cycle.
	w.peaks = w.q0+admitted > b.tot.PeakQueue
	// Counted by cycle, a window's peak costs a few instructions a cycle;
	// listed and sorted, a few a dispatch times the log of their number.
	w.byCycle = e-c0 <= 8*(admitted+w.busy0+1)
	if w.peaks && w.byCycle {
		w.dispatched = resize(w.dispatched, int(e-c0))
	}
	w.dispatches = w.dispatches[:0]
	return e
}

// passEvaluation reports whether pass 1, with admitted requests admitted
// and the next arrival after e, may go on past the scaling evaluation at
// its last cycle e, and passes it: no queue the evaluation could see would
// make scaling act (see runWindow). routeWindow writes the same test out
// in its loop, where a call would cost the plain windows.
func (m *Model) passEvaluation(b *Balancer, e, admitted, shortest int64) bool {
	w := m.win
	if e != m.nextScale || b.retiring > 0 || admitted >= windowRequests {
		return false
	}
	most := w.live0 * (1 + (e-1-w.c0)/shortest) // dispatches before e
	if !b.scaleQuiet(max(w.q0+admitted-most, 0), w.q0+admitted) {
		return false
	}
	m.nextScale += m.cfg.Cooldown // an evaluation that does not act
	return true
}

// routeThrottled is pass 1 of a throttled window (see windowBound) up to
// end at most: each arrival placed as Step would route it, one at a time,
// and the window ends at the first cycle after whose arrivals the next
// cycle's draws could throttle. It returns the window's last cycle and
// the requests admitted. Their draws follow pass 2 (throttle.window).
func (m *Model) routeThrottled(b *Balancer, end int64) (e, admitted int64) {
	cfg, w, shortest := &m.cfg, m.win, shortestService(&m.cfg)
	wp, _ := b.rt.(workPlacer)
	if b.caps.Reads != ReadsWork {
		wp = nil
	}
	e = min(m.nextScale, end)
	for c := m.arr.nextDue(w.c0 + 1); ; c = m.arr.nextDue(c + 1) {
		if c <= e && !m.arr.decided(c) {
			c = m.arr.nextArrival(cfg, c, e, m.pcg)
		}
		for ; c > e && m.passEvaluation(b, e, admitted, shortest); e = min(m.nextScale, end) {
		}
		if c > e {
			return e, admitted
		}
		k := m.arr.count(cfg, c, m.pcg)
		if wp != nil && k > 0 {
			wp.freeDone(c) // before the cycle's arrivals, as completions come first
		}
		in := int32(0)
		for ; k > 0; k-- {
			m.lastID++
			r := m.makeRequest(m.lastID, c)
			b.tot.Generated++
			b.last.Generated++
			if m.fw.Blocks(uint32(r.addr >> 32)) {
				b.tot.Rejected++
				b.last.Rejected++
				continue
			}
			if wp != nil {
				wp.placeWork(r, c)
			} else {
				b.place(r, b.rt.pick(r, c), c)
			}
			in++
		}
		if in > 0 {
			w.arrived = append(w.arrived, arrivalCount{c, in})
			admitted += int64(in)
			if admitted > w.drawCap {
				end, e = c, c // the next cycle's draws could throttle
			}
		}
	}
}

// serveWindow is pass 2: each server's queue, from the cycle it is free,
// up to the window's last cycle e.
func (m *Model) serveWindow(b *Balancer, e int64) {
	w, c0 := m.win, m.win.c0
	for _, id := range w.woke {
		b.serveQueue(int(id), c0, c0, e)
	}
	far := e-c0 > 1024 // few completions over many cycles: through the summary
	for c := c0 + 1; ; c++ {
		if far {
			c = b.wheel.seek(c, e)
		} else {
			c = b.wheel.next(c, e)
		}
		if c > e {
			break
		}
		for _, id32 := range b.wheel.take(c) { // pass 2 adds to the wheel only after it
			id := int(id32)
			if s := &b.srv[id-1]; !s.busy || s.done != c {
				continue // stale
			}
			w.busyCycles -= e - c // busy since before the window, held to e−1 above
			b.serveQueue(id, c, c, e)
		}
	}
	if b.caps.Reads == ReadsWork {
		b.rt.(workPlacer).freeDone(e) // the servers pass 2 freed leave the router's index
	}
	if w.longest > b.wheel.mask {
		b.refitWheel(w.longest) // re-adds every busy server, the late ones too
	} else {
		for _, l := range w.late {
			b.wheel.add(l.done, int(l.id))
		}
	}
}

// settleWindow adds the window's server-cycles (from the levels at its
// start held to the end of e−1, and each change's cycles up to there),
// the queue's peak and the pool's low point at the end of the cycles
// before e.
func (m *Model) settleWindow(b *Balancer, e int64) {
	w, c0 := m.win, m.win.c0
	b.tot.ServerCycles += w.live0*(e-1-c0) + w.liveCycles
	b.tot.BusyCycles += w.busy0*(e-1-c0) + w.busyCycles
	b.intAt = e - 1
	switch {
	case !w.peaks || e == c0+1:
	case w.byCycle:
		q, peak, a := w.q0, b.tot.PeakQueue, 0
		for c := c0 + 1; c < e; c++ {
			if a < len(w.arrived) && w.arrived[a].cycle == c {
				q += int64(w.arrived[a].n)
				a++
			}
			q -= int64(w.dispatched[c-c0-1])
			peak = max(peak, q)
		}
		b.tot.PeakQueue = peak
	default:
		b.tot.PeakQueue = w.peak(b.tot.PeakQueue, e)
	}
	// At e, scaling may make up for a server that leaves then: record
	// sees it.
	b.tot.ServersMin = min(b.tot.ServersMin, int(w.live0)-w.leftBefore)
}

// peak returns the highest of peak and the queue's lengths at the end of
// the window's cycles before e, from the dispatches listed (not byCycle). The queue grows only by arrivals, so the
// highest lies at the end of its first cycle or of a cycle with arrivals:
// only those are read, each with the arrivals and dispatches up to it.
func (w *window) peak(peak, e int64) int64 {
	slices.Sort(w.dispatches)
	q, d := w.q0, 0
	level := func(c int64) int64 { // q holds the arrivals up to c
		for d < len(w.dispatches) && w.dispatches[d] <= c {
			d++
		}
		return q - int64(d)
	}
	if len(w.arrived) == 0 || w.arrived[0].cycle != w.c0+1 {
		peak = max(peak, level(w.c0+1))
	}
	for _, a := range w.arrived {
		if a.cycle >= e {
			break
		}
		q += int64(a.n)
		peak = max(peak, level(a.cycle))
	}
	return peak
}

// endWindow is the window's last cycle e: scaling, then step d for the
// servers left ready.
func (m *Model) endWindow(b *Balancer, e int64) {
	m.cycle = e
	acts := false
	if e == m.nextScale {
		m.nextScale += m.cfg.Cooldown
		if _, acts = b.scaleActs(b.queued); acts {
			b.scale()
		}
	}
	if b.ready.n > 0 {
		b.dispatchEach(e)
	}
	if acts || int64(b.live) != m.win.live0 {
		b.record()
	} else {
		b.tot.PeakQueue = max(b.tot.PeakQueue, int64(b.queued))
	}
}

// place puts request r, admitted at cycle c, into server id's queue in
// pass 1. A server that was free at the window's start (idle with an
// empty queue: pass 1 changes neither) is noted for pass 2. A router that
// reads work hears of it as enqueue tells it (placeWork's uncommon cases).
func (b *Balancer) place(r packed, id int, c int64) {
	s := &b.srv[id-1]
	if !s.busy && b.sq[id-1].n == 0 {
		b.m.win.woke = append(b.m.win.woke, int32(id))
	}
	if b.caps.Hears {
		b.rt.joined(id, r, c)
	}
	b.lastGiven = id
	b.tally.add(0, id) // a window routes for one balancer
	b.free.remove(id)
	b.tot.Admitted++
	b.queued++
	b.sq[id-1].pushBack(r, c)
}

// serveQueue runs server id's queue from cycle at to the end of cycle e
// (pass 2), pass 2 having read the wheel up to cycle now: a server in
// service completes its request at at, then each request starts at the
// later of its arrival and the cycle the one before it completed, and
// completes, if by e. At cycle e the server is left ready instead of
// starting one, and step d takes it: at a scaling evaluation it must wait
// until scaling has counted the queue, and at any other cycle step d gives
// it the same request at the same cycle. A server left in service gets its
// wheel entry, after pass 2 if the entry could fall in a bucket not read
// yet; one left with nothing to do is free, or leaves if it was retiring.
func (b *Balancer) serveQueue(id int, now, at, e int64) {
	s, q := &b.srv[id-1], &b.sq[id-1]
	w, c0 := b.m.win, b.m.cycle
	fan := b.m.fan != nil
	for {
		if s.busy { // its request completes at at
			if fan {
				b.windowPartDone(s, at) // a part: its request at the last (fanroute.go)
			} else {
				b.resps.add(b.completed(s, at))
			}
			s.busy = false
			b.busy--
		}
		if q.n == 0 {
			break
		}
		r := q.at(0)
		start := max(r.arrival(), at)
		if start == e {
			b.ready.add(id)
			return
		}
		q.popAhead(start)
		b.queued--
		time := int64(s.speed.Cycles(r.time()))
		s.req, s.done, s.busy = r, start+time, true
		b.busy++
		b.tot.ServiceCycles += time
		b.tot.ServiceCount++
		b.waits.add(b.dispatched(r, start))
		switch {
		case !w.peaks:
		case w.byCycle:
			w.dispatched[start-c0-1]++
		default:
			w.dispatches = append(w.dispatches, start)
		}
		w.busyCycles += min(s.done, e) - start
		if s.done > e {
			if s.done-now <= b.wheel.mask {
				b.wheel.add(s.done, id) // past every bucket left to read
			} else {
				w.late = append(w.late, lateEntry{int32(id), s.done})
				w.longest = max(w.longest, time)
			}
			return
		}
		at = s.done
	}
	if s.retiring {
		b.leave(id) // its last request done
		w.liveCycles -= e - at
		if at < e {
			w.leftBefore++
		}
		return
	}
	b.free.add(id)
}

// resize returns s with length n, zeroed.
func resize(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	s = s[:n]
	clear(s)
	return s
}
