package sim

import "slices"

// This file is detection: health checks, outlier ejection, warm-up and
// replacement. With health checks off the balancer knows at once that a
// server is down (it stops being a candidate and its attempts are
// requeued); with them on, a down server stays a candidate, refusing what
// it is given, until its probes eject it.

// detState is one server's detection record.
type detState struct {
	fails, passes int32 // consecutive failed and passed probes, as of round seen
	errRun        int32 // consecutive errors (outlier ejection)
	k             int32 // ejections (either mechanism) since its last completion, at most MaxEjections
	// seen is the balancer's count of passed rounds (cleanRounds) when
	// fails and passes were last brought up to date: every round passed
	// in bulk since then is one more pass (see probe).
	seen int32
}

// ejection is an ejected server's record: by health checks (restored by
// passed probes) or by outlier ejection (restored at cycle until).
type ejection struct {
	byHealth bool
	until    int64
}

// detOf returns server id's detection record, growing the records.
func (b *Balancer) detOf(id int) *detState {
	for len(b.det) < id {
		b.det = append(b.det, detState{seen: b.cleanRounds})
	}
	return &b.det[id-1]
}

// healthOn reports whether health checks are on: a down server is then
// not known until its probes eject it.
func (b *Balancer) healthOn() bool { return b.m.cfg.HealthInterval > 0 }

// eligible reports whether server id may be a candidate: live, not
// retiring, not ejected, not warming, and not known to be down (a server
// down since before health checks were turned on, or while they were
// off, stays known down until it comes back).
func (b *Balancer) eligible(id int) bool {
	s := &b.srv[id-1]
	if s.gone || s.retiring || b.knownDown(id) {
		return false
	}
	_, ej := b.ejected[id]
	_, warm := b.warming[id]
	return !ej && !warm
}

// knownDown reports whether the balancer knows that server id is down:
// every down server while health checks are off; while they are on, the
// servers in known.
func (b *Balancer) knownDown(id int) bool {
	return b.srv[id-1].down && (!b.healthOn() || b.known[id])
}

// holds reports whether server id has an attempt in service or queued.
func (b *Balancer) holds(id int) bool {
	return b.srv[id-1].busy || (b.perServer && b.sq[id-1].n > 0)
}

// rejoin makes server id a candidate again at cycle t if it may be one,
// holding what it holds (an ejected server may still be finishing its
// queue): its router hears what it holds.
func (b *Balancer) rejoin(id int, t int64) {
	if b.active.has(id) || !b.eligible(id) {
		return
	}
	b.candidate(id, t) // as a server holding nothing
	switch {
	case b.perServer && b.holds(id):
		b.free.remove(id)
		b.cands.addLoad(id, int32(b.load(id)))
		b.rt.holding(id, t)
	case !b.srv[id-1].busy:
		b.setIdle(id)
	}
}

// emptied is told that per-server server id holds nothing any more at
// cycle t, without a completion: it leaves if it was retiring, is free if
// it is a candidate, and rejoins if it may.
func (b *Balancer) emptied(id int, t int64) {
	switch {
	case b.srv[id-1].retiring:
		b.leave(id)
	case b.active.has(id):
		b.free.add(id)
	default:
		b.rejoin(id, t)
	}
}

// serverError counts an error of server id at cycle t in its run of
// errors, which outlier ejection reads (kept with ejection off too, so
// that turning it on mid-run sees the run as it is: the balancer then
// watches every completion, which ends the run).
func (b *Balancer) serverError(id int, t int64) {
	if b.srv[id-1].gone {
		return
	}
	b.watching = true
	d := b.detOf(id)
	d.errRun++
	E := b.m.cfg.EjectAfter
	if _, ej := b.ejected[id]; ej || E == 0 || int(d.errRun) < E {
		return
	}
	k := min(d.k+1, MaxEjections) // this ejection among its ejections since its last completion
	b.eject(id, t, false, t+b.m.cfg.ejectFor()<<(k-1))
}

// serverCompleted resets server id's run of errors and its ejection
// count: it completed an attempt with its client waiting.
func (b *Balancer) serverCompleted(id int) {
	if id <= len(b.det) {
		d := &b.det[id-1]
		d.errRun, d.k = 0, 0
	}
}

// eject takes server id out of the candidates at cycle t (by health
// checks, or until cycle until), unless more than half the live servers
// would then be ejected; it reports whether it did.
func (b *Balancer) eject(id int, t int64, byHealth bool, until int64) bool {
	if len(b.ejected)+1 > b.live/2 {
		return false
	}
	if b.ejected == nil {
		b.ejected = map[int]ejection{}
	}
	b.ejected[id] = ejection{byHealth: byHealth, until: until}
	d := b.detOf(id)
	d.errRun = 0
	d.k = min(d.k+1, MaxEjections) // either mechanism's ejections count
	b.tot.Ejections++
	b.noteOut(id, t)
	if b.active.has(id) {
		b.uncandidate(id)
		b.unsetIdle(id)
	}
	if b.m.recordEvents {
		b.emit(Eject, id, 0, Request{})
	}
	return true
}

