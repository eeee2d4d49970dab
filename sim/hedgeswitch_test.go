package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestHedgeSwitchFleetSetHandTraces follows hedging behind the P/S
// switch, in a fleet and across changes of hedge-after, cycle by cycle:
// every hedge sent (cycle, balancer, server, request, fleet member), every
// cancellation, the counters and the response times, exactly.
func TestHedgeSwitchFleetSetHandTraces(t *testing.T) {
	row := func(c int64, time uint32, typ Type) TraceRow {
		return TraceRow{Cycle: c, Time: time, Src: 0x01020304, Type: typ}
	}
	hedge := func(c int64, bal, server int, id int64, member uint8) Event {
		return Event{Cycle: c, Kind: Hedge, Balancer: bal, Server: server, Request: Request{ID: id, Member: member}}
	}
	cancel := func(c int64, bal, server int, id int64) Event {
		return Event{Cycle: c, Kind: Cancel, Balancer: bal, Server: server, Request: Request{ID: id}}
	}
	type want struct {
		events                                 []Event // the Hedge and Cancel events
		hedges, won, denied, cancelled, wasted int64
		responses                              []int64 // by completion
	}
	cases := []handTrace[want]{{
		// Budget 0.5, each balancer its own window. P: request 1 at 1
		// (server 1), request 2 at 2 (server 2); S: request 3 at 2 (its
		// server 1). At 3 P's window (cycles 1–2) holds 2 parts, no hedge:
		// request 1's hedge goes to P's server 3. At 4 P's holds 2 parts
		// and 1 hedge: 1 < 0.5 × 2 fails, request 2's hedge is denied;
		// S's holds 1 part, no hedge: request 3's goes to S's server 2 (one
		// window for both would have sent P's and denied S's). The first
		// attempts win (21, 22, 22); each hedge is cancelled with 17
		// cycles served (step a had not reached it).
		name: "the switch: P's budget denies while S's allows",
		cfg:  hedgeTrace(4, 2, 1, 60, row(1, 20, Processing), row(2, 20, Processing), row(2, 20, Streaming)),
		setup: func(c *Config) {
			c.Switch, c.HedgeBudget = true, 500_000
		},
		want: want{
			events: []Event{hedge(3, 0, 3, 1, 0), hedge(4, 1, 2, 3, 0), cancel(21, 0, 3, 1), cancel(22, 1, 2, 3)},
			hedges: 2, denied: 1, cancelled: 2, wasted: 34, responses: []int64{20, 20, 20}},
	}, {
		// A fleet of 2 with local counts, least-connections; seed 8
		// draws balancers 0, 0, 1 (checked below). Request 1 at 1 (time
		// 100) by balancer 0 to server 1; request 2 at 2 (time 5) by
		// balancer 0, which counts 1 at server 1, to server 2 (done 7,
		// before its own hedge is due).
		// Request 1's hedge at 6 draws balancer 1, which has routed
		// nothing and so believes every server empty: among servers 2 and
		// 3 (server 1 holds request 1) it takes 2, where the hedge queues
		// behind request 2 (balancer 0 would have taken the idle server
		// 3). Served from 7, it completes at 37 and wins: request 1's
		// first attempt is cancelled in service with 36 cycles served.
		name: "a fleet hedge draws a balancer other than its request's",
		cfg:  hedgeTrace(3, 5, 1, 120, row(1, 100, Processing), row(2, 5, Processing)),
		setup: func(c *Config) {
			c.Seed, c.Balancers, c.LoadInfo, c.Policy = 8, 2, LoadLocal, LeastConnections
		},
		want: want{
			events: []Event{hedge(6, 0, 2, 1, 1), cancel(37, 0, 1, 1)},
			hedges: 1, won: 1, cancelled: 1, wasted: 36, responses: []int64{5, 36}},
	}, {
		// Hedge-after 10, then 2 from cycle 5. Request 1, first sent at 4,
		// keeps 10: its hedge goes at 14 (to server 4); request 2, first
		// sent at 5, is hedged at 7 (server 3). Both hedges win (37, 44),
		// each cancelling its first attempt in service (32 and 40 cycles).
		name:    "a change of hedge-after: a part sent the cycle before keeps the old D",
		cfg:     hedgeTrace(4, 10, 1, 120, row(4, 100, Processing), row(5, 100, Processing)),
		changes: []Change{{Cycle: 5, Setting: SetHedgeAfter, Value: 2}},
		want: want{
			events: []Event{hedge(7, 0, 3, 2, 0), hedge(14, 0, 4, 1, 0), cancel(37, 0, 2, 2), cancel(44, 0, 1, 1)},
			hedges: 2, won: 2, cancelled: 2, wasted: 72, responses: []int64{32, 40}},
	}, {
		// Hedging off at the start (no hedging state), turned on (3) at
		// cycle 5: request 1, first sent at 4, is never hedged; request
		// 2, sent at 5, is hedged at 8 (server 3), which wins at 38.
		name:    "hedge-after 0 → 3: a part sent before is not hedged",
		cfg:     hedgeTrace(4, 0, 0, 120, row(4, 100, Processing), row(5, 100, Processing)),
		changes: []Change{{Cycle: 5, Setting: SetHedgeAfter, Value: 3}},
		want: want{
			events: []Event{hedge(8, 0, 3, 2, 0), cancel(38, 0, 2, 2)},
			hedges: 1, won: 1, cancelled: 1, wasted: 33, responses: []int64{33, 100}},
	}, {
		// Hedge-after 3, turned off at cycle 5: request 1, first sent at
		// 4, is still hedged at 7 (server 3, wins at 37); request 2, sent
		// at 5, is not.
		name:    "hedge-after 3 → 0: a part sent before keeps its hedge",
		cfg:     hedgeTrace(4, 3, 1, 120, row(4, 100, Processing), row(5, 100, Processing)),
		changes: []Change{{Cycle: 5, Setting: SetHedgeAfter, Value: 0}},
		want: want{
			events: []Event{hedge(7, 0, 3, 1, 0), cancel(37, 0, 1, 1)},
			hedges: 1, won: 1, cancelled: 1, wasted: 33, responses: []int64{33, 100}},
	}}
	// Seed 8's fleet draws, which the fleet case reads: 0, 0, 1.
	g := rand.New(rand.NewPCG(8, fleetStream))
	if d := []int{g.IntN(2), g.IntN(2), g.IntN(2)}; !slices.Equal(d, []int{0, 0, 1}) {
		t.Fatalf("seed 8's fleet draws are %v, the fleet case reads 0, 0, 1", d)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var events []Event
			var resps []int64
			s := traceRun(t, c.config(), c.changes, func(e Event) {
				switch e.Kind {
				case Hedge:
					events = append(events, Event{Cycle: e.Cycle, Kind: Hedge, Balancer: e.Balancer, Server: e.Server, Request: Request{ID: e.Request.ID, Member: e.Request.Member}})
				case Cancel:
					events = append(events, Event{Cycle: e.Cycle, Kind: Cancel, Balancer: e.Balancer, Server: e.Server, Request: Request{ID: e.Request.ID}})
				case Complete: // one part a request: its response
					resps = append(resps, e.Cycle-e.Request.Arrival)
				}
			})
			w := c.want
			if !slices.Equal(events, w.events) {
				t.Errorf("hedges and cancellations\n %v\nwant\n %v", events, w.events)
			}
			got := want{nil, s.Hedges, s.HedgesWon, s.HedgesDenied, s.Cancelled, s.WastedCycles, nil}
			if got.hedges != w.hedges || got.won != w.won || got.denied != w.denied || got.cancelled != w.cancelled || got.wasted != w.wasted {
				t.Errorf("hedges %d won %d denied %d cancelled %d wasted %d, want %d %d %d %d %d",
					got.hedges, got.won, got.denied, got.cancelled, got.wasted, w.hedges, w.won, w.denied, w.cancelled, w.wasted)
			}
			if !slices.Equal(resps, w.responses) || s.Completed != int64(len(w.responses)) || s.InFlight != 0 {
				t.Errorf("responses %v (completed %d, in flight %d), want %v", resps, s.Completed, s.InFlight, w.responses)
			}
		})
	}
}

