package queueing

import "strconv"

// MMC describes an M/M/c queue: Poisson arrivals at a constant rate, one
// first-come-first-served queue, and a fixed number of identical servers with
// exponentially distributed service times (geometric, in lbsim's whole-cycle
// clock). The zero value is not valid: set all three fields.
//
// To start from a service rate μ instead of a mean, set MeanService to 1/μ.
type MMC struct {
	Servers     int     // c, the fixed number of servers: 1 … MaxServers
	Lambda      float64 // λ, mean arrivals per unit time (per cycle in lbsim): finite, ≥ 0
	MeanService float64 // m = 1/μ, mean service time in the same unit (cycles): finite, > 0
}

// Metrics holds the steady-state numbers of a queueing model, or the same
// numbers measured in a run. Times are in the model's time unit (cycles in
// lbsim); lengths are in requests.
type Metrics struct {
	OfferedLoad float64 // a = λ·m, in erlangs: the average number of busy servers
	Rho         float64 // ρ = a/c, the load per server, in [0, 1)
	PWait       float64 // P(wait): the chance an arrival has to queue before service
	Wq          float64 // mean time an arrival spends queued, before its service starts
	Lq          float64 // mean number of requests queued (not in service): λ·Wq
	W           float64 // mean time from arrival to the end of service: Wq + m
	L           float64 // mean number of requests queued or in service: λ·W
	// Utilisation is the fraction of time a server is busy. In theory it
	// equals Rho; it is kept separately so that measured Metrics can report
	// the busy fraction actually seen beside the configured load.
	Utilisation float64
}

// Metrics returns the steady-state M/M/c numbers (Erlang C): P(wait) =
// C(c, a), Wq = C/(c·μ − λ), Lq = λ·Wq, W = Wq + m, L = λ·W, Utilisation = ρ.
// Cost: O(c).
//
// It returns an [*InputError] (matching [ErrInvalid]) when a field is outside
// its documented range or a result overflows float64, and an
// [*UnstableError] (matching [ErrUnstable]) when ρ = λ·m/c ≥ 1.
func (q MMC) Metrics() (Metrics, error) {
	a, err := q.load()
	if err != nil {
		return Metrics{}, err
	}
	c := float64(q.Servers)
	pWait := erlangC(q.Servers, a)
	// C/(c·μ − λ) = C·m/(c − a): the same value without forming μ = 1/m.
	return q.finish(a, pWait, pWait*q.MeanService/(c-a))
}

// Split returns the numbers for the same traffic spread evenly over c
// separate M/M/1 queues, one per server, each fed λ/c: every queue has the
// same ρ as the pooled system, P(wait) = ρ and Wq = ρ/(μ − λ/c). Lq and L
// count all c queues together, so they compare directly with [MMC.Metrics].
// Its Wq is never below the pooled Wq, and is much higher at high load: this
// is the "one queue for c servers" lesson. Cost: O(1).
//
// Errors are as for [MMC.Metrics].
func (q MMC) Split() (Metrics, error) {
	a, err := q.load()
	if err != nil {
		return Metrics{}, err
	}
	c := float64(q.Servers)
	rho := a / c
	// ρ/(μ − λ/c) = ρ·m/(1 − ρ) = a·m/(c − a), again without rounding ρ first.
	return q.finish(a, rho, a*q.MeanService/(c-a))
}

// load validates q and returns the offered load a = λ·m, which is < c.
func (q MMC) load() (float64, error) {
	if err := checkServers(q.Servers); err != nil {
		return 0, err
	}
	if !finite(q.Lambda) || q.Lambda < 0 {
		return 0, &InputError{
			Name:    "arrival rate λ",
			Value:   exact(q.Lambda),
			Allowed: "λ must be a finite number ≥ 0 (mean arrivals per cycle)",
		}
	}
	if !finite(q.MeanService) || q.MeanService <= 0 {
		return 0, &InputError{
			Name:    "mean service time m",
			Value:   exact(q.MeanService),
			Allowed: "m must be a finite number > 0 (cycles)",
		}
	}
	a := q.Lambda * q.MeanService
	if !finite(a) {
		return 0, &InputError{
			Name:    "offered load a = λ·m",
			Value:   exact(q.Lambda) + "·" + exact(q.MeanService),
			Allowed: "the product must be finite; with c ≤ " + strconv.Itoa(MaxServers) + " servers, a must be below c anyway",
		}
	}
	if a >= float64(q.Servers) {
		return 0, &UnstableError{Servers: q.Servers, Load: a}
	}
	return a, nil
}

// finish derives the remaining metrics from a, P(wait) and Wq, and refuses
// results that overflowed.
func (q MMC) finish(a, pWait, wq float64) (Metrics, error) {
	rho := a / float64(q.Servers)
	w := wq + q.MeanService
	m := Metrics{
		OfferedLoad: a,
		Rho:         rho,
		PWait:       pWait,
		Wq:          wq,
		Lq:          q.Lambda * wq,
		W:           w,
		L:           q.Lambda * w,
		Utilisation: rho,
	}
	for _, x := range [...]float64{m.Wq, m.Lq, m.W, m.L} {
		if !finite(x) {
			return Metrics{}, &InputError{
				Name:    "(λ, m)",
				Value:   "(" + exact(q.Lambda) + ", " + exact(q.MeanService) + ")",
				Allowed: "these are so extreme that a waiting time or queue length overflows float64; use smaller numbers or a coarser time unit",
			}
		}
	}
	return m, nil
}
