package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// hedgeTrace is a per-server round-robin run of the trace rows on
// servers of speed 1, hedging after d cycles at most h times, every
// hedge taking a constant 30 cycles.
func hedgeTrace(servers int, d int64, h int, cycles int64, rows ...TraceRow) Config {
	cfg := traceConfig(servers, cycles, rows...)
	cfg.Queues, cfg.Policy = PerServer, RoundRobin
	cfg.HedgeAfter, cfg.HedgeMax = d, h
	cfg.Service, cfg.MeanService = Constant, 30
	return cfg
}

// handTrace is a case of the hedging hand traces: a run of cfg, changed by
// setup (when set) and by the changes scheduled, and what the test wants
// of it.
type handTrace[W any] struct {
	name    string
	cfg     Config
	setup   func(*Config)
	changes []Change
	want    W
}

// config is the case's configuration, setup applied.
func (c handTrace[W]) config() Config {
	cfg := c.cfg
	if c.setup != nil {
		c.setup(&cfg)
	}
	return cfg
}

// TestHedgeHandTraces follows hedged requests cycle by cycle: a hedge
// that wins cancels its part's first attempt in service and a second
// hedge still queued; a tie goes to the attempt sent first; the budget
// and a full queue deny hedges; with no candidate left nothing is
// counted.
func TestHedgeHandTraces(t *testing.T) {
	row := func(c int64, time uint32) TraceRow { return TraceRow{Cycle: c, Time: time, Src: 0x01020304} }
	type want struct {
		hedges, won, denied, cancelled, wasted, completed, dispatched int64
		cancels                                                       []Event // cycle, server and request id of each Cancel
		responses                                                     []int64 // by completion
	}
	cases := []handTrace[want]{{
		// Request 1 (cycle 1, time 100) goes to server 1, done at 101;
		// its hedge 1 at 6 to server 2 (idle, done 36); request 2 (cycle
		// 8, time 40) to server 3 (done 48); request 1's hedge 2 at 11 can
		// only go to 3, and queues there. Request 2's hedges: at 13 to
		// server 1, at 18 to server 2, both queued. At 36 request 1's
		// hedge 1 wins: its first attempt in service at 1 is cancelled (35
		// cycles served) and its hedge 2 queued at 3 leaves; servers 1 and
		// 2 take request 2's hedges (done 66). At 48 request 2's first
		// attempt wins and cancels both, 12 cycles served each.
		name: "a hedge wins over a queued and an in-service sibling; hedge-max 2",
		cfg:  hedgeTrace(3, 5, 2, 120, row(1, 100), row(8, 40)),
		want: want{hedges: 4, won: 1, cancelled: 4, wasted: 35 + 12 + 12, completed: 2, dispatched: 5,
			cancels:   []Event{{Cycle: 36, Server: 1, Request: Request{ID: 1}}, {Cycle: 36, Server: 0, Request: Request{ID: 1}}, {Cycle: 48, Server: 1, Request: Request{ID: 2}}, {Cycle: 48, Server: 2, Request: Request{ID: 2}}},
			responses: []int64{35, 40}},
	}, {
		// Request 1 (time 1) at server 1 is done at 2, before its hedge
		// is due. Request 2 (time 5) at server 2 is done at 6; its hedge
		// at 3 goes to server 1, done at 3 + 3 = 6 too: the first attempt,
		// sent earlier, wins although server 1 comes first in step a, and
		// the hedge in service is cancelled with 3 cycles served.
		name:  "a tie goes to the attempt sent first",
		cfg:   hedgeTrace(2, 2, 1, 20, row(1, 1), row(1, 5)),
		setup: func(c *Config) { c.MeanService = 3 },
		want: want{hedges: 1, cancelled: 1, wasted: 3, completed: 2, dispatched: 3,
			cancels: []Event{{Cycle: 6, Server: 1, Request: Request{ID: 2}}}, responses: []int64{1, 5}},
	}, {
		// Budget 0.5. Request 1 at 1 (server 1), request 2 at 2 (server
		// 2). At 3 the window (cycles 1–2) holds 2 parts and no hedge:
		// request 1's hedge goes (server 3, done 33). At 4 it holds 2
		// parts and 1 hedge: 1 < 0.5 × 2 fails, request 2's hedge is
		// denied. Both first attempts win (21, 22); the hedge is cancelled
		// at 21 with 17 cycles served (4 … 20: step a of 21 has not
		// reached server 3).
		name:  "the budget denies a hedge",
		cfg:   hedgeTrace(4, 2, 1, 60, row(1, 20), row(2, 20)),
		setup: func(c *Config) { c.HedgeBudget = 500_000 },
		want: want{hedges: 1, denied: 1, cancelled: 1, wasted: 17, completed: 2, dispatched: 3,
			cancels: []Event{{Cycle: 21, Server: 3, Request: Request{ID: 1}}}, responses: []int64{20, 20}},
	}, {
		// Queue cap 1. Requests 1 and 2 at 1 go to servers 1 and 2,
		// request 3 at 2 to the queue of 1. At 3 request 1's hedge queues
		// at 2; request 2's (only server 1 left) finds its queue full; at 4
		// request 3's (only 2 left) too. The hedge leaves its queue when
		// request 1 completes at 21; request 3 is served from 21 to 41.
		name:  "a full queue denies hedges",
		cfg:   hedgeTrace(2, 2, 1, 80, row(1, 20), row(1, 20), row(2, 20)),
		setup: func(c *Config) { c.QueueCap = 1 },
		want: want{hedges: 1, denied: 2, cancelled: 1, completed: 3, dispatched: 3,
			cancels: []Event{{Cycle: 21, Server: 0, Request: Request{ID: 1}}}, responses: []int64{20, 20, 39}},
	}, {
		// One server: no candidate holds no attempt of the request, so
		// the hedge is not sent and nothing is counted.
		name: "no candidate left",
		cfg:  hedgeTrace(1, 2, 1, 40, row(1, 20)),
		want: want{completed: 1, dispatched: 1, responses: []int64{20}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var cancels []Event
			s := traceRun(t, c.config(), c.changes, func(e Event) {
				if e.Kind == Cancel {
					cancels = append(cancels, Event{Cycle: e.Cycle, Server: e.Server, Request: Request{ID: e.Request.ID}})
				}
			})
			w := c.want
			got := want{s.Hedges, s.HedgesWon, s.HedgesDenied, s.Cancelled, s.WastedCycles, s.Completed, s.Dispatched, nil, nil}
			if got.hedges != w.hedges || got.won != w.won || got.denied != w.denied || got.cancelled != w.cancelled ||
				got.wasted != w.wasted || got.completed != w.completed || got.dispatched != w.dispatched {
				t.Errorf("hedges %d won %d denied %d cancelled %d wasted %d completed %d dispatched %d, want %d %d %d %d %d %d %d",
					got.hedges, got.won, got.denied, got.cancelled, got.wasted, got.completed, got.dispatched,
					w.hedges, w.won, w.denied, w.cancelled, w.wasted, w.completed, w.dispatched)
			}
			if !slices.Equal(cancels, w.cancels) {
				t.Errorf("cancellations %v, want %v", cancels, w.cancels)
			}
			if s.Attempts != s.Parts+s.Hedges || s.AttemptsCompleted != s.Completed {
				t.Errorf("attempts %d (parts %d hedges %d), attempts_completed %d (completed %d)", s.Attempts, s.Parts, s.Hedges, s.AttemptsCompleted, s.Completed)
			}
			var sum int64
			for _, r := range w.responses {
				sum += r
			}
			if s.ResponseMax != slices.Max(w.responses) || s.AvgResponse != float64(sum)/float64(len(w.responses)) {
				t.Errorf("response_max %d avg_response %v, want %d %v", s.ResponseMax, s.AvgResponse, slices.Max(w.responses), float64(sum)/float64(len(w.responses)))
			}
		})
	}
}

