package queueing

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// pmfTimes is the distribution with P(T = i + 1) = pmf[i].
func pmfTimes(pmf []float64) Times {
	return Times{Max: len(pmf), Survive: func(k int) float64 {
		s := 0.0
		for i := max(k, 0); i < len(pmf); i++ { // P(T > k) = Σ P(T = j), j > k
			s += pmf[i]
		}
		return min(s, 1)
	}}
}

// geometricTimes is lbsim's geometric shape of mean m: P(T > k) = (1 − 1/m)^k.
func geometricTimes(m float64) Times {
	q := 1 - 1/m
	return Times{Max: 1_000_000, Survive: func(k int) float64 {
		if k < 1 {
			return 1
		}
		return math.Pow(q, float64(k))
	}}
}

// outcome is one weighted case of an enumeration.
type outcome struct {
	p              float64
	time           int // the request's (or part's) completion
	attempts, work int
}

// enumerate calls f with every tuple of n times drawn from pmf and its
// probability.
func enumerate(pmf []float64, n int, f func(p float64, ts []int)) {
	ts := make([]int, n)
	var rec func(i int, p float64)
	rec = func(i int, p float64) {
		if i == n {
			f(p, ts)
			return
		}
		for v, q := range pmf {
			ts[i] = v + 1
			rec(i+1, p*q)
		}
	}
	rec(0, 1)
}

// checkAgainst compares d with the enumerated outcomes: P(time > t) at
// every t, and the nearest-rank quantiles.
func checkAgainst(t *testing.T, d Times, outs []outcome) {
	t.Helper()
	for k := 0; k <= d.Max+1; k++ {
		want := 0.0
		for _, o := range outs {
			if o.time > k {
				want += o.p
			}
		}
		if got := d.Survive(k); math.Abs(got-want) > 1e-12 {
			t.Errorf("P(> %d) = %v, enumerated %v", k, got, want)
		}
	}
	slices.SortFunc(outs, func(a, b outcome) int { return a.time - b.time })
	for _, p := range []float64{0.1, 0.5, 0.9, 0.95, 0.99} {
		cum, want := 0.0, 0
		for _, o := range outs {
			cum += o.p
			if cum >= p-1e-12 {
				want = o.time
				break
			}
		}
		if got, err := d.Quantile(p); err != nil || got != want {
			t.Errorf("p%v = %d (%v), enumerated %d", 100*p, got, err, want)
		}
	}
}

var smallPMFs = map[string][]float64{
	"1…4 rising":   {0.1, 0.2, 0.3, 0.4},
	"bimodal 1, 5": {0.9, 0, 0, 0, 0.1},
	"uniform 1…3":  {1.0 / 3, 1.0 / 3, 1.0 / 3},
	"constant 2":   {0, 1},
}

// TestFanOutEnumerated: the slowest of K parts, against every K-tuple of
// small distributions.
func TestFanOutEnumerated(t *testing.T) {
	for name, pmf := range smallPMFs {
		for k := 1; k <= 4; k++ {
			var outs []outcome
			enumerate(pmf, k, func(p float64, ts []int) { outs = append(outs, outcome{p: p, time: slices.Max(ts)}) })
			d, err := FanOut(pmfTimes(pmf), k)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(name, func(t *testing.T) { checkAgainst(t, d, outs) })
		}
	}
}

// TestHedgedEnumerated: a part hedged H times after D, against every tuple
// of the first attempt's and the hedges' times, sending hedge j at j·D
// only if no attempt has completed by then (one completing at j·D
// counts); the attempts and the server-cycles (each attempt served until
// the part completes) are enumerated too.
func TestHedgedEnumerated(t *testing.T) {
	for name, pmf := range smallPMFs {
		for _, hd := range [][2]int{{1, 1}, {1, 2}, {2, 1}, {2, 2}, {3, 1}, {1, 3}, {4, 2}} {
			after, hedges := hd[0], hd[1]
			var outs []outcome
			enumerate(pmf, hedges+1, func(p float64, ts []int) {
				c, sent := ts[0], 1
				for j := 1; j <= hedges; j++ {
					if c > j*after {
						c = min(c, j*after+ts[j])
						sent++
					}
				}
				work := 0
				for j := range sent {
					work += c - j*after
				}
				outs = append(outs, outcome{p: p, time: c, attempts: sent, work: work})
			})
			d := pmfTimes(pmf)
			h, err := Hedged(d, after, hedges)
			if err != nil {
				t.Fatal(err)
			}
			cost, err := Hedging(d, after, hedges)
			if err != nil {
				t.Fatal(err)
			}
			var attempts, work float64
			for _, o := range outs {
				attempts += o.p * float64(o.attempts)
				work += o.p * float64(o.work)
			}
			t.Run(name, func(t *testing.T) {
				checkAgainst(t, h, outs)
				if math.Abs(cost.Attempts-attempts) > 1e-12 || math.Abs(cost.Work-work) > 1e-12 {
					t.Errorf("D = %d, H = %d: attempts %v, work %v; enumerated %v, %v", after, hedges, cost.Attempts, cost.Work, attempts, work)
				}
				if want := work/d.Mean() - 1; math.Abs(cost.ExtraLoad-want) > 1e-12 {
					t.Errorf("extra load %v, want %v", cost.ExtraLoad, want)
				}
			})
		}
	}
}

