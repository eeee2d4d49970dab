package sim

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// Hand-computed traces of the client side and detection. Each runs a
// trace through grayRun (servers fixed unless the test scales, nothing
// blocked, the invariants checked every cycle).

// kindAt returns the cycles of the events of kind at server id (0: any).
func kindAt(events []Event, kind EventKind, id int) []int64 {
	var cs []int64
	for _, e := range events {
		if e.Kind == kind && (id == 0 || e.Server == id) {
			cs = append(cs, e.Cycle)
		}
	}
	return cs
}

// TestTimeoutTrace: one server, timeout 5; #1 and #2 (time 10) arrive at
// cycle 1. #1 starts at 1 (done at 11); at a′ of cycle 6 both are
// abandoned, #1 in service (the server carries on: abandoned work to 11,
// 5 wasted cycles) and #2 queued (it leaves the queue). Both requests time
// out: no retries.
func TestTimeoutTrace(t *testing.T) {
	cfg := grayTrace(1, 15, TraceRow{Cycle: 1, Src: 1, Time: 10}, TraceRow{Cycle: 1, Src: 2, Time: 10})
	cfg.Timeout, cfg.Blocked = 5, nil
	m := mustNewEvents(t, cfg)
	var ev []Event
	for m.Cycle() < 8 {
		m.Step()
		checkInvariants(t, m)
		ev = append(ev, m.Events()...)
	}
	s := m.Summary()
	if s.AbandonedInService != 1 || s.InService != 0 || s.ServersBusy != 1 || s.WastedCycles != 3 || s.FinalQueue != 0 {
		t.Errorf("at cycle 8: abandoned_in_service %d in_service %d servers_busy %d wasted %d queue %d, want 1 0 1 3 (cycles 6, 7, 8) 0",
			s.AbandonedInService, s.InService, s.ServersBusy, s.WastedCycles, s.FinalQueue)
	}
	if v, _ := m.Balancers()[0].Server(1); !v.Abandoned {
		t.Error("server 1's work is not shown abandoned")
	}
	for m.Step() {
		checkInvariants(t, m)
		ev = append(ev, m.Events()...)
	}
	if got := at(ev, TimedOut, 1); !slices.Equal(got, []int64{6}) {
		t.Errorf("#1 timed out at %v, want [6]", got)
	}
	if got := at(ev, TimedOut, 2); !slices.Equal(got, []int64{6}) {
		t.Errorf("#2 timed out at %v, want [6]", got)
	}
	if got := at(ev, Complete, 1); len(got) != 0 {
		t.Errorf("abandoned work completed at %v: it must not count", got)
	}
	s = m.Summary()
	want := Summary{TimedOut: 2, TimedOutQueued: 1, TimedOutInService: 1, WastedCycles: 5, Completed: 0, InFlight: 0, Attempts: 2}
	if s.TimedOut != want.TimedOut || s.TimedOutQueued != want.TimedOutQueued || s.TimedOutInService != want.TimedOutInService ||
		s.WastedCycles != want.WastedCycles || s.Completed != 0 || s.InFlight != 0 || s.Attempts != 2 || s.AbandonedInService != 0 || !s.Consistent {
		t.Errorf("summary %+v, want %+v", s, want)
	}
}