// TestHedgeBooksEveryCycle: with hedging (K = 1 and fan-out), gray faults,
// fail faults, a queue cap, and in half the runs the client side
// (timeouts, retries, budgets, health checks, ejection, warm-up,
// replacement) and random faults, both lines of accounting hold at the end
// of every cycle, a part completes once (hedges_won ≤ hedges ≤ cancelled +
// live hedges), and a run to its end agrees with stepping.
func TestHedgeBooksEveryCycle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.Queues = PerServer
		cfg.Seed = rapid.Uint64().Draw(t, "seed")
		cfg.Cycles = int64(rapid.IntRange(1, 400).Draw(t, "cycles"))
		cfg.Servers = rapid.IntRange(1, 8).Draw(t, "servers")
		cfg.MaxServers = cfg.Servers + 4
		cfg.Fanout = rapid.IntRange(1, 4).Draw(t, "fanout")
		cfg.HedgeAfter = int64(rapid.IntRange(1, 20).Draw(t, "hedgeAfter"))
		cfg.HedgeMax = rapid.IntRange(0, MaxHedges).Draw(t, "hedgeMax")
		if rapid.Bool().Draw(t, "budget") {
			cfg.HedgeBudget = Decimal(rapid.Int64Range(1, DecimalScale).Draw(t, "budgetF"))
		}
		cfg.Policy = rapid.SampledFrom(PoliciesFor(PerServer)).Draw(t, "policy")
		cfg.Rate = Rate(rapid.Int64Range(0, 3*RateScale).Draw(t, "rate"))
		cfg.TaskMin, cfg.TaskMax = 1, rapid.IntRange(1, 30).Draw(t, "taskMax")
		cfg.Service = rapid.SampledFrom([]Service{Uniform, Geometric, Constant}).Draw(t, "service")
		if cfg.Service != Uniform {
			cfg.MeanService = rapid.IntRange(1, 20).Draw(t, "mean")
		}
		cfg.InitialPerServer = rapid.IntRange(0, 2).Draw(t, "initial")
		cfg.QueueCap = rapid.IntRange(0, 6).Draw(t, "cap")
		cfg.FailTime = int64(rapid.IntRange(1, 8).Draw(t, "failTime"))
		genOverload(t, &cfg) // shedding and the throttle
		genLimit(t, &cfg, 6)
		genHedgeClient(t, &cfg)
		runGrayBooked(t, cfg, func(m *Model, s Summary) {
			if s.Parts != s.Admitted*int64(cfg.Fanout) || s.InFlight < 0 || s.HedgesWon > s.Hedges {
				t.Fatalf("cycle %d: parts %d for %d admitted, in flight %d, hedges %d won %d", m.Cycle(), s.Parts, s.Admitted, s.InFlight, s.Hedges, s.HedgesWon)
			}
		})
	})
}

// TestHedgeRefusals: hedging is refused where it is not built, each with
// a message naming what to change.
func TestHedgeRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"pooled", func(c *Config) { c.Queues = Pooled }, "hedging routes each hedge at once: use --queues per-server"},
		{"hedge-max", func(c *Config) { c.HedgeMax = 5 }, "from 1 to 4"},
		{"budget", func(c *Config) { c.HedgeBudget = DecimalScale + 1 }, "hedge-budget"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Queues, cfg.Policy, cfg.HedgeAfter = PerServer, RoundRobin, 20
			tc.set(&cfg)
			err := cfg.Validate()
			if err == nil || !contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
