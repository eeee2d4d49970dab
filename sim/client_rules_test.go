package sim_test

// Corners of the client side's and detection's rules that the reference
// model found the model breaking; each a small run checked against what
// the rules say, by hand.

import (
	"fmt"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// clientRuleCase is one small run: a trace on a configuration, changes,
// and what must hold after cycle at.
type clientRuleCase struct {
	name    string
	config  func(c *sim.Config)
	trace   []sim.TraceRow
	changes []sim.Change
	at      int64
	// check returns what is wrong after cycle at ("" when all is well).
	check func(m *sim.Model) string
}

// clientRuleConfig is the base of the cases: a fixed pool of one server,
// no firewall, no scaling, the trace's requests only.
func clientRuleConfig() sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.MinServers, cfg.MaxServers = 1, 50, 1, 1, 1
	cfg.Blocked = nil
	cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown = sim.MaxFactor, 0, 1
	return cfg
}

var clientRuleCases = []clientRuleCase{
	{
		// A server added by scaling with a provision delay warms: it is
		// live but neither busy nor idle (servers_idle counts live
		// servers not busy, down or warming). Server 1 serves request 1
		// (10 cycles) from cycle 0, request 2 waits; scaling at cycle 1
		// adds server 2, warming through cycle 2.
		name: "a warming server is not idle",
		config: func(c *sim.Config) {
			c.MaxServers, c.ScaleUp, c.ProvisionDelay = 2, 1, 2
		},
		trace: []sim.TraceRow{{Cycle: 0, Src: 1, Time: 10}, {Cycle: 0, Src: 2, Time: 10}},
		at:    1,
		check: func(m *sim.Model) string {
			s := m.Summary()
			if s.ServersFinal != 2 || s.ServersWarming != 1 || s.ServersBusy != 1 || s.ServersIdle != 0 {
				return fmt.Sprintf("servers_final %d, warming %d, busy %d, idle %d; want 2, 1, 1, 0", s.ServersFinal, s.ServersWarming, s.ServersBusy, s.ServersIdle)
			}
			return ""
		},
	},
}

func TestClientRules(t *testing.T) {
	for _, c := range clientRuleCases {
		t.Run(c.name, func(t *testing.T) {
			cfg := clientRuleConfig()
			cfg.Trace = c.trace
			if c.config != nil {
				c.config(&cfg)
			}
			m, err := sim.New(cfg, sim.WithEvents())
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Schedule(c.changes...); err != nil {
				t.Fatal(err)
			}
			m.RunTo(c.at)
			if d := c.check(m); d != "" {
				t.Errorf("after cycle %d: %s", c.at, d)
			}
		})
	}
}
