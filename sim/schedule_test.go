package sim

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// generatorConfig is a small generator-mode config with a constant rate and
// scaling that never acts.
func generatorConfig(servers int, cycles int64, rate Rate) Config {
	cfg := traceConfig(servers, cycles)
	cfg.Trace = nil
	cfg.Rate = rate
	return cfg
}

func TestScheduleRateTakesEffectAtItsCycle(t *testing.T) {
	cfg := generatorConfig(1, 20, 0)
	h := newHarness(t, cfg)
	if err := h.m.Schedule(Change{Cycle: 15, Setting: SetRate, Value: 0}, Change{Cycle: 10, Setting: SetRate, Value: 50 * RateScale}); err != nil {
		t.Fatalf("Schedule: %v", err)
	}
	for h.step() {
		c, got := h.m.Cycle(), h.m.Last().Generated
		if on := c >= 10 && c < 15; on != (got > 0) {
			t.Errorf("cycle %d: generated %d, want %s", c, got, map[bool]string{true: "some (rate 50)", false: "none (rate 0)"}[on])
		}
		if c == 10 {
			want := []Change{{Cycle: 10, Setting: SetRate, Value: 50 * RateScale}}
			if got := h.m.Changes(); !slices.Equal(got, want) {
				t.Errorf("cycle 10: Changes() = %v, want %v", got, want)
			}
			if got := h.m.Pending(); len(got) != 1 || got[0].Cycle != 15 {
				t.Errorf("cycle 10: Pending() = %v, want the change of cycle 15", got)
			}
			if got := h.m.Config().Rate; got != 50*RateScale {
				t.Errorf("cycle 10: Config().Rate = %v, want 50", got)
			}
		}
	}
}

// TestScheduleTaskMaxGrowsWheel raises task-max beyond the timing wheel
// while requests are in service: they must still complete at their cycles.
func TestScheduleTaskMaxGrowsWheel(t *testing.T) {
	cfg := traceConfig(2, 40, row(0, 15), row(3, 7)) // task-max 10, longest row 15: the least wheel, 64
	h := newHarness(t, cfg)
	if n := len(h.m.bal[0].wheel.buckets); n != 64 {
		t.Fatalf("wheel size %d, want 64", n)
	}
	if err := h.m.Schedule(Change{Cycle: 5, Setting: SetTaskMax, Value: 100}); err != nil {
		t.Fatalf("Schedule: %v", err)
	}
	h.stepTo(5)
	if n := len(h.m.bal[0].wheel.buckets); n <= 100 {
		t.Fatalf("wheel size %d after task-max 100, want > 100", n)
	}
	h.run()
	want := []string{"0 arrive #1", "0 dispatch #1 s1 w0", "3 arrive #2", "3 dispatch #2 s2 w0",
		"10 complete #2 s2", "15 complete #1 s1"}
	if !slices.Equal(h.log, want) {
		t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(h.log, "\n  "), strings.Join(want, "\n  "))
	}

	// The same with generated requests, the two settings changed as one batch
	// (task-min 40 alone would be refused: it exceeds task-max).
	cfg = generatorConfig(3, 120, RateScale/2)
	cfg.TaskMin, cfg.TaskMax = 5, 5
	h = newHarness(t, cfg)
	if err := h.m.Schedule(Change{Cycle: 30, Setting: SetTaskMin, Value: 40}, Change{Cycle: 30, Setting: SetTaskMax, Value: 40}); err != nil {
		t.Fatalf("Schedule: %v", err)
	}
	long := 0
	for h.step() {
		for _, e := range h.m.Events() {
			if e.Kind == Complete && e.Request.Time == 40 {
				long++
			}
			if e.Kind == Arrive && (e.Request.Time == 40) != (e.Cycle >= 30) {
				t.Fatalf("request %v arriving at %d has the wrong time", e.Request, e.Cycle)
			}
		}
	}
	if long == 0 {
		t.Errorf("no request of time 40 completed") // the shadow checked each completion's cycle
	}
}

