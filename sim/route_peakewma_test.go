package sim

import (
	"testing"

	"github.com/lbsim/lbsim/detmath"
)

// TestPeakEWMATrace follows peak-ewma by hand over three requests on two
// servers whose costs start at 10 (uniform 10..10): A (time 100) at cycle 1
// goes to the first drawn of two equal scores; B (time 5) at cycle 2 to
// the other (10·1 against A's server's 10·2); B completes at 7, 5 cycles
// after it was routed, below the cost: 10 + (5 − 10)·(1 − e^(−7/1000)); A
// completes at 101, 100 cycles after it was routed, above the cost: 100.
// C at 102 then goes to B's server whichever is drawn first.
func TestPeakEWMATrace(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Queues, cfg.Policy, cfg.Seed = PerServer, PeakEWMA, 3
	cfg.Servers, cfg.MinServers, cfg.MaxServers = 2, 2, 2
	cfg.TaskMin, cfg.TaskMax, cfg.Cycles = 10, 10, 103
	cfg.Blocked = nil
	cfg.Trace = []TraceRow{{Cycle: 1, Src: 1, Time: 100}, {Cycle: 2, Src: 2, Time: 5}, {Cycle: 102, Src: 3, Time: 7}}
	m := mustNewEvents(t, cfg)
	to := map[int64]int{} // request id → server
	for m.Step() {
		for _, e := range m.Events() {
			if e.Kind == Dispatch {
				to[e.Request.ID] = e.Server
			}
		}
	}
	a, b := to[1], to[2]
	if a == 0 || b == 0 || a == b {
		t.Fatalf("A went to server %d and B to %d: want both servers", a, b)
	}
	if to[3] != b {
		t.Errorf("C went to server %d, want %d (B's, of the lower cost)", to[3], b)
	}
	r := m.bal[0].rt.(*peakEWMA)
	wantB := 10 + (5-10)*(1-detmath.ExpNeg(7/1000.0))
	if r.cost[a-1] != 100 || r.cost[b-1] != wantB {
		t.Errorf("costs %v, %v; want 100 (A's server) and %v (B's)", r.cost[a-1], r.cost[b-1], wantB)
	}
	if PeakEWMA.Allowed(Pooled) == "" || PeakEWMA.Allowed(PerServer) != "" {
		t.Error("peak-ewma must be refused pooled and allowed per-server")
	}
}

// check: every server that has been a candidate has a cost (a warming
// server gets one when it becomes a candidate), and a cost is a time: at
// least 1 cycle.
func (r *peakEWMA) check(fail func(string, ...any), _ int64) {
	for id := len(r.cost) + 1; id <= len(r.b.srv); id++ {
		if r.b.active.has(id) {
			fail("peak-ewma has %d costs, but server %d is a candidate", len(r.cost), id)
		}
	}
	for i, c := range r.cost {
		if !(c >= 1) {
			fail("server %d: peak-ewma cost %v", i+1, c)
		}
	}
}

// TestPeakEWMARoutedBounded: peak-EWMA's note of when each request was
// routed is bounded by the requests at servers, in a pool that scales up
// and down fast (servers retire holding requests, whose completions the
// router never hears), with random faults and clients that time out and
// retry. Sweeping at every chance (and at the end of every 37th cycle)
// and never must give the same run: the same state hash every cycle and the
// same events.
func TestPeakEWMARoutedBounded(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(cfg *Config)
	}{
		{"churn", func(*Config) {}},
		{"faults", func(cfg *Config) { cfg.MTBF, cfg.MTTR = 3_000, 200 }},
		{"clients", func(cfg *Config) { cfg.Timeout, cfg.Retries = 4_000, 2 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Queues, cfg.Policy, cfg.Seed = PerServer, PeakEWMA, 3
			cfg.Rate, cfg.Servers, cfg.Cycles = 2*RateScale, 40, 30_000
			c.set(&cfg)
			run := func(min int) (tr trail, most int) {
				old := sweepMin
				sweepMin = min
				defer func() { sweepMin = old }()
				m := mustNewEvents(t, cfg)
				b := m.bal[0]
				r := b.rt.(*peakEWMA)
				for m.Step() {
					if min == 1 && len(tr.hashes)%37 == 0 {
						r.sweep()
					}
					tr.note(m)
					if excess := len(r.routed) - 2*(b.queued+b.busy) - min; excess > most {
						most = excess
					}
				}
				return
			}
			tr, _ := run(1 << 62)
			tr1, _ := run(1)
			sameTrail(t, tr, tr1, "sweeps")
			if _, most := run(64); most > 0 {
				t.Fatalf("peak-EWMA notes up to %d requests routed beyond twice those at servers and 64", most)
			}
		})
	}
}
