package sim

import "testing"

// TestMechanismsSayWhenTheyNextAct: scaling says never for a pool that
// cannot scale, and for one whose rule would not act with its queue while
// the queue holds still, else its next evaluation; a scheduled change says
// its cycle; a balancer the first completion of its busy servers.
func TestMechanismsSayWhenTheyNextAct(t *testing.T) {
	build := func(set func(*Config)) *Model {
		t.Helper()
		cfg := defaultSeed1()
		cfg.Rate, cfg.InitialPerServer, cfg.Cooldown = 0, 0, 10
		set(&cfg)
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, tc := range []struct {
		name          string
		set           func(*Config)
		moving, still int64 // scaleNext(false), scaleNext(true)
	}{
		{"fixed pool", func(c *Config) { c.Servers, c.MinServers, c.MaxServers = 3, 3, 3 }, never, never},
		{"room to grow, empty queue", func(c *Config) { c.Servers, c.MinServers, c.MaxServers = 3, 3, 5 }, 10, never},
		{"room to shrink, empty queue", func(c *Config) { c.Servers, c.MinServers, c.MaxServers = 3, 1, 3 }, 10, 10},
		{"at its bounds, no scale-down rule", func(c *Config) {
			c.Servers, c.MinServers, c.MaxServers, c.ScaleDown = 3, 1, 3, 0
		}, never, never},
	} {
		m := build(tc.set)
		if got := m.scaleNext(false); got != tc.moving {
			t.Errorf("%s: scaleNext(false) = %d, want %d", tc.name, got, tc.moving)
		}
		if got := m.scaleNext(true); got != tc.still {
			t.Errorf("%s: scaleNext(true) = %d, want %d", tc.name, got, tc.still)
		}
	}

	m := build(func(c *Config) { c.InitialPerServer, c.Service, c.MeanService = 1, Constant, 7 })
	if got := m.changeNext(); got != never {
		t.Errorf("changeNext with nothing scheduled = %d, want never", got)
	}
	if err := m.Schedule(Change{Cycle: 500, Setting: SetRate, Value: RateScale}); err != nil {
		t.Fatal(err)
	}
	if got := m.changeNext(); got != 500 {
		t.Errorf("changeNext = %d, want 500", got)
	}
	b := m.bal[0]
	if got := b.nextCompletion(1, 1000); got != 7 {
		t.Errorf("nextCompletion(1, 1000) = %d, want 7 (constant service 7 from cycle 0)", got)
	}
	if got := b.nextCompletion(1, 5); got != 6 {
		t.Errorf("nextCompletion(1, 5) = %d, want 6 (none up to 5)", got)
	}
	if got := m.nextAct(1, 1000, false); got != 6 {
		t.Errorf("nextAct(1, 1000) = %d, want 6 (the cycle before the completions)", got)
	}
}
