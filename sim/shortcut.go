package sim

// Run steps the model to the configured last cycle, skipping quiet
// cycles (see RunTo).
func (m *Model) Run() { m.RunTo(m.cfg.Cycles) }

// RunTo steps the model until Cycle() is cycle (or the last cycle). It
// gives exactly the state that calling Step that many times gives, but
// takes the cycles before each step through the shortcuts where they apply
// (see shortcut). Events and Last() then describe only the last cycle,
// which is always stepped. Built WithPlain, it steps every cycle.
func (m *Model) RunTo(cycle int64) {
	cycle = min(cycle, m.cfg.Cycles)
	for m.cycle < cycle && m.stopped == nil {
		if !m.plain {
			m.shortcut(cycle)
		}
		m.Step()
	}
}

// WithPlain makes RunTo step every cycle through Step alone, with none of
// the shortcuts: the plain path they are tested against.
func WithPlain() Option { return func(m *Model) { m.plain = true } }

// shortcut is the one gate to RunTo's shortcuts: it advances over cycles
// after the current one and before limit, leaving the state exactly as
// stepping them would, or leaves the model as it is. Each shortcut keeps
// one invariant, stated in its doc comment:
//
//   - runSaturated (saturated.go): a pooled queue so long that every
//     request dispatched in a stretch was queued before it, so arrivals
//     and dispatches can run apart; turnover (turnover.go) within it.
//   - runPooled (pooled.go): a pooled balancer visits only the cycles
//     where something happens, and takes saturated stretches where they
//     apply.
//   - runRouted (routed.go): a per-server balancer visits only the cycles
//     where something happens, and runs windows (window.go) where its
//     router's picks need not see the servers serve.
//   - skipAhead (skip.go): cycles in which nothing but arrivals can happen,
//     up to the next act that each mechanism declares (nextact.go).
//
// While no scaling evaluation can act (scaleFixed), all of them pass the
// evaluations as if there were none, and nextScale is set after them.
// With a queue discipline or shedding in force, queuerules.go says which
// of them keep step d's rules, and how.
//
// The first three run a balancer's cycles apart from the model's Step, so
// they need what Step would otherwise interleave to be absent: one
// balancer (no switch), requests drawn from the generator (no trace),
// no random faults (they may strike any cycle) and no events to record;
// and they take every attempt to complete in its time at the server's
// speed, so no server may be gray and no attempt in service may be one
// that ends in error or hangs.
//
// While the client side or detection is on (or has state left), only
// skipAhead and the cycle loops of runRouted and runPooled run, which
// tell the client side of every arrival, placement and completion as
// Step does, and only while the watch is quiet (quietWatch) and up to the
// watch's next act (watchLimit): the next deadline, retry or probe round,
// which Step takes.
func (m *Model) shortcut(limit int64) {
	g := m.gate()
	if g != viaNone && m.watching() {
		limit = min(limit, m.watchLimit())
		if limit <= m.cycle+1 {
			return
		}
	}
	if g == viaNone {
		return
	}
	if m.scaleNext(false) == never {
		// No evaluation before the shortcut's end can act: it passes
		// them all, and the next one is the first multiple of the
		// cooldown after where it stops.
		m.nextScale = never
		defer m.resyncScale()
	}
	switch g {
	case viaRouted:
		if m.runRouted(m.bal[0], limit) {
			return
		}
	case viaSaturated, viaPooled:
		if m.runPooled(m.bal[0], limit) { // saturated stretches where they apply
			return
		}
	}
	m.skipAhead(limit)
}

// scaleFixed reports whether no scaling evaluation can act while the
// pools stay as they are, whatever their queues (scaleActs): every pool
// is at its most servers and at its fewest active ones (or scales down at
// no queue), none retiring (a leaving server would open room to grow)
// and none warming (a ready one would be active). Within a shortcut only
// scaling and leaving change a pool, so it holds to the shortcut's end.
func (m *Model) scaleFixed() bool {
	cfg := &m.cfg
	for _, b := range m.bal {
		if b.live < cfg.MaxServers || b.retiring != 0 || len(b.warming) != 0 ||
			(b.active.n > cfg.MinServers && cfg.ScaleDown != 0) {
			return false
		}
	}
	return true
}

// resyncScale sets nextScale after a shortcut that passed the scaling
// evaluations (scaleFixed): the first multiple of the cooldown after the
// current cycle, as stepping leaves it after every cycle.
func (m *Model) resyncScale() {
	k := m.cfg.Cooldown
	m.nextScale = (m.cycle/k + 1) * k
}

