package sim_test

// Corners of the client side's and detection's rules that the reference
// model found the model breaking; each a small run checked against what
// the rules say, by hand.

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
	check func(m ruleRun) string
}

// clientRuleConfig is the base of the cases: a fixed pool of one server,
// no firewall, no scaling, the trace's requests only (none without one).
func clientRuleConfig() sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.MinServers, cfg.MaxServers = 1, 50, 1, 1, 1
	cfg.Blocked = nil
	cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown = sim.MaxFactor, 0, 1
	cfg.InitialPerServer, cfg.Rate, cfg.Wave = 0, 0, false // no requests but the trace's
	return cfg
}

var clientRuleCases = []clientRuleCase{
	{
		// Step a ends the attempts due in server id order, whatever
		// order they were dispatched in: an ejection decided there
		// counts the servers live at that point. Pooled, two servers:
		// server 1 serves request 1 (4 cycles) and server 2 request 2
		// (10 cycles) from cycle 0; scaling at cycle 1 retires server 2.
		// Server 1 is failing from cycle 5 (errors after 5 cycles) and
		// takes request 3 then, which errs at cycle 10, as request 2
		// completes on server 2. In id order, server 1's error comes
		// first: two servers are live, so ejecting one leaves no more
		// than half of them ejected, and server 1 is ejected; then
		// server 2 leaves.
		name: "step a ends attempts in server id order",
		config: func(c *sim.Config) {
			c.Servers, c.MaxServers, c.ScaleDown = 2, 2, sim.FactorScale
			c.EjectAfter, c.FailTime = 1, 5
		},
		trace:   []sim.TraceRow{{Cycle: 0, Src: 1, Time: 4}, {Cycle: 0, Src: 2, Time: 10}, {Cycle: 5, Src: 3, Time: 1}},
		changes: []sim.Change{{Cycle: 5, Setting: sim.SetFail, Value: int64(sim.MakeServerRef(0, 1))}},
		at:      10,
		check: func(m ruleRun) string {
			if s := m.Summary(); s.Ejections != 1 || s.Errors != 1 || s.ServersFinal != 1 || s.ServersEjected != 1 {
				return fmt.Sprintf("ejections %d, errors %d, servers_final %d, servers_ejected %d; want 1, 1, 1, 1", s.Ejections, s.Errors, s.ServersFinal, s.ServersEjected)
			}
			return ""
		},
	},
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
		check: func(m ruleRun) string {
			s := m.Summary()
			if s.ServersFinal != 2 || s.ServersWarming != 1 || s.ServersBusy != 1 || s.ServersIdle != 0 {
				return fmt.Sprintf("servers_final %d, warming %d, busy %d, idle %d; want 2, 1, 1, 0", s.ServersFinal, s.ServersWarming, s.ServersBusy, s.ServersIdle)
			}
			return ""
		},
	},
	{
		// An ejected server finishes what it holds; restored, it is a
		// candidate again even while it still holds some. Per-server
		// round-robin over two servers, server 1 failing (after 5
		// cycles) from cycle 1, eject-after 1, eject-for 5. Requests
		// 1, 3 and 5 go to server 1 at cycle 1, 2 and 4 to server 2.
		// Request 1 errs at cycle 6: server 1 is ejected until 11 and
		// takes request 3, which errs at 11; restored at step c of 11,
		// server 1 takes request 5 at step d. At cycle 12 requests 6 and
		// 7 arrive: round-robin goes on after server 1 (the last given a
		// request), so 6 goes to server 2 and 7 to server 1.
		name: "a restored server holding work is a candidate again",
		config: func(c *sim.Config) {
			c.Servers, c.MaxServers, c.Queues, c.Policy = 2, 2, sim.PerServer, sim.RoundRobin
			c.EjectAfter, c.EjectFor, c.FailTime = 1, 5, 5
		},
		trace: []sim.TraceRow{{Cycle: 1, Src: 1, Time: 1}, {Cycle: 1, Src: 2, Time: 1}, {Cycle: 1, Src: 3, Time: 1},
			{Cycle: 1, Src: 4, Time: 1}, {Cycle: 1, Src: 5, Time: 1}, {Cycle: 12, Src: 6, Time: 1}, {Cycle: 12, Src: 7, Time: 1}},
		changes: []sim.Change{{Cycle: 1, Setting: sim.SetFail, Value: int64(sim.MakeServerRef(0, 1))}},
		at:      12,
		check: func(m ruleRun) string {
			if p := m.Pool(); p.Active != 2 || p.Ejected != 0 {
				return fmt.Sprintf("%d active servers and %d ejected, want 2 and 0", p.Active, p.Ejected)
			}
			return arrivedAt(m, 7, 1)
		},
	},
	{
		// The run above at cycle 7: server 1 is ejected (from cycle 6 to
		// 11) and busy with request 3; the pool and the summary count it
		// ejected, live, not active.
		name: "an ejected server is counted ejected",
		config: func(c *sim.Config) {
			c.Servers, c.MaxServers, c.Queues, c.Policy = 2, 2, sim.PerServer, sim.RoundRobin
			c.EjectAfter, c.EjectFor, c.FailTime = 1, 5, 5
		},
		trace: []sim.TraceRow{{Cycle: 1, Src: 1, Time: 1}, {Cycle: 1, Src: 2, Time: 1}, {Cycle: 1, Src: 3, Time: 1},
			{Cycle: 1, Src: 4, Time: 1}, {Cycle: 1, Src: 5, Time: 1}},
		changes: []sim.Change{{Cycle: 1, Setting: sim.SetFail, Value: int64(sim.MakeServerRef(0, 1))}},
		at:      7,
		check: func(m ruleRun) string {
			p, s := m.Pool(), m.Summary()
			if p.Live != 2 || p.Active != 1 || p.Ejected != 1 || s.ServersEjected != 1 || s.Ejections != 1 {
				return fmt.Sprintf("pool %+v, servers_ejected %d, ejections %d; want 2 live, 1 active, 1 ejected, servers_ejected 1, ejections 1", p, s.ServersEjected, s.Ejections)
			}
			return ""
		},
	},
	{
		// The same at cycle 7 behind a switch (all requests are P): the
		// totals count server 1 of P ejected as P's summary does.
		name: "a switch's totals count the ejected servers",
		config: func(c *sim.Config) {
			c.Servers, c.MaxServers, c.Queues, c.Policy = 2, 2, sim.PerServer, sim.RoundRobin
			c.EjectAfter, c.EjectFor, c.FailTime = 1, 5, 5
			c.Switch = true
		},
		trace: []sim.TraceRow{{Cycle: 1, Src: 1, Time: 1}, {Cycle: 1, Src: 2, Time: 1}, {Cycle: 1, Src: 3, Time: 1},
			{Cycle: 1, Src: 4, Time: 1}, {Cycle: 1, Src: 5, Time: 1}},
		changes: []sim.Change{{Cycle: 1, Setting: sim.SetFail, Value: int64(sim.MakeServerRef(0, 1))}},
		at:      7,
		check: func(m ruleRun) string {
			s := m.Summary()
			if s.ServersEjected != 1 || s.P.ServersEjected != 1 || s.S.ServersEjected != 0 {
				return fmt.Sprintf("servers_ejected %d (P %d, S %d), want 1 (1, 0)", s.ServersEjected, s.P.ServersEjected, s.S.ServersEjected)
			}
			return ""
		},
	},
	{
		// With health checks on, a down server not yet ejected is an
		// idle candidate: scaling may remove it. Two idle servers,
		// server 2 down at cycle 1 (the next probe at cycle 100); scaling
		// at cycle 1 removes the highest idle candidate, server 2. One
		// server is left, idle, and none is down.
		name: "a down server removed by scaling is not down any more",
		config: func(c *sim.Config) {
			c.Servers, c.MaxServers, c.ScaleDown, c.HealthInterval = 2, 2, 1, 100
		},
		changes: []sim.Change{{Cycle: 1, Setting: sim.SetDown, Value: int64(sim.MakeServerRef(0, 2))}},
		at:      1,
		check: func(m ruleRun) string {
			s := m.Summary()
			if s.ScaleDowns != 1 || s.ServersFinal != 1 || s.ServersDown != 0 || s.ServersIdle != 1 {
				return fmt.Sprintf("scale_downs %d, servers_final %d, down %d, idle %d; want 1, 1, 0, 1", s.ScaleDowns, s.ServersFinal, s.ServersDown, s.ServersIdle)
			}
			return ""
		},
	},
	{
		// The run above with replace-after 2: server 2 left the pool at
		// cycle 1 (scaled down); it is not replaced at cycle 3.
		name: "a down server removed by scaling is not replaced",
		config: func(c *sim.Config) {
			c.Servers, c.MaxServers, c.ScaleDown, c.HealthInterval, c.ReplaceAfter = 2, 2, 1, 100, 2
		},
		changes: []sim.Change{{Cycle: 1, Setting: sim.SetDown, Value: int64(sim.MakeServerRef(0, 2))}},
		at:      3,
		check: func(m ruleRun) string {
			if s := m.Summary(); s.Replaced != 0 || s.ServersFinal != 1 {
				return fmt.Sprintf("replaced %d, servers_final %d; want 0, 1", s.Replaced, s.ServersFinal)
			}
			return ""
		},
	},
	{
		// A warming server can go down. Per-server p2c, one server with
		// two requests; scaling at cycle 1 adds server 2, warming for 5
		// cycles; it goes down at cycle 2, holding nothing: the run goes
		// on (the model panicked here), server 2 down and warming.
		name: "a warming server goes down",
		config: func(c *sim.Config) {
			c.MaxServers, c.ScaleUp, c.ProvisionDelay = 2, 1, 5
			c.Queues, c.Policy = sim.PerServer, sim.P2C
		},
		trace:   []sim.TraceRow{{Cycle: 0, Src: 1, Time: 10}, {Cycle: 0, Src: 2, Time: 10}},
		changes: []sim.Change{{Cycle: 2, Setting: sim.SetDown, Value: int64(sim.MakeServerRef(0, 2))}},
		at:      3,
		check: func(m ruleRun) string {
			if s := m.Summary(); s.ServersFinal != 2 || s.ServersDown != 1 || s.ServersWarming != 1 || s.Requeued != 0 {
				return fmt.Sprintf("servers_final %d, down %d, warming %d, requeued %d; want 2, 1, 1, 0", s.ServersFinal, s.ServersDown, s.ServersWarming, s.Requeued)
			}
			return ""
		},
	},
	{
		// Replacement counts from the cycle a server went down, even if
		// replace-after was turned on later. Server 2 goes down at cycle
		// 1 (health checks off); replace-after 1 from cycle 3: at step c
		// of cycle 3 it has been down 2 cycles and leaves the pool.
		name: "replacement turned on counts a server already down",
		config: func(c *sim.Config) {
			c.Servers, c.MaxServers = 2, 2
		},
		changes: []sim.Change{
			{Cycle: 1, Setting: sim.SetDown, Value: int64(sim.MakeServerRef(0, 2))},
			{Cycle: 3, Setting: sim.SetReplaceAfter, Value: 1},
		},
		at: 3,
		check: func(m ruleRun) string {
			if s := m.Summary(); s.Replaced != 1 || s.ServersFinal != 1 || s.ServersDown != 0 {
				return fmt.Sprintf("replaced %d, servers_final %d, down %d; want 1, 1, 0", s.Replaced, s.ServersFinal, s.ServersDown)
			}
			return ""
		},
	},
}

