package sim

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestHedgeClientHandTraces follows hedged requests with the client side
// cycle by cycle, on hedgeTrace's runs (round-robin, speed 1, hedges
// taking 30 cycles): every attempt, a hedge included, has a deadline of
// its own; an attempt that errs or times out while another attempt of its
// part is live (or a retry of it pending) ends alone; the last live one is
// retried, or ends its request; a retry pending for a part a hedge has
// completed is dropped, counted nowhere; step a′ takes a part's attempts
// due together in the order they were sent; a down server not yet found
// out refuses a hedge like any attempt.
func TestHedgeClientHandTraces(t *testing.T) {
	row := func(c int64, time uint32) TraceRow { return TraceRow{Cycle: c, Time: time, Src: 0x01020304} }
	gray := func(c int64, s Setting, id int) Change {
		return Change{Cycle: c, Setting: s, Value: int64(MakeServerRef(0, id))}
	}
	type want struct {
		hedges, won, cancelled, retries, errors, toQueued, toInService int64
		completed, failed, timedOut, wasted                            int64
		events                                                         []string // "cycle kind sS #id", " retry" for a retry
	}
	cases := []handTrace[want]{{
		// Timeout 32, one retry allowed. Request 1 (cycle 1, time 100)
		// is served at server 1 from 1 (done 101). Its hedge at 6 goes to
		// server 2 (done 36). At 33 the first attempt times out in
		// service: the hedge is live, so it ends alone (no retry) and
		// server 1 works on abandoned work to 101 (68 cycles wasted). At
		// 36 the hedge completes the request (response 35); the abandoned
		// work is not cancelled.
		name:  "the first attempt times out while its hedge is live: no retry",
		cfg:   hedgeTrace(2, 5, 1, 120, row(1, 100)),
		setup: func(c *Config) { c.Timeout, c.Retries = 32, 1 },
		want: want{hedges: 1, won: 1, toInService: 1, completed: 1, wasted: 68, events: []string{
			"1 arrive s1 #1", "1 dispatch s1 #1", "6 hedge s2 #1", "6 dispatch s2 #1", "33 timed-out s1 #1", "36 complete s2 #1"}},
	}, {
		// Server 1 fails from cycle 1 (fail time 3) and heals at 15; one
		// retry, no backoff. Request 1 (time 20) errs at server 1 at 4:
		// its last live attempt, retried at once (a hedge still due does
		// not hold it back) to server 2 (done 24). Hedge 1 at 11 can only
		// go to server 1 and errs there at 14: the retry is live, so it
		// ends alone. Hedge 2 at 21 goes to server 1, healthy (done 51).
		// At 24 the retry completes the part (not a hedge's win) and
		// cancels hedge 2 in service, 3 cycles served.
		name:    "a part retried after its last live attempt errs, a hedge due later",
		cfg:     hedgeTrace(2, 10, 2, 60, row(1, 20)),
		setup:   func(c *Config) { c.Retries, c.FailTime = 1, 3 },
		changes: []Change{gray(1, SetFail, 1), gray(15, SetHeal, 1)},
		want: want{hedges: 2, cancelled: 1, retries: 1, errors: 2, completed: 1, wasted: 3, events: []string{
			"1 arrive s1 #1", "1 dispatch s1 #1", "4 error s1 #1", "4 retry s2 #1 retry", "4 dispatch s2 #1 retry",
			"11 hedge s1 #1", "11 dispatch s1 #1", "14 error s1 #1", "21 hedge s1 #1", "21 dispatch s1 #1",
			"24 cancel s1 #1", "24 complete s2 #1 retry"}},
	}, {
		// Server 1 fails from cycle 1 (fail time 2); one retry, backoff
		// 100. Request 1 errs at 3; its retry is pending until 103. The
		// part is hedged with only that retry pending: at 6 to server 2
		// (done 36), which completes the request. The retry, due at 103,
		// is dropped: no event, not counted in retries.
		name:    "a retry pending is dropped when a hedge completes the part",
		cfg:     hedgeTrace(2, 5, 1, 120, row(1, 20)),
		setup:   func(c *Config) { c.Retries, c.Backoff, c.FailTime = 1, 100, 2 },
		changes: []Change{gray(1, SetFail, 1)},
		want: want{hedges: 1, won: 1, errors: 1, completed: 1, events: []string{
			"1 arrive s1 #1", "1 dispatch s1 #1", "3 error s1 #1", "6 hedge s2 #1", "6 dispatch s2 #1", "36 complete s2 #1"}},
	}, {
		// Server 1 fails (fail time 3), servers 2 and 3 hang, from cycle
		// 1; timeout 10, one retry, backoff 2. Request 1 errs at 4; its
		// retry arrives at 6 (server 2), and so does its hedge, sent after
		// it (server 3): both are due at 16 with the same arrival. Step a′
		// takes the retry first, which ends alone (the hedge is live, due
		// later in the step), then the hedge: the part's last live
		// attempt, no retry left, so the request times out.
		name:    "a tie at step a′: a part's attempts in the order they were sent",
		cfg:     hedgeTrace(3, 5, 1, 30, row(1, 20)),
		setup:   func(c *Config) { c.Timeout, c.Retries, c.Backoff, c.FailTime = 10, 1, 2, 3 },
		changes: []Change{gray(1, SetFail, 1), gray(1, SetHang, 2), gray(1, SetHang, 3)},
		want: want{hedges: 1, retries: 1, errors: 1, toInService: 2, timedOut: 1, events: []string{
			"1 arrive s1 #1", "1 dispatch s1 #1", "4 error s1 #1", "6 retry s2 #1 retry", "6 hedge s3 #1",
			"6 dispatch s2 #1 retry", "6 dispatch s3 #1", "16 timed-out s2 #1 retry", "16 timed-out s3 #1", "16 give-up s0 #1"}},
	}, {
		// Health checks every 100 cycles, outlier ejection after one
		// error. Server 2 goes down at 1, not found out. Request 1 (time
		// 20) is served at server 1 (done 21). Its hedge at 6 can only go
		// to server 2: it is sent (counted) and refused there, an error
		// that ejects the server; the first attempt is live, so the hedge
		// ends alone. The first attempt completes at 21.
		name:    "a hedge refused by a down server not yet found out",
		cfg:     hedgeTrace(2, 5, 1, 40, row(1, 20)),
		setup:   func(c *Config) { c.HealthInterval, c.EjectAfter, c.Retries = 100, 1, 1 },
		changes: []Change{gray(1, SetDown, 2)},
		want: want{hedges: 1, errors: 1, completed: 1, events: []string{
			"1 arrive s1 #1", "1 dispatch s1 #1", "6 hedge s2 #1", "6 error s2 #1", "6 eject s2 #0", "21 complete s1 #1"}},
	}}
	shown := []EventKind{Arrive, Dispatch, Hedge, TimedOut, Error, Retry, Cancel, Complete, GiveUp, Discard, Eject}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			events, s := traceBooked(t, c.config(), c.changes, shown)
			w := c.want
			got := want{s.Hedges, s.HedgesWon, s.Cancelled, s.Retries, s.Errors, s.TimedOutQueued, s.TimedOutInService,
				s.Completed, s.Failed, s.TimedOut, s.WastedCycles, w.events}
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("hedges, won, cancelled, retries, errors, timed out queued/in service, completed, failed, timed out, wasted:\n got %v\nwant %v",
					got, w)
			}
			if !slices.Equal(events, w.events) {
				t.Errorf("events\n got %q\nwant %q", events, w.events)
			}
			if s.InFlight != 0 || s.RetriesDiscarded != 0 || s.Attempts != s.Parts+s.Retries+s.Hedges {
				t.Errorf("in flight %d, retries discarded %d, attempts %d (parts %d retries %d hedges %d)",
					s.InFlight, s.RetriesDiscarded, s.Attempts, s.Parts, s.Retries, s.Hedges)
			}
		})
	}
}