// TestSetHedgeAfterChecked: a change of hedge-after is checked like the
// flag, against the settings in force when it applies, by Schedule and
// by ValidateChanges (a snapshot's changes) alike: turning hedging on in
// a pooled run is refused with what to change; off and on again, behind
// the switch or in a fleet, it is taken.
func TestSetHedgeAfterChecked(t *testing.T) {
	perServer := func(c *Config) { c.Queues, c.Policy = PerServer, RoundRobin }
	for _, tc := range []struct {
		name    string
		set     func(*Config)
		changes []Change
		want    string // "" when taken
	}{
		{"pooled", func(*Config) {}, []Change{{Cycle: 5, Setting: SetHedgeAfter, Value: 10}},
			"change at cycle 5: hedge-after = 10 is not allowed: hedging routes each hedge at once: use --queues per-server"},
		{"pooled, turning it off", func(*Config) {}, []Change{{Cycle: 5, Setting: SetHedgeAfter, Value: 0}}, ""},
		{"the switch, on, off and on", func(c *Config) { perServer(c); c.Switch = true },
			[]Change{{Cycle: 5, Setting: SetHedgeAfter, Value: 10}, {Cycle: 9, Setting: SetHedgeAfter, Value: 0}, {Cycle: 12, Setting: SetHedgeAfter, Value: 3}}, ""},
		{"a fleet", func(c *Config) { perServer(c); c.Balancers, c.HedgeAfter = 4, 7 }, []Change{{Cycle: 5, Setting: SetHedgeAfter, Value: 1}}, ""},
		{"out of range", perServer, []Change{{Cycle: 5, Setting: SetHedgeAfter, Value: MaxCycles + 1}}, "hedge-after"},
		{"a budget in a run that can hedge from the start", func(c *Config) { perServer(c); c.HedgeBudget = 100_000 },
			[]Change{{Cycle: 9, Setting: SetHedgeAfter, Value: 3}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Cycles = 100
			tc.set(&cfg)
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, err := range []error{m.Schedule(tc.changes...), ValidateChanges(cfg, tc.changes)} {
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("refused: %v", err)
				case tc.want != "" && (err == nil || !contains(err.Error(), tc.want)):
					t.Errorf("got %v, want an error saying %q", err, tc.want)
				}
			}
			if tc.want == "" {
				m.RunTo(cfg.Cycles)
				if s := m.Summary(); !s.Consistent {
					t.Errorf("the books do not balance: %+v", s)
				}
			}
		})
	}
}

