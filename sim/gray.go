package sim

// Gray is a server's gray state: how the attempts dispatched to it end,
// while the balancer still sees a healthy server (unless health checks or
// ejection find it out). Its number is stored nowhere: faults are stored
// as changes.
type Gray uint8

// The gray states.
const (
	// Healthy: an attempt takes its time at the server's speed.
	Healthy Gray = iota
	// Slow: an attempt takes ⌈c·F₁₀₀ ÷ 100⌉ cycles, c its time at the
	// server's speed and F₁₀₀ the slow factor in hundredths.
	Slow
	// Failing: an attempt ends in error Config.FailTime cycles after its
	// dispatch, freeing the server.
	Failing
	// Hanging: an attempt never finishes; only the server going down ends
	// it (its request is then requeued).
	Hanging
	numGray
)

var grayNames = [numGray]string{"healthy", "slow", "failing", "hanging"}

// String returns the state's name.
func (g Gray) String() string {
	if g < numGray {
		return grayNames[g]
	}
	return "Gray(?)"
}

// outcome is how the attempt a server has in service will end: the state
// it was dispatched under, which a later gray fault does not change.
type outcome uint8

const (
	completes outcome = iota // it completes at the server's done cycle
	errs                     // it ends in error at the done cycle
	hangs                    // it never ends by itself (no done cycle)
	abandons                 // its client timed out: the server finishes abandoned work
)

// errored counts the attempt server id had in service ending in error at
// cycle t: not completed, the server free again (the caller frees it).
func (b *Balancer) errored(id int, t int64) {
	delete(b.ends, id)
	b.erred(id, b.srv[id-1].req, t, false)
}

// erred counts attempt r ending in error on server id at cycle t (at a
// failing server's done cycle, at the server going down with health
// checks on, or refused by a down server): the error, its event, the
// server's run of errors, and the retry rules (bStarted: step b of t has
// begun).
func (b *Balancer) erred(id int, r packed, t int64, bStarted bool) {
	b.tot.Errors++
	b.last.Errors++
	if b.m.recordEvents {
		b.emit(Error, id, 0, r.unpack())
	}
	b.serverError(id, t)
	b.attemptEnded(r, t, endError, bStarted)
}

// unfinished is step a at cycle t for server id, whose attempt ends
// without completing: in error, or as abandoned work nobody waits for.
func (b *Balancer) unfinished(id int, t int64) {
	if b.endsOf(id) == abandons {
		b.abandonedEnds(id, t)
		return
	}
	b.errored(id, t)
}

// hangDone is the done cycle of a hanging attempt: after any run.
const hangDone = 1 << 62

// attemptCycles returns the cycles request r takes at server s, dispatched
// now, and how it will end: at the server's speed, times the slow factor
// when the server is slow; FailTime when it is failing (an error); never
// when it is hanging.
func (b *Balancer) attemptCycles(s *server, g grayInfo, r packed) (int64, outcome) {
	c := int64(s.speed.Cycles(r.time()))
	switch g.gray {
	case Slow:
		return (c*int64(g.slow) + SpeedScale - 1) / SpeedScale, completes
	case Failing:
		return max(b.m.cfg.FailTime, 1), errs
	case Hanging:
		return 0, hangs
	}
	return c, completes
}

// grayCheck says why server id cannot take gray state g (with slow factor
// f) now, or returns "" when it can: the server must exist, and the fault
// must change its state.
func (b *Balancer) grayCheck(id int, g Gray, f Speed) string {
	switch {
	case id < 1 || id > len(b.srv) || b.srv[id-1].gone:
		return "does not exist (it was never created or has left the pool)"
	case b.grays[id] == grayInfo{g, f}:
		return "is already " + g.String()
	}
	return ""
}

// setGray gives server id gray state g (slow factor f, not 1, for Slow):
// it applies to the attempts dispatched from now on.
func (b *Balancer) setGray(id int, g Gray, f Speed) {
	if g == Healthy {
		delete(b.grays, id)
		return
	}
	if b.grays == nil {
		b.grays = map[int]grayInfo{}
	}
	b.grays[id] = grayInfo{g, f}
}

// grayInfo is a server's gray state and slow factor (hundredths, for
// Slow). The balancer keeps them beside its servers, for the servers that
// have one, rather than in them: a large pool's servers stay 40 bytes.
type grayInfo struct {
	gray Gray
	slow Speed
}

// grayOf returns server id's gray state (Healthy unless it has one).
func (b *Balancer) grayOf(id int) grayInfo { return b.grays[id] }

// serveGray is serve for a server in a gray state: the attempt takes its
// slowed time, ends in error after FailTime, or hangs; only the first
// counts in avg_service. A router that reads work hears how much later
// (or sooner) the server is done than its estimate at routing.
func (b *Balancer) serveGray(id int, r packed, t int64) {
	s := &b.srv[id-1]
	time, ends := b.attemptCycles(s, b.grays[id], r)
	s.req, s.busy = r, true
	if ends == hangs {
		s.done = hangDone // never in the wheel
	} else {
		if time > b.wheel.mask {
			b.refitWheel(time)
		}
		s.done = t + time
		b.wheel.add(s.done, id)
	}
	if ends != completes {
		if b.ends == nil {
			b.ends = map[int]outcome{}
		}
		b.ends[id] = ends
	}
	if b.grayStart == nil {
		b.grayStart = map[int][2]int64{}
	}
	b.grayStart[id] = [2]int64{t, s.done}
	if f := b.fleet; f != nil && f.v.hearsServe {
		f.v.served(id) // local counts' least-work reads who serves whom
	}
	b.busy++
	if ends == completes { // an attempt that ends in error or hangs counts none
		b.tot.ServiceCycles += time
		b.tot.ServiceCount++
	}
	wait := b.dispatched(r, t)
	b.waits.add(wait)
	if b.caps.Reads == ReadsWork {
		b.rt.(workPlacer).reschedule(id, s.done-(t+int64(s.speed.Cycles(r.time()))))
	}
	if b.m.recordEvents {
		b.emit(Dispatch, id, wait, r.unpack())
	}
}

// depart marks server id gone from the pool: it no longer counts among the
// gray, ejected, warming or down-and-out servers, and its queue's buffer
// (per-server) goes with it, whichever way it left.
func (b *Balancer) depart(id int) {
	b.srv[id-1].gone = true
	b.left++
	if b.perServer {
		b.sq[id-1] = fifo{}
	}
	delete(b.grays, id)
	delete(b.ejected, id)
	delete(b.warming, id)
	b.outSince.drop(id)
	delete(b.known, id)
}

// endsOf returns how server id's attempt in service ends: completes,
// unless it was dispatched to a failing or hanging server.
func (b *Balancer) endsOf(id int) outcome { return b.ends[id] }

// started returns the cycle busy server id started its attempt in service:
// noted by serveGray if it was dispatched gray, else its done cycle less
// its time at the server's speed.
func (b *Balancer) started(id int) int64 {
	s := &b.srv[id-1]
	if e, ok := b.grayStart[id]; ok && e[1] == s.done {
		return e[0]
	}
	return s.done - int64(s.speed.Cycles(s.req.time()))
}
