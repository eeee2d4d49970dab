package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tinylib/msgp/msgp"

	"github.com/lbsim/lbsim/sim"
)

// budgetRun is a run where the retry budget's rule matters: one server,
// #1…#4 at cycle 1, #5 and #6 at cycle 10 when the server fails; a budget
// of 0.5 from the start and retries turned on at 10 by a change. From
// cycle 0 the budget grants both errors a retry; counted since the client
// side came on (the model's rule before it kept the window), #6 gave up
// (sim's TestBudgetWindowFromCycleZero).
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

// TestOldBudgetSnapshotRefused: testdata/budget-old-rule.lbsnap is
// budgetRun recorded by the model before the retry budget's window was
// kept from cycle 0 (gave_up_budget 1; the test wrote it with Record and
// Encode at that model, commit 98744bd). Every replay follows the rule of
// cycle 0, so it decodes but its replay is refused with a divergence that
// names a cycle after the start; nothing panics. The run recorded now
// gives no budget give-up, replays, and its body has the very keys of the
// old file's (the rule adds none).
func TestOldBudgetSnapshotRefused(t *testing.T) {
	cfg, changes := budgetRun(t)
	data, err := os.ReadFile(filepath.Join("testdata", "budget-old-rule.lbsnap"))
	if err != nil {
		t.Fatal(err)
	}
	old, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(old.Changes, changes) || old.Config.RetryBudget != cfg.RetryBudget || old.Summary.GaveUpBudget != 1 {
		t.Fatalf("the file is not budgetRun under the old rule: changes %v, budget %v, gave_up_budget %d",
			old.Changes, old.Config.RetryBudget, old.Summary.GaveUpBudget)
	}
	_, err = Replay(old, nil)
	var div *DivergenceError
	if !errors.As(err, &div) || div.Cycle <= 10 || !strings.Contains(err.Error(), "cycle "+strconv.FormatInt(div.Cycle, 10)) {
		t.Errorf("replaying the old recording gave %v, want a divergence naming a cycle after 10", err)
	}
	now, err := Record(cfg, changes)
	if err != nil {
		t.Fatal(err)
	}
	if now.Summary.GaveUpBudget != 0 {
		t.Errorf("recorded now: gave_up_budget %d, want 0", now.Summary.GaveUpBudget)
	}
	enc, err := Encode(now)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Replay(back, nil); err != nil {
		t.Errorf("the run recorded now: %v", err)
	}
	if got, want := bodyKeys(t, enc), bodyKeys(t, data); !slices.Equal(got, want) {
		t.Errorf("body keys %v, the old file's %v", got, want)
	}
}

// bodyKeys returns the keys of an encoded snapshot's body, in order.
func bodyKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var env envelope
	if _, err := env.UnmarshalMsg(data); err != nil {
		t.Fatal(err)
	}
	n, rest, err := msgp.ReadMapHeaderBytes(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, n)
	for i := range keys {
		if keys[i], rest, err = msgp.ReadStringBytes(rest); err != nil {
			t.Fatal(err)
		}
		if rest, err = msgp.Skip(rest); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
