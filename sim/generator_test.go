package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// drawCounts asks arrivals for cycles 1..cycles as the model does, skipping
// the cycles nextDue says are empty, and returns the histogram of the
// per-cycle counts and their sum.
func drawCounts(cfg *Config, seed uint64, cycles int64) (hist []int64, sum int64) {
	var a arrivals
	a.invalidate()
	r := rand.NewPCG(seed, streamConst)
	hist = make([]int64, 1, 64)
	for t := int64(1); t <= cycles; t++ {
		if next := a.nextDue(t); next > t {
			hist[0] += min(next, cycles+1) - t
			t = next - 1
			continue
		}
		n := a.count(cfg, t, r)
		for n >= len(hist) {
			hist = append(hist, 0)
		}
		hist[n]++
		sum += int64(n)
	}
	return hist, sum
}

// TestArrivalCountsArePoisson compares the per-cycle counts with the
// Poisson distribution, for means on both sides of skipBelow and above
// poissonPart: a chi-square over bins expecting at least 20 cycles must
// stay within 6 standard deviations of its degrees of freedom, and the
// mean within 5 standard errors. The seeds are fixed, so the test is
// deterministic; a wrong distribution fails it by far.
func TestArrivalCountsArePoisson(t *testing.T) {
	tests := []struct {
		rate   Rate
		cycles int64
	}{
		{20_000, 2_000_000},   // 0.02: long skips, often to the block's end
		{450_000, 400_000},    // the default rate
		{1_700_000, 200_000},  // several per cycle
		{2_999_999, 200_000},  // just below skipBelow
		{3_000_000, 200_000},  // inversion
		{40_000_000, 100_000}, // inversion, a wide distribution
		{700_000_000, 20_000}, // two parts
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(tt.rate), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Rate, cfg.Wave = tt.rate, false
			hist, sum := drawCounts(&cfg, uint64(i+1), tt.cycles)
			mean := tt.rate.PerCycle()
			n := float64(tt.cycles)
			if got, se := float64(sum)/n, math.Sqrt(mean/n); math.Abs(got-mean) > 5*se {
				t.Errorf("mean count %.5f, want %.5f ± %.5f", got, mean, 5*se)
			}
			// Bins from the mode outwards until expectations fall below 20;
			// the two tails are bins of their own.
			pmf := func(k int) float64 {
				lg, _ := math.Lgamma(float64(k + 1))
				return math.Exp(float64(k)*math.Log(mean) - mean - lg)
			}
			mode := int(mean)
			lo, hi := mode, mode
			for lo > 0 && pmf(lo-1)*n >= 20 {
				lo--
			}
			for pmf(hi+1)*n >= 20 {
				hi++
			}
			var chi2 float64
			var below, above int64
			var pBelow, pAbove float64 = 0, 1
			for k := 0; k < lo && k < len(hist); k++ {
				below += hist[k]
				pBelow += pmf(k)
			}
			for k := hi + 1; k < len(hist); k++ {
				above += hist[k]
			}
			for k := lo; k <= hi; k++ {
				e := pmf(k) * n
				var got int64
				if k < len(hist) {
					got = hist[k]
				}
				d := float64(got) - e
				chi2 += d * d / e
				pAbove -= pmf(k)
			}
			pAbove -= pBelow
			df := float64(hi - lo)
			for _, tail := range []struct {
				got int64
				p   float64
			}{{below, pBelow}, {above, pAbove}} {
				if e := tail.p * n; e >= 20 {
					d := float64(tail.got) - e
					chi2 += d * d / e
					df++
				} else if float64(tail.got) > e+10*math.Sqrt(e)+10 {
					t.Errorf("tail holds %d cycles, expected %.1f", tail.got, e)
				}
			}
			if limit := df + 6*math.Sqrt(2*df); chi2 > limit {
				t.Errorf("chi-square %.1f over %d bins, want ≤ %.1f; histogram %v", chi2, int(df)+1, limit, hist)
			}
		})
	}
}

// TestArrivalsFollowTheWave checks that the total arrivals under the wave
// match the sum of the blocks' means.
func TestArrivalsFollowTheWave(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Wave, cfg.WaveAmplitude, cfg.WavePeriod = true, 90, 3_000
	const cycles = 600_000
	_, sum := drawCounts(&cfg, 7, cycles)
	var want float64
	for b := int64(0); b*WaveStep <= cycles; b++ {
		from, to := max(1, b*WaveStep), min(cycles, b*WaveStep+WaveStep-1)
		want += float64(to-from+1) * meanAt(&cfg, from)
	}
	if d := math.Abs(float64(sum) - want); d > 5*math.Sqrt(want) {
		t.Errorf("%d arrivals under the wave, want %.0f ± %.0f", sum, want, 5*math.Sqrt(want))
	}
}

// BenchmarkArrivals draws the default run's arrival counts alone (the wave
// included, no requests made) and reports ns per arrival.
func BenchmarkArrivals(b *testing.B) {
	production(b)
	cfg := defaultSeed1()
	var arrivals int64
	for b.Loop() {
		_, sum := drawCounts(&cfg, 1, cfg.Cycles)
		arrivals += sum
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(arrivals), "ns/arrival")
}

// TestInvertMatchesPoisson checks that the table search gives exactly the
// sequential inversion's count, at random uniforms and at the table's own
// values (where a search off by one would show).
func TestInvertMatchesPoisson(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, mean := range []float64{3, 3.7, 41.5, 160, 499.99, 1234.5} {
		var a arrivals
		a.setMean(mean)
		us := []float64{0, 0x1p-53, 1 - 0x1p-53}
		for range 2000 {
			us = append(us, r.Float64())
		}
		for _, f := range a.cdf {
			us = append(us, f, math.Nextafter(f, 0), math.Nextafter(f, 1))
		}
		for _, u := range us {
			if u < 0 || u >= 1 {
				continue
			}
			if got, want := a.invert(u), a.poisson(u); got != want {
				t.Fatalf("mean %v: invert(%v) = %d, poisson = %d", mean, u, got, want)
			}
		}
	}
}

// TestRouteDrawIsIntN: the routing draw gives rand.Rand.IntN's values and
// leaves the generator where IntN leaves it, for sizes with and without
// rejections (powers of two, small, near 2^63) and random seeds.
func TestRouteDrawIsIntN(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		m := &Model{rpcg: rand.NewPCG(seed, routeStream)}
		ref := rand.New(rand.NewPCG(seed, routeStream))
		for i := range rapid.IntRange(1, 50).Draw(t, "draws") {
			n := rapid.OneOf(rapid.IntRange(1, 20), rapid.SampledFrom([]int{64, 1 << 20, 3 << 61, 1<<63 - 1})).Draw(t, "n")
			if got, want := m.routeDraw(n), ref.IntN(n); got != want {
				t.Fatalf("draw %d of [0, %d): %d, IntN gives %d", i, n, got, want)
			}
		}
	})
}
