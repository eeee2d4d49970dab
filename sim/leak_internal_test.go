package sim

import "testing"

// TestRetryBudgetNoLeak: a request that gives up because the retry budget
// refuses its retry leaves no note behind. Before, the note of its last
// retry's arrival (requeuedAt, read when a request is dispatched) stayed
// for good: the run (40 servers autoscaled, rate 2, timeout 400,
// 2 retries, budget 0.2) held 43,795 of them at cycle 250,000 and 332,636
// at 2,000,000, and grew from 36 MB to 86 MB between 2 and 6 million
// cycles. The notes are now at most the requests queued, at every cycle
// (checkBalancer checks it in every property test too).
func TestRetryBudgetNoLeak(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Servers, cfg.MaxServers, cfg.Rate, cfg.Cycles, cfg.Seed = 40, DefaultMaxServers(40), 2*RateScale, 250_000, 1
	cfg.Timeout, cfg.Retries, cfg.RetryBudget = 400, 2, DecimalScale/5
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := m.bal[0]
	most := 0
	for c := int64(1000); c <= cfg.Cycles; c += 1000 {
		m.RunTo(c)
		n := len(b.requeuedAt)
		if n > b.queueLen() {
			t.Fatalf("cycle %d: %d notes of requeued or retried requests, %d queued", c, n, b.queueLen())
		}
		most = max(most, n)
	}
	if tot := b.Totals(); tot.GaveUpBudget < 10_000 {
		t.Fatalf("only %d requests gave up for the budget: the run does not test the leak", tot.GaveUpBudget)
	}
	if most > 2000 {
		t.Errorf("up to %d notes of requeued or retried requests held", most)
	}
}
