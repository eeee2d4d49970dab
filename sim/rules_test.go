package sim_test

// Three corners the reference model found where the model broke its own
// rules, fixed; each a small run.

import (
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestLeastWorkTieBeforeStepA: per-server least-work, servers 1 and 2
// each serving a request of 1 cycle from cycle 0, server 3 free. At the
// start of cycle 1 server 1 fails and its request is routed again, before
// step a: server 2's work is then 0 (its request completes at cycle 1, and
// work counts it as completion − now), as is server 3's, and a tie goes to
// the lowest id, so server 2 takes it (in step d, after completing its own
// in step a), not server 3, which is free.
func TestLeastWorkTieBeforeStepA(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.MinServers, cfg.MaxServers = 1, 2, 3, 1, 3
	cfg.Queues, cfg.Policy, cfg.Blocked = sim.PerServer, sim.LeastWork, nil
	cfg.ScaleUp, cfg.ScaleDown = sim.MaxFactor, 0
	cfg.Trace = []sim.TraceRow{{Cycle: 0, Src: 1, Time: 1}, {Cycle: 0, Src: 2, Time: 1}}
	m, err := sim.New(cfg, sim.WithEvents())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Schedule(sim.Change{Cycle: 1, Setting: sim.SetDown, Value: int64(sim.MakeServerRef(0, 1))}); err != nil {
		t.Fatal(err)
	}
	m.Step()
	i := slices.IndexFunc(m.Events(), func(e sim.Event) bool { return e.Kind == sim.Dispatch && e.Request.ID == 1 })
	if i < 0 {
		t.Fatalf("request 1 was not dispatched at cycle 1: %v", m.Events())
	}
	if got := m.Events()[i].Server; got != 2 {
		t.Errorf("request 1, taken back from server 1 at cycle 1, went to server %d, want 2 (work 0, the lowest id of the tie)", got)
	}
}

// TestChangesKeepTheRequestStream: a change of a setting other than the
// arrival settings (here the cooldown, at cycle 150, 0.9 arrivals a
// cycle) must leave the requests as they were: the same ids, sources,
// destinations, times, types and arrival cycles.
func TestChangesKeepTheRequestStream(t *testing.T) {
	arrivals := func(changes ...sim.Change) []sim.Request {
		cfg := sim.DefaultConfig()
		cfg.Seed, cfg.Cycles, cfg.Rate = 7, 400, 900_000
		m, err := sim.New(cfg, sim.WithEvents())
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Schedule(changes...); err != nil {
			t.Fatal(err)
		}
		var out []sim.Request
		for m.Step() {
			for _, e := range m.Events() {
				if e.Kind == sim.Arrive || e.Kind == sim.Reject || e.Kind == sim.Discard {
					out = append(out, e.Request)
				}
			}
		}
		return out
	}
	plain := arrivals()
	changed := arrivals(sim.Change{Cycle: 150, Setting: sim.SetCooldown, Value: 20})
	for i := range min(len(plain), len(changed)) {
		if plain[i] != changed[i] {
			t.Fatalf("request %d: %v without the change, %v with it", i+1, plain[i], changed[i])
		}
	}
	if len(plain) != len(changed) {
		t.Fatalf("%d requests without the change, %d with it", len(plain), len(changed))
	}
}

// TestRoundRobinAfterSwitch: round-robin gives a request to
// the server that comes next after the last one given a request (pooled:
// dispatched to; per-server: routed to, the pointer moving with every
// routing). Here server 1 takes request 1 at cycle 0 under another policy,
// the policy becomes round-robin at cycle 1, and request 2 arrives then
// with every server idle: it goes to server 2 (the model gave it to server
// 1, its pointer moving only with round-robin's own picks).
func TestRoundRobinAfterSwitch(t *testing.T) {
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
