package sim

import "math/bits"

// targetScaler is the arithmetic of the target-tracking autoscaler for one
// balancer (the Horizontal Pod Autoscaler's algorithm, in fixed point with
// 6 decimals so that every platform decides alike): the samples of the
// period running, and the raw proposals of the stabilisation window.
type targetScaler struct {
	// sumHi:sumLo is Σv over the cycles sampled since the last evaluation,
	// v = ⌊10⁶·num ÷ den⌋ each (128 bits: P ≤ 10⁶ values of up to 2⁶⁴).
	sumHi, sumLo uint64
	// window holds, oldest first, the evaluations of the last
	// MaxScaleDownWindow cycles that no later one matches or exceeds:
	// their proposals strictly decrease, so the largest in any window
	// t − W + 1 … t is its first member there. A window that widens by
	// --set thus still finds every evaluation it covers.
	window []proposalAt
}

// proposalAt is one evaluation's raw proposal (after the tolerance rule,
// before the rate limit and the clamp) and its cycle.
type proposalAt struct{ cycle, proposal int64 }

// scaleRule is what one evaluation reads: the period P, the target X and
// the tolerance in millionths, the window W in cycles, and the pool's
// bounds.
type scaleRule struct {
	period, target6, tol6, window int64
	min, max                      int64
}

// sample adds one cycle's value ⌊10⁶·num ÷ den⌋ (0 when den is 0).
func (a *targetScaler) sample(num, den int64) { a.sampleCycles(num, den, 1) }

// sampleCycles adds n cycles' samples at once, each of value
// ⌊10⁶·num ÷ den⌋ (0 when den is 0): n·v, exact in 128 bits (n ≤ P ≤
// 10⁶ between evaluations), as n calls of sample would add.
func (a *targetScaler) sampleCycles(num, den, n int64) {
	if den <= 0 || num <= 0 || n <= 0 {
		return
	}
	hi, lo := bits.Mul64(uint64(num), DecimalScale)
	v, _ := bits.Div64(hi%uint64(den), lo, uint64(den)) // hi < den: num·10⁶ ÷ den < 2⁶⁴ for the counts a run holds
	hi, lo = bits.Mul64(v, uint64(n))
	var c uint64
	a.sumLo, c = bits.Add64(a.sumLo, lo, 0)
	a.sumHi += hi + c
}

// mean takes m₆ = ⌊Σv ÷ P⌋ and starts the next period.
func (a *targetScaler) mean(p int64) int64 {
	m, _ := bits.Div64(a.sumHi%uint64(p), a.sumLo, uint64(p))
	a.sumHi, a.sumLo = 0, 0
	return int64(min(m, 1<<62))
}

// decide is one evaluation at cycle t with S servers counted (active and
// warming): it returns the raw proposal, which the window keeps, and the
// size the pool moves to (the rate limit, the window and the clamp
// applied).
func (a *targetScaler) decide(t, s int64, r scaleRule) (proposal, desired int64) {
	m6 := a.mean(r.period)
	proposal = s
	if !withinTolerance(m6, r.target6, r.tol6) {
		proposal = ceilMulDiv(s, m6, r.target6)
	}
	a.remember(t, proposal)
	switch {
	case proposal > s:
		desired = min(proposal, s+max(4, s))
	case proposal < s:
		desired = min(s, a.highestSince(min(t, t-r.window+1)))
	default:
		desired = s
	}
	return proposal, max(r.min, min(desired, r.max))
}

// remember keeps proposal, made at cycle t: it drops the evaluations
// before any window can reach (t − MaxScaleDownWindow + 1) and those it
// matches or exceeds.
func (a *targetScaler) remember(t, proposal int64) {
	from := t - MaxScaleDownWindow + 1
	i := 0
	for i < len(a.window) && a.window[i].cycle < from {
		i++
	}
	a.window = append(a.window[:0], a.window[i:]...)
	for n := len(a.window); n > 0 && a.window[n-1].proposal <= proposal; n-- {
		a.window = a.window[:n-1]
	}
	a.window = append(a.window, proposalAt{t, proposal})
}

// highestSince returns the largest proposal of the evaluations at cycles
// from on (the last one, made now, is always among them).
func (a *targetScaler) highestSince(from int64) int64 {
	for _, e := range a.window {
		if e.cycle >= from {
			return e.proposal
		}
	}
	return 0
}

// withinTolerance reports |⌊10⁶·m₆ ÷ X₆⌋ − 10⁶| ≤ tol₆, exactly.
func withinTolerance(m6, x6, tol6 int64) bool {
	hi, lo := bits.Mul64(uint64(m6), DecimalScale)
	if hi >= uint64(x6) {
		return false // the ratio is beyond 2⁶⁴: far out
	}
	q, _ := bits.Div64(hi, lo, uint64(x6))
	if q > 1<<62 {
		return false
	}
	d := int64(q) - DecimalScale
	return max(d, -d) <= tol6
}

