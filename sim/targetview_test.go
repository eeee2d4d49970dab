package sim

import "testing"

// TestTargetViewReadsTheEvaluations: with every server busy, target 0.5
// and P = 15 from 2 servers, the view reads a metric of 1 against 0.5 and
// each evaluation's raw proposal at its cycle (4, 8, 16, then 32 beyond
// the max of 20 the pool stops at); reading it every cycle leaves the
// run's hash as it was; with the queue rule there is no view.
func TestTargetViewReadsTheEvaluations(t *testing.T) {
	cfg := busyPool(2, 20, 500_000)
	read, plain := mustNew(t, cfg), mustNew(t, cfg)
	want := map[int64]int64{15: 4, 30: 8, 45: 16, 60: 32}
	for c := int64(1); c <= 70; c++ {
		read.RunTo(c)
		plain.RunTo(c)
		v, ok := read.Balancers()[0].Target()
		if !ok || v.Metric6 != DecimalScale || v.Target6 != 500_000 {
			t.Fatalf("cycle %d: view %+v, %v: want metric 1, target 0.5", c, v, ok)
		}
		last := c - c%15
		if v.At != last || (last > 0 && v.Proposal != want[last]) || (last == 0 && v.Proposal != 0) {
			t.Fatalf("cycle %d: proposal %d made at %d, want %d at %d", c, v.Proposal, v.At, want[last], last)
		}
	}
	if read.Hash() != plain.Hash() {
		t.Error("reading the view changed the run's hash")
	}
	q := DefaultConfig()
	q.Seed = 1
	if _, ok := mustNew(t, q).Balancers()[0].Target(); ok {
		t.Error("the queue rule has a target view")
	}
}
