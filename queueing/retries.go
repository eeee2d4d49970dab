package queueing

import (
	"math"
	"strconv"

	"github.com/lbsim/lbsim/detmath"
)

// RetryEquilibrium is one self-consistent state of a [Reneging] queue whose
// clients retry each timed-out attempt, up to N times (found by
// [Reneging.RetryEquilibria]).
type RetryEquilibrium struct {
	// AttemptRate is Λ, attempts (first ones and retries) per unit time.
	AttemptRate float64
	// Attempt holds the per-attempt numbers of the queue fed Λ, for
	// attempts whose service times are independent (the queue's view).
	Attempt RenegingMetrics
	// AttemptsPerRequest is Λ/λ.
	AttemptsPerRequest float64
	// Completed is the share of requests that complete within their N + 1
	// attempts.
	Completed float64
	// Stable reports whether the state attracts: a small excess of
	// attempts produces fewer than itself, so the load returns to Λ.
	Stable bool
}

// retryScan is the number of steps of the scan for equilibria.
const retryScan = 1000

// RetryEquilibria returns the self-consistent states of the queue when each
// request (arriving at q.Lambda) retries a timed-out attempt at once, up
// to retries times, keeping its service time S on every attempt (as lbsim
// does: a request too long for the timeout fails every time). It is a
// mean-field model: attempts are taken to arrive as a Poisson stream of
// rate Λ and to meet the offered wait V of the M/M/c+D queue fed Λ
// ([Reneging.Continuous]) independently of the request's earlier attempts,
// so an attempt of a request with service s completes with probability
// P(V ≤ τ − s), fails with f(s) = 1 − that, and Λ must solve
//
//	Λ = λ·E[1 + f(S) + f(S)² + … + f(S)^N],   S exponential with mean m;
//
// the share of requests completed is 1 − E[f(S)^(N+1)]. The expectations
// are Simpson sums over s in [0, τ] (S > τ always fails) on a grid finer
// than both m and 1/|β|, up to 20,000 intervals. Λ is searched on
// [λ, (N+1)·λ] in 1,000 steps, each sign change refined by bisection; an
// equilibrium where the right side crosses Λ from above is Stable (two
// roots closer than a step would be missed).
//
// Several stable equilibria are the signature of metastability: a healthy
// state where nearly every request completes and an overloaded one, kept
// up by its own retries, where few do; a spike of arrivals can move the
// queue from the first to the second, and it stays there after the spike.
// The model says which states can persist, not how long the queue takes to
// leave one (retries really arrive τ after their attempt, not as a Poisson
// stream), and it ignores that the dispatched attempts' service times lean
// long (long requests retry more). Results are ordered by Λ. Cost: about
// 10⁴ evaluations of the Simpson sum.
//
// Errors are those of [Reneging.Continuous], and an [*InputError] for
// retries outside 0 … 10.
func (q Reneging) RetryEquilibria(retries int) ([]RetryEquilibrium, error) {
	if retries < 0 || retries > 10 {
		return nil, &InputError{Name: "retries N", Value: strconv.Itoa(retries), Allowed: "N must be a whole number from 0 to 10"}
	}
	if _, err := q.Continuous(); err != nil {
		return nil, err
	}
	lam, m, tau := q.Lambda, q.MeanService, q.Patience
	// perRequest returns E[Σ f^k] and E[f^(N+1)] when attempts arrive at rate.
	perRequest := func(rate float64) (attempts, fail float64) {
		r := q
		r.Lambda = rate
		v := r.offered()
		scale := m
		if beta := math.Abs(v.beta); beta > 0 && 1/beta < scale {
			scale = 1 / beta
		}
		n := int(min(max(math.Ceil(8*tau/scale), 64), 20_000))
		n += n % 2
		h := tau / float64(n)
		tail := detmath.ExpNeg(tau / m) // P(S > τ): every attempt fails
		sumA, sumF := float64(retries+1)*tail, tail
		for i := 0; i <= n; i++ {
			s := float64(i) * h
			w := 2.0
			switch {
			case i == 0 || i == n:
				w = 1
			case i%2 == 1:
				w = 4
			}
			f := 1 - v.cdf(tau-s, tau)
			acc, pow := 1.0, 1.0
			for range retries {
				pow *= f
				acc += pow
			}
			dens := float64(w*h/3) * detmath.ExpNeg(s/m) / m
			sumA += float64(dens * acc)
			sumF += float64(dens * float64(pow*f))
		}
		return sumA, sumF
	}
	g := func(rate float64) float64 {
		a, _ := perRequest(rate)
		return float64(lam*a) - rate
	}
	var out []RetryEquilibrium
	add := func(rate float64, stable bool) error {
		r := q
		r.Lambda = rate
		mt, err := r.Continuous()
		if err != nil {
			return err
		}
		a, fail := perRequest(rate)
		out = append(out, RetryEquilibrium{AttemptRate: rate, Attempt: mt, AttemptsPerRequest: a, Completed: 1 - fail, Stable: stable})
		return nil
	}
	if lam == 0 || retries == 0 {
		return out, add(lam, true)
	}
	hi := float64(retries+1) * lam
	step := (hi - lam) / retryScan
	x0, g0 := lam, g(lam)
	for i := 1; i <= retryScan; i++ {
		x1 := lam + float64(i)*step
		g1 := g(x1)
		if (g0 > 0 && g1 <= 0) || (g0 < 0 && g1 >= 0) || (g0 == 0 && i == 1) {
			a, b, ga := x0, x1, g0
			for range 60 {
				mid := (a + b) / 2
				if mid <= a || mid >= b {
					break
				}
				gm := g(mid)
				if (gm > 0) == (ga > 0) {
					a, ga = mid, gm
				} else {
					b = mid
				}
			}
			if err := add((a+b)/2, g0 >= 0 && g1 <= 0); err != nil {
				return nil, err
			}
		}
		x0, g0 = x1, g1
	}
	return out, nil
}
