package snapshot

import (
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestPricedRunKeepsItsCost: a snapshot of a run with a server-cost
// stores the price, and the summary read back and the one replayed both
// carry cost = server-cycles × price (P and S their own).
func TestPricedRunKeepsItsCost(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Switch, cfg.ServerCost = 3, 400, true, 2_500_000
	_, data := mustRecord(t, cfg, nil)
	back, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if back.Config.ServerCost != cfg.ServerCost {
		t.Fatalf("server-cost read back as %v, want %v", back.Config.ServerCost, cfg.ServerCost)
	}
	replayed, err := Verify(back)
	if err != nil {
		t.Fatal(err)
	}
	for name, sum := range map[string]sim.Summary{"stored": back.Summary, "replayed": replayed} {
		for _, x := range []*sim.Summary{&sum, sum.P, sum.S} {
			if want := float64(x.ServerCycles) * 2.5; x.ServerCycles == 0 || x.Cost != want {
				t.Errorf("%s: server-cycles %d at 2.5: cost %v, want %v", name, x.ServerCycles, x.Cost, want)
			}
		}
	}
}
