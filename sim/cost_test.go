package sim

import "testing"

// TestCostIsServerCyclesTimesPrice: cost = server-cycles × C₆ ÷ 10⁶,
// exact (rounded once), 0 without a price; in a switch P and S carry
// their own and the top level the total's.
func TestCostIsServerCyclesTimesPrice(t *testing.T) {
	for _, c := range []struct {
		cycles int64
		price  Decimal
		want   float64
	}{
		{0, 50_000, 0},
		{47924, 0, 0},
		{47924, 50_000, 2396.2},
		{3, 1, 0.000003},
		{1 << 40, MaxServerCost, float64(1<<40) * 1e6}, // beyond int64 before the division
		{999_999, 333_333, 333332.666667},              // 999999 × 333333 = 333332666667 millionths
	} {
		if got := costOf(c.cycles, c.price); got != c.want {
			t.Errorf("costOf(%d, %v) = %v, want %v", c.cycles, c.price, got, c.want)
		}
	}
	cfg := DefaultConfig()
	cfg.Seed, cfg.Cycles, cfg.Switch, cfg.ServerCost = 1, 500, true, 1_250_000
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.RunTo(cfg.Cycles)
	s := m.Summary()
	if s.P == nil || s.S == nil {
		t.Fatal("a switch's summary lacks P or S")
	}
	for _, x := range []*Summary{&s, s.P, s.S} {
		if want := float64(x.ServerCycles) * 1.25; x.ServerCycles == 0 || x.Cost != want {
			t.Errorf("server-cycles %d at 1.25: cost %v, want %v", x.ServerCycles, x.Cost, want)
		}
	}
}
