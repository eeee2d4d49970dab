package sim

import "testing"

// TestLimitViewReadsTheLimits checks Balancer.Limit against the hand trace
// of TestLimitSummary's last case (per-server aimd from 4: server 1 grown
// once to 5, server 2 at 4), a fixed limit pooled and per-server, and no
// limit; reading every cycle leaves the run's hash as it is.
func TestLimitViewReadsTheLimits(t *testing.T) {
	base := traceConfig(2, 7, row(0, 3), row(0, 3), row(0, 3))
	base.Queues, base.Policy = PerServer, RoundRobin
	cases := []struct {
		name  string
		limit int
		init  int
		per   bool
		want  map[int]int // by server id (0: the pool); absent: no limit there
	}{
		{"off", 0, 0, true, map[int]int{}},
		{"aimd per-server", LimitAIMD, 4, true, map[int]int{1: 5, 2: 4}},
		{"fixed per-server", 7, 0, true, map[int]int{1: 7, 2: 7}},
		{"fixed pooled", 3, 0, false, map[int]int{0: 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			cfg.ConcurrencyLimit, cfg.LimitInitial = tc.limit, tc.init
			if !tc.per {
				cfg.Queues, cfg.Policy = Pooled, DefaultPolicy(Pooled)
			}
			plain, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			plain.Run()
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			b := m.Balancers()[0]
			for !m.Done() {
				m.Step()
				for id := range 4 {
					if l, ok := b.Limit(id); ok && (l < 1 || l > DefaultLimitMax) {
						t.Fatalf("cycle %d: server %d's limit %d", m.Cycle(), id, l)
					}
				}
			}
			for id := range 4 {
				want, on := tc.want[id]
				if got, ok := b.Limit(id); ok != on || got != want {
					t.Errorf("server %d: limit %d, %v; want %d, %v", id, got, ok, want, on)
				}
			}
			if m.Hash() != plain.Hash() {
				t.Error("reading the limits changed the run's hash")
			}
		})
	}
}
