package mmc

import (
	"math"
	"testing"

	"github.com/lbsim/lbsim/queueing"
	"github.com/lbsim/lbsim/sim"
)

// TestTimeoutMatchesRenegingTheory runs lbsim's pooled queue with a timeout
// and no retries (c = 10, geometric m = 100, λ = 0.095: ρ = 0.95, timeout
// 100) and checks the share of admitted requests that timed out while
// queued, timed out in service and completed, and the mean wait of the
// dispatched, against queueing's exact chain of the same whole-cycle rules
// (Reneging.Discrete): each within two half-widths of the 95% t-interval
// over six seeds (about four standard errors). The runs start empty and
// count from cycle 0; at 500,000 cycles the start-up is far below the
// noise. (Long runs: `lbsim run … --timeout 100 --block none --cycles
// 2000000` over ten seeds gave 0.04798 ± 0.00085 timed out queued against
// the chain's 0.04776.)
func TestTimeoutMatchesRenegingTheory(t *testing.T) {
	cycles := int64(500_000)
	if testing.Short() {
		cycles = 150_000
	}
	want, err := queueing.Reneging{Servers: 10, Lambda: 0.095, MeanService: 100, Patience: 100}.Discrete()
	if err != nil {
		t.Fatal(err)
	}
	rate, err := sim.ParseRate("0.095")
	if err != nil {
		t.Fatal(err)
	}
	var queued, inService, done, wait queueing.BatchMeans
	for seed := uint64(1); seed <= 6; seed++ {
		cfg := Params{Servers: 10, Rate: rate, MeanService: 100, Cycles: cycles, Seed: seed}.Config()
		cfg.Timeout = 100
		m, err := sim.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for m.Step() {
		}
		s := m.Summary()
		if !s.Consistent {
			t.Fatalf("seed %d: accounting does not hold: %+v", seed, s)
		}
		n := int(s.Admitted)
		for _, b := range []struct {
			bm  *queueing.BatchMeans
			sum int64
			n   int
		}{{&queued, s.TimedOutQueued, n}, {&inService, s.TimedOutInService, n}, {&done, s.Completed, n}, {&wait, s.TotalWait, int(s.Dispatched)}} {
			if err := b.bm.AddBatch(float64(b.sum), b.n); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name string
		bm   *queueing.BatchMeans
		want float64
	}{
		{"timed out queued", &queued, want.TimedOutQueued},
		{"timed out in service", &inService, want.TimedOutInService},
		{"completed", &done, want.Completed},
		{"avg_wait", &wait, want.WaitServed},
	} {
		iv, err := c.bm.Interval()
		if err != nil {
			t.Fatal(err)
		}
		half := iv.HalfWidth
		t.Logf("%s: lbsim %.5f ± %.5f, theory %.5f", c.name, iv.Mean, half, c.want)
		if math.Abs(iv.Mean-c.want) > 2*half {
			t.Errorf("%s: lbsim %.5f ± %.5f (95%%), theory %.5f", c.name, iv.Mean, half, c.want)
		}
	}
}
