package sim

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckUnusedReadsThePolicyTable: weights and choices are refused
// exactly where no policy in force reads them, and the message names the
// policies that do (from the policy table).
func TestCheckUnusedReadsThePolicyTable(t *testing.T) {
	cases := []struct {
		name    string
		queues  QueueMode
		policy  Policy
		given   string
		changes []Change
		refused string // "" when accepted; else a part of the message
	}{
		{"weighted least-connections", PerServer, LeastConnections, "weights", nil, ""},
		{"swrr pooled", Pooled, SWRR, "weights", nil, ""},
		{"swrr per-server", PerServer, SWRR, "weights", nil, ""},
		{"least-connections pooled is first-idle", Pooled, LeastConnections, "weights", nil,
			"apply to policy swrr, least-connections (per-server), and the policy is least-connections with pooled queues"},
		{"round-robin", PerServer, RoundRobin, "weights", nil, "apply to policy swrr, least-connections (per-server)"},
		{"a switch to least-connections", PerServer, RoundRobin, "weights",
			[]Change{{Cycle: 5, Setting: SetPolicy, Value: int64(LeastConnections)}}, ""},
		{"a switch to least-connections, pooled", Pooled, RoundRobin, "weights",
			[]Change{{Cycle: 5, Setting: SetPolicy, Value: int64(LeastConnections)}}, "weights"},
		{"p2c per-server", PerServer, P2C, "choices", nil, ""},
		{"p2c pooled draws one", Pooled, P2C, "choices", nil, "apply to policy p2c (per-server)"},
		{"random", PerServer, Random, "choices", nil, "choices: apply to policy p2c (per-server), and the policy is random"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Queues, cfg.Policy = c.queues, c.policy
			err := CheckUnused(&cfg, map[string]bool{c.given: true}, c.changes)
			var ue *UnusedError
			switch {
			case c.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refused != "" && !errors.As(err, &ue):
				t.Fatalf("accepted, want an UnusedError with %q", c.refused)
			case c.refused != "" && (ue.Field != c.given || !strings.Contains(err.Error(), c.refused)):
				t.Fatalf("got %q (field %q), want field %q and %q", err, ue.Field, c.given, c.refused)
			}
		})
	}
}

// TestDefaultPolicyPerMode: each queue mode has exactly one default in the
// policy table, and it runs in that mode.
func TestDefaultPolicyPerMode(t *testing.T) {
	for q := range numQueueModes {
		n := 0
		for p := range numPolicies {
			if policies[p].DefaultIn.has(q) {
				n++
			}
		}
		if p := DefaultPolicy(q); n != 1 || p.Allowed(q) != "" {
			t.Errorf("%v: %d defaults in the table, DefaultPolicy %v (allowed: %q)", q, n, p, p.Allowed(q))
		}
	}
	if DefaultPolicy(Pooled) != FirstIdle || DefaultPolicy(PerServer) != RoundRobin {
		t.Errorf("defaults %v and %v, want first-idle pooled and round-robin per-server", DefaultPolicy(Pooled), DefaultPolicy(PerServer))
	}
}

// TestCheckUnusedClientNeeds: a setting of the client side that refines
// another is refused without it (or a change that turns it on).
func TestCheckUnusedClientNeeds(t *testing.T) {
	cases := []struct {
		given   string
		set     func(*Config)
		changes []Change
		refused bool
	}{
		{"backoff", func(*Config) {}, nil, true},
		{"backoff", func(c *Config) { c.Retries = 2 }, nil, false},
		{"backoff", func(*Config) {}, []Change{{Cycle: 9, Setting: SetRetries, Value: 1}}, false},
		{"backoff", func(*Config) {}, []Change{{Cycle: 9, Setting: SetRetries, Value: 0}}, true},
		{"jitter", func(*Config) {}, nil, true},
		{"retry-budget", func(c *Config) { c.Retries = 1 }, nil, false},
		{"retry-budget", func(c *Config) { c.HealthInterval = 1 }, nil, true},
		{"health-fall", func(*Config) {}, nil, true},
		{"health-rise", func(c *Config) { c.HealthInterval = 5 }, nil, false},
		{"health-rise", func(*Config) {}, []Change{{Cycle: 3, Setting: SetHealthInterval, Value: 5}}, false},
		{"eject-for", func(*Config) {}, nil, true},
		{"eject-for", func(c *Config) { c.EjectAfter = 3 }, nil, false},
		{"timeout", func(*Config) {}, nil, false},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		c.set(&cfg)
		err := CheckUnused(&cfg, map[string]bool{c.given: true}, c.changes)
		var ue *UnusedError
		if got := errors.As(err, &ue) && ue.Field == c.given; got != c.refused {
			t.Errorf("%s with %+v and changes %v: refused %v (%v), want %v", c.given, cfg.Retries, c.changes, got, err, c.refused)
		}
	}
}