// TestHangEndedByTimeout: one server hanging from cycle 1, timeout 4, one
// retry, healed at cycle 6. #1 (arrived 1) hangs until its timeout at 5,
// which frees the server; its retry arrives at step b of 5 (no backoff, and
// the timeout came before step b) behind #2 (arrived 2), which the still
// hanging server takes at 5 and which times out at 6; its retry arrives at
// 6. The healed server takes #1's retry at 6 (waited 1) and completes it at
// 9 (response 8, from the first arrival); #2's retry starts at 9 and times
// out in service at 10 (due 6 + 4): abandoned work to 12, 2 wasted cycles,
// and #2 has no retry left.
func TestHangEndedByTimeout(t *testing.T) {
	cfg := grayTrace(1, 15, TraceRow{Cycle: 1, Src: 1, Time: 3}, TraceRow{Cycle: 2, Src: 2, Time: 3})
	cfg.Timeout, cfg.Retries = 4, 1
	m, ev := grayRun(t, cfg, fault(1, "hang", "1"), fault(6, "heal", "1"))
	for _, c := range []struct {
		kind EventKind
		id   int64
		want []int64
	}{
		{TimedOut, 1, []int64{5}}, {Retry, 1, []int64{5}}, {Complete, 1, []int64{9}},
		{TimedOut, 2, []int64{6, 10}}, {Retry, 2, []int64{6}}, {Dispatch, 2, []int64{5, 9}}, {GiveUp, 2, []int64{10}},
	} {
		if got := at(ev, c.kind, c.id); !slices.Equal(got, c.want) {
			t.Errorf("#%d %v at %v, want %v", c.id, c.kind, got, c.want)
		}
	}
	for _, e := range ev {
		if e.Kind == Dispatch && e.Request.ID == 1 && e.Cycle == 6 && (e.Wait != 1 || !e.Request.Retry) {
			t.Errorf("#1's retry dispatched at 6 with wait %d retry %v, want 1 true", e.Wait, e.Request.Retry)
		}
	}
	s := m.Summary()
	if s.Completed != 1 || s.TimedOut != 1 || s.Retries != 2 || s.TimedOutInService != 3 || s.TimedOutQueued != 0 ||
		s.WastedCycles != 2 || s.AvgResponse != 8 || s.Attempts != 4 || !s.Consistent {
		t.Errorf("completed %d timed_out %d retries %d in service %d queued %d wasted %d avg_response %v attempts %d consistent %v, want 1 1 2 3 0 2 8 4 true",
			s.Completed, s.TimedOut, s.Retries, s.TimedOutInService, s.TimedOutQueued, s.WastedCycles, s.AvgResponse, s.Attempts, s.Consistent)
	}
}

// TestBackoffTrace: one server failing from cycle 1 (fail-time 1), three
// retries with backoff 2. #1 errs at 2, 5, 10 and 19: retry k arrives 2 ·
// 2^(k−1) cycles after the error (at 4, 9, 18); after the third the request
// has failed.
func TestBackoffTrace(t *testing.T) {
	cfg := grayTrace(1, 30, TraceRow{Cycle: 1, Src: 1, Time: 5})
	cfg.Retries, cfg.Backoff, cfg.FailTime = 3, 2, 1
	m, ev := grayRun(t, cfg, fault(1, "fail", "1"))
	if got := at(ev, Retry, 1); !slices.Equal(got, []int64{4, 9, 18}) {
		t.Errorf("retries arrived at %v, want [4 9 18]", got)
	}
	if got := at(ev, Error, 1); !slices.Equal(got, []int64{2, 5, 10, 19}) {
		t.Errorf("errors at %v, want [2 5 10 19]", got)
	}
	if s := m.Summary(); s.Failed != 1 || s.Errors != 4 || s.Retries != 3 || s.InFlight != 0 || !s.Consistent {
		t.Errorf("failed %d errors %d retries %d in_flight %d, want 1 4 3 0", s.Failed, s.Errors, s.Retries, s.InFlight)
	}
}

// TestJitterTrace: as TestBackoffTrace with jitter: retry k waits a uniform
// whole number of cycles in [0, 2·2^(k−1)], drawn from the retry generator
// (its own stream, seeded by the seed); a wait of 0 after an error in step
// a arrives in the same cycle's step b.
func TestJitterTrace(t *testing.T) {
	cfg := grayTrace(1, 60, TraceRow{Cycle: 1, Src: 1, Time: 5})
	cfg.Retries, cfg.Backoff, cfg.FailTime, cfg.Jitter = 3, 2, 1, true
	for _, seed := range []uint64{1, 2, 3, 7, 42} {
		cfg.Seed = seed
		m, ev := grayRun(t, cfg, fault(1, "fail", "1"))
		rng := rand.New(rand.NewPCG(seed, 0x6c6273696d2d7279))
		var want []int64
		e := int64(2) // the first error
		for k := 1; k <= 3; k++ {
			a := e + rng.Int64N(2<<(k-1)+1)
			want = append(want, a)
			e = a + 1
		}
		if got := at(ev, Retry, 1); !slices.Equal(got, want) {
			t.Errorf("seed %d: retries arrived at %v, want %v", seed, got, want)
		}
		if s := m.Summary(); s.Failed != 1 || s.Retries != 3 {
			t.Errorf("seed %d: failed %d retries %d, want 1 3", seed, s.Failed, s.Retries)
		}
	}
}

