package sim

import "testing"

// evalEvery samples every cycle 1 … period·n with busy of active busy and
// evaluates at each multiple of the period, moving the pool to desired;
// it returns the pool after each evaluation.
func evalEvery(a *targetScaler, r scaleRule, s0 int64, n int, busyShare func(t, s int64) (num, den int64)) []int64 {
	s := s0
	var pools []int64
	a.sample(busyShare(0, s)) // cycle 0's step e
	for t := int64(1); t <= r.period*int64(n); t++ {
		if t%r.period == 0 {
			_, s = a.decide(t, s, r)
			pools = append(pools, s)
		}
		a.sample(busyShare(t, s))
	}
	return pools
}

// TestTargetDoublesFromTwo: every server always busy (utilisation 1),
// target 0.5, P = 15, from 2 servers: 4 at cycle 15, 8 at 30, 16 at 45, …
// up to max.
func TestTargetDoublesFromTwo(t *testing.T) {
	var a targetScaler
	r := scaleRule{period: 15, target6: 500_000, tol6: 100_000, window: 300, min: 1, max: 100}
	got := evalEvery(&a, r, 2, 8, func(_, s int64) (int64, int64) { return s, s })
	want := []int64{4, 8, 16, 32, 64, 100, 100, 100}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pools after each evaluation %v, want %v", got, want)
		}
	}
}

// TestTargetRateLimit: growth is at most max(4, S) a period.
func TestTargetRateLimit(t *testing.T) {
	for _, c := range []struct{ s, target6, want int64 }{
		{2, 100_000, 6},   // proposal 20, limit 2 + 4
		{10, 100_000, 20}, // proposal 100, limit 10 + 10
		{3, 250_000, 7},   // proposal 12, limit 3 + 4
		{10, 800_000, 13}, // proposal ⌈12.5⌉ = 13 within the limit
		{50, 10_000, 100}, // proposal 5000, limit 100
		{50, 10_000, 100}, // and the clamp at max 100 (S + S = 100 too)
	} {
		var a targetScaler
		r := scaleRule{period: 10, target6: c.target6, tol6: 100_000, window: 0, min: 1, max: 1000}
		for range 10 {
			a.sample(1, 1)
		}
		if _, d := a.decide(10, c.s, r); d != c.want {
			t.Errorf("S %d, utilisation 1, target %v: desired %d, want %d", c.s, Decimal(c.target6), d, c.want)
		}
	}
}

// TestTargetTolerance: with m within the tolerance of X (inclusive,
// exact) the proposal is S; just outside, it moves.
func TestTargetTolerance(t *testing.T) {
	for _, c := range []struct {
		busy, active   int64 // every cycle's utilisation
		target6, tol6  int64
		s, want, wantP int64
	}{
		{7, 10, 700_000, 100_000, 10, 10, 10},   // m = X
		{77, 100, 700_000, 100_000, 10, 10, 10}, // m/X = 1.1: inclusive
		{63, 100, 700_000, 100_000, 10, 10, 10}, // m/X = 0.9
		{78, 100, 700_000, 100_000, 10, 12, 12}, // m/X = 1.114…: ⌈11.14⌉
		{62, 100, 700_000, 100_000, 10, 9, 9},   // m/X = 0.886: ⌈8.86⌉, window 0
		{71, 100, 700_000, 0, 10, 11, 11},       // no tolerance: ⌈10.14⌉
	} {
		var a targetScaler
		r := scaleRule{period: 15, target6: c.target6, tol6: c.tol6, window: 0, min: 1, max: 100}
		for range 15 {
			a.sample(c.busy, c.active)
		}
		p, d := a.decide(15, c.s, r)
		if p != c.wantP || d != c.want {
			t.Errorf("utilisation %d/%d, target %v, tolerance %v, S %d: proposal %d desired %d, want %d and %d",
				c.busy, c.active, Decimal(c.target6), Decimal(c.tol6), c.s, p, d, c.wantP, c.want)
		}
	}
}