// TestHedgeClientAccepted: hedging is accepted with every setting of the
// client side and with random faults.
func TestHedgeClientAccepted(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
	}{
		{"timeout", func(c *Config) { c.Timeout = 50 }},
		{"retries", func(c *Config) { c.Retries, c.Backoff, c.Jitter, c.RetryBudget = 2, 4, true, 100_000 }},
		{"health checks", func(c *Config) { c.HealthInterval = 5 }},
		{"ejection", func(c *Config) { c.EjectAfter = 2 }},
		{"warm-up", func(c *Config) { c.ProvisionDelay = 10 }},
		{"replacement", func(c *Config) { c.ReplaceAfter = 100 }},
		{"random faults", func(c *Config) { c.MTBF, c.MTTR = 100, 10 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Queues, cfg.Policy, cfg.HedgeAfter = PerServer, RoundRobin, 20
			tc.set(&cfg)
			if err := cfg.Validate(); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

// genHedgeClient draws the client side and random faults over a hedged
// configuration of TestHedgeBooksEveryCycle.
func genHedgeClient(t *rapid.T, cfg *Config) {
	if !rapid.Bool().Draw(t, "hedgeClient") {
		return
	}
	genClientSettings(t, cfg)
	if rapid.Bool().Draw(t, "hedgeMTBF") {
		cfg.MTBF = rapid.Int64Range(1, 80).Draw(t, "mtbf")
		cfg.MTTR = rapid.Int64Range(1, 30).Draw(t, "mttr")
	}
}

// TestReplacedServerLeavesTheEjected: a server replaced while ejected no
// longer counts among the ejected when its attempts are routed again, so
// the ⌊L/2⌋ rule reads the servers that stay. Three servers, round-robin,
// health checks every 100 cycles, ejection after one error, replacement
// after 2 cycles. Server 1 fails at 1 and heals at 2: request 1 errs there
// at 2 and ejects it; it then serves request 4 (time 100). Server 2 goes
// down at 3: request 2 errs there, but a second ejection of three live
// servers is skipped. At 4 server 1 is replaced (two live servers, none
// ejected): request 4 goes to server 2, which refuses it, and that error
// ejects server 2 (one of two). Server 2, down since 3, is replaced at 5.
func TestReplacedServerLeavesTheEjected(t *testing.T) {
	row := func(c int64, time uint32) TraceRow { return TraceRow{Cycle: c, Time: time, Src: 0x01020304} }
	cfg := traceConfig(3, 6, row(1, 100), row(1, 100), row(1, 100), row(1, 100))
	cfg.Queues, cfg.Policy, cfg.FailTime = PerServer, RoundRobin, 1
	cfg.HealthInterval, cfg.EjectAfter, cfg.EjectFor, cfg.ReplaceAfter = 100, 1, 1000, 2
	ref := func(id int) int64 { return int64(MakeServerRef(0, id)) }
	m := mustNewEvents(t, cfg, Change{Cycle: 1, Setting: SetFail, Value: ref(1)}, Change{Cycle: 2, Setting: SetHeal, Value: ref(1)},
		Change{Cycle: 3, Setting: SetDown, Value: ref(2)})
	var events []string
	for m.Step() {
		for _, e := range m.Events() {
			if e.Cycle >= 2 && e.Cycle <= 4 && e.Kind != Dispatch {
				events = append(events, fmt.Sprintf("%d %v s%d #%d", e.Cycle, e.Kind, e.Server, e.Request.ID))
			}
		}
	}
	want := []string{"2 gray s1 #0", "2 error s1 #1", "2 eject s1 #0", "2 give-up s0 #1",
		"3 down s2 #0", "3 error s2 #2", "3 give-up s0 #2",
		"4 replace s1 #0", "4 requeue s1 #4", "4 error s2 #4", "4 eject s2 #0", "4 give-up s0 #4"}
	if !slices.Equal(events, want) {
		t.Errorf("events\n got %q\nwant %q", events, want)
	}
	if s := m.Summary(); s.Ejections != 2 || s.Replaced != 2 || s.Errors != 3 {
		t.Errorf("ejections %d replaced %d errors %d, want 2 2 3", s.Ejections, s.Replaced, s.Errors)
	}
}

// traceRun runs cfg with changes to its end, handing each event to each,
// and returns the summary, failing t at the first cycle whose books do not
// balance.
func traceRun(t *testing.T, cfg Config, changes []Change, each func(Event)) Summary {
	t.Helper()
	m := mustNewEvents(t, cfg, changes...)
	for m.Step() {
		for _, e := range m.Events() {
			each(e)
		}
		if s := m.Summary(); !s.Consistent {
			t.Fatalf("cycle %d: the books do not balance: %+v", m.Cycle(), s)
		}
	}
	return m.Summary()
}

// traceBooked is traceRun keeping the events of the kinds shown, each as
// "cycle kind sSERVER #REQUEST[ retry]".
func traceBooked(t *testing.T, cfg Config, changes []Change, shown []EventKind) ([]string, Summary) {
	t.Helper()
	var events []string
	s := traceRun(t, cfg, changes, func(e Event) {
		if slices.Contains(shown, e.Kind) {
			line := fmt.Sprintf("%d %v s%d #%d", e.Cycle, e.Kind, e.Server, e.Request.ID)
			if e.Request.Retry {
				line += " retry"
			}
			events = append(events, line)
		}
	})
	return events, s
}
