package queueing

// ErlangB returns the Erlang B blocking probability B(c, a): the chance that
// an arrival finds all c servers busy in a loss system (no queue) with
// offered load a erlangs. Any a ≥ 0 is allowed, including a ≥ c.
//
// It uses only the recurrence B(0) = 1, B(k) = a·B(k−1) / (k + a·B(k−1)),
// which stays in [0, 1] at every step, so it is stable for every c up to
// [MaxServers]. Cost: O(c) arithmetic operations, no allocation.
//
// It returns an [*InputError] (matching [ErrInvalid]) when c < 1,
// c > MaxServers, a < 0 or a is NaN or ±Inf.
func ErlangB(c int, a float64) (float64, error) {
	if err := checkServers(c); err != nil {
		return 0, err
	}
	if err := checkLoad(a); err != nil {
		return 0, err
	}
	return erlangB(c, a), nil
}

// erlangB runs the recurrence for valid inputs.
func erlangB(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		ab := float64(a * b) // rounded here: no fused multiply-add (see the package doc)
		b = ab / (float64(k) + ab)
		if b == 0 {
			// Once B underflows to 0 it stays 0 (and a = 0 gives 0 at once).
			break
		}
	}
	return b
}

// ErlangC returns the Erlang C probability C(c, a): the chance that an
// arrival to an M/M/c queue with offered load a erlangs has to wait, that is
// finds all c servers busy. It is computed from Erlang B as
// C = B / (1 − ρ(1 − B)) with ρ = a/c, evaluated as c·B / (c − a + a·B) so
// that ρ is never rounded. Cost: O(c), no allocation.
//
// It returns an [*InputError] (matching [ErrInvalid]) when c < 1,
// c > MaxServers, a < 0 or a is NaN or ±Inf. When a ≥ c (ρ ≥ 1) every
// arrival eventually waits and the queue grows without bound: it returns 1
// together with an [*UnstableError] (matching [ErrUnstable]).
func ErlangC(c int, a float64) (float64, error) {
	if err := checkServers(c); err != nil {
		return 0, err
	}
	if err := checkLoad(a); err != nil {
		return 0, err
	}
	if a >= float64(c) {
		return 1, &UnstableError{Servers: c, Load: a}
	}
	return erlangC(c, a), nil
}

// erlangC computes C for valid inputs with a < c.
func erlangC(c int, a float64) float64 {
	b := erlangB(c, a)
	fc := float64(c)
	// c − a > 0 and a·B ≥ 0, so the denominator is positive.
	return fc * b / (fc - a + float64(a*b))
}