// TestJitterLeavesRequestsAlone: the retry generator is a stream of its
// own: the requests generated are the same with and without retries,
// jitter and timeouts.
func TestJitterLeavesRequestsAlone(t *testing.T) {
	base := DefaultConfig()
	base.Seed, base.Cycles, base.InitialPerServer = 9, 3000, 2
	run := func(cfg Config) []Request {
		m := mustNewEvents(t, cfg)
		var rs []Request
		for m.Step() {
			for _, e := range m.Events() {
				if (e.Kind == Arrive || e.Kind == Reject || e.Kind == Discard) && !e.Request.Retry {
					rs = append(rs, e.Request)
				}
			}
		}
		return rs
	}
	plain := run(base)
	client := base
	client.Timeout, client.Retries, client.Backoff, client.Jitter, client.HealthInterval, client.EjectAfter = 60, 3, 5, true, 7, 2
	got := run(client)
	if !slices.Equal(got, plain) || len(plain) == 0 {
		t.Errorf("the client side changed the request stream: %d requests against %d", len(got), len(plain))
	}
}

// TestBudgetTrace: one server failing from cycle 1, one retry, budget 0.5;
// #1…#4 arrive at cycle 1 (4 first attempts admitted). The errors of #1 (at
// 2) and #2 (at 3) are granted retries (0 and 1 granted, both below 0.5 ×
// 4); #3 (4) and #4 (5) find 2 granted, not below 2: they give up. The
// retries of #1 and #2 err at 6 and 7 with no retry left: failed.
func TestBudgetTrace(t *testing.T) {
	var rows []TraceRow
	for i := range 4 {
		rows = append(rows, TraceRow{Cycle: 1, Src: uint32(i + 1), Time: 5})
	}
	cfg := grayTrace(1, 12, rows...)
	cfg.Retries, cfg.FailTime, cfg.RetryBudget = 1, 1, DecimalScale/2
	m, ev := grayRun(t, cfg, fault(1, "fail", "1"))
	for id, want := range map[int64][]int64{1: {2}, 2: {3}, 3: nil, 4: nil} {
		if got := at(ev, Retry, id); !slices.Equal(got, want) {
			t.Errorf("#%d retried at %v, want %v", id, got, want)
		}
	}
	if got := at(ev, GiveUp, 3); !slices.Equal(got, []int64{4}) {
		t.Errorf("#3 gave up at %v, want [4]", got)
	}
	if s := m.Summary(); s.Errors != 6 || s.Failed != 2 || s.GaveUpBudget != 2 || s.Retries != 2 || !s.Consistent {
		t.Errorf("errors %d failed %d gave_up_budget %d retries %d, want 6 2 2 2", s.Errors, s.Failed, s.GaveUpBudget, s.Retries)
	}
}

// steady returns trace rows of one request of the given time every cycle
// from 1 to n.
func steady(n int64, time uint32) []TraceRow {
	var rows []TraceRow
	for c := int64(1); c <= n; c++ {
		rows = append(rows, TraceRow{Cycle: c, Src: uint32(c), Time: time})
	}
	return rows
}

// TestHealthChecksTrace: two servers, first-idle, probes every 5 cycles,
// fall 2, rise 2; server 1 goes down at 7 and comes back at 20. Until its
// probes at 10 and 15 fail, it stays a candidate and refuses what it is
// given (errors); the second failed probe ejects it at 15. It passes at 20
// and 25 and is restored at 25. Errors happen only from 7 to 15.
func TestHealthChecksTrace(t *testing.T) {
	cfg := grayTrace(2, 40, steady(40, 3)...)
	cfg.HealthInterval, cfg.HealthFall, cfg.HealthRise = 5, 2, 2
	m, ev := grayRun(t, cfg, fault(7, "down", "1"), fault(20, "up", "1"))
	if got := kindAt(ev, Eject, 1); !slices.Equal(got, []int64{15}) {
		t.Errorf("server 1 ejected at %v, want [15]", got)
	}
	if got := kindAt(ev, Restore, 1); !slices.Equal(got, []int64{25}) {
		t.Errorf("server 1 restored at %v, want [25]", got)
	}
	errs := kindAt(ev, Error, 0)
	if len(errs) == 0 {
		t.Fatal("no errors: a down server not yet found out must refuse")
	}
	for _, c := range errs {
		if c < 7 || c > 15 {
			t.Errorf("an error at cycle %d, outside 7…15", c)
		}
	}
	for _, e := range ev {
		if e.Kind == Dispatch && e.Server == 1 && e.Cycle >= 7 && e.Cycle < 25 {
			t.Errorf("server 1 given #%d at %d while down or ejected", e.Request.ID, e.Cycle)
		}
	}
	if s := m.Summary(); s.Ejections != 1 || s.Failed != s.Errors || !s.Consistent {
		t.Errorf("ejections %d failed %d errors %d, want 1 and failed = errors", s.Ejections, s.Failed, s.Errors)
	}
}

