package sim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// shedTrace runs cfg and returns its dispatches and sheds in order, as
// "d<id>@<cycle>" and "s<id>@<cycle>".
func shedTrace(t *testing.T, cfg Config, changes ...Change) []string {
	t.Helper()
	m := mustNewEvents(t, cfg, changes...)
	var out []string
	for {
		for _, e := range m.Events() {
			switch e.Kind {
			case Dispatch:
				out = append(out, fmt.Sprintf("d%d@%d", e.Request.ID, e.Cycle))
			case Shed:
				out = append(out, fmt.Sprintf("s%d@%d", e.Request.ID, e.Cycle))
			}
		}
		if !m.Step() {
			break
		}
	}
	if s := m.Summary(); !s.Consistent || s.Shed > s.Errors {
		t.Errorf("summary not consistent: %+v", s)
	}
	return out
}

// TestShedHandTrace: one server of 10-cycle requests. #1 arrives at 0 and
// is served at once; #2 arrives at 1, #3 at 2, #4 at 4, #5 at 6, so the
// queue is empty at the end of cycle 0 and holds attempts from the end of
// cycle 1 on. The server is busy until 10: nothing is shed before, however
// long they wait. At 10 the queue is standing iff it was non-empty at the
// end of each of cycles 10−N … 9, i.e. iff N ≤ 9; the limit is then M,
// else N, and an attempt is shed iff 10 − its arrival exceeds it (an
// attempt exactly at the limit stays). Pooled and per-server alike.
func TestShedHandTrace(t *testing.T) {
	trace := []TraceRow{row(0, 10), row(1, 10), row(2, 10), row(4, 10), row(6, 10)}
	tests := []struct {
		name    string
		m, n    int64
		retries int
		want    []string
	}{
		{"standing at 10: limit M=7 sheds #2 #3, then #5 at 20", 7, 9, 0,
			[]string{"d1@0", "s2@10", "s3@10", "d4@10", "s5@20"}},
		{"not standing at 10 (N=10): limit N keeps all; standing at 20: limit M=7", 7, 10, 0,
			[]string{"d1@0", "d2@10", "s3@20", "s4@20", "s5@20"}},
		{"at the limit: #4 waited exactly M=6 and stays", 6, 9, 0,
			[]string{"d1@0", "s2@10", "s3@10", "d4@10", "s5@20"}},
		{"M = N = 8: #2 waited 9 (shed), #3 waited 8 (stays)", 8, 8, 0,
			[]string{"d1@0", "s2@10", "d3@10", "s4@20", "s5@20"}},
		// With a retry each: #2 and #3 retry at 11 (step b of 10 has
		// passed) and join the queue then; at 20 it is standing and #5
		// (14 cycles), #2 and #3 (9) are shed; #5 retries at 21 into an
		// empty queue and is served at once; #2 and #3 have no retry left.
		{"a shed attempt is retried", 7, 9, 1,
			[]string{"d1@0", "s2@10", "s3@10", "d4@10", "s5@20", "s2@20", "s3@20", "d5@21"}},
	}
	for _, tc := range tests {
		for _, q := range []QueueMode{Pooled, PerServer} {
			t.Run(tc.name+"/"+q.String(), func(t *testing.T) {
				cfg := traceConfig(1, 40, trace...)
				cfg.CodelTarget, cfg.CodelInterval, cfg.Queues, cfg.Retries = tc.m, tc.n, q, tc.retries
				if q == PerServer {
					cfg.Policy = RoundRobin
				}
				if got := shedTrace(t, cfg); !slices.Equal(got, tc.want) {
					t.Errorf("got  %v\nwant %v", got, tc.want)
				}
			})
		}
	}
}

