package sim

import "fmt"

// This file is `--set hedge-after`: a change of hedging's delay D applies
// to the parts first sent from its cycle on; a part keeps the D in force
// at its first sending (0: no hedges), so turning hedging off leaves the
// hedges of parts sent before due as they were.
//
// A run keeps hedging's state (the hedge generator, the budget's window,
// each request's attempt slots) from cycle 0 when it starts with hedging
// on, or with --hedge-max or --hedge-budget given where hedging could be
// on (the budget's window then counts the parts first sent from cycle 0). A run that starts without
// it makes it when a change first turns hedging on: the requests admitted
// before keep their keys (one attempt a part: they are never hedged) and
// the later ones are keyed with room for their hedges (fanState.baseID);
// with one part a request, every request in flight then gets its record,
// where its attempt is live (or none while it waits to retry), with its
// retries so far: the client side and faults may be on at the change.

// hedgingFromStart reports whether a run of cfg keeps hedging's state
// from cycle 0: hedging is on, or hedge-max or hedge-budget is given in
// a run that could hedge from the start.
func hedgingFromStart(cfg *Config) bool {
	if cfg.HedgeAfter > 0 {
		return true
	}
	if cfg.HedgeMax == 0 && cfg.HedgeBudget == 0 {
		return false
	}
	on := *cfg
	on.HedgeAfter = 1
	return on.crossCheck(true) == nil
}

// startHedging makes hedging's state at a change that turns hedging on in
// a run without it (between cycles).
func (m *Model) startHedging() {
	f := m.fan
	if f == nil {
		f = makeFanState(&m.cfg)
		m.fan = f
		for _, b := range m.bal {
			b.noteInFlight(f)
		}
	}
	f.baseID, f.baseKey = m.lastID, m.lastID*int64(f.k)
	f.a = 1 + max(m.cfg.HedgeMax, 1)
	f.off = f.baseKey - f.baseID*int64(f.k*f.a)
	f.reqs.each(func(_ int64, req *fanReq) {
		at := make([]int32, f.k*f.a)
		for j, w := range req.at {
			at[j*f.a] = w
		}
		req.at = at
		req.hedgeReq = &hedgeReq{sent: make([]int64, f.k*f.a)}
	})
	f.hedge = newHedgeState(&m.cfg)
}

// noteInFlight records, with one part a request, every request of b in
// flight (fan-out's records, f): where its attempt is live (queued at a
// server or in the lobby, or in service with its client waiting), or
// none while it waits to retry; and its retries so far.
func (b *Balancer) noteInFlight(f *fanState) {
	note := func(id int64, at int32) {
		req := f.reqs.get(id)
		if req == nil {
			req = &fanReq{left: 1, at: make([]int32, 1)}
			f.reqs.put(id, req)
			f.live[b.index]++
		}
		if at != 0 {
			req.at[0] = at
		}
	}
	for s := 1; b.perServer && s <= len(b.srv); s++ {
		q := &b.sq[s-1]
		for i := range q.Len() {
			note(q.at(i).id, int32(b.idOf(s)))
		}
		if sv := &b.srv[s-1]; sv.busy && b.endsOf(s) != abandons {
			note(sv.req.id, int32(b.idOf(s)))
		}
	}
	for i := range b.lobby.Len() {
		note(b.lobby.at(i).id, lobbyAt)
	}
	if c := b.cl; c != nil {
		for id, fl := range c.flights {
			if fl.waiting && !fl.ended {
				note(id, 0)
			}
			if req := f.reqs.get(id); req != nil {
				req.tries = int32(fl.tries)
			}
		}
	}
}

// budgetLate refuses changes that turn hedging on in a run of cfg with a
// hedge budget but without hedging's state (stateless: its start settings
// refuse hedging), whose budget window would miss the parts first sent
// before the change.
func budgetLate(cfg *Config, stateless bool, changes []Change) error {
	if cfg.HedgeBudget == 0 || !stateless {
		return nil
	}
	for _, c := range changes {
		if c.Setting == SetHedgeAfter && c.Value > 0 {
			return fmt.Errorf("change %v: %w", c, &FieldError{Field: "hedge-budget", Value: cfg.HedgeBudget.String(),
				Allowed: "a change may turn hedging on under a budget only in a run that could hedge from its start (the budget counts the parts sent from cycle 0): start without what hedging does not combine with, or drop --hedge-budget"})
		}
	}
	return nil
}