// TestOutlierEjectionTrace: three servers, first-idle, server 1 failing
// (fail-time 1) from cycle 1, eject after 2 errors for 10 cycles. Server 1
// errs twice and is ejected; restored 10 cycles later it errs twice more
// and is ejected for 20 (its second ejection with no completion between).
func TestOutlierEjectionTrace(t *testing.T) {
	cfg := grayTrace(3, 60, steady(60, 2)...)
	cfg.FailTime, cfg.EjectAfter, cfg.EjectFor = 1, 2, 10
	_, ev := grayRun(t, cfg, fault(1, "fail", "1"))
	ej, re := kindAt(ev, Eject, 1), kindAt(ev, Restore, 1)
	if len(ej) < 3 || len(re) < 2 {
		t.Fatalf("ejections %v, restores %v: want at least 3 and 2", ej, re)
	}
	for i, want := range []int64{10, 20} {
		if re[i]-ej[i] != want {
			t.Errorf("ejection %d at %d restored at %d: %d cycles, want %d", i+1, ej[i], re[i], re[i]-ej[i], want)
		}
	}
	errs := kindAt(ev, Error, 1)
	for i := range 2 {
		n := 0
		for _, c := range errs {
			if (i == 0 && c <= ej[0]) || (i == 1 && c > re[0] && c <= ej[1]) {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%d errors before ejection %d, want 2", n, i+1)
		}
	}
}

// TestWarmUpTrace: one server to start, scaling up at every cycle while
// the queue is long, provision delay 5: a server added at cycle t takes
// no work before t + 5, when it becomes a candidate (Ready).
func TestWarmUpTrace(t *testing.T) {
	cfg := grayTrace(1, 30, steady(30, 20)...)
	cfg.ProvisionDelay = 5
	cfg.MinServers, cfg.MaxServers, cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown = 1, 3, FactorScale, 0, 1
	cfg.Blocked = nil
	m := mustNewEvents(t, cfg)
	var ev []Event
	warm := 0
	for m.Step() {
		checkInvariants(t, m)
		ev = append(ev, m.Events()...)
		warm = max(warm, m.Pool().Warming)
	}
	ups := kindAt(ev, ScaleUp, 0)
	if len(ups) == 0 || warm == 0 {
		t.Fatalf("scale-ups at %v, most warming %d: the test needs a warming server", ups, warm)
	}
	for _, e := range ev {
		if e.Kind != ScaleUp {
			continue
		}
		id := e.Server
		if got := kindAt(ev, Ready, id); len(got) != 1 || got[0] != e.Cycle+5 {
			t.Errorf("server %d added at %d ready at %v, want [%d]", id, e.Cycle, got, e.Cycle+5)
		}
		for _, d := range ev {
			if d.Kind == Dispatch && d.Server == id && d.Cycle < e.Cycle+5 {
				t.Errorf("warming server %d (added at %d) given work at %d", id, e.Cycle, d.Cycle)
			}
		}
	}
}

// TestReplaceTrace: two servers, server 2 down at 5 and never back,
// replace-after 10: it leaves the pool at step c of 15 (counted replaced,
// not a scale-down), and a later fault naming it is skipped.
func TestReplaceTrace(t *testing.T) {
	cfg := grayTrace(2, 30, steady(30, 2)...)
	cfg.ReplaceAfter = 10
	cfg.Blocked = nil
	cfg.MinServers, cfg.MaxServers = 1, 2
	cfg.ScaleUp, cfg.ScaleDown = 1000*FactorScale, 0
	m := mustNewEvents(t, cfg, fault(5, "down", "2"), fault(20, "up", "2"))
	var ev []Event
	for m.Step() {
		checkInvariants(t, m)
		ev = append(ev, m.Events()...)
		if c := m.Cycle(); c == 14 || c == 15 {
			if live, want := m.Pool().Live, map[int64]int{14: 2, 15: 1}[c]; live != want {
				t.Errorf("cycle %d: %d live, want %d", c, live, want)
			}
		}
	}
	if got := kindAt(ev, Replace, 2); !slices.Equal(got, []int64{15}) {
		t.Errorf("server 2 replaced at %v, want [15]", got)
	}
	if s := m.Summary(); s.Replaced != 1 || s.ScaleDowns != 0 || s.FaultsSkipped != 1 || s.ServersDown != 0 {
		t.Errorf("replaced %d scale-downs %d faults skipped %d servers down %d, want 1 0 1 0", s.Replaced, s.ScaleDowns, s.FaultsSkipped, s.ServersDown)
	}
}

// TestEjectedRetiringServerLeavesOnce: a retiring server that health
// checks eject, and that then leaves at the end of its last request, is
// gone: replacement must not take it out of the pool a second time (found
// by TestProperties: the pool counted one live server too few).
func TestEjectedRetiringServerLeavesOnce(t *testing.T) {
	cfg := Config{Servers: 1, Cycles: 8, TaskMin: 1, TaskMax: 1, ScaleUp: 2, ScaleDown: 1, Cooldown: 1, MinServers: 1, MaxServers: 2,
		Speeds: []Speed{25}, Trace: []TraceRow{{Cycle: 0, Time: 1}, {Cycle: 0, Time: 4}}, WavePeriod: 1,
		HealthInterval: 1, HealthFall: 1, HealthRise: 1, EjectFor: 1, ReplaceAfter: 1, Policy: FirstIdle}
	m := mustNewEvents(t, cfg, fault(4, "fail", "2"))
	var ev []Event
	for m.Step() {
		checkInvariants(t, m)
		ev = append(ev, m.Events()...)
	}
	if got := kindAt(ev, Eject, 2); !slices.Equal(got, []int64{4}) {
		t.Errorf("server 2 ejected at %v, want [4]", got)
	}
	if got := kindAt(ev, Leave, 2); !slices.Equal(got, []int64{5}) {
		t.Errorf("server 2 left at %v, want [5] (retiring since 2, ejected at 4)", got)
	}
	if got := kindAt(ev, Replace, 0); len(got) != 0 {
		t.Errorf("replaced at %v: a server that left cannot be replaced", got)
	}
	if p := m.Pool(); p.Live != 1 || p.Ejected != 0 {
		t.Errorf("pool %+v, want one live server, none ejected", p)
	}
}

// TestWaitingRetriesAreBounded: requests waiting to retry hold memory as
// queued ones do, so they count against the bound on queued requests: a
// failing pool whose retries wait 2^30 cycles stops at the bound.
func TestWaitingRetriesAreBounded(t *testing.T) {
	cfg := grayTrace(1, 400, steady(400, 5)...)
	cfg.Retries, cfg.Backoff, cfg.FailTime = 1, 1<<30, 1
	cfg.Blocked, cfg.MinServers, cfg.MaxServers = nil, 1, 1
	m, err := New(cfg, WithMaxQueued(50))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Schedule(fault(1, "fail", "1")); err != nil {
		t.Fatal(err)
	}
	m.Run()
	var le *QueueLimitError
	if !errors.As(m.Err(), &le) || le.Queued != 51 || m.Cycle() >= 400 {
		t.Fatalf("stopped at cycle %d with %v, want a stop with 51 queued or waiting", m.Cycle(), m.Err())
	}
}

// TestDeadlinesArePruned: with a timeout far beyond the run, every attempt
// completes long before its deadline; the deadlines of ended attempts are
// dropped rather than kept to the end.
func TestDeadlinesArePruned(t *testing.T) {
	cfg := grayTrace(4, 20_000, steady(20_000, 1)...)
	cfg.Timeout, cfg.Blocked = MaxCycles, nil
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for m.Step() {
		most = max(most, len(m.bal[0].cl.deadlines)+m.bal[0].cl.firsts.n)
	}
	if s := m.Summary(); s.Completed < 19_990 || most > 2*4+1024+1 {
		t.Errorf("completed %d, at most %d deadlines kept; want about 20,000 and at most %d", s.Completed, most, 2*4+1025)
	}
}