// TestTargetWindowHoldsScaleDown: after the load stops, the pool does not
// shrink before W cycles after the last evaluation that proposed at
// least the current size; then it drops to the highest proposal in the
// window.
func TestTargetWindowHoldsScaleDown(t *testing.T) {
	var a targetScaler
	const w = 300
	r := scaleRule{period: 15, target6: 500_000, tol6: 100_000, window: w, min: 1, max: 100}
	busy := func(t, s int64) (int64, int64) {
		if t < 60 {
			return s, s // busy until cycle 59
		}
		return 0, s
	}
	s := int64(2)
	a.sample(busy(0, s))
	lastHigh := int64(0)
	for c := int64(1); c <= 1200; c++ {
		if c%r.period == 0 {
			p, d := a.decide(c, s, r)
			if p >= s {
				lastHigh = c
			}
			if d < s && c < lastHigh+w {
				t.Fatalf("cycle %d: down to %d from %d, %d cycles after the last proposal of at least S (cycle %d)", c, d, s, c-lastHigh, lastHigh)
			}
			s = d
		}
		a.sample(busy(c, s))
	}
	// Busy through 59: 4, 8, 16 at 15, 30, 45; at 60 m = 1, S 32. From 75 the
	// proposals are 0, and 60 + 300 = 360 is the first evaluation allowed
	// to shrink, to the min.
	if lastHigh != 60 || s != 1 {
		t.Fatalf("last high proposal at %d, pool %d at the end; want 60 and 1", lastHigh, s)
	}
	var b targetScaler
	pools := evalEvery(&b, r, 2, 30, busy)
	if pools[22] != 32 || pools[23] != 1 { // cycles 345 and 360
		t.Fatalf("pools %v: want 32 through cycle 345, 1 from 360", pools)
	}
}

// TestTargetSampleFixedPoint: v = ⌊10⁶·num ÷ den⌋, 0 with no active
// server, and m₆ = ⌊Σv ÷ P⌋.
func TestTargetSampleFixedPoint(t *testing.T) {
	var a targetScaler
	a.sample(1, 3) // 333333
	a.sample(2, 3) // 666666
	a.sample(5, 0) // no active server: 0
	if m := a.mean(3); m != 333333 {
		t.Fatalf("m₆ %d, want ⌊999999 ÷ 3⌋ = 333333", m)
	}
	if m := a.mean(3); m != 0 {
		t.Fatalf("m₆ after the period %d, want 0 (a new period)", m)
	}
	a.sample(1<<40, 1) // a queue far beyond any pool, per active server
	if m := a.mean(1); m != (1<<40)*DecimalScale {
		t.Fatalf("m₆ %d, want 2⁴⁰·10⁶", m)
	}
}

// TestTargetWindowWidens: a window widened mid-run covers the evaluations
// made while it was narrow. At 15 the pool of 2, all busy at target 0.5,
// proposes 4; at 30, idle with W = 0, it proposes 0 and shrinks to the
// min; at 45 S is 4 again (servers restored) and W is 300: the proposal
// of 15 lies in 45 − 300 + 1 … 45, so the pool stays at 4.
func TestTargetWindowWidens(t *testing.T) {
	var a targetScaler
	r := scaleRule{period: 15, target6: 500_000, tol6: 100_000, window: 0, min: 1, max: 100}
	for range 15 {
		a.sample(2, 2)
	}
	if p, d := a.decide(15, 2, r); p != 4 || d != 4 {
		t.Fatalf("cycle 15: proposal %d, desired %d; want 4 and 4", p, d)
	}
	for range 15 {
		a.sample(0, 4)
	}
	if p, d := a.decide(30, 4, r); p != 0 || d != 1 {
		t.Fatalf("cycle 30 (W = 0): proposal %d, desired %d; want 0 and 1", p, d)
	}
	r.window = 300
	for range 15 {
		a.sample(0, 4)
	}
	if p, d := a.decide(45, 4, r); p != 0 || d != 4 {
		t.Fatalf("cycle 45 (W = 300): proposal %d, desired %d; want 0 and 4 (the proposal of cycle 15 is in the window)", p, d)
	}
}