// ceilMulDiv is ⌈s·m ÷ x⌉ in 128-bit integers, capped at 2⁶² (beyond any
// pool).
func ceilMulDiv(s, m, x int64) int64 {
	hi, lo := bits.Mul64(uint64(s), uint64(m))
	if hi >= uint64(x) {
		return 1 << 62
	}
	q, rem := bits.Div64(hi, lo, uint64(x))
	if rem != 0 {
		q++
	}
	return int64(min(q, 1<<62))
}

// targetStep is step c under target tracking: at every multiple of the
// period, each balancer evaluates and moves its pool.
func (m *Model) targetStep(t int64) {
	if t%m.cfg.scalePeriod() != 0 {
		return
	}
	for _, b := range m.bal {
		b.evaluateTarget(t)
	}
}

// targetSample is target tracking's part of step e: each balancer's
// metric this cycle.
func (m *Model) targetSample() { m.targetSampleCycles(1) }

// targetSampleCycles is step e's sample of n cycles in which the pools,
// the busy servers and the queues stay as they are now (a shortcut's
// quiet stretch): each balancer's metric, n times, in closed form.
func (m *Model) targetSampleCycles(n int64) {
	for _, b := range m.bal {
		if b.target == nil {
			b.target = &targetScaler{}
		}
		num, den := b.targetMetric()
		b.target.sampleCycles(num, den, n)
	}
}

// targetNext returns the next cycle after the current one at which
// target tracking evaluates: the next multiple of the period.
func (m *Model) targetNext() int64 {
	p := m.cfg.scalePeriod()
	return (m.cycle/p + 1) * p
}

// targetMetric returns the metric's numerator and denominator now: busy
// active servers ÷ active (0 with none), or queued (and busy active)
// work ÷ max(1, active).
func (b *Balancer) targetMetric() (num, den int64) {
	active := int64(b.active.n)
	busy := int64(b.busy)
	if b.retiring != 0 || b.down != 0 || len(b.ejected) != 0 || len(b.warming) != 0 {
		// Some busy server may not be active: count them one by one.
		// Otherwise every busy server is active (the pool's only servers
		// out of the active set are retiring, down, ejected or warming).
		busy = 0
		for i := b.firstLive; i < len(b.srv); i++ {
			if s := &b.srv[i]; !s.gone && s.busy && b.active.has(i+1) {
				busy++
			}
		}
	}
	switch b.m.cfg.ScaleMetric {
	case MetricInflight:
		return int64(b.queueLen()) + busy, max(1, active)
	case MetricQueue:
		return int64(b.queueLen()), max(1, active)
	}
	return busy, active
}

// targetCount returns S: live servers neither retiring, ejected nor known
// down (warming ones included).
func (b *Balancer) targetCount() int64 {
	if b.down == 0 && len(b.ejected) == 0 {
		return int64(b.live - b.retiring) // no server is down or ejected
	}
	n := int64(0)
	for i := b.firstLive; i < len(b.srv); i++ {
		s, id := &b.srv[i], i+1
		if s.gone || s.retiring || b.knownDown(id) {
			continue
		}
		if _, out := b.ejected[id]; out {
			continue
		}
		n++
	}
	return n
}

// evaluateTarget is one evaluation at cycle t: the pool grows by up to
// desired − S servers (no more than max-servers live), or shrinks by
// S − desired, warming servers first (highest id), then as the queue rule
// removes one.
func (b *Balancer) evaluateTarget(t int64) {
	cfg := &b.m.cfg
	if b.target == nil {
		b.target = &targetScaler{}
	}
	s := b.targetCount()
	_, desired := b.target.decide(t, s, scaleRule{period: cfg.scalePeriod(), target6: cfg.scaleTarget(), tol6: cfg.scaleTolerance(),
		window: cfg.scaleDownWindow(), min: int64(cfg.MinServers), max: int64(cfg.MaxServers)})
	switch {
	case desired > s:
		n := max(0, min(desired-s, int64(cfg.MaxServers-b.live)))
		for range n {
			b.scaleUp()
		}
		b.last.Scale = int(n)
	case desired < s:
		n := 0
		for range s - desired {
			if !b.removeWarming() {
				if b.active.n == 0 {
					break // nothing left to remove (S counted none other)
				}
				b.scaleDownOne()
			}
			n++
		}
		b.last.Scale = -n
	}
}

// removeWarming takes the warming server with the highest id out of the
// pool, and reports whether there was one.
func (b *Balancer) removeWarming() bool {
	id := 0
	for w := range b.warming {
		id = max(id, w)
	}
	if id == 0 {
		return false
	}
	b.tot.ScaleDowns++
	if s := &b.srv[id-1]; s.down {
		s.down = false
		b.down--
		b.outSince.drop(id)
	}
	b.depart(id)
	b.live--
	if b.m.recordEvents {
		b.emit(ScaleDown, id, 0, Request{})
	}
	return true
}

// digestTarget hashes target tracking's state: the period's sum and the
// window's proposals.
func (b *Balancer) digestTarget(put func(int64)) {
	a := b.target
	if a == nil {
		put(0)
		return
	}
	put(int64(a.sumHi))
	put(int64(a.sumLo))
	put(int64(len(a.window)))
	for _, e := range a.window {
		put(e.cycle)
		put(e.proposal)
	}
}
