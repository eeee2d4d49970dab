package sim_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"pgregory.net/rapid"
)

// TestReferenceMatchesModelHedgeSwitch runs busy per-server
// configurations with hedging behind the P/S switch (one part a request,
// each balancer its own budget) or in a fleet (1–3 balancers, exact,
// local or periodic load information, fan-out up to 4; each hedge draws
// its balancer), beside the overload controls (shedding, the throttle, a
// concurrency limit: each balancer's own), with changes of hedge-after mid-run (0 → D, D → 0 and D
// → D′, hedging starting off in a third of the runs) among the busy
// changes and faults, through the model and the plain reference, event
// by event.
func TestReferenceMatchesModelHedgeSwitch(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenBusyConfigWithin(t, sim.NewBusyLimits(10, 1500, 20, 30))
		genFanout(t, &cfg)
		genHedging(t, &cfg)
		genFanOverload(t, &cfg)
		if rapid.Bool().Draw(t, "switch") {
			cfg.Switch, cfg.Fanout, cfg.Balancers, cfg.LoadInfo = true, 1, 1, sim.LoadExact
		} else {
			cfg.Balancers = rapid.IntRange(1, 3).Draw(t, "hedgeBalancers")
			cfg.LoadInfo = rapid.SampledFrom([]sim.LoadInfo{sim.LoadExact, sim.LoadLocal, 1, 7}).Draw(t, "hedgeLoadInfo")
			cfg.Fanout = rapid.IntRange(1, 4).Draw(t, "hedgeFanout")
		}
		if rapid.IntRange(0, 2).Draw(t, "hedgeOffAtStart") == 0 {
			cfg.HedgeAfter = 0
			if rapid.Bool().Draw(t, "hedgeParamsOff") {
				cfg.HedgeMax, cfg.HedgeBudget = 0, 0 // the hedging state is made at the change
			}
		}
		var changes []sim.Change
		for _, c := range sim.GenBusyChanges(t, cfg) {
			if c.Setting != sim.SetPolicy {
				changes = append(changes, c)
			}
		}
		for range rapid.IntRange(1, 3).Draw(t, "hedgeChanges") {
			d := int64(0)
			if rapid.IntRange(0, 2).Draw(t, "hedgeChangeOff") != 0 {
				d = rapid.Int64Range(1, 40).Draw(t, "hedgeChangeD")
			}
			changes = append(changes, sim.Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "hedgeChangeCycle"), Setting: sim.SetHedgeAfter, Value: d})
		}
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}

// TestReferenceMatchesModelHedgeAfterClientOff runs busy per-server
// configurations that start with the client side on (timeouts, retries,
// health checks, ejection, warm-up, replacement), turn all of it off by
// changes, and then turn hedging on by a change (one part or fan-out, in
// a fleet or behind the switch): the model makes hedging's state with
// what the client side left (requests waiting to retry, their retries so
// far, abandoned work), the reference hedges its requests as parts from
// the start; event by event.
func TestReferenceMatchesModelHedgeAfterClientOff(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenBusyConfigWithin(t, sim.NewBusyLimits(10, 1500, 20, 30))
		cfg.Queues, cfg.Policy = sim.PerServer, rapid.SampledFrom(sim.FanoutPolicies()).Draw(t, "policy")
		cfg.CodelTarget, cfg.Throttle, cfg.ConcurrencyLimit, cfg.MTBF, cfg.MTTR = 0, 0, 0, 0, 0
		cfg.EjectAfter = 0 // see TestReferenceMatchesModelFanout
		if rapid.Bool().Draw(t, "switch") {
			cfg.Switch, cfg.Fanout, cfg.Balancers, cfg.LoadInfo = true, 1, 1, sim.LoadExact
		} else {
			cfg.Switch = false
			cfg.Balancers = rapid.IntRange(1, 3).Draw(t, "hedgeBalancers")
			cfg.LoadInfo = rapid.SampledFrom([]sim.LoadInfo{sim.LoadExact, sim.LoadLocal, 1, 7}).Draw(t, "hedgeLoadInfo")
			cfg.Fanout = rapid.IntRange(1, 3).Draw(t, "hedgeFanout")
		}
		sim.GenClientSettings(t, &cfg)
		cfg.EjectAfter, cfg.RetryBudget = 0, 0
		cfg.HedgeAfter, cfg.HedgeMax, cfg.HedgeBudget = 0, 0, 0
		off := rapid.Int64Range(1, max(1, cfg.Cycles/2)).Draw(t, "clientOffAt")
		changes := []sim.Change{
			{Cycle: off, Setting: sim.SetTimeout}, {Cycle: off, Setting: sim.SetRetries}, {Cycle: off, Setting: sim.SetBackoff},
			{Cycle: off, Setting: sim.SetJitter}, {Cycle: off, Setting: sim.SetHealthInterval}, {Cycle: off, Setting: sim.SetProvisionDelay},
			{Cycle: off, Setting: sim.SetReplaceAfter},
			{Cycle: rapid.Int64Range(off, min(cfg.Cycles, off+5)).Draw(t, "hedgeOnAt"), Setting: sim.SetHedgeAfter, Value: rapid.Int64Range(1, 10).Draw(t, "hedgeOn")},
		}
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}
