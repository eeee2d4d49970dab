package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// overRow is a trace row at cycle c of time t (past the firewall).
func overRow(c int64, t uint32) TraceRow { return TraceRow{Cycle: c, Time: t, Src: 0x01020304} }

// overCounts are the counters a hand trace checks.
type overCounts struct {
	admitted, discarded, completed, failed, errors, shed, limited, throttled int64
	cancelled, wasted, hedges, dispatched, attemptsCompleted                 int64
}

// overEvent formats an event as "cycle kind s<server> r<request>p<part>".
func overEvent(e Event) string {
	return fmt.Sprintf("%d %v s%d r%dp%d", e.Cycle, e.Kind, e.Server, e.Request.ID, e.Request.Part)
}

// TestFanoutOverloadHandTraces follows fan-out and hedging beside the
// overload controls cycle by cycle, every event of the request's path
// and every counter exact: a part the limit refuses is noted, and a later
// part's full queue discards the request with nothing noted taking effect
// (and with room, the noted refusals take effect after the last part, the
// first ending the request and cancelling its placed part); a part its
// client throttles is noted too, and ends the request after the last part
// is placed, its placed parts cancelled (with a retry left they stay
// until the part ends for good); a hedge refused by a limit ends
// alone; a shed part ends its request, cancelling a sibling in service
// (whose server, passed by step d, takes its next attempt in the same
// step d) and a sibling about to be shed with it (cancelled, not shed).
func TestFanoutOverloadHandTraces(t *testing.T) {
	kinds := []EventKind{Arrive, Discard, Dispatch, Error, Throttled, Shed, Cancel, GiveUp, Hedge}
	cases := []struct {
		name   string
		cfg    Config
		setup  func(*Config)
		events []string
		want   overCounts
	}{{
		// Fixed limit 1, cap 1, servers 4 and 5 ten times as fast.
		// Request 1 (cycle 1, time 1) takes servers 1–3, done at 2;
		// request 2 (cycle 3, time 50) takes 4 and 5 (done at 8) and 1
		// (done at 53). At cycle 10 request 3's parts queue at the idle
		// servers 2, 3 and 4; request 4's part 1 goes to the idle server 5
		// (placed), its part 2 to server 1, busy, where the limit refuses
		// it (noted), its part 3 to server 2, whose queue holds request
		// 3's part: full, request 4 is discarded. Part 1 leaves server 5's
		// queue, the refusal never happens: no Arrive, no Error, only
		// discarded moves.
		name: "a limit refuses part 2, part 3 finds its queue full: discarded",
		cfg:  fanoutTrace(3, []Speed{100, 100, 100, 1000, 1000}, 80, overRow(1, 1), overRow(3, 50), overRow(10, 10), overRow(10, 10)),
		setup: func(c *Config) {
			c.ConcurrencyLimit, c.QueueCap = 1, 1
		},
		events: []string{
			"1 arrive s1 r1p0", "1 arrive s2 r1p1", "1 arrive s3 r1p2", "1 dispatch s1 r1p0", "1 dispatch s2 r1p1", "1 dispatch s3 r1p2",
			"3 arrive s4 r2p0", "3 arrive s5 r2p1", "3 arrive s1 r2p2", "3 dispatch s1 r2p2", "3 dispatch s4 r2p0", "3 dispatch s5 r2p1",
			"10 arrive s2 r3p0", "10 arrive s3 r3p1", "10 arrive s4 r3p2", "10 discard s2 r4p2",
			"10 dispatch s2 r3p0", "10 dispatch s3 r3p1", "10 dispatch s4 r3p2",
		},
		want: overCounts{admitted: 3, discarded: 1, completed: 3, dispatched: 9, attemptsCompleted: 9},
	}, {
		// The same with cap 2: request 4's part 3 fits in server 2's
		// queue, but the limit refuses it too (server 2 holds one). After
		// the last part both refusals take effect in part order: part 2's
		// error ends the request and cancels part 1, queued at server 5;
		// part 3's is an error too, its request already ended.
		name: "with room, the noted refusals take effect after the last part",
		cfg:  fanoutTrace(3, []Speed{100, 100, 100, 1000, 1000}, 80, overRow(1, 1), overRow(3, 50), overRow(10, 10), overRow(10, 10)),
		setup: func(c *Config) {
			c.ConcurrencyLimit, c.QueueCap = 1, 2
		},
		events: []string{
			"1 arrive s1 r1p0", "1 arrive s2 r1p1", "1 arrive s3 r1p2", "1 dispatch s1 r1p0", "1 dispatch s2 r1p1", "1 dispatch s3 r1p2",
			"3 arrive s4 r2p0", "3 arrive s5 r2p1", "3 arrive s1 r2p2", "3 dispatch s1 r2p2", "3 dispatch s4 r2p0", "3 dispatch s5 r2p1",
			"10 arrive s2 r3p0", "10 arrive s3 r3p1", "10 arrive s4 r3p2",
			"10 arrive s5 r4p0", "10 arrive s1 r4p1", "10 arrive s2 r4p2",
			"10 error s1 r4p1", "10 give-up s0 r4p1", "10 cancel s0 r4p0", "10 error s2 r4p2",
			"10 dispatch s2 r3p0", "10 dispatch s3 r3p1", "10 dispatch s4 r3p2",
		},
		want: overCounts{admitted: 4, completed: 3, failed: 1, errors: 2, limited: 2, cancelled: 1, dispatched: 9, attemptsCompleted: 9},
	}, {
		// Throttle K = 1, seed 1. Request 1 (cycle 1, time 100) passes
		// (p = 0: cycle 0 sent nothing) to servers 1–3. At cycle 2 the
		// window holds 3 requests and no accepts: each part is throttled
		// iff its draw from 0 … 399 is below 300; the throttle generator
		// gives 359, 0, 344 (checked below). Part 1 goes to server 4, part
		// 2 is throttled (noted), part 3 queues at server 1. After the
		// last part the throttling takes effect: an error with no retry
		// left, the request fails and both placed parts, queued, are
		// cancelled (server 4 never serves).
		name: "a throttled part ends its request after the last part; its placed parts are cancelled",
		cfg:  fanoutTrace(3, []Speed{100, 100, 100, 100}, 120, overRow(1, 100), overRow(2, 100)),
		setup: func(c *Config) {
			c.Throttle = 100
		},
		events: []string{
			"1 arrive s1 r1p0", "1 arrive s2 r1p1", "1 arrive s3 r1p2", "1 dispatch s1 r1p0", "1 dispatch s2 r1p1", "1 dispatch s3 r1p2",
			"2 arrive s4 r2p0", "2 arrive s1 r2p2", "2 throttled s0 r2p1", "2 give-up s0 r2p1", "2 cancel s0 r2p0", "2 cancel s0 r2p2",
		},
		want: overCounts{admitted: 2, completed: 1, failed: 1, errors: 1, throttled: 1, cancelled: 2, dispatched: 3, attemptsCompleted: 3},
	}, {
		// The same with one retry: the throttled part is retried (at 3,
		// the first step b after its end) and its request's placed parts
		// stay, part 1 served from 2 at server 4. At 3 the window holds
		// 6 requests and no accepts: the retry's draw, 232 of 0 … 699, is
		// below 600, so it is throttled again with no retry left; now the
		// part ends for good and its request with it: part 1 is stopped
		// in service (1 cycle served) and part 3 leaves its queue.
		name: "with a retry left, a throttled part's siblings stay until it ends for good",
		cfg:  fanoutTrace(3, []Speed{100, 100, 100, 100}, 120, overRow(1, 100), overRow(2, 100)),
		setup: func(c *Config) {
			c.Throttle, c.Retries = 100, 1
		},
		events: []string{
			"1 arrive s1 r1p0", "1 arrive s2 r1p1", "1 arrive s3 r1p2", "1 dispatch s1 r1p0", "1 dispatch s2 r1p1", "1 dispatch s3 r1p2",
			"2 arrive s4 r2p0", "2 arrive s1 r2p2", "2 throttled s0 r2p1", "2 dispatch s4 r2p0",
			"3 throttled s0 r2p1", "3 give-up s0 r2p1", "3 cancel s4 r2p0", "3 cancel s0 r2p2",
		},
		want: overCounts{admitted: 2, completed: 1, failed: 1, errors: 2, throttled: 2, cancelled: 2, wasted: 1, dispatched: 4, attemptsCompleted: 3},
	}, {
		// Fixed limit 1, hedging after 2. Request 1 (cycle 1) is served
		// at 1, request 2 (cycle 2) at 2, both done 20 cycles later.
		// Request 1's hedge at 3 can only go to server 2, busy: sent,
		// then refused by the limit, it ends alone (its first attempt is
		// live): no give-up. Request 2's hedge at 4 likewise at server 1.
		name: "a hedge refused by a limit ends alone",
		cfg:  hedgeTrace(2, 2, 1, 40, overRow(1, 20), overRow(2, 20)),
		setup: func(c *Config) {
			c.ConcurrencyLimit = 1
		},
		events: []string{
			"1 arrive s1 r1p0", "1 dispatch s1 r1p0", "2 arrive s2 r2p0", "2 dispatch s2 r2p0",
			"3 hedge s2 r1p0", "3 error s2 r1p0", "4 hedge s1 r2p0", "4 error s1 r2p0",
		},
		want: overCounts{admitted: 2, completed: 2, errors: 2, limited: 2, hedges: 2, dispatched: 2, attemptsCompleted: 2},
	}, {
		// Codel target 5, interval 10; server 1 ten times as fast.
		// Request 1 (cycle 1, time 30): parts at 1 (done 4) and 2 (done
		// 31). Request 2 (cycle 2, time 300): part 1 queues at 1 and is
		// served from 4 (done 34); part 2 queues at 2. Request 3 (cycle 5)
		// and request 4 (cycle 28) queue a part at each server. At 31,
		// server 2 is free and its queue standing: requests 2's and 3's
		// parts have waited 29 and 26 > 5 cycles and are shed in order.
		// Request 2's shed part ends it: its part in service at server 1
		// is cancelled (27 cycles served), and server 1, passed by step d,
		// is free at once. Request 3's ends it and cancels its part queued
		// at 1. Server 2 takes request 4's part (waited 3); server 1 takes
		// request 4's other part in the same step d.
		name: "a shed part ends its request; a server freed at step d takes work in it",
		cfg:  fanoutTrace(2, []Speed{1000, 100}, 80, overRow(1, 30), overRow(2, 300), overRow(5, 20), overRow(28, 20)),
		setup: func(c *Config) {
			c.CodelTarget, c.CodelInterval = 5, 10
		},
		events: []string{
			"1 arrive s1 r1p0", "1 arrive s2 r1p1", "1 dispatch s1 r1p0", "1 dispatch s2 r1p1",
			"2 arrive s1 r2p0", "2 arrive s2 r2p1", "4 dispatch s1 r2p0",
			"5 arrive s1 r3p0", "5 arrive s2 r3p1", "28 arrive s1 r4p0", "28 arrive s2 r4p1",
			"31 shed s2 r2p1", "31 give-up s0 r2p1", "31 cancel s1 r2p0",
			"31 shed s2 r3p1", "31 give-up s0 r3p1", "31 cancel s0 r3p0",
			"31 dispatch s2 r4p1", "31 dispatch s1 r4p0",
		},
		want: overCounts{admitted: 4, completed: 2, failed: 2, errors: 2, shed: 2, cancelled: 2, wasted: 27, dispatched: 5, attemptsCompleted: 4},
	}, {
		// One server, codel target 5: each request's parts share its
		// queue. Request 1 (cycle 1) is served from 1 to 21 (its first
		// part) while its second part waits; request 2 (cycle 2) queues
		// both. At 21 all three have waited more than 5: request 1's part
		// is shed (the request fails), then request 2's first, whose
		// ending cancels its sibling, shed with it but not yet ended: it
		// is cancelled, not shed.
		name: "a sibling shed with a part is cancelled, not shed",
		cfg:  fanoutTrace(2, []Speed{100}, 40, overRow(1, 20), overRow(2, 20)),
		setup: func(c *Config) {
			c.CodelTarget, c.CodelInterval = 5, 10
		},
		events: []string{
			"1 arrive s1 r1p0", "1 arrive s1 r1p1", "1 dispatch s1 r1p0", "2 arrive s1 r2p0", "2 arrive s1 r2p1",
			"21 shed s1 r1p1", "21 give-up s0 r1p1", "21 shed s1 r2p0", "21 give-up s0 r2p0", "21 cancel s0 r2p1",
		},
		want: overCounts{admitted: 2, failed: 2, errors: 2, shed: 2, cancelled: 1, dispatched: 1, attemptsCompleted: 1},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			c.setup(&cfg)
			var events []string
			s := traceRun(t, cfg, nil, func(e Event) {
				if slices.Contains(kinds, e.Kind) {
					events = append(events, overEvent(e))
				}
			})
			if !slices.Equal(events, c.events) {
				t.Errorf("events\n%q\nwant\n%q", events, c.events)
			}
			got := overCounts{s.Admitted, s.Discarded, s.Completed, s.Failed, s.Errors, s.Shed, s.Limited, s.Throttled,
				s.Cancelled, s.WastedCycles, s.Hedges, s.Dispatched, s.AttemptsCompleted}
			if got != c.want {
				t.Errorf("counters %+v\nwant     %+v", got, c.want)
			}
			if s.Attempts != s.Parts+s.Retries+s.Hedges || s.Parts != s.Admitted*int64(max(cfg.Fanout, 1)) {
				t.Errorf("attempts %d, parts %d, retries %d, hedges %d, admitted %d", s.Attempts, s.Parts, s.Retries, s.Hedges, s.Admitted)
			}
		})
	}
}