// clientReadingCases are where the rules leave room for more than one
// reading; each case follows the plainest (the reference model does too),
// which the model may not share: one to decide.
var clientReadingCases = []clientRuleCase{
	{
		// "k = its ejections since its last completion": a health
		// ejection counts. Pooled first-idle over two servers, probes
		// every 2 cycles (fall 1, rise 1); server 1 fails from cycle 1
		// and the probe of cycle 2 ejects it; healed at 3, it passes the
		// probe of 4 and is restored. Failing again from 5, it takes
		// request 1 at cycle 5, which errs at 6: its second ejection
		// since a completion (it never completed), so 4·2 = 8 cycles,
		// until 14, not 4 (until 10). It is still ejected after cycle 10.
		name: "a health ejection counts in the outlier ejection's doubling",
		config: func(c *sim.Config) {
			c.Servers, c.MaxServers = 2, 2
			c.HealthInterval, c.HealthFall, c.HealthRise = 2, 1, 1
			c.EjectAfter, c.EjectFor, c.FailTime = 1, 4, 1
		},
		trace: []sim.TraceRow{{Cycle: 5, Src: 1, Time: 1}},
		changes: []sim.Change{
			{Cycle: 1, Setting: sim.SetFail, Value: int64(sim.MakeServerRef(0, 1))},
			{Cycle: 3, Setting: sim.SetHeal, Value: int64(sim.MakeServerRef(0, 1))},
			{Cycle: 5, Setting: sim.SetFail, Value: int64(sim.MakeServerRef(0, 1))},
		},
		at: 10,
		check: func(m ruleRun) string {
			if s := m.Summary(); s.Errors != 1 || s.Ejections != 2 || s.ServersEjected != 1 {
				return fmt.Sprintf("errors %d, ejections %d, servers_ejected %d; want 1, 2, 1 (ejected until cycle 14)", s.Errors, s.Ejections, s.ServersEjected)
			}
			return ""
		},
	},
	{
		// "Errors on a server extend its run of consecutive errors":
		// also while outlier ejection is off. Pooled first-idle over two
		// servers, server 1 failing (after 1 cycle) from cycle 1, one
		// request a cycle from cycle 1: each goes to server 1 and errs a
		// cycle later. Eject-after 2 from cycle 4: the error at cycle 4
		// is the third in a row, and server 1 is ejected then.
		name: "errors extend the run while ejection is off",
		config: func(c *sim.Config) {
			c.Servers, c.MaxServers, c.FailTime, c.EjectFor = 2, 2, 1, 50
		},
		trace: []sim.TraceRow{{Cycle: 1, Src: 1, Time: 1}, {Cycle: 2, Src: 2, Time: 1}, {Cycle: 3, Src: 3, Time: 1}},
		changes: []sim.Change{
			{Cycle: 1, Setting: sim.SetFail, Value: int64(sim.MakeServerRef(0, 1))},
			{Cycle: 4, Setting: sim.SetEjectAfter, Value: 2},
		},
		at: 4,
		check: func(m ruleRun) string {
			if s := m.Summary(); s.Errors != 3 || s.Ejections != 1 || s.ServersEjected != 1 {
				return fmt.Sprintf("errors %d, ejections %d, servers_ejected %d; want 3, 1, 1", s.Errors, s.Ejections, s.ServersEjected)
			}
			return ""
		},
	},
	{
		// A replaced server "leaves the pool": while its attempts are
		// routed again it is no longer live (nor ejected). Per-server
		// round-robin over two servers, health checks every cycle (fall
		// 1), eject-after 1, replace-after 2. Server 1 hangs from cycle
		// 1 and holds requests 1 (in service) and 3; the probe of cycle
		// 1 ejects it. Server 2 goes down at cycle 2 (request 2 errs);
		// the ⌊L/2⌋ rule keeps it a candidate (server 1 is ejected). At
		// cycle 3 server 1 is replaced and requests 1 and 3 are routed
		// to server 2, down: each errs, and the first error would eject
		// it, but with server 1 gone one server is live and ⌊1/2⌋ = 0
		// allows no ejection.
		name: "a replaced server is not live while its attempts are routed again",
		config: func(c *sim.Config) {
			c.Cycles, c.Servers, c.MaxServers = 3, 2, 2
			c.Queues, c.Policy = sim.PerServer, sim.RoundRobin
			c.HealthInterval, c.HealthFall, c.EjectAfter, c.EjectFor, c.ReplaceAfter = 1, 1, 1, 50, 2
		},
		trace: []sim.TraceRow{{Cycle: 1, Src: 1, Time: 10}, {Cycle: 1, Src: 2, Time: 10}, {Cycle: 1, Src: 3, Time: 10}},
		changes: []sim.Change{
			{Cycle: 1, Setting: sim.SetHang, Value: int64(sim.MakeServerRef(0, 1))},
			{Cycle: 2, Setting: sim.SetDown, Value: int64(sim.MakeServerRef(0, 2))},
		},
		at: 3,
		check: func(m ruleRun) string {
			if s := m.Summary(); s.Replaced != 1 || s.Errors != 3 || s.Ejections != 1 || s.ServersEjected != 0 {
				return fmt.Sprintf("replaced %d, errors %d, ejections %d, servers_ejected %d; want 1, 3, 1, 0", s.Replaced, s.Errors, s.Ejections, s.ServersEjected)
			}
			return ""
		},
	},
}

