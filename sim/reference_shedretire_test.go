package sim_test

import (
	"testing"

	"github.com/lbsim/lbsim/sim"
	"pgregory.net/rapid"
)

// TestReferenceShedEmptiesRetiringServer runs, through the model and the
// reference, the run in which they first differed on shedding beside
// fan-out, random faults and a retiring server (found by
// TestReferenceMatchesModelHedgeClient at one seed): a retiring server's
// queue is shed at step d, and a shed part's ending cancels a sibling
// shed with it, the last attempt left in that queue. The sibling leaves
// the queue as any cancelled queued attempt does, so the server, left
// with nothing, leaves the pool at that cancellation, before the rest of
// its request's cancellations (at cycle 677: the model let it leave only
// after the last of them). At cycle 106 one ending cancels two siblings
// shed with it: the queue is empty only once the second has left.
func TestReferenceShedEmptiesRetiringServer(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Servers, cfg.Cycles, cfg.TaskMin, cfg.TaskMax, cfg.Seed = 3, 705, 1, 1, 0
	cfg.Service, cfg.MeanService, cfg.ServiceCV, cfg.ServerCost = sim.Lognormal, 19, 13161, 12
	cfg.InitialPerServer, cfg.Rate = 6, 97125
	cfg.Wave, cfg.WaveAmplitude, cfg.WavePeriod, cfg.StreamShare = true, 1, 4174, 1
	cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown = 6416, 6415, 30 // the pool hunts: a server retires
	cfg.ScaleTolerance, cfg.ScaleDownWindow = 963, 67
	cfg.MinServers, cfg.MaxServers, cfg.QueueCap = 1, 3, 5
	cfg.Discipline, cfg.CodelInterval, cfg.CodelTarget = sim.AdaptiveLifo, 2, 1
	cfg.Policy, cfg.Queues, cfg.Choices, cfg.EwmaDecay, cfg.FailTime = sim.RoundRobin, sim.PerServer, 2, 3, 8
	cfg.Weights = []int{3}
	cfg.MTBF, cfg.MTTR = 3, 2
	cfg.Backoff, cfg.Jitter, cfg.RetryBudget = 6, true, 100029
	cfg.HealthFall, cfg.HealthRise, cfg.EjectFor, cfg.ProvisionDelay = 4, 2, 4, 9
	cfg.Fanout, cfg.HedgeAfter, cfg.HedgeMax, cfg.HedgeBudget = 4, 1, 1, 394
	changes := []sim.Change{
		{Cycle: 12, Setting: sim.SetDown, Value: 2},
		{Cycle: 191, Setting: sim.SetHang, Value: 4},
		{Cycle: 218, Setting: sim.SetHeal, Value: 5},
		{Cycle: 302, Setting: sim.SetHealthInterval, Value: 0},
		{Cycle: 589, Setting: sim.SetBackoff, Value: 0},
		{Cycle: 705, Setting: sim.SetDown, Value: 2},
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(t *rapid.T) { diffRun(t, cfg, changes) }) // stops drawn
}