// TestShedChangeActsFromStepD: codel-target set by a change at 10 sheds
// at 10's step d (as the first case of TestShedHandTrace), and turned off
// at 20 sheds nothing there: #5 is served.
func TestShedChangeActsFromStepD(t *testing.T) {
	cfg := traceConfig(1, 40, row(0, 10), row(1, 10), row(2, 10), row(4, 10), row(6, 10))
	cfg.CodelInterval = 9
	got := shedTrace(t, cfg, Change{Cycle: 10, Setting: SetCodelTarget, Value: 7}, Change{Cycle: 20, Setting: SetCodelTarget, Value: 0})
	if want := []string{"d1@0", "s2@10", "s3@10", "d4@10", "d5@20"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestShedRefusals: M > N is refused, at the start and in a change, and
// M ≤ N is taken; codel-interval alone (no adaptive-lifo, no target) is
// reported unread.
func TestShedRefusals(t *testing.T) {
	cfg := traceConfig(1, 40, row(0, 10))
	cfg.CodelTarget, cfg.CodelInterval = 11, 10
	if _, err := New(cfg); err == nil {
		t.Errorf("codel-target 11 above codel-interval 10 accepted")
	}
	cfg.CodelTarget = 10
	m, err := New(cfg)
	if err != nil {
		t.Fatalf("codel-target = codel-interval refused: %v", err)
	}
	if err := m.Schedule(Change{Cycle: 5, Setting: SetCodelTarget, Value: 20}); err == nil {
		t.Errorf("a change to codel-target 20 above codel-interval 10 accepted")
	}
	cfg.CodelTarget = 0
	if why := Unread(&cfg, nil)["codel-interval"]; why == "" {
		t.Errorf("codel-interval with shedding and adaptive-lifo off is not reported unread")
	}
	if why := Unread(&cfg, []Change{{Cycle: 5, Setting: SetCodelTarget, Value: 3}})["codel-interval"]; why != "" {
		t.Errorf("codel-interval reported unread with a change that turns shedding on: %s", why)
	}
}

// TestShedOldCostsWhatItSheds: shedOld looks at the requeued head, what it
// sheds and one more, never at the rest of a long queue; and it sheds
// exactly the requests that joined before the cut, in queue order.
func TestShedOldCostsWhatItSheds(t *testing.T) {
	var q fifo
	const n = 200_000 // in blocks: the queue is longer than fifoBlock
	for i := range int64(n) {
		q.pushBack(packed{id: i + 1}, i/10) // ten a cycle: joined = id/10
	}
	for i := range int64(3) {
		q.pushFront(packed{id: -(i + 1)}, 5000+i*10000) // requeued: joined 5000, 15000, 25000
	}
	// The head holds #-3, #-2, #-1 (joined 25000, 15000, 5000), then the
	// body in joined order.
	out, steps := q.shedOld(3, 20000, nil)
	// Body: joined < 3 ⟺ id ≤ 30; head: none joined before 3.
	if len(out) != 30 || out[0].id != 1 || out[29].id != 30 {
		t.Fatalf("shed %d (%v…), want ids 1…30", len(out), out[:min(len(out), 3)])
	}
	if steps > 3+30+1 {
		t.Errorf("looked at %d places to shed 30 behind a head of 3, want at most 34", steps)
	}
	if q.n != n+3-30 || q.front != 3 || q.at(0).id != -3 || q.at(3).id != 31 {
		t.Fatalf("after shedding: n %d front %d head %d, %d", q.n, q.front, q.at(0).id, q.at(3).id)
	}
	// Cut at 10000: the head's #-1 (joined 5000) goes, and the body's
	// ids 31 … 100,000 (joined < 10000).
	out, steps = q.shedOld(10000, 20000, out[:0])
	if len(out) != 1+100_000-30 || out[0].id != -1 || out[1].id != 31 {
		t.Fatalf("shed %d starting %d, %d; want #-1 then 31 … 100000", len(out), out[0].id, out[1].id)
	}
	if steps > 3+len(out)+1 {
		t.Errorf("looked at %d places to shed %d", steps, len(out))
	}
	if q.front != 2 || q.at(0).id != -3 || q.at(1).id != -2 || q.at(2).id != 100_001 || q.joined(1) != 15000 {
		t.Fatalf("after shedding: front %d, head %d %d %d", q.front, q.at(0).id, q.at(1).id, q.at(2).id)
	}
}

// TestFifoJoinedAndFront checks the queue's joined cycles and its count of
// requests put at the head against a plain slice, over random pushes at
// both ends, pops at both ends, removals and sheds.
func TestFifoJoinedAndFront(t *testing.T) {
	type item struct {
		id, joined int64
		front      bool
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var q fifo
	var want []item
	id := int64(0)
	for step := int64(0); step < 200_000; step++ {
		c := step / 7
		switch op := rng.IntN(10); {
		case op < 4:
			id++
			q.pushBack(packed{id: id}, c)
			want = append(want, item{id, c, false})
		case op < 5:
			id++
			q.pushFront(packed{id: id}, c)
			want = append([]item{{id, c, true}}, want...)
		case op < 7 && len(want) > 0:
			if p := q.popFront(c); p.id != want[0].id {
				t.Fatalf("step %d: popFront %d, want %d", step, p.id, want[0].id)
			}
			want = want[1:]
		case op < 8 && len(want) > 0:
			if p := q.popBack(c); p.id != want[len(want)-1].id {
				t.Fatalf("step %d: popBack %d, want %d", step, p.id, want[len(want)-1].id)
			}
			want = want[:len(want)-1]
		case op < 9 && len(want) > 0:
			i := rng.IntN(len(want))
			q.remove(want[i].id, 0, c)
			want = slices.Delete(want, i, i+1)
		default:
			cut := c - int64(rng.IntN(40))
			var shed []int64
			kept := want[:0:0]
			for _, x := range want {
				if x.joined < cut {
					shed = append(shed, x.id)
				} else {
					kept = append(kept, x)
				}
			}
			out, _ := q.shedOld(cut, c, nil)
			var got []int64
			for _, p := range out {
				got = append(got, p.id)
			}
			if !slices.Equal(got, shed) {
				t.Fatalf("step %d: shed %v, want %v", step, got, shed)
			}
			want = kept
		}
		front := 0
		for front < len(want) && want[front].front {
			front++
		}
		if q.n != len(want) || q.front != front {
			t.Fatalf("step %d: n %d front %d, want %d %d", step, q.n, q.front, len(want), front)
		}
		for i, x := range want {
			if q.at(i).id != x.id || q.joined(i) != x.joined {
				t.Fatalf("step %d: place %d holds %d joined %d, want %d joined %d", step, i, q.at(i).id, q.joined(i), x.id, x.joined)
			}
		}
	}
}

// TestShedCostsWhatItSheds: per-server queues thousands long under
// overload; the places shedding looks at are at most what it sheds plus
// one a queue looked at, however long the queues.
func TestShedCostsWhatItSheds(t *testing.T) {
	cfg := traceConfig(2, 3000)
	cfg.Trace = nil
	cfg.Queues, cfg.Policy = PerServer, RoundRobin
	cfg.Rate, cfg.TaskMin, cfg.TaskMax, cfg.InitialPerServer = 4*RateScale, 10, 10, 5000
	cfg.CodelTarget, cfg.CodelInterval = 2000, 2000
	m := mustNew(t, cfg)
	m.RunTo(cfg.Cycles)
	b, tot := m.bal[0], m.Totals()
	if tot.Shed == 0 || tot.PeakQueue < 5000 {
		t.Fatalf("shed %d, peak queue %d: the run must shed from long queues", tot.Shed, tot.PeakQueue)
	}
	if b.shedSteps > tot.Shed+b.shedCalls {
		t.Errorf("looked at %d places for %d shed in %d looks, want at most %d", b.shedSteps, tot.Shed, b.shedCalls, tot.Shed+b.shedCalls)
	}
}

// throttleDraws is the throttle generator of seed, made independently of
// the model (stream "lbsim-th").
func throttleDraws(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6c6273696d2d7468))
}

// TestThrottleWindow: the window fixed for cycle t is cycles t−1000 …
// t−1. Five requests arrive at cycle 0 at one server, each taking one
// cycle, so they complete at cycles 1 … 5; none arrives later.
func TestThrottleWindow(t *testing.T) {
	cfg := traceConfig(1, 1010, row(0, 1), row(0, 1), row(0, 1), row(0, 1), row(0, 1))
	cfg.Throttle = 200
	m := mustNew(t, cfg)
	th := m.bal[0].th
	for {
		c := m.Cycle() // the window is fixed for c+1: cycles c−999 … c
		wantReq, wantAcc := int64(0), int64(0)
		if c-999 <= 0 {
			wantReq = 5
		}
		for k := int64(1); k <= 5; k++ {
			if c-999 <= k && k <= c {
				wantAcc++
			}
		}
		if th.sumReq != wantReq || th.sumAcc != wantAcc {
			t.Fatalf("window fixed for cycle %d: requests %d accepts %d, want %d and %d", c+1, th.sumReq, th.sumAcc, wantReq, wantAcc)
		}
		if !m.Step() {
			break
		}
	}
}

// TestThrottleHandTrace: two requests a cycle for 30 cycles, each taking
// two cycles at one server (a quarter of them can be served), K = 1, one
// retry each with no backoff. Every attempt that reaches the throttle (retries first, by id,
// then arrivals) draws v from 0 … 100·(requests+1) − 1 and is throttled
// iff v < 100·requests − 100·accepts, requests being the attempts that
// reached it and accepts those completed in the cycles before (all within
// 1000). The expected decisions are drawn here from the throttle's own
// generator; the completions are the model's Complete events. A throttled
// first attempt retries at the next cycle; a throttled retry gives up.
func TestThrottleHandTrace(t *testing.T) {
	var rows []TraceRow
	for c := range int64(30) {
		rows = append(rows, row(c, 2), row(c, 2))
	}
	for _, q := range []QueueMode{Pooled, PerServer} {
		cfg := traceConfig(1, 40, rows...)
		cfg.Throttle, cfg.Retries, cfg.Queues = 100, 1, q
		if q == PerServer {
			cfg.Policy = RoundRobin
		}
		m := mustNewEvents(t, cfg)
		v := throttleDraws(cfg.Seed)
		var requests, accepts int64
		var retries []int64 // ids retrying this cycle, in id order
		var retryThrottled, retryPassed bool
		for c := int64(0); c <= cfg.Cycles; c++ {
			if c > 0 {
				m.Step()
			}
			var want []string
			var next []int64
			limit, drawn := 100*requests-100*accepts, 100*(requests+1)
			reach := func(id int64, retry bool) {
				requests++
				switch {
				case v.Int64N(drawn) >= limit:
					retryPassed = retryPassed || retry
				case retry:
					retryThrottled = true
					want = append(want, fmt.Sprintf("throttled #%d retry=true", id), fmt.Sprintf("give-up #%d", id))
				default:
					want = append(want, fmt.Sprintf("throttled #%d retry=false", id))
					next = append(next, id)
				}
			}
			for _, id := range retries {
				reach(id, true)
			}
			if c < 30 {
				reach(2*c+1, false)
				reach(2*c+2, false)
			}
			retries = next
			var got []string
			for _, e := range m.Events() {
				switch e.Kind {
				case Throttled:
					got = append(got, fmt.Sprintf("throttled #%d retry=%v", e.Request.ID, e.Request.Retry))
				case GiveUp:
					got = append(got, fmt.Sprintf("give-up #%d", e.Request.ID))
				case Complete:
					accepts++
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%v cycle %d: got %v, want %v", q, c, got, want)
			}
		}
		if !retryThrottled || !retryPassed {
			t.Errorf("%v: the trace must hold a retry throttled (%v) and one let through (%v)", q, retryThrottled, retryPassed)
		}
		if s := m.Summary(); !s.Consistent || s.Throttled == 0 || s.Errors != s.Throttled {
			t.Errorf("%v: summary throttled %d errors %d consistent %v", q, s.Throttled, s.Errors, s.Consistent)
		}
	}
}

// TestShortcutsKeepJoined: while shedding is off the shortcuts run
// (windows per-server, saturated runs pooled) and must leave each queued
// attempt's joined cycle as stepping does, for shedding reads them once a
// change turns it on. RunTo against Step, at the change and after, with
// queues that build up (up to 1.25 times capacity) so that there is
// something to shed.
func TestShortcutsKeepJoined(t *testing.T) {
	shed := int64(0)
	for seed := uint64(1); seed <= 12; seed++ {
		for _, q := range []QueueMode{Pooled, PerServer} {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Cycles, cfg.Queues, cfg.Wave = seed, 6_000, q, false
			if q == PerServer {
				cfg.Policy = RoundRobin
			}
			cfg.Servers, cfg.MinServers, cfg.MaxServers, cfg.InitialPerServer = 4, 4, 4, 0
			cfg.Service, cfg.MeanService, cfg.Rate = Geometric, 40, Rate(int64(seed%4+2)*RateScale/40)
			cfg.CodelInterval = 40
			at := int64(2_000 + 300*seed)
			change := Change{Cycle: at, Setting: SetCodelTarget, Value: int64(seed%3)*10 + 1}
			stepped, jumped := mustNew(t, cfg, change), mustNew(t, cfg, change)
			for _, stop := range []int64{at - 1, at, at + 500, cfg.Cycles} {
				for stepped.Cycle() < stop && stepped.Step() {
				}
				jumped.RunTo(stop)
				if stepped.Hash() != jumped.Hash() || !reflect.DeepEqual(stepped.Summary(), jumped.Summary()) {
					t.Fatalf("seed %d %v: RunTo and Step differ at cycle %d", seed, q, stop)
				}
			}
			shed += stepped.Totals().Shed
		}
	}
	if shed == 0 {
		t.Error("no run shed: the test shows nothing")
	}
}