// ruleRun is what the cases read of a run: the model's, or the
// reference's.
type ruleRun interface {
	Summary() sim.Summary
	Pool() sim.Pool
	Events() []sim.Event
	Cycle() int64
}

// TestClientRules runs each case through the model, and through the plain
// reference model (which the cases' hand-computed outcomes also check).
func TestClientRules(t *testing.T) { runRuleCases(t, clientRuleCases) }

// TestClientReadings runs the cases of clientReadingCases likewise.
func TestClientReadings(t *testing.T) { runRuleCases(t, clientReadingCases) }

func runRuleCases(t *testing.T, cases []clientRuleCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := clientRuleConfig()
			cfg.Trace = c.trace
			if c.config != nil {
				c.config(&cfg)
			}
			ref, err := newRef(cfg, c.changes)
			if err != nil {
				t.Fatal(err)
			}
			for ref.Cycle() < c.at {
				ref.step()
			}
			if d := c.check(ref); d != "" {
				t.Errorf("the reference, after cycle %d: %s", c.at, d)
			}
			m, err := sim.New(cfg, sim.WithEvents())
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Schedule(c.changes...); err != nil {
				t.Fatal(err)
			}
			if p := runToCatching(m, c.at); p != nil {
				t.Fatalf("the model panicked before cycle %d: %v", c.at, p)
			}
			if d := c.check(m); d != "" {
				t.Errorf("the model, after cycle %d: %s", c.at, d)
			}
		})
	}
}