// TestScheduleEffects checks that other settings take effect at the start
// of their cycle.
func TestScheduleEffects(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		changes []Change
		want    []string
	}{
		{
			name: "cooldown", cfg: func() Config {
				c := traceConfig(1, 9, rows(5, row(0, 20))...)
				c.MaxServers, c.ScaleUp, c.Cooldown = 5, FactorScale, 1000
				return c
			}(),
			changes: []Change{{Cycle: 4, Setting: SetCooldown, Value: 4}},
			want: []string{"0 arrive #1", "0 arrive #2", "0 arrive #3", "0 arrive #4", "0 arrive #5", "0 dispatch #1 s1 w0",
				"4 scale-up s2", "4 dispatch #2 s2 w4", "8 scale-up s3", "8 dispatch #3 s3 w8"},
		},
		{
			name: "queue-cap", cfg: traceConfig(1, 3, cat([]TraceRow{row(0, 10)}, rows(2, row(1, 5)), rows(2, row(2, 5)))...),
			changes: []Change{{Cycle: 2, Setting: SetQueueCap, Value: 2}},
			want: []string{"0 arrive #1", "0 dispatch #1 s1 w0", "1 arrive #2", "1 arrive #3",
				"2 discard #4", "2 discard #5"},
		},
		{
			name: "min-servers", cfg: func() Config {
				c := traceConfig(3, 4)
				c.ScaleUp, c.ScaleDown = 2*FactorScale, FactorScale
				return c
			}(),
			changes: []Change{{Cycle: 2, Setting: SetMinServers, Value: 2}},
			want:    []string{"1 scale-down s3"},
		},
		{
			name: "scale-up and max-servers in one batch", cfg: func() Config {
				c := traceConfig(1, 3, rows(3, row(0, 20))...)
				return c
			}(),
			changes: []Change{{Cycle: 2, Setting: SetScaleUp, Value: FactorScale}, {Cycle: 2, Setting: SetMaxServers, Value: 2}},
			want: []string{"0 arrive #1", "0 arrive #2", "0 arrive #3", "0 dispatch #1 s1 w0",
				"2 scale-up s2", "2 dispatch #2 s2 w2"},
		},
		{
			name: "policy", cfg: traceConfig(3, 2, row(0, 5), row(1, 5), row(2, 5)),
			changes: []Change{{Cycle: 2, Setting: SetPolicy, Value: int64(RoundRobin)}},
			// first-idle gives #2 to s2; round-robin then starts at the lowest idle id.
			want: []string{"0 arrive #1", "0 dispatch #1 s1 w0", "1 arrive #2", "1 dispatch #2 s2 w0",
				"2 arrive #3", "2 dispatch #3 s3 w0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cfg)
			if err := h.m.Schedule(tt.changes...); err != nil {
				t.Fatalf("Schedule: %v", err)
			}
			h.run()
			if !slices.Equal(h.log, tt.want) {
				t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(h.log, "\n  "), strings.Join(tt.want, "\n  "))
			}
			if got := h.m.Changes(); !slices.Equal(got, tt.changes) {
				t.Errorf("Changes() = %v, want %v", got, tt.changes)
			}
		})
	}
}

// TestScheduleValidation checks that Schedule accepts or refuses a call as a
// whole, validating the whole future of settings.
func TestScheduleValidation(t *testing.T) {
	ch := func(c int64, s Setting, v int64) Change { return Change{Cycle: c, Setting: s, Value: v} }
	tests := []struct {
		name    string
		at      int64    // step to this cycle first
		pre     []Change // scheduled (successfully) before
		changes []Change
		ok      bool
	}{
		{"cycle 0 refused", 0, nil, []Change{ch(0, SetRate, 1)}, false},
		{"first cycle", 0, nil, []Change{ch(1, SetRate, 1)}, true},
		{"current cycle refused", 5, nil, []Change{ch(5, SetRate, 1)}, false},
		{"past cycle refused", 5, nil, []Change{ch(2, SetRate, 1)}, false},
		{"next cycle", 5, nil, []Change{ch(6, SetRate, 1)}, true},
		{"last cycle", 5, nil, []Change{ch(10, SetRate, 1)}, true},
		{"after the last cycle refused", 5, nil, []Change{ch(11, SetRate, 1)}, false},
		{"batch valid as a whole", 0, nil, []Change{ch(3, SetTaskMin, 40), ch(3, SetTaskMax, 40)}, true},
		{"task-min above task-max", 0, nil, []Change{ch(3, SetTaskMin, 40)}, false},
		{"one bad change refuses the call", 0, nil, []Change{ch(3, SetRate, 1), ch(4, SetCooldown, 0)}, false},
		{"one bad cycle refuses the call", 0, nil, []Change{ch(3, SetRate, 1), ch(11, SetRate, 1)}, false},
		{"scale-down not below scale-up", 0, nil, []Change{ch(2, SetScaleDown, int64(MaxFactor))}, false},
		{"negative rate", 0, nil, []Change{ch(2, SetRate, -1)}, false},
		{"rate too high", 0, nil, []Change{ch(2, SetRate, int64(MaxRate)+1)}, false},
		{"min-servers above max-servers", 0, nil, []Change{ch(2, SetMinServers, 4)}, false},
		{"queue-cap negative", 0, nil, []Change{ch(2, SetQueueCap, -1)}, false},
		{"unknown setting", 0, nil, []Change{ch(2, numSettings, 1)}, false},
		{"policy out of range", 0, nil, []Change{ch(2, SetPolicy, int64(numPolicies))}, false},
		{"policy negative", 0, nil, []Change{ch(2, SetPolicy, -1)}, false},
		{"policy beyond a byte", 0, nil, []Change{ch(2, SetPolicy, 256)}, false},
		{"wave neither 0 nor 1", 0, nil, []Change{ch(2, SetWave, 2)}, false},
		{"merged with a pending change of the same cycle", 0, []Change{ch(3, SetTaskMax, 40)}, []Change{ch(3, SetTaskMin, 40)}, true},
		{"breaks a later pending change", 0, []Change{ch(3, SetTaskMax, 40), ch(5, SetTaskMin, 30)}, []Change{ch(4, SetTaskMax, 20)}, false},
		{"empty call", 0, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := traceConfig(3, 10)
			h := newHarness(t, cfg)
			if err := h.m.Schedule(tt.pre...); err != nil {
				t.Fatalf("Schedule(pre): %v", err)
			}
			h.stepTo(tt.at)
			before, cfgBefore := h.m.Pending(), h.m.Config()
			err := h.m.Schedule(tt.changes...)
			if (err == nil) != tt.ok {
				t.Fatalf("Schedule(%v) = %v, want ok %v", tt.changes, err, tt.ok)
			}
			after := h.m.Pending()
			if err != nil {
				if !slices.Equal(after, before) {
					t.Errorf("refused Schedule changed Pending() from %v to %v", before, after)
				}
			} else if len(after) != len(before)+len(tt.changes) {
				t.Errorf("Pending() = %v after scheduling %v on %v", after, tt.changes, before)
			}
			if got := h.m.Config(); got.Rate != cfgBefore.Rate || got.TaskMax != cfgBefore.TaskMax || got.Policy != cfgBefore.Policy {
				t.Errorf("Schedule changed the config in effect")
			}
			h.run() // scheduled changes apply without panicking, invariants hold
		})
	}
}