// TestHedgeSwitchBooksEveryCycle: with hedging behind the switch or in a
// fleet (any per-server policy, load information, fan-out in a fleet),
// started off or on and changed mid-run (its state made at a change that
// turns it on), both lines of accounting hold at the end of every cycle,
// for the whole run and for each of P and S, and a run to its end agrees
// with stepping.
func TestHedgeSwitchBooksEveryCycle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.Queues = PerServer
		cfg.Seed = rapid.Uint64().Draw(t, "seed")
		cfg.Cycles = int64(rapid.IntRange(1, 400).Draw(t, "cycles"))
		cfg.Servers = rapid.IntRange(1, 8).Draw(t, "servers")
		cfg.MaxServers = cfg.Servers + 4
		if rapid.Bool().Draw(t, "switch") {
			cfg.Switch, cfg.StreamShare = true, rapid.IntRange(0, 100).Draw(t, "streamShare")
		} else {
			cfg.Balancers = rapid.IntRange(1, 4).Draw(t, "balancers")
			cfg.LoadInfo = rapid.SampledFrom([]LoadInfo{LoadExact, LoadLocal, 5}).Draw(t, "loadInfo")
			cfg.Fanout = rapid.IntRange(1, 3).Draw(t, "fanout")
		}
		cfg.HedgeAfter = int64(rapid.IntRange(0, 20).Draw(t, "hedgeAfter"))
		cfg.HedgeMax = rapid.IntRange(0, MaxHedges).Draw(t, "hedgeMax")
		if rapid.Bool().Draw(t, "budget") {
			cfg.HedgeBudget = Decimal(rapid.Int64Range(1, DecimalScale).Draw(t, "budgetF"))
		}
		cfg.Policy = rapid.SampledFrom(PoliciesFor(PerServer)).Draw(t, "policy")
		cfg.Rate = Rate(rapid.Int64Range(0, 3*RateScale).Draw(t, "rate"))
		cfg.TaskMin, cfg.TaskMax = 1, rapid.IntRange(1, 30).Draw(t, "taskMax")
		cfg.InitialPerServer = rapid.IntRange(0, 2).Draw(t, "initial")
		cfg.QueueCap = rapid.IntRange(0, 6).Draw(t, "cap")
		var changes []Change
		for range rapid.IntRange(0, 3).Draw(t, "hedgeChanges") {
			changes = append(changes, Change{Cycle: int64(rapid.IntRange(1, int(cfg.Cycles)).Draw(t, "at")), Setting: SetHedgeAfter,
				Value: int64(rapid.IntRange(0, 20).Draw(t, "newHedgeAfter"))})
		}
		m, err := New(cfg)
		if err != nil {
			t.Skip(err) // a policy that cannot pick among a set
		}
		if err := m.Schedule(changes...); err != nil {
			t.Fatal(err)
		}
		jumped, _ := New(cfg)
		if err := jumped.Schedule(changes...); err != nil {
			t.Fatal(err)
		}
		for {
			s := m.Summary()
			for _, x := range []*Summary{&s, s.P, s.S} {
				if x == nil {
					continue
				}
				arrivals, requests, attempts := x.Books()
				if !arrivals || !requests || !attempts || x.HedgesWon > x.Hedges || x.InFlight < 0 {
					t.Fatalf("cycle %d: the books do not balance (arrivals %v, requests %v, attempts %v): %+v", m.Cycle(), arrivals, requests, attempts, x)
				}
			}
			if !m.Step() {
				break
			}
		}
		jumped.Run()
		if jumped.Hash() != m.Hash() {
			t.Fatalf("a run jumped to its end differs from one stepped")
		}
	})
}

