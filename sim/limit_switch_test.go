package sim_test

import (
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestLimitFinalOverLiveServersOfASwitch: with the switch each balancer
// has its own servers, and the final limits (their mean and range) are
// over the live servers of both. One server each, per-server adaptive
// limits starting at 20, nothing arriving, at most one server each: P's
// server goes down at cycle 1 and, after 1 cycle, is taken out for
// replacement, so P has no live server (its slot counts nowhere) while
// S's server still holds 20. The lowest is 20, not the 0 of a balancer
// without a live server; the reference model agrees.
func TestLimitFinalOverLiveServersOfASwitch(t *testing.T) {
	down := func(c int64) []sim.Change {
		ch, err := sim.NewChange(c, "down", "1")
		if err != nil {
			t.Fatal(err)
		}
		return []sim.Change{ch}
	}
	for _, tc := range []struct {
		name    string
		cycles  int64
		changes []sim.Change
		count   int64
	}{
		{"no fault", 2, nil, 2},
		{"P's server down, taken out", 2, down(1), 1},
		{"P's server down, taken out, later", 6, down(1), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.DefaultConfig()
			cfg.Servers, cfg.MinServers, cfg.MaxServers, cfg.Cycles = 1, 1, 1, tc.cycles
			cfg.Blocked, cfg.Trace = nil, []sim.TraceRow{}
			cfg.Switch, cfg.Queues, cfg.Policy = true, sim.PerServer, sim.RoundRobin
			cfg.ConcurrencyLimit, cfg.ReplaceAfter, cfg.FailTime = sim.LimitAIMD, 1, 1
			m, err := sim.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Schedule(tc.changes...); err != nil {
				t.Fatal(err)
			}
			ref, err := newRef(cfg, m.Pending())
			if err != nil {
				t.Fatal(err)
			}
			for m.Step() {
				ref.step()
			}
			for who, s := range map[string]sim.Summary{"model": m.Summary(), "reference": ref.Summary()} {
				if s.LimitCount != tc.count || s.LimitFinalMin != 20 || s.LimitFinalMax != 20 || s.LimitFinal != 20 {
					t.Errorf("%s: limits over %d servers: mean %v, %d..%d; want %d servers, 20, 20..20",
						who, s.LimitCount, s.LimitFinal, s.LimitFinalMin, s.LimitFinalMax, tc.count)
				}
			}
		})
	}
}
