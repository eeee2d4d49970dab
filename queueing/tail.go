package queueing

import (
	"fmt"
	"math"
	"strconv"
)

// Times is a distribution of whole cycles 1 … Max, given by its survival
// function: Survive(k) = P(T > k), 1 for k < 1, 0 from Max on, never
// increasing. lbsim's sim.ServiceSurvival gives one for every service
// shape the simulator draws.
type Times struct {
	Survive func(k int) float64
	Max     int
}

// check validates d.
func (d Times) check() error {
	if d.Survive == nil || d.Max < 1 {
		return &InputError{Name: "distribution of times", Value: "max " + strconv.Itoa(d.Max),
			Allowed: "a survival function and a largest time of at least 1 cycle"}
	}
	return nil
}

// CDF returns P(T ≤ k).
func (d Times) CDF(k int) float64 { return 1 - d.Survive(k) }

// tailSlack is the relative slack a quantile allows its tail, so that a
// share computed in floating point (1 − 0.99) still finds the time whose
// share is exactly it (99 of uniform 1 … 100).
const tailSlack = 1e-9

// QuantileTail returns the smallest k ≥ 1 with P(T > k) ≤ q: the
// (1 − q)-quantile, for a q too small to write as 1 − p. Cost: O(log Max)
// calls of Survive.
func (d Times) QuantileTail(q float64) (int, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	if !(q >= 0 && q < 1) {
		return 0, &InputError{Name: "tail share", Value: exact(q), Allowed: "from 0 to below 1"}
	}
	lo, hi := 1, d.Max // Survive(hi) = 0 ≤ q
	for lo < hi {
		mid := lo + (hi-lo)/2
		if d.Survive(mid) <= q*(1+tailSlack) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, nil
}

// Quantile returns the p-quantile as the simulator's percentiles take it
// (the nearest rank): the smallest k with P(T ≤ k) ≥ p, for 0 < p < 1.
func (d Times) Quantile(p float64) (int, error) {
	if !(p > 0 && p < 1) {
		return 0, &InputError{Name: "quantile p", Value: exact(p), Allowed: "above 0 and below 1"}
	}
	return d.QuantileTail(1 - p)
}

// Mean returns E[T] = Σ P(T > k) over k ≥ 0. Cost: O(Max) calls of
// Survive (fewer when the tail vanishes first).
func (d Times) Mean() float64 { return d.tailSum(0) }

// tailSum returns Σ P(T > k) over k ≥ from: E[(T − from)⁺].
func (d Times) tailSum(from int) float64 {
	sum := 0.0
	for k := max(from, 0); k < d.Max; k++ {
		s := d.Survive(k)
		if s < 1e-300 {
			break
		}
		sum += s
	}
	return sum
}

// MaxParts is the largest fan-out FanOut accepts.
const MaxParts = 1 << 20

// FanOut returns the distribution of a request that waits for the slowest
// of k independent parts, each of time d (no queueing: every part starts
// at once on a server of its own): P(R ≤ t) = F(t)^k. Its p-quantile is a
// part's p^(1/k)-quantile (FanOutTail says which tail that is).
func FanOut(d Times, k int) (Times, error) {
	if err := d.check(); err != nil {
		return Times{}, err
	}
	if k < 1 || k > MaxParts {
		return Times{}, &InputError{Name: "fan-out K", Value: strconv.Itoa(k), Allowed: "a whole number from 1 to " + strconv.Itoa(MaxParts)}
	}
	kf := float64(k)
	return Times{Max: d.Max, Survive: func(t int) float64 {
		s := d.Survive(t)
		if s >= 1 {
			return 1
		}
		return -math.Expm1(kf * math.Log1p(-s)) // 1 − (1 − s)^k, exact for small s
	}}, nil
}

// FanOutTail returns the tail of a part's time whose quantile is the
// p-quantile of the slowest of k parts: 1 − p^(1/k) (for p = 0.99 and k =
// 100, 1.005 × 10⁻⁴: a request's p99 is a part's p99.99).
func FanOutTail(k int, p float64) float64 { return -math.Expm1(math.Log(p) / float64(k)) }

// AllWithin returns p^k: the share of requests of k parts whose parts all
// finish within a part's p-quantile, for a continuous distribution (0.99⁶⁴
// ≈ 53%, 0.99¹⁰⁰ ≈ 37%). A discrete one gives F(q)^k for its quantile q,
// which is at least that (FanOut's CDF at q).
func AllWithin(k int, p float64) float64 { return math.Exp(float64(k) * math.Log(p)) }

// MaxHedges is the most hedges a part may get (lbsim's --hedge-max).
const MaxHedges = 4

// Hedged returns the distribution of a part's time when, at no queueing,
// a fresh attempt of independent time d is sent at D, 2D, … H·D after the
// first unless the part has completed by then, and the first attempt to
// finish completes it: P(part > t) = Π_{j=0…H} P(T > t − j·D) (one hedge:
// (1 − F(t))·(1 − F(t − D)) for t > D). A part that completes at D gets no
// hedge.
func Hedged(d Times, after, hedges int) (Times, error) {
	if err := d.check(); err != nil {
		return Times{}, err
	}
	if err := checkHedge(after, hedges); err != nil {
		return Times{}, err
	}
	return Times{Max: d.Max, Survive: func(t int) float64 {
		s := d.Survive(t)
		for j := 1; j <= hedges && t-j*after >= 1 && s > 0; j++ {
			s *= d.Survive(t - j*after)
		}
		return s
	}}, nil
}

// checkHedge validates a hedge's delay and count.
func checkHedge(after, hedges int) error {
	switch {
	case after < 1:
		return &InputError{Name: "hedge delay D", Value: strconv.Itoa(after), Allowed: "a whole number of cycles ≥ 1"}
	case hedges < 1 || hedges > MaxHedges:
		return &InputError{Name: "hedges H", Value: strconv.Itoa(hedges), Allowed: fmt.Sprintf("a whole number from 1 to %d", MaxHedges)}
	}
	return nil
}

// HedgeCost is what hedging costs a part at no queueing.
type HedgeCost struct {
	// Attempts is the mean attempts a part sends, its first included:
	// 1 + Σ_{h=1…H} P(part > h·D) (one hedge: 1 + (1 − F(D))).
	Attempts float64
	// Work is the mean server-cycles a part takes, its cancelled attempts'
	// included: each attempt sent at j·D is served until the part
	// completes, Σ_j E[(part − j·D)⁺].
	Work float64
	// ExtraLoad is Work ÷ E[T] − 1: the share of load hedging adds.
	ExtraLoad float64
}

// Hedging returns the cost of Hedged(d, after, hedges). Cost: O((H + 1) ·
// Max) calls of d.Survive.
func Hedging(d Times, after, hedges int) (HedgeCost, error) {
	h, err := Hedged(d, after, hedges)
	if err != nil {
		return HedgeCost{}, err
	}
	c := HedgeCost{Attempts: 1}
	for j := 0; j <= hedges; j++ {
		if j > 0 {
			c.Attempts += h.Survive(j * after)
		}
		c.Work += h.tailSum(j * after)
	}
	c.ExtraLoad = c.Work/d.Mean() - 1
	return c, nil
}

// MaxForkJoin is the largest number of servers ForkJoin's approximation
// covers (Nelson and Tantawi fitted it for 2 … 32).
const MaxForkJoin = 32

// Harmonic returns H_k = 1 + 1/2 + … + 1/k.
func Harmonic(k int) float64 {
	h := 0.0
	for i := k; i >= 1; i-- { // smallest terms first
		h += 1 / float64(i)
	}
	return h
}

// ForkJoin returns the mean response time of a fork-join queue: k servers,
// each with its own FIFO queue and exponential service of mean m, every
// Poisson arrival split into one part for each server, complete when its
// last part is; ρ = λ·m is each server's load. For k = 2 it is exact,
// R₂ = (12 − ρ)/8 · m/(1 − ρ) (Flatto and Hahn 1984); for 3 ≤ k ≤ 32 the
// approximation R_k = [H_k/H₂ + (1 − H_k/H₂)·4ρ/11]·R₂ (Nelson and Tantawi
// 1988), which is exact at ρ = 0 (H_k·m, the mean of the largest of k
// exponential times). Exact reports which it is.
func ForkJoin(k int, rho, m float64) (r float64, exactly bool, err error) {
	switch {
	case k < 2 || k > MaxForkJoin:
		return 0, false, &InputError{Name: "servers K", Value: strconv.Itoa(k), Allowed: fmt.Sprintf("a whole number from 2 to %d (Nelson and Tantawi's range)", MaxForkJoin)}
	case !finite(rho) || rho < 0:
		return 0, false, &InputError{Name: "load ρ", Value: exact(rho), Allowed: "ρ must be from 0 to below 1"}
	case rho >= 1:
		return 0, false, &UnstableError{Servers: 1, Load: rho}
	case !finite(m) || m <= 0:
		return 0, false, &InputError{Name: "mean service time m", Value: exact(m), Allowed: "m must be a finite number > 0"}
	}
	r2 := (12 - rho) / 8 * m / (1 - rho)
	if k == 2 {
		return r2, true, nil
	}
	h := Harmonic(k) / 1.5
	return (h + (1-h)*4*rho/11) * r2, false, nil
}
