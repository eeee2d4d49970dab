//go:build refstrict

package sim_test

// The corners where the model is known to break its own rules, each as a
// small run that fails until the model is fixed. They run only with -tags
// refstrict (go test -tags refstrict ./sim -run 'TestKnownDeviation'), as
// do the differential tests with the reference held to the rules there
// (refKnownDeviations false).

import (
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestKnownDeviationRoundRobinAfterSwitch: round-robin gives a request to
// the server that comes next after the last one given a request (pooled:
// dispatched to; per-server: routed to, the pointer moving with every
// routing). Here server 1 takes request 1 at cycle 0 under another policy,
// the policy becomes round-robin at cycle 1, and request 2 arrives then
// with every server idle: it goes to server 2. The model gives it to
// server 1: its pointer moves only with round-robin's own picks.
func TestKnownDeviationRoundRobinAfterSwitch(t *testing.T) {
	for _, q := range []sim.QueueMode{sim.Pooled, sim.PerServer} {
		cfg := sim.DefaultConfig()
		cfg.Seed, cfg.Cycles, cfg.Servers, cfg.MinServers, cfg.MaxServers = 1, 2, 3, 1, 3
		cfg.Queues, cfg.Policy, cfg.Blocked = q, sim.LeastConnections, nil
		cfg.ScaleUp, cfg.ScaleDown = sim.MaxFactor, 0
		cfg.Trace = []sim.TraceRow{{Cycle: 0, Src: 1, Time: 1}, {Cycle: 1, Src: 2, Time: 1}}
		m, err := sim.New(cfg, sim.WithEvents())
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Schedule(sim.Change{Cycle: 1, Setting: sim.SetPolicy, Value: int64(sim.RoundRobin)}); err != nil {
			t.Fatal(err)
		}
		m.Step()
		i := slices.IndexFunc(m.Events(), func(e sim.Event) bool { return e.Kind == sim.Dispatch && e.Request.ID == 2 })
		if i < 0 {
			t.Fatalf("%v: request 2 was not dispatched at cycle 1: %v", q, m.Events())
		}
		if got := m.Events()[i].Server; got != 2 {
			t.Errorf("%v: request 2 went to server %d, want 2 (the next after server 1, the last given a request)", q, got)
		}
	}
}
