package scene

import (
	"strings"
	"testing"
)

// TestTheoryPanelFleet: with a fleet reading stale or partial loads the
// theory panel says no closed form applies to a load-reading policy, and
// keeps the models that still hold: random routing's c × M/M/1 for any
// number of balancers, p2c's supermarket model with exact loads.
func TestTheoryPanelFleet(t *testing.T) {
	lines := func(kvs ...string) []string {
		t.Helper()
		cfg := testConfig()
		base := []string{"wave", "false", "service", "geometric", "mean-service", "20", "scale-up", "100000",
			"scale-down", "0", "rate", "0.4", "block", "none", "min-servers", "10", "max-servers", "10", "queues", "per-server"}
		kvs = append(base, kvs...)
		for i := 0; i < len(kvs); i += 2 {
			if err := cfg.Set(kvs[i], kvs[i+1]); err != nil {
				t.Fatal(kvs[i:i+2], err)
			}
		}
		s, err := New(Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		return s.TheoryLines()
	}
	noForm := func(ls []string) bool { return len(ls) == 2 && strings.HasPrefix(ls[1], "no closed form: ") }
	for _, c := range []struct {
		kvs  []string
		want string // "none": no closed form; else a text of the first line
	}{
		{[]string{"policy", "least-connections", "balancers", "20", "load-info", "local"}, "none"},
		{[]string{"policy", "p2c", "balancers", "20", "load-info", "local"}, "none"},
		{[]string{"policy", "p2c", "balancers", "1", "load-info", "periodic:100"}, "none"},
		{[]string{"policy", "least-connections", "balancers", "4", "load-info", "periodic:50"}, "none"},
		{[]string{"policy", "random", "balancers", "20"}, "c × M/M/1"},
		{[]string{"policy", "p2c", "balancers", "20"}, "supermarket"},
		{[]string{"policy", "p2c", "balancers", "20", "choices", "1", "load-info", "local"}, "c × M/M/1"},
		{[]string{"policy", "least-connections", "balancers", "1", "load-info", "local"}, "bounds"}, // one balancer: local is exact
	} {
		ls := lines(c.kvs...)
		switch {
		case c.want == "none":
			if !noForm(ls) || !strings.Contains(ls[1], "stale loads") {
				t.Errorf("%v: want no closed form, got %q", c.kvs, ls)
			}
		case c.want == "bounds":
			if len(ls) < 2 || ls[1] != "\tbounds\tmeasured" {
				t.Errorf("%v: want the bounds of one balancer, got %q", c.kvs, ls)
			}
		case noForm(ls) || !strings.Contains(ls[0], c.want):
			t.Errorf("%v: want %s, got %q", c.kvs, c.want, ls)
		}
	}
}