// restore ends server id's ejection at cycle t.
func (b *Balancer) restore(id int, t int64) {
	delete(b.ejected, id)
	if !b.srv[id-1].down {
		b.outSince.drop(id)
	}
	if b.m.recordEvents {
		b.emit(Restore, id, 0, Request{})
	}
	b.rejoin(id, t)
}

// noteOut notes that server id is down or ejected from cycle t, unless it
// already was (replacement counts from the start of that stretch).
func (b *Balancer) noteOut(id int, t int64) {
	b.outSince.note(id, t)
}

// probe is the health checks of step c at cycle t: every live server, by
// id, fails (down, failing, hanging) or passes (healthy, slow).
//
// A round in which every server passes and none is ejected changes
// nothing but the counts (no failure to reset, no ejection or restore can
// follow), so it is passed in bulk: it only adds one to cleanRounds, and
// each record takes the rounds passed since its seen when it is next
// read. Invariant: a record's passes plus cleanRounds − seen is the
// passes stepping each round would have counted, and its fails are 0 if
// that difference is positive (every record exists by then: the bulk
// round makes the missing ones, as a full round would).
func (b *Balancer) probe(t int64) {
	if b.down == 0 && len(b.grays) == 0 && len(b.ejected) == 0 {
		if len(b.det) < len(b.srv) {
			b.detOf(len(b.srv))
		}
		b.cleanRounds++
		return
	}
	fall, rise := int32(b.m.cfg.healthFall()), int32(b.m.cfg.healthRise())
	for id := 1; id <= len(b.srv); id++ {
		s := &b.srv[id-1]
		if s.gone {
			continue
		}
		g := b.grays[id].gray
		d := b.detOf(id)
		if n := b.cleanRounds - d.seen; n > 0 {
			d.fails, d.passes, d.seen = 0, d.passes+n, b.cleanRounds
		}
		ej, isEj := b.ejected[id]
		if !s.down && (g == Healthy || g == Slow) {
			d.fails = 0
			d.passes++
			if isEj && ej.byHealth && d.passes >= rise {
				b.restore(id, t)
			}
			continue
		}
		d.passes = 0
		d.fails++
		if !isEj && d.fails >= fall {
			b.eject(id, t, true, 0)
		}
	}
}

// ejectionsEnd restores, by id, the servers whose outlier ejection ends at
// or before cycle t.
func (b *Balancer) ejectionsEnd(t int64) {
	var due []int
	for id, e := range b.ejected {
		if !e.byHealth && e.until <= t {
			due = append(due, id)
		}
	}
	if len(due) == 0 {
		return
	}
	slices.Sort(due)
	for _, id := range due {
		b.restore(id, t)
	}
}

// replace takes out of the pool, by id, every server down or ejected for
// ReplaceAfter cycles or more at cycle t.
func (b *Balancer) replace(t int64) {
	R := b.m.cfg.ReplaceAfter
	for _, id := range b.outSince.outFor(t, R) {
		s := &b.srv[id-1]
		b.tot.Replaced++
		b.noteReplaced(id)
		if b.m.recordEvents {
			b.emit(Replace, id, 0, Request{})
		}
		if b.active.has(id) {
			b.uncandidate(id)
			b.unsetIdle(id)
		}
		if s.down {
			s.down = false
			b.down--
		}
		if s.retiring {
			s.retiring = false
			b.retiring--
		}
		// It leaves the pool first (it is no candidate, no longer counted
		// live, nor ejected): its attempts are routed again among the
		// servers that stay.
		delete(b.ejected, id)
		b.live--
		b.takeBack(id, t)
		b.depart(id)
	}
}

// warmUps makes the warming servers whose warm-up ends at cycle t
// candidates, by id.
func (b *Balancer) warmUps(t int64) {
	var due []int
	for id, ready := range b.warming {
		if ready <= t {
			due = append(due, id)
		}
	}
	if len(due) == 0 {
		return
	}
	slices.Sort(due)
	for _, id := range due {
		delete(b.warming, id)
		if b.m.recordEvents {
			b.emit(Ready, id, 0, Request{})
		}
		b.rejoin(id, t)
	}
}

// refuse is a down server id, not yet ejected, given attempt r at cycle t
// (routed in step b, or dispatched in step d): the attempt ends in error
// at once without occupying it.
func (b *Balancer) refuse(id int, r packed, t int64) { b.erred(id, r, t, true) }

// unrefuse puts the pooled servers that refused an attempt last cycle
// back among the idle ones, at the start of cycle t.
func (b *Balancer) unrefuse() {
	for _, id := range b.refused {
		if b.active.has(id) && !b.srv[id-1].busy {
			b.setIdle(id)
		}
	}
	b.refused = b.refused[:0]
}
