package sim

// This file says how far RunTo's shortcuts (see shortcut) take a run with
// a concurrency limit (conclimit.go) on. A limit acts at two moments
// only, both inside Step's own functions, which the shortcuts call as
// Step does:
//
//   - a refusal, at routing (route, admitLimited, fanAdmit, hedges):
//     it reads the attempts in flight at the server (load: its queue
//     plus the attempt in service) or at the pool (its queue plus busy
//     servers) at that moment;
//   - an adaptive limit's move, at step a (workEach, workParts, work):
//     it reads the same count just before the ending, and moves the
//     ending server's limit (pooled: the pool's) alone.
//
// skipAhead passes only cycles in which nothing but arrivals happens, and
// admits them through Step's admit while no server could take one: each
// check then reads the count stepping reads. The per-server cycle loop
// (routeCycles) visits every cycle with an arrival or an ending and runs
// them through route and workEach; its two early hand-outs keep every
// count the limit reads: a server that completes and takes its next
// queued attempt at once (workEach, early) holds one attempt fewer
// either way, and it samples before it takes it, as step a does; an
// arrival routed to an idle server goes into service (serveNow) after
// its check, and counts one either way. A server's limit moves only with
// its own endings, so the order of the servers' samples within a cycle
// (id order, kept all the same) changes nothing. With fan-out, the loop
// keeps every part queued until step d (partsQueued): a later part's
// refusal ends its request, and cancels the parts placed before it as
// stepping finds them, queued.
//
// What stays gated off, and why:
//
//   - windows (window.go): they route a stretch's arrivals before any of
//     its completions, so the count a check would read is not known at
//     routing; the loop takes those policies' cycles instead (runRouted).
//   - the pooled saturated stretch (saturated.go): it admits a stretch's
//     arrivals before serving it, for the same reason; skipAhead takes
//     the pool's quiet cycles instead (gate).
//   - retries (limitStepped): a refusal is an error, and its retry may
//     fall due inside a stretch whose end the client side fixed before
//     it (watchLimit); and hedging, whose hedges' refusals were not tested
//     against stepping in the shortcuts.

// limitStepped reports whether a run with a concurrency limit on steps
// every cycle (see above): with retries, or with hedging.
func (m *Model) limitStepped() bool {
	return m.cfg.Retries > 0 || m.fan != nil && m.fan.hedge != nil
}