// TestFanOutGeometricMean: the mean of the slowest of K geometric times,
// summed from FanOut's survival function, equals the inclusion–exclusion
// form E = Σ_{j=1…K} C(K, j)·(−1)^(j+1) ÷ (1 − q^j), q = 1 − 1/m; for large
// m it approaches H_K·m, the exponential limit.
func TestFanOutGeometricMean(t *testing.T) {
	for _, tt := range []struct {
		k int
		m float64
	}{{1, 10}, {2, 10}, {5, 100}, {20, 100}, {30, 7}} {
		d, err := FanOut(geometricTimes(tt.m), tt.k)
		if err != nil {
			t.Fatal(err)
		}
		q := 1 - 1/tt.m
		want, binom := 0.0, 1.0
		for j := 1; j <= tt.k; j++ {
			binom = binom * float64(tt.k-j+1) / float64(j)
			want += binom * math.Pow(-1, float64(j+1)) / (1 - math.Pow(q, float64(j)))
		}
		got := d.Mean()
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("K = %d, m = %v: mean %v, inclusion–exclusion %v", tt.k, tt.m, got, want)
		}
		if lim := Harmonic(tt.k) * tt.m; tt.m >= 100 && math.Abs(got-lim) > 0.01*lim {
			t.Errorf("K = %d, m = %v: mean %v, far from H_K·m = %v", tt.k, tt.m, got, lim)
		}
	}
}

// TestFanOutQuantiles: a request's p-quantile is a part's
// p^(1/K)-quantile, by FanOut's survival and by FanOutTail alike, for
// shapes with and without ties; and the published shares p^K.
func TestFanOutQuantiles(t *testing.T) {
	uniform := pmfTimes(slices.Repeat([]float64{0.01}, 100))
	for _, d := range []Times{uniform, geometricTimes(100), geometricTimes(3), pmfTimes(smallPMFs["bimodal 1, 5"])} {
		for _, k := range []int{1, 2, 5, 20, 64, 100} {
			for _, p := range []float64{0.5, 0.9, 0.99, 0.999} {
				r, err := FanOut(d, k)
				if err != nil {
					t.Fatal(err)
				}
				a, err1 := r.Quantile(p)
				b, err2 := d.QuantileTail(FanOutTail(k, p))
				c, err3 := d.Quantile(math.Pow(p, 1/float64(k)))
				if err := errors.Join(err1, err2, err3); err != nil || a != b || a != c {
					t.Errorf("K = %d, p = %v: %d, %d, %d (%v)", k, p, a, b, c, err)
				}
			}
		}
	}
	if q, _ := uniform.Quantile(0.99); q != 99 {
		t.Errorf("uniform 1…100: p99 %d, want 99", q)
	}
	if q, _ := uniform.Quantile(0.5); q != 50 {
		t.Errorf("uniform 1…100: p50 %d, want 50", q)
	}
	// Geometric of mean 100: a part's p99 is ⌈ln 0.01 ÷ ln 0.99⌉ = 459;
	// 100 parts: the p99.99 (tail 1.005e-4), ⌈ln 1.005e-4 ÷ ln 0.99⌉ = 916.
	g := geometricTimes(100)
	if q, _ := g.Quantile(0.99); q != 459 {
		t.Errorf("geometric 100: p99 %d, want 459", q)
	}
	r, _ := FanOut(g, 100)
	if q, _ := r.Quantile(0.99); q != 916 {
		t.Errorf("geometric 100, K = 100: p99 %d, want 916", q)
	}
	for _, tt := range []struct {
		k    int
		want float64
	}{{1, 0.99}, {64, 0.5256}, {100, 0.3660}} {
		if got := AllWithin(tt.k, 0.99); math.Abs(got-tt.want) > 5e-5 {
			t.Errorf("0.99^%d = %v, want %v", tt.k, got, tt.want)
		}
	}
}

