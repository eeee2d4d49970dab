package queueing

import "fmt"

// Supermarket returns the mean time in system of the supermarket model
// (Mitzenmacher): c → ∞ servers, each with its own FIFO queue, Poisson
// arrivals at ρ·c/m per unit time, exponential service with mean m, and
// every arrival joining the shortest of d ≥ 2 queues drawn at random:
//
//	T_d(ρ) = m · Σ_{i≥1} ρ^((d^i − d)/(d − 1))
//
// For d = 2 that is 2.61·m at ρ = 0.9 and 5.43·m at ρ = 0.99. It is a
// limit for large c; with tens of servers the measured mean lies a little
// above it. The sum is taken until its terms vanish; every power is a
// product of ρ with itself (no math.Pow), so the value is the same on
// every platform. Cost: O(log log(1/ε)) terms, each O(log exponent).
func Supermarket(d int, rho, m float64) (float64, error) {
	switch {
	case d < 2 || d > 100:
		return 0, &InputError{Name: "choices d", Value: fmt.Sprint(d), Allowed: "d must be a whole number from 2 to 100 (d = 1 is random routing: c × M/M/1)"}
	case !finite(rho) || rho < 0 || rho >= 1:
		return 0, &InputError{Name: "load ρ", Value: exact(rho), Allowed: "ρ must be from 0 to below 1"}
	case !finite(m) || m <= 0:
		return 0, &InputError{Name: "mean service time m", Value: exact(m), Allowed: "m must be a finite number > 0"}
	}
	sum := 0.0
	di := uint64(d) // d^i
	for i := 1; i < 64; i++ {
		k := (di - uint64(d)) / uint64(d-1)
		term := powInt(rho, k)
		sum += term
		if term < 1e-17*sum || di > 1<<40 {
			break
		}
		di *= uint64(d)
	}
	return m * sum, nil
}

// powInt returns x^k by repeated squaring.
func powInt(x float64, k uint64) float64 {
	r := 1.0
	for k > 0 {
		if k&1 != 0 {
			r *= x
		}
		x *= x
		k >>= 1
	}
	return r
}
