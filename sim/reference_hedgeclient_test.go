package sim_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"pgregory.net/rapid"
)

// TestReferenceMatchesModelHedgeClient runs busy configurations with
// hedging (one part or fan-out, in a fleet or behind the switch) and the client side drawn on — timeouts
// (each attempt, a hedge included, with its own deadline), retries with
// backoff, jitter and the retry budget, health checks and their refusals,
// outlier ejection, warm-up, replacement — random faults, gray and
// down/up faults, changes of the client side's settings mid-run,
// shedding (a queue of a retiring server shed too), the throttle and
// concurrency limits,
// through the model and the plain reference, event by event: a part's
// attempts timing out or erring alone while another is live, its retry
// (at most one pending, dropped when a hedge completes the part), a part
// ending for good, step a′'s order among a part's attempts.
func TestReferenceMatchesModelHedgeClient(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenBusyConfigWithin(t, sim.NewBusyLimits(10, 1500, 20, 30))
		sim.GenClientSettings(t, &cfg)
		genFanout(t, &cfg)
		genHedging(t, &cfg)
		genFanOverload(t, &cfg)
		if rapid.Bool().Draw(t, "hedgeSwitch") {
			// Behind the P/S switch (fan-out is refused there).
			cfg.Switch, cfg.Fanout, cfg.Balancers, cfg.LoadInfo = true, 1, 1, sim.LoadExact
		}
		if rapid.Bool().Draw(t, "hedgeFaults") {
			cfg.MTBF = rapid.Int64Range(1, 80).Draw(t, "hedgeMTBF")
			cfg.MTTR = rapid.Int64Range(1, 30).Draw(t, "hedgeMTTR")
		}
		var changes []sim.Change
		for _, c := range append(sim.GenClientChanges(t, cfg), sim.GenBusyChanges(t, cfg)...) {
			// Hedging routes with the policies that pick among a set: no
			// policy change; load information stays exact.
			if c.Setting != sim.SetPolicy && c.Setting != sim.SetLoadInfo {
				changes = append(changes, c)
			}
		}
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}
