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
	m, err := New(cfg, WithEvents())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Schedule(Change{Cycle: 5, Setting: SetTimeout, Value: 0}); err != nil {
		t.Fatal(err)
	}
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
