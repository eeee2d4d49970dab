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
			"applies to policies swrr, least-connections (per-server), and the policy is least-connections with pooled queues"},
		{"round-robin", PerServer, RoundRobin, "weights", nil, "applies to policies swrr, least-connections (per-server)"},
		{"a switch to least-connections", PerServer, RoundRobin, "weights",
			[]Change{{Cycle: 5, Setting: SetPolicy, Value: int64(LeastConnections)}}, ""},
		{"a switch to least-connections, pooled", Pooled, RoundRobin, "weights",
			[]Change{{Cycle: 5, Setting: SetPolicy, Value: int64(LeastConnections)}}, "weights"},
		{"p2c per-server", PerServer, P2C, "choices", nil, ""},
		{"p2c pooled draws one", Pooled, P2C, "choices", nil, "applies to policy p2c (per-server)"},
		{"random", PerServer, Random, "choices", nil, "choices: applies to policy p2c (per-server), and the policy is random"},
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

// TestCheckUnusedChanges: a --set of a setting that no state of the run
// reads is refused as the flag would be (choices with jiq, retry-budget,
// health-fall, fail-time), naming the change; with what reads it (at the
// start or by another change) it is accepted.
func TestCheckUnusedChanges(t *testing.T) {
	jiq := func(c *Config) { c.Queues, c.Policy = PerServer, JIQ }
	none := func(*Config) {}
	set := func(cycle int64, name, value string) Change {
		c, err := NewChange(cycle, name, value)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cases := []struct {
		name    string
		cfg     func(*Config)
		changes []Change
		refused string // "" when accepted; else a part of the message
	}{
		{"choices with jiq", jiq, []Change{set(100, "choices", "3")}, "set 100:choices=3: applies to policy p2c"},
		{"choices after a switch to p2c", jiq, []Change{set(50, "policy", "p2c"), set(100, "choices", "3")}, ""},
		{"retry-budget without retries", none, []Change{set(100, "retry-budget", "0.1")}, "set 100:retry-budget=0.1: applies only with --retries above 0"},
		{"retry-budget after retries are set", none, []Change{set(50, "retries", "1"), set(100, "retry-budget", "0.1")}, ""},
		{"health-fall without health checks", none, []Change{set(100, "health-fall", "2")}, "drop this --set"},
		{"health-fall with health checks", func(c *Config) { c.HealthInterval = 10 }, []Change{set(100, "health-fall", "2")}, ""},
		{"fail-time without a fail fault", none, []Change{set(100, "fail-time", "5")}, "applies only to a failing server"},
		{"fail-time with a fail fault", none, []Change{set(100, "fail-time", "5"), set(200, "fail", "1")}, ""},
		{"a read setting", none, []Change{set(100, "rate", "0.6")}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.cfg(&cfg)
			err := CheckUnused(&cfg, map[string]bool{}, c.changes)
			var ue *UnusedError
			switch {
			case c.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refused != "" && !errors.As(err, &ue):
				t.Fatalf("accepted, want an UnusedError with %q", c.refused)
			case c.refused != "" && (ue.Change == nil || !strings.Contains(err.Error(), c.refused) || !strings.HasPrefix(ue.Flag(), "--set ")):
				t.Fatalf("got %q (flag %q), want %q", err, ue.Flag(), c.refused)
			}
		})
	}
}

// TestValidateChangesFailTime: a configuration setting fail-time away
// from its default with no fail fault among its changes (a snapshot's:
// its flags are not known) is refused by ValidateChanges with the reason
// CheckUnused gives when the flag is given; a fail fault, or the default,
// is accepted.
func TestValidateChangesFailTime(t *testing.T) {
	fail := Change{Cycle: 5, Setting: SetFail, Value: 1}
	cases := []struct {
		name     string
		failTime int64
		changes  []Change
		refused  bool
	}{
		{"default", 0, nil, false},
		{"the default written out", 1, nil, false},
		{"no fail fault", 20, nil, true},
		{"a fail-time change is no fault", 20, []Change{{Cycle: 5, Setting: SetFailTime, Value: 3}}, true},
		{"a down fault is no fail fault", 20, []Change{{Cycle: 5, Setting: SetDown, Value: 1}}, true},
		{"a fail fault", 20, []Change{fail}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Cycles, cfg.FailTime = 100, c.failTime
			err := ValidateChanges(cfg, c.changes)
			var ue *UnusedError
			switch {
			case !c.refused && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refused && !errors.As(err, &ue):
				t.Fatalf("accepted (%v), want an UnusedError", err)
			case c.refused:
				flag := CheckUnused(&cfg, map[string]bool{"fail-time": true}, c.changes)
				if ue.Field != "fail-time" || flag == nil || ue.Why != flag.(*UnusedError).Why {
					t.Errorf("got %v, want fail-time refused as the flag is: %v", err, flag)
				}
			}
		})
	}
}