// TestThrottleDrawsOfTheHandTrace: the throttle generator of seed 1 gives
// the draws the throttled hand trace above reads: three below 100 for
// request 1's parts (p = 0, none throttled), then 359, 0 and 344 of
// 0 … 399 for request 2's (only the second below 300), then 232 of
// 0 … 699 for the throttled part's retry (below 600).
func TestThrottleDrawsOfTheHandTrace(t *testing.T) {
	r := rand.New(rand.NewPCG(1, throttleStream))
	for range 3 {
		r.Int64N(100)
	}
	if a, b, c := r.Int64N(400), r.Int64N(400), r.Int64N(400); a != 359 || b != 0 || c != 344 {
		t.Errorf("draws %d %d %d, want 359 0 344", a, b, c)
	}
	if d := r.Int64N(700); d != 232 {
		t.Errorf("the retry's draw %d, want 232", d)
	}
}

// TestFanoutLimitForgetsRejoinings: with hedging and an adaptive limit
// with a latency bound, the cycles hedges joined their queues are
// forgotten when they end (completed, cancelled, shed or refused): no
// more are kept than attempts queued or in service, at every cycle.
func TestFanoutLimitForgetsRejoinings(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Queues, cfg.Policy, cfg.Fanout = 5, 5_000, PerServer, P2C, 3
	cfg.Servers, cfg.MinServers, cfg.InitialPerServer, cfg.Wave = 12, 12, 0, false
	cfg.Service, cfg.MeanService, cfg.Rate = Geometric, 12, 440_000
	cfg.HedgeAfter, cfg.HedgeMax, cfg.CodelTarget = 15, 2, 20
	cfg.ConcurrencyLimit, cfg.LimitInitial, cfg.LimitMax, cfg.LimitLatency = LimitAIMD, 6, 12, 40
	m := mustNew(t, cfg)
	b := m.bal[0]
	for m.Step() {
		if n, live := len(b.lim.rejoined), b.queueLen()+b.busy; n > live {
			t.Fatalf("cycle %d: %d joinings kept for %d attempts queued or in service", m.Cycle(), n, live)
		}
	}
	if s := m.Summary(); s.Hedges == 0 || s.Cancelled == 0 || s.Shed == 0 || s.Limited == 0 || !s.Consistent {
		t.Fatalf("hedges %d cancelled %d shed %d limited %d consistent %v: the run should hedge, cancel, shed and refuse", s.Hedges, s.Cancelled, s.Shed, s.Limited, s.Consistent)
	}
}