// arrivedAt says what is wrong unless request id arrived in the last cycle
// routed to server want.
func arrivedAt(m ruleRun, id int64, want int) string {
	for _, e := range m.Events() {
		if e.Kind == sim.Arrive && e.Request.ID == id {
			if e.Server != want {
				return fmt.Sprintf("request %d routed to server %d, want %d", id, e.Server, want)
			}
			return ""
		}
	}
	return fmt.Sprintf("request %d did not arrive at cycle %d", id, m.Cycle())
}

// TestDownServerKeepsItsDrawPlace: with health checks on, a server going
// down stays a candidate, so it keeps its place in the order the routing
// generator draws candidates from (1, 2 here). Per-server random over two
// servers: request 1 goes, at cycle 0, to the candidate of the first draw;
// that server goes down at cycle 1 with request 1 in service (an error);
// request 2 then goes to the candidate of the second draw, in the same
// order.
func TestDownServerKeepsItsDrawPlace(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		cfg := clientRuleConfig()
		cfg.Seed, cfg.Servers, cfg.MaxServers = seed, 2, 2
		cfg.Queues, cfg.Policy, cfg.HealthInterval = sim.PerServer, sim.Random, 100
		cfg.Trace = []sim.TraceRow{{Cycle: 0, Src: 1, Time: 5}, {Cycle: 1, Src: 2, Time: 5}}
		route := rand.New(rand.NewPCG(seed, refRouteStream))
		first, second := route.IntN(2)+1, route.IntN(2)+1
		m, err := sim.New(cfg, sim.WithEvents())
		if err != nil {
			t.Fatal(err)
		}
		if d := arrivedAt(m, 1, first); d != "" {
			t.Fatalf("seed %d: %s (the first draw)", seed, d)
		}
		if err := m.Schedule(sim.Change{Cycle: 1, Setting: sim.SetDown, Value: int64(sim.MakeServerRef(0, first))}); err != nil {
			t.Fatal(err)
		}
		m.Step()
		if d := arrivedAt(m, 2, second); d != "" {
			t.Errorf("seed %d: server %d went down holding request 1: %s (the second draw, candidates in the order 1, 2)", seed, first, d)
		}
	}
}