// TestHedgingAtP95: one hedge after a part's p95 costs about 5% more
// attempts (exactly 1 − F(D)) and cuts the part's p99.
func TestHedgingAtP95(t *testing.T) {
	g := geometricTimes(100)
	d95, _ := g.Quantile(0.95)
	c, err := Hedging(g, d95, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + g.Survive(d95); math.Abs(c.Attempts-want) > 1e-12 || c.Attempts < 1.04 || c.Attempts > 1.05 {
		t.Errorf("attempts %v, want 1 + (1 − F(%d)) = %v, about 1.05", c.Attempts, d95, want)
	}
	h, _ := Hedged(g, d95, 1)
	p99, _ := g.Quantile(0.99)
	h99, _ := h.Quantile(0.99)
	if h99 >= p99 {
		t.Errorf("hedged p99 %d, not below the part's %d", h99, p99)
	}
	// Memoryless: a geometric part's hedged time is D + the smaller of
	// two fresh times, whose tail is (1 − 1/m)^(2s).
	if want := d95 + int(math.Ceil(math.Log(0.01/g.Survive(d95))/(2*math.Log(0.99)))); h99 != want {
		t.Errorf("hedged p99 %d, want %d", h99, want)
	}
	if c.ExtraLoad < 0 || c.ExtraLoad > c.Attempts-1 {
		t.Errorf("extra load %v outside [0, extra attempts %v]", c.ExtraLoad, c.Attempts-1)
	}
}

// forkJoinLindley simulates a fork-join queue of k exponential servers of
// mean m fed Poisson arrivals at ρ/m, by Lindley's recursion on each
// server's wait, and returns the mean response (the slowest part) over n
// arrivals after n/10 discarded.
func forkJoinLindley(k int, rho, m float64, n int, seed uint64) float64 {
	r := rand.New(rand.NewPCG(seed, 47))
	waits := make([]float64, k)
	service := make([]float64, k)
	sum, counted := 0.0, 0
	for i := range n + n/10 {
		resp := 0.0
		for j := range k {
			service[j] = r.ExpFloat64() * m
			resp = max(resp, waits[j]+service[j])
		}
		if i >= n/10 {
			sum += resp
			counted++
		}
		gap := r.ExpFloat64() * m / rho
		for j := range k {
			waits[j] = max(0, waits[j]+service[j]-gap)
		}
	}
	return sum / float64(counted)
}

// TestForkJoin: at ρ = 0 the mean of the slowest of K exponentials
// (H_K·m); Flatto–Hahn's value by hand; and both formulas beside a
// Lindley simulation of the fork-join queue (exact for K = 2, Nelson and
// Tantawi's approximation within 5% for K ≤ 32).
func TestForkJoin(t *testing.T) {
	for _, k := range []int{2, 3, 10, 32} {
		r, exactly, err := ForkJoin(k, 0, 10)
		if err != nil || math.Abs(r-10*Harmonic(k)) > 1e-9 || exactly != (k == 2) {
			t.Errorf("K = %d at ρ = 0: %v (exact %v, %v), want H_K·m = %v", k, r, exactly, err, 10*Harmonic(k))
		}
	}
	if r, _, _ := ForkJoin(2, 0.5, 1); math.Abs(r-2.875) > 1e-12 {
		t.Errorf("R₂(ρ = 0.5, m = 1) = %v, want 11.5/8/0.5 = 2.875", r)
	}
	if h := Harmonic(4); math.Abs(h-25.0/12) > 1e-15 {
		t.Errorf("H₄ = %v, want 25/12", h)
	}
	for _, tt := range []struct {
		k   int
		rho float64
		tol float64
	}{{2, 0.3, 0.02}, {2, 0.7, 0.03}, {4, 0.5, 0.05}, {8, 0.6, 0.05}, {16, 0.5, 0.05}, {32, 0.4, 0.05}} {
		want, _, err := ForkJoin(tt.k, tt.rho, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := forkJoinLindley(tt.k, tt.rho, 1, 400_000, uint64(tt.k))
		t.Logf("K = %d, ρ = %v: formula %.4f, simulated %.4f (%+.1f%%)", tt.k, tt.rho, want, got, 100*(got-want)/want)
		if math.Abs(got-want) > tt.tol*want {
			t.Errorf("K = %d, ρ = %v: formula %.4f, simulated %.4f (%+.1f%%)", tt.k, tt.rho, want, got, 100*(got-want)/want)
		}
	}
}

// TestTailInputs: every input outside its range is an InputError (or, for
// ρ ≥ 1, an UnstableError) naming it.
func TestTailInputs(t *testing.T) {
	g := geometricTimes(10)
	errs := map[string]error{}
	_, errs["quantile 1"] = g.Quantile(1)
	_, errs["quantile 0"] = g.Quantile(0)
	_, errs["quantile NaN"] = g.Quantile(math.NaN())
	_, errs["tail 1"] = g.QuantileTail(1)
	_, errs["no survival"] = Times{Max: 3}.Quantile(0.5)
	_, errs["fan-out 0"] = FanOut(g, 0)
	_, errs["fan-out huge"] = FanOut(g, MaxParts+1)
	_, errs["hedge after 0"] = Hedged(g, 0, 1)
	_, errs["hedges 5"] = Hedging(g, 3, 5)
	_, _, errs["fork-join 1"] = ForkJoin(1, 0.5, 1)
	_, _, errs["fork-join 33"] = ForkJoin(33, 0.5, 1)
	_, _, errs["fork-join ρ < 0"] = ForkJoin(2, -0.1, 1)
	_, _, errs["fork-join m 0"] = ForkJoin(2, 0.1, 0)
	for name, err := range errs {
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want an InputError", name, err)
		}
	}
	if _, _, err := ForkJoin(2, 1, 1); !errors.Is(err, ErrUnstable) {
		t.Errorf("ρ = 1: %v, want ErrUnstable", err)
	}
}