// TestNewValidates checks that New refuses every out-of-range setting with a
// *FieldError naming it.
func TestNewValidates(t *testing.T) {
	tests := []struct {
		field string
		mod   func(*Config)
	}{
		{"servers", func(c *Config) { c.Servers = 0 }},
		{"servers", func(c *Config) { c.Servers = MaxServersLimit + 1 }},
		{"cycles", func(c *Config) { c.Cycles = 0 }},
		{"cycles", func(c *Config) { c.Cycles = MaxCycles + 1 }},
		{"initial-per-server", func(c *Config) { c.InitialPerServer = -1 }},
		{"task-min", func(c *Config) { c.TaskMin = 0 }},
		{"task-max", func(c *Config) { c.TaskMax = c.TaskMin - 1 }},
		{"task-max", func(c *Config) { c.TaskMax = MaxTaskTime + 1 }},
		{"rate", func(c *Config) { c.Rate = -1 }},
		{"wave-amplitude", func(c *Config) { c.WaveAmplitude = 101 }},
		{"wave-period", func(c *Config) { c.WavePeriod = 0 }},
		{"stream-share", func(c *Config) { c.StreamShare = -1 }},
		{"scale-up", func(c *Config) { c.ScaleUp = -1 }},
		{"scale-down", func(c *Config) { c.ScaleDown = c.ScaleUp }},
		{"cooldown", func(c *Config) { c.Cooldown = 0 }},
		{"min-servers", func(c *Config) { c.MinServers = 0 }},
		{"min-servers", func(c *Config) { c.MinServers = c.Servers + 1 }},
		{"max-servers", func(c *Config) { c.MaxServers = c.Servers - 1 }},
		{"queue-cap", func(c *Config) { c.QueueCap = -1 }},
		{"policy", func(c *Config) { c.Policy = numPolicies }},
		{"blocked", func(c *Config) { c.Blocked = []Range{{First: 5, Last: 4}} }},
		{"trace", func(c *Config) { c.Trace = []TraceRow{row(0, 0)} }},
		{"trace", func(c *Config) { c.Trace = []TraceRow{row(0, MaxTaskTime+1)} }},
		{"trace", func(c *Config) { c.Trace = []TraceRow{row(3, 1), row(2, 1)} }},
		{"trace", func(c *Config) { c.Trace = []TraceRow{row(-1, 1)} }},
		{"trace", func(c *Config) { c.Trace = []TraceRow{{Cycle: 1, Time: 1, Type: Streaming + 1}} }},
	}
	for _, tt := range tests {
		cfg := DefaultConfig()
		tt.mod(&cfg)
		_, err := New(cfg)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("New with bad %s: error %v, want a *FieldError for %q", tt.field, err, tt.field)
		}
	}
	if _, err := New(DefaultConfig()); err != nil {
		t.Errorf("New(DefaultConfig()) = %v", err)
	}
}
