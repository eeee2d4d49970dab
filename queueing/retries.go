package queueing

import "strconv"

// RetryEquilibrium is one self-consistent state of a [Reneging] queue whose
// clients retry each timed-out attempt, up to N times (found by
// [Reneging.RetryEquilibria]).
type RetryEquilibrium struct {
	// AttemptRate is Λ, attempts (first ones and retries) per unit time.
	AttemptRate float64
	// Attempt holds the per-attempt numbers of the queue fed Λ.
	Attempt RenegingMetrics
	// Completed is the share of requests that complete within their N + 1
	// attempts: 1 − f^(N+1), f = 1 − Attempt.Completed.
	Completed float64
	// Stable reports whether the state attracts: a small excess of
	// attempts produces fewer than itself, so the load returns to Λ.
	Stable bool
}

// retryScan is the number of steps of the scan for equilibria.
const retryScan = 4000

// RetryEquilibria returns the self-consistent states of the queue when each
// request (arriving at q.Lambda) retries a timed-out attempt at once, up
// to retries times. It is a mean-field model: attempts are taken to arrive
// as a Poisson stream of rate Λ, each completing with the probability s(Λ)
// of [Reneging.Continuous] independently of its request's earlier ones, so
// Λ must solve
//
//	Λ = λ·(1 + f + f² + … + f^N),   f = 1 − s(Λ).
//
// Λ is searched on [λ, (N+1)·λ] in 4,000 steps, each sign change refined by
// bisection; an equilibrium where the right side crosses Λ from above is
// Stable. Several stable equilibria are the signature of metastability: a
// healthy state where nearly every attempt completes and an overloaded one,
// kept up by its own retries, where nearly none does; a spike of arrivals
// can move the queue from the first to the second, and it stays there when
// the spike ends. The model says which states can persist, not how long the
// queue takes to leave one: retries really arrive τ after their attempt,
// not as a Poisson stream. Results are ordered by Λ. Cost: O(c) per step.
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
	lam := q.Lambda
	at := func(rate float64) (RenegingMetrics, float64, float64, error) {
		r := q
		r.Lambda = rate
		m, err := r.Continuous()
		if err != nil {
			return m, 0, 0, err
		}
		f := 1 - m.Completed
		sum, pow := 1.0, 1.0
		for range retries {
			pow *= f
			sum += pow
		}
		return m, float64(lam*sum) - rate, float64(pow * f), nil
	}
	var out []RetryEquilibrium
	add := func(rate float64, stable bool) error {
		m, _, fail, err := at(rate)
		if err != nil {
			return err
		}
		out = append(out, RetryEquilibrium{AttemptRate: rate, Attempt: m, Completed: 1 - fail, Stable: stable})
		return nil
	}
	if lam == 0 || retries == 0 {
		return out, add(lam, true)
	}
	hi := float64(retries+1) * lam
	step := (hi - lam) / retryScan
	x0 := lam
	_, g0, _, err := at(x0)
	if err != nil {
		return nil, err
	}
	if g0 == 0 {
		if err := add(x0, true); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= retryScan; i++ {
		x1 := lam + float64(i)*step
		_, g1, _, err := at(x1)
		if err != nil {
			return nil, err
		}
		if (g0 > 0 && g1 <= 0) || (g0 < 0 && g1 >= 0) {
			a, b, ga := x0, x1, g0
			for range 200 {
				mid := (a + b) / 2
				if mid <= a || mid >= b {
					break
				}
				_, gm, _, err := at(mid)
				if err != nil {
					return nil, err
				}
				if (gm > 0) == (ga > 0) {
					a, ga = mid, gm
				} else {
					b = mid
				}
			}
			if err := add((a+b)/2, g0 > 0); err != nil {
				return nil, err
			}
		}
		x0, g0 = x1, g1
	}
	return out, nil
}
