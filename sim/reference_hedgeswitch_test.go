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
// changes and faults, in half the runs with the client side on (and its
// changes) and random faults, so that a change turns hedging on beside
// them, through the model and the plain reference, event by event.
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
		client := rapid.Bool().Draw(t, "hedgeClient")
		if client {
			// The client side on (no concurrency limit behind the
			// switch: see TestReferenceMatchesModelHedgeClient),
			// random faults in some runs; the changes turn hedging on
			// with it on.
			sim.GenClientSettings(t, &cfg)
			if cfg.Switch {
				cfg.ConcurrencyLimit, cfg.LimitInitial, cfg.LimitMin, cfg.LimitMax, cfg.LimitLatency = 0, 0, 0, 0, 0
			}
			if rapid.Bool().Draw(t, "hedgeFaults") {
				cfg.MTBF = rapid.Int64Range(1, 80).Draw(t, "hedgeMTBF")
				cfg.MTTR = rapid.Int64Range(1, 30).Draw(t, "hedgeMTTR")
			}
		}
		if rapid.IntRange(0, 2).Draw(t, "hedgeOffAtStart") == 0 {
			cfg.HedgeAfter = 0
			if rapid.Bool().Draw(t, "hedgeParamsOff") {
				cfg.HedgeMax, cfg.HedgeBudget = 0, 0 // the hedging state is made at the change
			}
		}
		var changes []sim.Change
		drawn := sim.GenBusyChanges(t, cfg)
		if client {
			drawn = append(drawn, sim.GenClientChanges(t, cfg)...)
		}
		for _, c := range drawn {
			if c.Setting != sim.SetPolicy {
				changes = append(changes, c)
			}
		}
		for range rapid.IntRange(1, 3).Draw(t, "hedgeChanges") {
			d := int64(0)
			if rapid.IntRange(0, 2).Draw(t, "hedgeChangeOff") != 0 {
				d = rapid.Int64Range(1, 40).Draw(t, "hedgeChangeD")
				if client { // short: hedges before the timeouts
					d = rapid.Int64Range(1, 8).Draw(t, "hedgeChangeShortD")
				}
			}
			changes = append(changes, sim.Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "hedgeChangeCycle"), Setting: sim.SetHedgeAfter, Value: d})
		}
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}

// TestReferenceMatchesModelHedgeAfterClientOff runs busy per-server
// configurations that start with the client side on (timeouts, retries,
// health checks, warm-up, replacement) and turn hedging on by a change
// (one part or fan-out, in a fleet or behind the switch). In half the
// runs all of the client side is turned off by changes first; in the
// other half it stays on, with outlier ejection, a retry budget and
// random faults in some runs, hedging starts on in some (its state from
// cycle 0) and is turned off and on again by further changes. The model
// makes hedging's state at the change with what the client side holds
// (requests waiting to retry, their retries so far, abandoned work), the
// reference hedges its requests as parts from the start; event by event.
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
			{Cycle: rapid.Int64Range(off, min(cfg.Cycles, off+5)).Draw(t, "hedgeOnAt"), Setting: sim.SetHedgeAfter, Value: rapid.Int64Range(1, 10).Draw(t, "hedgeOn")},
		}
		if rapid.Bool().Draw(t, "clientKept") {
			// The client side stays on (with outlier ejection, a retry
			// budget and random faults in some runs), and hedging may be
			// turned off and on again.
			if rapid.Bool().Draw(t, "hedgeEject") {
				cfg.EjectAfter = rapid.IntRange(1, 4).Draw(t, "hedgeEjectAfter")
			}
			if rapid.Bool().Draw(t, "hedgeRetryBudget") {
				cfg.RetryBudget = sim.Decimal(rapid.Int64Range(sim.DecimalScale/10, sim.DecimalScale).Draw(t, "hedgeRetryBudgetF"))
			}
			if rapid.Bool().Draw(t, "hedgeFaults") {
				cfg.MTBF = rapid.Int64Range(1, 80).Draw(t, "hedgeMTBF")
				cfg.MTTR = rapid.Int64Range(1, 30).Draw(t, "hedgeMTTR")
			}
			if rapid.Bool().Draw(t, "hedgedAtStart") {
				// Hedged from the start (its state from cycle 0, a budget
				// in some runs); the changes turn it off and on again.
				cfg.HedgeAfter = rapid.Int64Range(1, 10).Draw(t, "hedgeAtStart")
				cfg.HedgeMax = rapid.IntRange(1, sim.MaxHedges).Draw(t, "hedgeMaxAtStart")
				if rapid.Bool().Draw(t, "hedgeBudgetAtStart") {
					cfg.HedgeBudget = sim.Decimal(rapid.Int64Range(1, sim.DecimalScale).Draw(t, "hedgeBudgetF"))
				}
				changes = append(changes, sim.Change{Cycle: rapid.Int64Range(1, off).Draw(t, "hedgeOffAt"), Setting: sim.SetHedgeAfter})
			}
			for range rapid.IntRange(0, 2).Draw(t, "hedgeAgain") {
				changes = append(changes, sim.Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "hedgeAgainAt"), Setting: sim.SetHedgeAfter,
					Value: rapid.SampledFrom([]int64{0, 0, 3, 12}).Draw(t, "hedgeAgainD")})
			}
		} else {
			changes = append(changes,
				sim.Change{Cycle: off, Setting: sim.SetTimeout}, sim.Change{Cycle: off, Setting: sim.SetRetries}, sim.Change{Cycle: off, Setting: sim.SetBackoff},
				sim.Change{Cycle: off, Setting: sim.SetJitter}, sim.Change{Cycle: off, Setting: sim.SetHealthInterval}, sim.Change{Cycle: off, Setting: sim.SetProvisionDelay},
				sim.Change{Cycle: off, Setting: sim.SetReplaceAfter})
		}
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}
