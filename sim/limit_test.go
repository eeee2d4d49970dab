package sim

import (
	"errors"
	"testing"
)

// TestQueueLimit: a run whose arrivals outpace its servers stops at the end
// of the first cycle whose queue exceeds the bound, the same cycle whether
// it is stepped or run with RunTo's jumps, and steps no further.
func TestQueueLimit(t *testing.T) {
	base := DefaultConfig()
	base.Seed, base.Cycles, base.Servers, base.MaxServers, base.InitialPerServer = 11, 1_000_000, 2, 2, 0
	cases := []struct {
		name  string
		limit int
		edit  func(*Config)
	}{
		{"rate 3", 20_000, func(c *Config) { c.Rate = 3 * RateScale; c.Wave = false }},
		{"rate 10000", 300_000, func(c *Config) { c.Rate = MaxRate; c.Wave = false }},
		{"wave, long tasks", 5_000, func(c *Config) { c.TaskMin, c.TaskMax = 900, 1000; c.Cooldown = 100_000 }},
		{"switch", 8_000, func(c *Config) { c.Switch = true; c.Rate = 2 * RateScale }},
		{"initial queue over the bound", 100, func(c *Config) { c.InitialPerServer = 100 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := base
			c.edit(&cfg)
			stepped, err := New(cfg, WithMaxQueued(c.limit))
			if err != nil {
				t.Fatal(err)
			}
			prev := 0
			for stepped.Step() {
				if stepped.Err() == nil {
					prev = stepped.QueueLen()
				}
			}
			var le *QueueLimitError
			if !errors.As(stepped.Err(), &le) {
				t.Fatalf("stepping: Err() = %v, want a *QueueLimitError", stepped.Err())
			}
			if le.Cycle != stepped.Cycle() || le.Limit != c.limit || le.Queued != stepped.QueueLen() || le.Queued <= c.limit {
				t.Errorf("stepping: %+v at cycle %d with %d queued", le, stepped.Cycle(), stepped.QueueLen())
			}
			if le.Cycle > 0 && prev > c.limit {
				t.Errorf("the cycle before the stop already had %d queued, above %d", prev, c.limit)
			}
			if !stepped.Done() || stepped.Step() {
				t.Error("a stopped model steps on")
			}
			jumped, _ := New(cfg, WithMaxQueued(c.limit))
			jumped.Run()
			if jumped.Cycle() != stepped.Cycle() || jumped.Hash() != stepped.Hash() {
				t.Errorf("RunTo stopped at cycle %d (hash %x), stepping at %d (hash %x)", jumped.Cycle(), jumped.Hash(), stepped.Cycle(), stepped.Hash())
			}
			if got := jumped.Err(); got == nil || got.Error() != le.Error() {
				t.Errorf("RunTo: Err() = %v, want %v", got, le)
			}
		})
	}
}

// TestQueueLimitUnreached: a run that stays within the bound is the same
// with any bound.
func TestQueueLimitUnreached(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles = 3, 30_000
	a, _ := New(cfg)
	a.Run()
	b, _ := New(cfg, WithMaxQueued(int(a.Totals().PeakQueue)))
	b.Run()
	if a.Err() != nil || b.Err() != nil || a.Hash() != b.Hash() {
		t.Errorf("errors %v, %v; hashes %x, %x", a.Err(), b.Err(), a.Hash(), b.Hash())
	}
	c, _ := New(cfg, WithMaxQueued(int(a.Totals().PeakQueue)-1))
	c.Run()
	if c.Err() == nil {
		t.Error("a bound one below the peak queue did not stop the run")
	}
}
