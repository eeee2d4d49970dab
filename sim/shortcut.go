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
//   - runRouted (routed.go): a per-server balancer visits only the cycles
//     where something happens, and runs windows (window.go) where its
//     router's picks need not see the servers serve.
//   - skipAhead (skip.go): cycles in which nothing but arrivals can happen.
//
// The first two run a balancer's cycles apart from the model's Step, so
// they need what Step would otherwise interleave to be absent: one
// balancer (no switch), requests drawn from the generator (no trace),
// no random faults (they may strike any cycle) and no events to record;
// and they take every attempt to complete in its time at the server's
// speed, so no server may be gray and no attempt in service may be one
// that ends in error or hangs. None of them runs while the client side
// or detection is on (or has state left): deadlines, retries, probes,
// ejections and warm-ups may act in any cycle.
func (m *Model) shortcut(limit int64) {
	switch m.gate() {
	case viaNone:
		return
	case viaRouted:
		if m.runRouted(m.bal[0], limit) {
			return
		}
	case viaSaturated:
		if m.runSaturated(m.bal[0], limit) {
			return
		}
	}
	m.skipAhead(limit)
}

// via names the shortcut the gate opens.
type via uint8

const (
	viaNone      via = iota // none: every cycle is stepped
	viaSkip                 // skipAhead alone
	viaSaturated            // runSaturated, then skipAhead if it did not advance
	viaRouted               // runRouted, then skipAhead if it did not advance
)

// gate says which shortcut applies now (see shortcut).
func (m *Model) gate() via {
	cfg := &m.cfg
	if m.watching() {
		return viaNone // timeouts, retries and detection act in any cycle
	}
	if len(m.bal) != 1 || cfg.Trace != nil || cfg.MTBF != 0 || m.recordEvents {
		return viaSkip
	}
	b := m.bal[0]
	switch {
	case len(b.grays) > 0 || len(b.ends) > 0:
		return viaSkip // they serve at the plain speed, and every attempt completes
	case b.perServer:
		return viaRouted
	case cfg.QueueCap == 0 && !b.caps.Draws && b.idle.n == 0:
		return viaSaturated
	}
	return viaSkip
}
