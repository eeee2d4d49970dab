package sim

// Shedding (Facebook's controlled delay): at step d, just before a queue
// hands out its first attempt of the cycle, every attempt that has waited
// in it longer than its limit is shed, in queue order: it ends in error
// at once (counted shed and in errors), and the client's retry rules
// apply. The limit is codel-target M while the queue is standing, the
// codel interval N otherwise. The lobby sheds nothing.

// shedOld removes, in queue order, every request that joined the queue
// before cycle cut, appending each to out, at cycle t; it returns out and
// the places it looked at. The requests pushFront put at the head (front)
// may have joined in any order; from place front on the queue is in
// joined order, so it looks at front + shed + 1 places at most: shedding
// costs what it sheds, never a scan of the queue.
func (q *fifo) shedOld(cut, t int64, out []packed) ([]packed, int) {
	if q.keepsAll(cut) {
		return out, 1
	}
	f := q.front
	v := f // the body's old requests are places f … v−1
	for v < q.n && q.joined(v) < cut {
		v++
	}
	steps := v + 1
	shedFront := 0
	for i := range f {
		if q.joined(i) < cut {
			out = append(out, q.at(i))
			shedFront++
		}
	}
	for i := f; i < v; i++ {
		out = append(out, q.at(i))
	}
	k := shedFront + v - f
	if k == 0 {
		return out, steps
	}
	// The head's requests that stay move to just before place v, in
	// their order; places 0 … k−1 then go.
	w := v
	for i := f - 1; i >= 0; i-- {
		if q.joined(i) < cut {
			continue
		}
		w--
		if w != i {
			q.move(i, w)
		}
	}
	for range k {
		q.popFront(t)
	}
	q.front = f - shedFront
	return out, steps
}

// shedding reports whether shedding is on.
func (m *Model) shedding() bool { return m.cfg.CodelTarget > 0 }

// shedLimit returns queue q's limit at step d of cycle t: M while it is
// standing, N otherwise (one read of its empty history).
func (m *Model) shedLimit(q *fifo, t int64) int64 {
	n := m.codelInterval()
	if q.standing(t, n) {
		return m.cfg.CodelTarget
	}
	return n
}

// shed is shedding at step d of cycle t for the central queue (id 0) or
// server id's queue, whose server is idle and about to take an attempt.
func (b *Balancer) shed(id int, t int64) {
	q := &b.queue
	if id != 0 {
		q = &b.sq[id-1]
	}
	out, steps := q.shedOld(t-b.m.shedLimit(q, t), t, b.shedBuf[:0])
	b.shedSteps += int64(steps)
	b.shedCalls++
	if len(out) == 0 {
		return
	}
	b.shedBuf = out[:0]
	if b.m.fan != nil && id != 0 {
		b.shedParts(id, out, t) // an ending may cancel a sibling shed with it
		return
	}
	for j, r := range out {
		if id != 0 {
			b.unheld(id, r, q.n+len(out)-1-j, t)
		}
		b.shedOne(id, r, t)
	}
	if id != 0 && q.n == 0 {
		b.ready.remove(id)
		b.emptied(id, t) // the server stays idle: free, or it leaves or rejoins
	}
}

// shedOne ends attempt r, shed from the central queue (id 0) or server
// id's at step d of cycle t: counted shed and in errors, the client's
// retry rules apply.
func (b *Balancer) shedOne(id int, r packed, t int64) {
	b.tot.Shed++
	b.last.Shed++
	b.tot.Errors++
	b.last.Errors++
	if b.m.recordEvents {
		b.emit(Shed, id, 0, r.unpack())
	}
	b.attemptEnded(r, t, endError, true)
}

// unheld counts attempt r as no longer held by server id's queue at cycle
// t (per-server), rest attempts still queued there: its load, and the
// router's hearing of it.
func (b *Balancer) unheld(id int, r packed, rest int, t int64) {
	b.queued--
	b.hold(id, r, -1)
	if b.active.has(id) {
		b.cands.addLoad(id, -1)
		if b.caps.Hears {
			b.rt.left(id, r, t, rest == 0 && !b.srv[id-1].busy)
		}
	}
}
