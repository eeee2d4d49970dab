package sim

import (
	"reflect"
	"slices"
	"testing"
)

// dispatchOrder runs cfg with changes and returns the ids of the requests
// in the order they were dispatched.
func dispatchOrder(t *testing.T, cfg Config, changes ...Change) []int64 {
	t.Helper()
	m := mustNewEvents(t, cfg, changes...)
	var ids []int64
	for {
		for _, e := range m.Events() {
			if e.Kind == Dispatch {
				ids = append(ids, e.Request.ID)
			}
		}
		if !m.Step() {
			return ids
		}
	}
}

// TestDisciplineHandTrace: one server of 5-cycle requests; #1 arrives at
// 0 and is served at once, #2 and #3 at 1, #4 at 2, so the queue is empty
// at the end of cycle 0 and holds requests at the end of cycles 1 to 14.
// At 5 fifo takes #2 and lifo #4. adaptive-lifo takes the newest iff the
// queue was non-empty at the end of each of the last N cycles: at 5 with
// N = 4 (cycles 1–4) it is, with N = 5 (cycles 0–4) it is not; at 10 it
// is with both. Pooled and per-server alike.
func TestDisciplineHandTrace(t *testing.T) {
	trace := []TraceRow{row(0, 5), row(1, 5), row(1, 5), row(2, 5)}
	tests := []struct {
		name string
		d    Discipline
		n    int64
		want []int64
	}{
		{"fifo", Fifo, 0, []int64{1, 2, 3, 4}},
		{"lifo", Lifo, 0, []int64{1, 4, 3, 2}},
		{"adaptive standing at 5 (N=4)", AdaptiveLifo, 4, []int64{1, 4, 3, 2}},
		{"adaptive not standing at 5 (N=5)", AdaptiveLifo, 5, []int64{1, 2, 4, 3}},
		{"adaptive never standing (N=100, the default)", AdaptiveLifo, 0, []int64{1, 2, 3, 4}},
	}
	for _, tc := range tests {
		for _, q := range []QueueMode{Pooled, PerServer} {
			t.Run(tc.name+"/"+q.String(), func(t *testing.T) {
				cfg := traceConfig(1, 30, trace...)
				cfg.Discipline, cfg.CodelInterval, cfg.Queues = tc.d, tc.n, q
				if q == PerServer {
					cfg.Policy = RoundRobin
				}
				if got := dispatchOrder(t, cfg); !slices.Equal(got, tc.want) {
					t.Errorf("dispatch order %v, want %v", got, tc.want)
				}
			})
		}
	}
}

// TestDisciplineChangeActsFromStepD: a change to lifo at cycle 5 decides
// that cycle's dispatch; one back to fifo at 10 decides 10's.
func TestDisciplineChangeActsFromStepD(t *testing.T) {
	cfg := traceConfig(1, 30, row(0, 5), row(1, 5), row(1, 5), row(2, 5))
	got := dispatchOrder(t, cfg, Change{Cycle: 5, Setting: SetDiscipline, Value: int64(Lifo)},
		Change{Cycle: 10, Setting: SetDiscipline, Value: int64(Fifo)})
	if want := []int64{1, 4, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("dispatch order %v, want %v", got, want)
	}
}

// TestLifoRequeueGoesToTheOldestEnd: pooled, an attempt taken back from a
// down server goes to the head of the queue (the oldest end), which lifo
// takes last. Two servers: at 0 lifo gives #2 to server 1 and #1 to
// server 2; #3 and #4 queue at 1; server 1 goes down at 3, so #2 returns
// to the head (at the tail lifo would take it next); server 2 frees at
// 10 and takes #4, then #3, then #2.
func TestLifoRequeueGoesToTheOldestEnd(t *testing.T) {
	cfg := traceConfig(2, 60, row(0, 10), row(0, 10), row(1, 10), row(1, 10))
	cfg.Discipline = Lifo
	got := dispatchOrder(t, cfg, Change{Cycle: 3, Setting: SetDown, Value: int64(MakeServerRef(0, 1))})
	if want := []int64{2, 1, 4, 3, 2}; !slices.Equal(got, want) {
		t.Errorf("dispatch order %v, want %v", got, want)
	}
}

