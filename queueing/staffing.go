package queueing

import (
	"math"

	"github.com/lbsim/lbsim/detmath"
)

// MinServersForWait returns the fewest servers c for which the M/M/c mean
// wait before service, Wq = C(c, a)·m/(c − a) with a = λ·m, is at most w
// cycles: the Erlang C answer to "how many servers keep the average wait
// under w?". Wq falls as c grows, so c is found by doubling from ⌊a⌋ + 1
// and bisection: O(log c) Erlang C evaluations of O(c) each.
//
// It returns an [*InputError] (matching [ErrInvalid]) when λ < 0, m ≤ 0,
// w < 0, any of them is NaN or ±Inf, or the answer would exceed
// [MaxServers].
func MinServersForWait(lambda, m, w float64) (int, error) {
	if !finite(w) || w < 0 {
		return 0, &InputError{Name: "wait objective w", Value: exact(w), Allowed: "w must be a finite number ≥ 0 (cycles)"}
	}
	return minServers(lambda, m, func(q MMC) (bool, error) {
		mt, err := q.Metrics()
		return err == nil && mt.Wq <= w, nil
	})
}

// MinServersForWaitQuantile returns the fewest servers c for which at most
// a share 1 − p of arrivals to an M/M/c queue wait longer than t cycles,
// that is P(Wq > t) = C(c, a)·e^(−(c − a)·t/m) ≤ 1 − p: the Erlang C
// answer for a wait quantile (p = 0.99 for the 99th percentile). The tail
// falls as c grows; the search is as in [MinServersForWait]. The
// exponential is detmath's, so the answer is the same on every platform.
//
// It returns an [*InputError] when p is not in (0, 1), t < 0, an input is
// NaN or ±Inf, or the answer would exceed [MaxServers].
func MinServersForWaitQuantile(lambda, m, p, t float64) (int, error) {
	if !finite(p) || p <= 0 || p >= 1 {
		return 0, &InputError{Name: "quantile p", Value: exact(p), Allowed: "p must be between 0 and 1, both excluded"}
	}
	if !finite(t) || t < 0 {
		return 0, &InputError{Name: "wait objective t", Value: exact(t), Allowed: "t must be a finite number ≥ 0 (cycles)"}
	}
	return minServers(lambda, m, func(q MMC) (bool, error) {
		a := q.Lambda * q.MeanService
		c := float64(q.Servers)
		tail := float64(erlangC(q.Servers, a) * detmath.ExpNeg(float64((c-a)*t)/q.MeanService))
		return tail <= 1-p, nil
	})
}

// minServers finds the fewest stable c (c > a) for which ok holds,
// assuming it holds for every larger c once it holds for one.
func minServers(lambda, m float64, ok func(MMC) (bool, error)) (int, error) {
	a, err := MMC{Servers: MaxServers, Lambda: lambda, MeanService: m}.load()
	if _, unstable := err.(*UnstableError); unstable {
		return 0, tooMany(lambda * m)
	}
	if err != nil {
		return 0, err
	}
	lo := int(math.Floor(a)) // fails: unstable (c ≤ a)
	holds := func(c int) (bool, error) { return ok(MMC{Servers: c, Lambda: lambda, MeanService: m}) }
	step := 1
	hi := lo + step
	for {
		h, err := holds(hi)
		if err != nil {
			return 0, err
		}
		if h {
			break
		}
		lo = hi
		if hi == MaxServers {
			return 0, tooMany(a)
		}
		step *= 2
		hi = min(lo+step, MaxServers)
	}
	for hi-lo > 1 { // holds(hi), not holds(lo)
		mid := lo + (hi-lo)/2
		h, err := holds(mid)
		if err != nil {
			return 0, err
		}
		if h {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

func tooMany(a float64) error {
	return &InputError{Name: "offered load a = λ·m", Value: short(a), Allowed: "the answer must be at most MaxServers servers; use a smaller load"}
}

// HalfinWhittBeta returns the β > 0 of square-root staffing (Halfin and
// Whitt) for a chance of waiting pWait: the root of
//
//	P(wait) = [1 + β·Φ(β)/φ(β)]⁻¹
//
// where Φ and φ are the standard normal distribution and density. In the
// heavy-traffic limit c = a + β√a servers give that chance of waiting; fed
// Erlang C's P(wait) at its answer, β says how much spare capacity, in
// units of √a, the answer holds. The right side falls from 1 at β = 0
// towards 0, so β is found by bisection (to 1e-12).
//
// It returns an [*InputError] when pWait is not in (0, 1).
func HalfinWhittBeta(pWait float64) (float64, error) {
	if !finite(pWait) || pWait <= 0 || pWait >= 1 {
		return 0, &InputError{Name: "P(wait)", Value: exact(pWait), Allowed: "must be between 0 and 1, both excluded"}
	}
	target := 1/pWait - 1 // β·Φ(β)/φ(β), which rises from 0 with β
	if target > 1e300 {
		return 0, &InputError{Name: "P(wait)", Value: exact(pWait), Allowed: "too small for a finite β (at least 1e-300)"}
	}
	g := func(b float64) float64 {
		phi := detmath.ExpNeg(float64(b*b)/2) / math.Sqrt(2*math.Pi)
		cdf := 0.5 * math.Erfc(-b/math.Sqrt2)
		return float64(b*cdf) / phi
	}
	lo, hi := 0.0, 1.0
	for g(hi) < target {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-12 {
		mid := (lo + hi) / 2
		if g(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}

// SquareRootStaffing returns a + β·√a, the square-root staffing estimate
// of the servers needed for offered load a erlangs at spare capacity β.
func SquareRootStaffing(a, beta float64) float64 {
	return a + float64(beta*math.Sqrt(a))
}
