package queueing

// MGC describes an M/G/c queue: Poisson arrivals at a constant rate and c
// identical servers whose service times have any distribution, given by
// its first two moments. The zero value is not valid: set every field.
type MGC struct {
	Servers int     // c: 1 … MaxServers
	Lambda  float64 // λ, mean arrivals per unit time: finite, ≥ 0
	Mean    float64 // E[S], mean service time: finite, > 0
	Second  float64 // E[S²], the second moment: finite, ≥ Mean²
}

// SCV returns the squared coefficient of variation of the service time,
// cs² = Var[S] ÷ E[S]².
func (q MGC) SCV() float64 {
	return max(q.Second-q.Mean*q.Mean, 0) / (q.Mean * q.Mean)
}

// check validates the moments and returns the M/M/c with the same c, λ and
// mean, which validates the rest.
func (q MGC) check() (MMC, error) {
	mm := MMC{Servers: q.Servers, Lambda: q.Lambda, MeanService: q.Mean}
	if _, err := mm.load(); err != nil {
		return mm, err
	}
	if !finite(q.Second) || q.Second < q.Mean*q.Mean*(1-1e-12) {
		return mm, &InputError{
			Name:    "second moment E[S²]",
			Value:   exact(q.Second),
			Allowed: "must be finite and at least E[S]² = " + exact(q.Mean*q.Mean),
		}
	}
	return mm, nil
}

// Split returns the numbers for the traffic spread at random over c
// separate M/G/1 queues, each fed λ/c (c × M/G/1), by the
// Pollaczek–Khinchine formula: Wq = λ₁·E[S²] ÷ (2(1 − ρ)) with λ₁ = λ/c and
// ρ = λ₁·E[S]; P(wait) = ρ. It is exact for Poisson arrivals. Lq and L count
// all c queues together. Cost: O(1).
//
// Errors are as for [MMC.Metrics], and an [*InputError] for a second moment
// below E[S]².
func (q MGC) Split() (Metrics, error) {
	mm, err := q.check()
	if err != nil {
		return Metrics{}, err
	}
	a := q.Lambda * q.Mean
	rho := a / float64(q.Servers)
	l1 := q.Lambda / float64(q.Servers)
	return mm.finish(a, rho, l1*q.Second/(2*(1-rho)))
}

// AllenCunneen returns the Allen–Cunneen approximation of the pooled M/G/c
// queue: Erlang C's Wq at the same mean, times (1 + cs²)/2 (arrivals are
// Poisson, so their cs² is 1). It is exact for c = 1 (Pollaczek–Khinchine)
// and for exponential service, and an approximation otherwise, usually
// within a few percent at high load and rougher at low load. P(wait) is
// Erlang C's. Cost: O(c).
//
// Errors are as for [MGC.Split].
func (q MGC) AllenCunneen() (Metrics, error) {
	mm, err := q.check()
	if err != nil {
		return Metrics{}, err
	}
	x, err := mm.Metrics()
	if err != nil {
		return Metrics{}, err
	}
	return mm.finish(x.OfferedLoad, x.PWait, x.Wq*(1+q.SCV())/2)
}