// TestQueueHistory checks the queue's empty history against its
// definition at every cycle: standing at t iff non-empty at the end of
// each of the cycles t−n … t−1, cycles before 0 empty. A queue is filled
// and emptied in a pattern that empties and refills within a cycle too.
func TestQueueHistory(t *testing.T) {
	var q fifo
	var ends []bool // ends[c]: the queue held a request at the end of cycle c
	ops := map[int64]string{0: "+", 1: "++", 3: "-", 4: "-+", 5: "--+", 9: "-", 10: "+", 11: "+-+", 20: "--"}
	for c := int64(0); c < 30; c++ {
		for n := int64(1); n <= 6; n++ {
			want := q.n > 0
			for k := c - n; k < c; k++ {
				want = want && k >= 0 && ends[k]
			}
			if got := q.standing(c, n); got != want {
				t.Fatalf("cycle %d, n %d: standing %v, want %v (ends %v)", c, n, got, want, ends)
			}
		}
		for _, op := range ops[c] {
			if op == '+' {
				q.pushBack(packed{id: c}, c)
			} else {
				q.popBack(c)
			}
		}
		ends = append(ends, q.n > 0)
	}
}

// TestShortcutsKeepTheHistory: while fifo is in force the shortcuts run
// (windows per-server, saturated runs pooled) and must leave each queue's
// empty history as stepping does, for adaptive-lifo reads it once a
// change turns it on. RunTo against Step, at the change and at the end.
func TestShortcutsKeepTheHistory(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		for _, q := range []QueueMode{Pooled, PerServer} {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Cycles, cfg.Queues, cfg.Wave = seed, 6_000, q, false
			if q == PerServer {
				cfg.Policy = RoundRobin
			}
			cfg.Servers, cfg.MinServers, cfg.MaxServers, cfg.InitialPerServer = 4, 4, 4, 0
			cfg.Service, cfg.MeanService, cfg.Rate = Geometric, 40, Rate(int64(seed%4+1)*RateScale/40)
			cfg.CodelInterval = int64(seed%3)*40 + 1
			at := int64(2_000 + 300*seed)
			change := Change{Cycle: at, Setting: SetDiscipline, Value: int64(AdaptiveLifo)}
			stepped, jumped := mustNew(t, cfg, change), mustNew(t, cfg, change)
			for _, stop := range []int64{at - 1, at + 500, cfg.Cycles} {
				for stepped.Cycle() < stop && stepped.Step() {
				}
				jumped.RunTo(stop)
				if stepped.Hash() != jumped.Hash() || !reflect.DeepEqual(stepped.Summary(), jumped.Summary()) {
					t.Fatalf("seed %d %v: RunTo and Step differ at cycle %d", seed, q, stop)
				}
				got, want := standingAll(jumped, stop+1), standingAll(stepped, stop+1)
				for i := range got {
					if got[i] == want[i] {
						continue
					}
					t.Fatalf("seed %d %v: after RunTo(%d), entry %d (n, queue) of what is standing next cycle is %v, stepping %v", seed, q, stop, i, got[i], want[i])
				}
			}
		}
	}
}

// standingAll returns, for each n of 1 … 200, whether each queue of the
// model's first balancer would be standing at cycle t.
func standingAll(m *Model, t int64) []bool {
	b := m.bal[0]
	var out []bool
	for n := int64(1); n <= 200; n++ {
		out = append(out, b.queue.standing(t, n))
		for i := range b.sq {
			out = append(out, b.sq[i].standing(t, n))
		}
	}
	return out
}

// mustNew makes a model of cfg with changes scheduled, failing t where
// either is refused.
func mustNew(t *testing.T, cfg Config, changes ...Change) *Model {
	t.Helper()
	return newScheduled(t, cfg, changes)
}

// mustNewEvents is mustNew recording events.
func mustNewEvents(t *testing.T, cfg Config, changes ...Change) *Model {
	t.Helper()
	return newScheduled(t, cfg, changes, WithEvents())
}

// newScheduled makes a model of cfg with opts and changes scheduled.
func newScheduled(t *testing.T, cfg Config, changes []Change, opts ...Option) *Model {
	t.Helper()
	m, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Schedule(changes...); err != nil {
		t.Fatal(err)
	}
	return m
}