// via names the shortcut the gate opens.
type via uint8

const (
	viaNone      via = iota // none: every cycle is stepped
	viaSkip                 // skipAhead alone
	viaSaturated            // runPooled from a saturated stretch, then skipAhead if it did not advance
	viaRouted               // runRouted, then skipAhead if it did not advance
	viaPooled               // runPooled, then skipAhead if it did not advance
)

// denseCompletions reports whether b's busy servers complete, on average,
// every fourth cycle or more often (busy ≥ a quarter of the mean service),
// or the shape's mean is not at hand: the shortcut then tries a saturated
// stretch first.
func (b *Balancer) denseCompletions() bool {
	cfg := &b.m.cfg
	mean := int64(cfg.MeanService)
	switch cfg.Service {
	case Uniform:
		mean = int64(cfg.TaskMin+cfg.TaskMax) / 2
	case Bimodal, Empirical:
		return true
	}
	return 4*int64(b.busy) >= mean
}

// gate says which shortcut applies now (see shortcut).
func (m *Model) gate() via {
	cfg := &m.cfg
	watching := m.watching()
	if watching && !m.quietWatch() {
		return viaNone // timeouts, retries and detection may act in any cycle
	}
	if m.fan != nil && m.fan.hedge != nil && !m.hedgeSkips() {
		return viaNone // hedges fall due in any cycle (hedgeskip.go says which skipAhead may pass)
	}
	b := m.bal[0]
	if f := b.fleet; f != nil && f.stepsEveryCycle() {
		return viaNone
	}
	if m.ruledSkipsOnly(watching) {
		return viaSkip // a discipline or shedding: queuerules.go says which shortcuts keep step d's rules
	}
	if len(m.bal) != 1 || cfg.Trace != nil || cfg.MTBF != 0 || m.recordEvents || m.fan != nil && !m.fanRouted() {
		return viaSkip // fan-out: the per-server shortcuts take its parts where fanRouted says
	}
	if cfg.Autoscaler == TargetTracking {
		// Its metric is sampled at step e of every cycle: skipAhead's
		// stretches hold it still between arrivals, and sample it in
		// closed form; the saturated and routed stretches serve and
		// dispatch inside, and evaluate only the queue rule.
		return viaSkip
	}
	switch {
	case len(b.grays) > 0 || len(b.ends) > 0:
		return viaSkip // they serve at the plain speed, and every attempt completes
	case b.th != nil && m.fan != nil:
		return viaSkip // fan-out with the throttle: skipAhead alone (throttleskip.go)
	case b.perServer:
		return viaRouted
	case b.saturable():
		return viaSaturated // it admits and serves apart from the client side
	}
	return viaPooled
}

// quietWatch reports whether the client side and detection can act only
// at the cycles watchLimit names: no server is down, gray, ejected,
// warming, out or refusing, none can start warming (no provision delay),
// and no attempt in service ends otherwise than by completing. Then no
// attempt can end in error, a probe round passes every server in bulk
// (probe), and nothing is due at the start of a cycle (startWatch),
// ejections end or servers are replaced (detect).
func (m *Model) quietWatch() bool {
	if m.cfg.ProvisionDelay != 0 {
		return false
	}
	for _, b := range m.bal {
		if b.down != 0 || len(b.grays) != 0 || len(b.ends) != 0 || len(b.ejected) != 0 ||
			len(b.warming) != 0 || b.outSince.len() != 0 || len(b.refused) != 0 {
			return false
		}
	}
	return true
}

// watchLimit returns the first cycle after the current one at which the
// client side or detection may act while quietWatch holds: the next
// deadline of an attempt out (or of one arriving after the current
// cycle, the timeout after it), the next retry's arrival, the next probe
// round.
func (m *Model) watchLimit() int64 {
	t := m.cycle + 1
	limit := m.cfg.Cycles + 1
	if T := m.cfg.Timeout; T > 0 {
		limit = min(limit, t+T)
	}
	if I := m.cfg.HealthInterval; I > 0 {
		limit = min(limit, (t+I-1)/I*I)
	}
	for _, b := range m.bal {
		c := b.cl
		if c == nil {
			continue
		}
		if d := c.nextDue(); d > 0 {
			limit = min(limit, d)
		}
		if len(c.retries) > 0 {
			limit = min(limit, c.retries[0].at)
		}
	}
	return limit
}
