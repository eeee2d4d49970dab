package sim

import "testing"

// TestPeakEWMARetryAfterAbandonedWork: peak-ewma's cost takes a request's
// response from the cycle its attempt was routed. Request 1 (20 cycles)
// goes to server X at cycle 0, times out at cycle 5 (timeout 5), and X
// works on, abandoned, until cycle 20; its retry (no timeout from cycle
// 5) is routed at cycle 5 to the other server Y, which completes it at
// cycle 25: a response of 20 cycles, Y's cost then (it was 1, the
// nominal mean). The end of the abandoned work on X at cycle 20 must not
// make the retry's response count from the request's first arrival (25).
func TestPeakEWMARetryAfterAbandonedWork(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.MinServers, cfg.MaxServers = 1, 30, 2, 2, 2
	cfg.Blocked, cfg.ScaleUp, cfg.ScaleDown = nil, MaxFactor, 0
	cfg.TaskMin, cfg.TaskMax = 1, 1
	cfg.Queues, cfg.Policy = PerServer, PeakEWMA
	cfg.Timeout, cfg.Retries = 5, 1
	cfg.Trace = []TraceRow{{Cycle: 0, Src: 1, Time: 20}}
	m := mustNewEvents(t, cfg, Change{Cycle: 5, Setting: SetTimeout, Value: 0})
	y := 0
	for m.Step() && m.Cycle() < 25 {
		for _, e := range m.Events() {
			if e.Kind == Retry {
				y = e.Server
			}
		}
	}
	if m.Cycle() != 25 || y == 0 {
		t.Fatalf("cycle %d: the retry went to server %d", m.Cycle(), y)
	}
	if s := m.Summary(); s.Completed != 1 || s.ResponseMax != 25 {
		t.Fatalf("completed %d, response_max %d; want 1, 25 (the premise)", s.Completed, s.ResponseMax)
	}
	if got := m.bal[0].rt.(*peakEWMA).cost[y-1]; got != 20 {
		t.Errorf("server %d's cost %v after completing the retry routed at cycle 5 at 25, want 20", y, got)
	}
}

// TestPeakEWMAWarmingServerCost: peak-ewma starts a server's cost when
// the server is created. Server 2, added by scaling at cycle 1 with a
// provision delay of 3, is created then and takes work from cycle 4: its
// cost's last update is cycle 1 (its creation), from which the decay of
// its first response counts.
func TestPeakEWMAWarmingServerCost(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.MinServers, cfg.MaxServers = 1, 10, 1, 1, 2
	cfg.Blocked, cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown = nil, 1, 0, 1
	cfg.InitialPerServer, cfg.Rate, cfg.Wave = 0, 0, false
	cfg.Queues, cfg.Policy, cfg.ProvisionDelay = PerServer, PeakEWMA, 3
	cfg.Trace = []TraceRow{{Cycle: 0, Src: 1, Time: 20}, {Cycle: 0, Src: 2, Time: 20}}
	m := mustNewEvents(t, cfg)
	m.RunTo(4)
	if p := m.Pool(); p.Live != 2 || p.Active != 2 {
		t.Fatalf("pool %+v at cycle 4, want server 2 added at 1 and ready at 4 (the premise)", p)
	}
	r := m.bal[0].rt.(*peakEWMA)
	if len(r.at) < 2 || r.at[1] != 1 {
		t.Errorf("server 2's cost last updated at %v, want cycle 1 (its creation)", r.at)
	}
}