// runToCatching runs m to cycle at, returning what it panicked with.
func runToCatching(m *sim.Model, at int64) (p any) {
	defer func() { p = recover() }()
	m.RunTo(at)
	return nil
}

// TestHashWarmingServersJoinOutOfOrder: consistent hashing routes by the
// ring of the candidates, whatever order they joined in. Per-server hash,
// one server; scaling adds server 2 at cycle 1 (provision delay 3, ready
// at 4) and server 3 at cycle 2 (the delay changed to 1: ready at 3),
// so server 3 joins before server 2. At cycle 10 each of twenty requests
// goes to the owner of its key on the ring of servers 1, 2 and 3.
func TestHashWarmingServersJoinOutOfOrder(t *testing.T) {
	cfg := clientRuleConfig()
	cfg.Servers, cfg.MaxServers, cfg.ScaleUp, cfg.ProvisionDelay = 1, 3, 1, 3
	cfg.Queues, cfg.Policy = sim.PerServer, sim.Hash
	cfg.Trace = []sim.TraceRow{{Cycle: 1, Src: 1, Time: 3}, {Cycle: 1, Src: 2, Time: 3}}
	ring := []*refServer{{id: 1}, {id: 2}, {id: 3}}
	for src := uint32(1); src <= 20; src++ {
		cfg.Trace = append(cfg.Trace, sim.TraceRow{Cycle: 10, Src: src * 7919, Time: 1})
	}
	m, err := sim.New(cfg, sim.WithEvents())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Schedule(sim.Change{Cycle: 2, Setting: sim.SetProvisionDelay, Value: 1}); err != nil {
		t.Fatal(err)
	}
	var readies []int
	for m.Step() && m.Cycle() < 10 {
		for _, e := range m.Events() {
			if e.Kind == sim.Ready {
				readies = append(readies, e.Server)
			}
		}
	}
	if !slices.Equal(readies, []int{3, 2}) {
		t.Fatalf("servers ready in the order %v, want 3, 2 (the premise)", readies)
	}
	for _, e := range m.Events() {
		if e.Kind != sim.Arrive {
			continue
		}
		r := refReq{Request: e.Request}
		if want := ringOwner(nil, &r, ring).id; e.Server != want {
			t.Errorf("request from %08x routed to server %d, want %d (the owner of its key)", e.Request.Src, e.Server, want)
		}
	}
}