// TestHedgeBudgetLate: a change may turn hedging on under a budget only
// in a run that keeps hedging's state from its start (the budget counts
// the parts first sent from cycle 0); in one whose start settings refuse
// hedging (shedding on here, while hedging does not combine with it) it
// is refused by Schedule and ValidateChanges, naming the change.
func TestHedgeBudgetLate(t *testing.T) {
	want := "change 9:hedge-after=3: hedge-budget = 0.1 is not allowed: a change may turn hedging on under a budget only in a run that could hedge from its start"
	changes := []Change{{Cycle: 5, Setting: SetCodelTarget}, {Cycle: 9, Setting: SetHedgeAfter, Value: 3}}
	cfg := DefaultConfig()
	cfg.Cycles, cfg.Queues, cfg.Policy, cfg.HedgeBudget = 100, PerServer, RoundRobin, 100_000
	if err := budgetLate(&cfg, true, changes); err == nil || !contains(err.Error(), want) {
		t.Errorf("budgetLate: %v, want %q", err, want)
	}
	if err := budgetLate(&cfg, false, changes); err != nil {
		t.Errorf("budgetLate with hedging's state from the start: %v", err)
	}
	cfg.CodelTarget = 5
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{m.Schedule(changes...), ValidateChanges(cfg, changes)} {
		switch late := !hedgingFromStart(&cfg); {
		case late && (err == nil || !contains(err.Error(), want)):
			t.Errorf("got %v, want %q", err, want)
		case !late && err != nil: // shedding combines with hedging: the state is there from the start
			t.Errorf("refused: %v", err)
		}
	}
}

// booksBalance reports whether all three of s's books balance.
func booksBalance(s *Summary) bool {
	a, r, at := s.Books()
	return a && r && at
}

// TestHedgingTurnedOnAccepted: a batch of changes that turns hedging on
// while the client side or random faults are on is taken, through
// Schedule and ValidateChanges, as is one in a run that starts hedged
// with them on, turns hedging off and on again; pooled queues are still
// refused. Each run is then stepped to its end with the books balanced.
func TestHedgingTurnedOnAccepted(t *testing.T) {
	on := []Change{{Cycle: 20, Setting: SetHedgeAfter, Value: 5}}
	offOn := []Change{{Cycle: 10, Setting: SetHedgeAfter}, {Cycle: 20, Setting: SetHedgeAfter, Value: 5}}
	for _, tc := range []struct {
		name    string
		set     func(*Config)
		changes []Change
		want    string // "" when taken
	}{
		{"a timeout", func(c *Config) { c.Timeout = 50 }, on, ""},
		{"retries with a budget", func(c *Config) { c.Retries, c.Backoff, c.Jitter, c.RetryBudget = 2, 4, true, 100_000 }, on, ""},
		{"health checks and ejection", func(c *Config) { c.HealthInterval, c.EjectAfter = 5, 2 }, on, ""},
		{"warm-up and replacement", func(c *Config) { c.ProvisionDelay, c.ReplaceAfter = 10, 100 }, on, ""},
		{"random faults", func(c *Config) { c.MTBF, c.MTTR = 100, 10 }, on, ""},
		{"hedged from the start, off, on again", func(c *Config) { c.Timeout, c.Retries, c.HedgeAfter = 50, 1, 3 }, offOn, ""},
		{"a timeout in the changes' batch", func(*Config) {}, append([]Change{{Cycle: 20, Setting: SetTimeout, Value: 50}}, on...), ""},
		{"pooled", func(c *Config) { c.Queues, c.Timeout = Pooled, 50 }, on,
			"change at cycle 20: hedge-after = 5 is not allowed: hedging routes each hedge at once: use --queues per-server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Queues, cfg.Policy, cfg.Cycles = PerServer, RoundRobin, 300
			tc.set(&cfg)
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, err := range []error{m.Schedule(tc.changes...), ValidateChanges(cfg, tc.changes)} {
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("refused: %v", err)
				case tc.want != "" && (err == nil || !contains(err.Error(), tc.want)):
					t.Errorf("got %v, want %q", err, tc.want)
				}
			}
			for tc.want == "" && m.Step() {
				if s := m.Summary(); !booksBalance(&s) {
					t.Fatalf("cycle %d: the books do not balance: %+v", m.Cycle(), s)
				}
			}
			if s := m.Summary(); tc.want == "" && s.Hedges == 0 {
				t.Errorf("no hedges sent: %+v", s)
			}
		})
	}
}
