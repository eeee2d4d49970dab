package sim_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"pgregory.net/rapid"
)

// TestReferenceShedEmptiesRetiringServer runs, through the model and the
// reference, two runs in which they differed on shedding beside fan-out,
// random faults and a retiring server: a retiring server's queue is shed
// at step d, and a shed part's ending cancels a sibling shed with it, the
// last attempt left in that queue. The sibling leaves the queue as any
// cancelled queued attempt does, so the server, left with nothing, leaves
// the pool at that cancellation, before the rest of its request's
// cancellations (the model let it leave only after the last of them).
// The first (hedged, the client side on; found by
// TestReferenceMatchesModelHedgeClient) differed at cycle 677; at its
// cycle 106 one ending cancels two siblings shed with it, and the queue is
// empty only once the second has left. The second (no hedging, no client
// side; found by TestReferenceMatchesModelShedRetiring) differed at cycle
// 74.
func TestReferenceShedEmptiesRetiringServer(t *testing.T) {
	hedged := sim.DefaultConfig()
	hedged.Servers, hedged.Cycles, hedged.TaskMin, hedged.TaskMax, hedged.Seed = 3, 705, 1, 1, 0
	hedged.Service, hedged.MeanService, hedged.ServiceCV, hedged.ServerCost = sim.Lognormal, 19, 13161, 12
	hedged.InitialPerServer, hedged.Rate = 6, 97125
	hedged.Wave, hedged.WaveAmplitude, hedged.WavePeriod, hedged.StreamShare = true, 1, 4174, 1
	hedged.ScaleUp, hedged.ScaleDown, hedged.Cooldown = 6416, 6415, 30 // the pool hunts: a server retires
	hedged.ScaleTolerance, hedged.ScaleDownWindow = 963, 67
	hedged.MinServers, hedged.MaxServers, hedged.QueueCap = 1, 3, 5
	hedged.Discipline, hedged.CodelInterval, hedged.CodelTarget = sim.AdaptiveLifo, 2, 1
	hedged.Policy, hedged.Queues, hedged.Choices, hedged.EwmaDecay, hedged.FailTime = sim.RoundRobin, sim.PerServer, 2, 3, 8
	hedged.Weights = []int{3}
	hedged.MTBF, hedged.MTTR = 3, 2
	hedged.Backoff, hedged.Jitter, hedged.RetryBudget = 6, true, 100029
	hedged.HealthFall, hedged.HealthRise, hedged.EjectFor, hedged.ProvisionDelay = 4, 2, 4, 9
	hedged.Fanout, hedged.HedgeAfter, hedged.HedgeMax, hedged.HedgeBudget = 4, 1, 1, 394

	plain := sim.DefaultConfig()
	plain.Servers, plain.Cycles, plain.TaskMin, plain.TaskMax, plain.Seed = 2, 74, 1, 11, 27910
	plain.InitialPerServer, plain.Rate, plain.Wave, plain.WavePeriod = 0, 26928, false, 1
	plain.ScaleUp, plain.ScaleDown, plain.Cooldown = 4001, 4000, 4 // the pool hunts
	plain.MinServers, plain.MaxServers = 1, 3
	plain.Discipline, plain.CodelInterval, plain.CodelTarget = sim.Lifo, 1, 1
	plain.Policy, plain.Queues, plain.Weights = sim.P2C, sim.PerServer, []int{0}
	plain.MTBF, plain.MTTR = 9, 18
	plain.Fanout = 4

	cases := []struct {
		name    string
		cfg     sim.Config
		changes []sim.Change
	}{
		{"hedged, the client side on", hedged, []sim.Change{
			{Cycle: 12, Setting: sim.SetDown, Value: 2},
			{Cycle: 191, Setting: sim.SetHang, Value: 4},
			{Cycle: 218, Setting: sim.SetHeal, Value: 5},
			{Cycle: 302, Setting: sim.SetHealthInterval, Value: 0},
			{Cycle: 589, Setting: sim.SetBackoff, Value: 0},
			{Cycle: 705, Setting: sim.SetDown, Value: 2},
		}},
		{"fan-out alone", plain, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			rapid.Check(t, func(t *rapid.T) { diffRun(t, c.cfg, c.changes) }) // stops drawn
		})
	}
}

// TestReferenceMatchesModelShedRetiring runs busy configurations with
// fan-out (hedging and the client side in half the runs), shedding always
// on with a short interval, random faults always (a mean time between
// failures up to 80 cycles) and a pool that hunts (scale-up just above
// scale-down, evaluated every few cycles: servers retire often), through
// the model and the reference, event by event: shed queues of retiring
// servers, their siblings cancelled and the servers leaving. In 300 runs
// (seed 1) 14 have a server leave in the cycle its queue sheds, against
// 2 of 300 in TestReferenceMatchesModelHedgeClient's draws.
func TestReferenceMatchesModelShedRetiring(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenBusyConfigWithin(t, sim.NewBusyLimits(10, 1500, 20, 30))
		if rapid.Bool().Draw(t, "client") {
			sim.GenClientSettings(t, &cfg)
		}
		genFanout(t, &cfg)
		if rapid.Bool().Draw(t, "hedging") {
			genHedging(t, &cfg)
		}
		genFanOverload(t, &cfg)
		cfg.CodelInterval = rapid.Int64Range(1, 10).Draw(t, "shedInterval")
		cfg.CodelTarget = rapid.Int64Range(1, cfg.CodelInterval).Draw(t, "shedTarget")
		cfg.MTBF = rapid.Int64Range(1, 80).Draw(t, "shedMTBF")
		cfg.MTTR = rapid.Int64Range(1, 30).Draw(t, "shedMTTR")
		cfg.Servers = max(cfg.Servers, 2)
		cfg.MinServers, cfg.MaxServers = 1, cfg.Servers+rapid.IntRange(0, 3).Draw(t, "shedExtraServers")
		cfg.Cooldown = rapid.Int64Range(1, 10).Draw(t, "shedCooldown")
		q := rapid.Int64Range(0, 20).Draw(t, "shedHuntQueue") * sim.FactorScale
		cfg.ScaleDown = sim.Factor(q)
		cfg.ScaleUp = sim.Factor(q + rapid.Int64Range(1, sim.FactorScale).Draw(t, "shedHuntBand"))
		var changes []sim.Change
		for _, c := range append(sim.GenClientChanges(t, cfg), sim.GenBusyChanges(t, cfg)...) {
			// As in TestReferenceMatchesModelFanout: no policy or load
			// information changes.
			if c.Setting != sim.SetPolicy && c.Setting != sim.SetLoadInfo {
				changes = append(changes, c)
			}
		}
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}
