package snapshot

import (
	"errors"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// budgetRun is a run where the retry budget's rule matters: one server,
// #1…#4 at cycle 1, #5 and #6 at cycle 10 when the server fails; a budget
// of 0.5 from the start and retries turned on at 10 by a change. From
// cycle 0 the budget grants both errors a retry; counted since the client
// side came on, #6 gives up (sim's TestBudgetWindowFromCycleZero).
func budgetRun(t *testing.T) (sim.Config, []sim.Change) {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Servers, cfg.Blocked = 1, 30, 1, nil
	cfg.MinServers, cfg.MaxServers = 1, 1
	for i := range 4 {
		cfg.Trace = append(cfg.Trace, sim.TraceRow{Cycle: 1, Src: uint32(i + 1), Time: 1})
	}
	cfg.Trace = append(cfg.Trace, sim.TraceRow{Cycle: 10, Src: 5, Time: 5}, sim.TraceRow{Cycle: 10, Src: 6, Time: 5})
	cfg.FailTime, cfg.RetryBudget = 1, sim.DecimalScale/2
	var changes []sim.Change
	for _, c := range [][2]string{{"fail", "1"}, {"retries", "1"}} {
		ch, err := sim.NewChange(10, c[0], c[1])
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, ch)
	}
	return cfg, changes
}

// TestOldBudgetSnapshotReplays: a snapshot recorded under the older rule
// of the retry budget (no BudgetFromStart, as every file written before
// it) replays under that rule and reproduces, through Encode and Decode;
// one recorded now carries the mark, writes it, and replays under the
// rule of cycle 0. The mark is what decides: set on the old recording,
// its replay diverges. A run where the rule does not matter (its client
// side on from the start) is not marked and writes no mark.
func TestOldBudgetSnapshotReplays(t *testing.T) {
	cfg, changes := budgetRun(t)
	m, err := sim.New(cfg, sim.WithBudgetSinceClientSide())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Schedule(changes...); err != nil {
		t.Fatal(err)
	}
	r := NewRecorder(cfg)
	for !m.Done() {
		m.Step()
		r.Observe(m)
	}
	old, err := r.Snapshot(m)
	if err != nil {
		t.Fatal(err)
	}
	now, err := Record(cfg, changes)
	if err != nil {
		t.Fatal(err)
	}
	if old.BudgetFromStart || !now.BudgetFromStart || old.Summary.GaveUpBudget != 1 || now.Summary.GaveUpBudget != 0 {
		t.Fatalf("marks %v %v, gave_up_budget %d %d: want false true, 1 0", old.BudgetFromStart, now.BudgetFromStart, old.Summary.GaveUpBudget, now.Summary.GaveUpBudget)
	}
	for _, s := range []Snapshot{old, now} {
		data, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := wroteMark(t, data); got != s.BudgetFromStart {
			t.Errorf("mark %v: the file holds it: %v", s.BudgetFromStart, got)
		}
		back, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if back.BudgetFromStart != s.BudgetFromStart {
			t.Errorf("mark %v decoded as %v", s.BudgetFromStart, back.BudgetFromStart)
		}
		if _, err := Replay(back, nil); err != nil {
			t.Errorf("mark %v: %v", s.BudgetFromStart, err)
		}
	}
	marked := old
	marked.BudgetFromStart = true
	var div *DivergenceError
	if _, err := Replay(marked, nil); !errors.As(err, &div) {
		t.Errorf("the old recording replayed under the rule of cycle 0 gave %v, want a divergence", err)
	}
	cfg.Timeout = 50 // the client side on from the start: one rule
	plain, err := Record(cfg, changes)
	if err != nil {
		t.Fatal(err)
	}
	if plain.BudgetFromStart {
		t.Error("a run where the rule does not matter is marked")
	}
	plain.BudgetFromStart = true // even so, nothing is written
	data, err := Encode(plain)
	if err != nil {
		t.Fatal(err)
	}
	if wroteMark(t, data) {
		t.Error("a run where the rule does not matter writes the mark")
	}
}

// wroteMark reports whether an encoded snapshot's body holds the mark.
func wroteMark(t *testing.T, data []byte) bool {
	t.Helper()
	var env envelope
	if _, err := env.UnmarshalMsg(data); err != nil {
		t.Fatal(err)
	}
	var b body
	if _, err := b.UnmarshalMsg(env.Payload); err != nil {
		t.Fatal(err)
	}
	return b.Budget0
}
