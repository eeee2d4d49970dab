package sim

import (
	"fmt"
	"slices"
	"testing"
)

// TestHedgeSetClientHandTraces follows runs with the client side on in
// which `--set` turns hedging on at cycle C (no hedging state before),
// cycle by cycle: a part first sent before C is never hedged (nor its
// retry); a part first sent at C gets its hedges at C + D, 2D …, each
// attempt with a deadline of its own; an attempt that times out while
// another of its part is live ends alone, the last live one is retried.
func TestHedgeSetClientHandTraces(t *testing.T) {
	row := func(c int64, time uint32) TraceRow { return TraceRow{Cycle: c, Time: time, Src: 0x01020304} }
	type want struct {
		hedges, won, cancelled, retries, toQueued, toInService int64
		completed, timedOut, wasted                            int64
		events                                                 []string // "cycle kind sS #id", " retry" for a retry
	}
	cases := []handTrace[want]{{
		// Two servers, round-robin, timeout 20, one retry; no hedging
		// state until the change at C = 5 sets D = 3. Request 1 (1, time
		// 100) at server 1, done 101: first sent before C, never hedged.
		// Request 2 arrives at C (time 100) at server 2, done 105; its
		// hedge at 8 queues at server 1. At 21 request 1 times out in
		// service (abandoned work to 101) and is retried to server 2,
		// queued. At 25 request 2's first attempt times out in service:
		// its hedge is live, so it ends alone (abandoned work to 105). At
		// 28 the hedge times out queued, the part's last live attempt:
		// retried to server 1, queued, not hedged again (H = 1). Both
		// retries time out queued (41, 48) with no retry left: the
		// requests time out. Wasted 80 + 80.
		name:    "hedging turned on at C: a part first sent at C is hedged and times out",
		cfg:     hedgeTrace(2, 0, 0, 120, row(1, 100), row(5, 100)),
		setup:   func(c *Config) { c.Timeout, c.Retries = 20, 1 },
		changes: []Change{{Cycle: 5, Setting: SetHedgeAfter, Value: 3}},
		want: want{hedges: 1, retries: 2, toQueued: 3, toInService: 2, timedOut: 2, wasted: 160, events: []string{
			"1 arrive s1 #1", "1 dispatch s1 #1", "5 arrive s2 #2", "5 dispatch s2 #2", "8 hedge s1 #2",
			"21 timed-out s1 #1", "21 retry s2 #1 retry", "25 timed-out s2 #2", "28 timed-out s0 #2", "28 retry s1 #2 retry",
			"41 timed-out s0 #1 retry", "41 give-up s0 #1 retry", "48 timed-out s0 #2 retry", "48 give-up s0 #2 retry"}},
	}, {
		// Three servers, round-robin, timeout 20, one retry; hedges take
		// 30 cycles. D = 3 from the start, 0 at 2, 2 at 5. Request 1 (1,
		// time 100) at server 1 is hedged at 4 (server 3, done 34).
		// Request 2 (3, time 10), sent while D = 0, is never hedged and
		// completes at 13. Request 3 (5, time 100) queues at server 1;
		// its hedge at 7 (D = 2) queues at server 2 and is served from 13
		// (done 43). At 21 request 1's first attempt times out alone; at
		// 24 its hedge times out, the last live attempt, retried to
		// server 3 (served from 34 with the part's time, 100). At 25
		// request 3's first attempt times out queued, alone; at 27 its
		// hedge times out, retried to server 1. The retries time out at
		// 44 (in service) and 47 (queued): both requests time out.
		// Wasted 80 + 10 + 16 + 90 (the run ends at 140, after 134).
		name:    "hedged from the start, off, on again with timeouts",
		cfg:     hedgeTrace(3, 3, 1, 140, row(1, 100), row(3, 10), row(5, 100)),
		setup:   func(c *Config) { c.Timeout, c.Retries = 20, 1 },
		changes: []Change{{Cycle: 2, Setting: SetHedgeAfter}, {Cycle: 5, Setting: SetHedgeAfter, Value: 2}},
		want: want{hedges: 2, retries: 2, toQueued: 2, toInService: 4, completed: 1, timedOut: 2, wasted: 196, events: []string{
			"1 arrive s1 #1", "1 dispatch s1 #1", "3 arrive s2 #2", "3 dispatch s2 #2", "4 hedge s3 #1", "4 dispatch s3 #1",
			"5 arrive s1 #3", "7 hedge s2 #3", "13 complete s2 #2", "13 dispatch s2 #3", "21 timed-out s1 #1",
			"24 timed-out s3 #1", "24 retry s3 #1 retry", "25 timed-out s0 #3", "27 timed-out s2 #3", "27 retry s1 #3 retry",
			"34 dispatch s3 #1 retry", "44 timed-out s3 #1 retry", "44 give-up s0 #1 retry", "47 timed-out s0 #3 retry",
			"47 give-up s0 #3 retry"}},
	}}
	shown := []EventKind{Arrive, Dispatch, Hedge, TimedOut, Error, Retry, Cancel, Complete, GiveUp, Discard}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			events, s := traceBooked(t, c.config(), c.changes, shown)
			w := c.want
			got := want{s.Hedges, s.HedgesWon, s.Cancelled, s.Retries, s.TimedOutQueued, s.TimedOutInService,
				s.Completed, s.TimedOut, s.WastedCycles, w.events}
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("hedges, won, cancelled, retries, timed out queued/in service, completed, timed out, wasted:\n got %v\nwant %v", got, w)
			}
			if !slices.Equal(events, w.events) {
				t.Errorf("events\n got %q\nwant %q", events, w.events)
			}
			if s.InFlight != 0 || s.Attempts != s.Parts+s.Retries+s.Hedges {
				t.Errorf("in flight %d, attempts %d (parts %d retries %d hedges %d)", s.InFlight, s.Attempts, s.Parts, s.Retries, s.Hedges)
			}
		})
	}
}
