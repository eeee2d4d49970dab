package queueing

import (
	"strconv"

	"github.com/lbsim/lbsim/detmath"
)

// Reneging describes a pooled queue whose clients give up: Poisson arrivals
// at rate λ, one first-come-first-served queue in front of c identical
// servers with exponential (geometric, in whole cycles) service of mean m,
// and a deterministic patience τ counted from each arrival. A client still
// queued τ after its arrival leaves the queue unserved. A client in service
// at that moment is abandoned too, but its server finishes the work: the
// server stays busy for the whole service time, so abandonment in service
// takes no capacity back. This is lbsim's `--timeout τ` without retries.
//
// The servers therefore see exactly an M/M/c+D queue (Erlang A with a
// deterministic patience instead of an exponential one): only the queued
// part of the wait can make a client leave, and every client whose wait is
// below τ occupies a server for a full service time. Abandonment in service
// only decides which of the served clients count as completed.
//
// The zero value is not valid: set every field.
type Reneging struct {
	Servers     int     // c: 1 … MaxServers ([Reneging.Discrete] allows fewer, see there)
	Lambda      float64 // λ, mean arrivals per unit time (per cycle): finite, ≥ 0
	MeanService float64 // m, mean service time: finite, > 0 (≥ 1 for Discrete)
	Patience    float64 // τ, from arrival: finite, ≥ 0 (a whole number ≥ 1 for Discrete)
}

// RenegingMetrics holds the steady-state numbers of a [Reneging] queue, as
// an arrival sees them (with λ = 0: their limits as λ → 0). The three
// shares add up to 1; waits are from arrival to the start of service; a
// mean over nobody (no completion at all, as with τ = 0) is 0.
type RenegingMetrics struct {
	// TimedOutQueued is the share of arrivals that leave the queue unserved
	// (lbsim's timed_out_queued ÷ admitted).
	TimedOutQueued float64
	// TimedOutInService is the share of arrivals that start service but do
	// not finish by τ after their arrival (timed_out_in_service ÷ admitted).
	TimedOutInService float64
	// Completed is the share that finishes by τ after arrival.
	Completed float64
	// PWait is the share of arrivals that cannot start at once (offered a
	// wait above 0), those that leave included.
	PWait float64
	// WaitServed is the mean wait of the arrivals that start service, those
	// later abandoned in service included (lbsim's avg_wait).
	WaitServed float64
	// WaitCompleted is the mean wait of the completed arrivals only.
	WaitCompleted float64
	// ResponseCompleted is the mean time from arrival to the end of service
	// of the completed arrivals (lbsim's avg_response).
	ResponseCompleted float64
	// Busy is the mean number of busy servers: λ·(1 − TimedOutQueued)·m.
	Busy float64
}

// Continuous returns the M/M/c+D numbers in continuous time (exponential
// service of rate μ = 1/m, patience exactly τ). With β = cμ − λ, the
// offered wait V (what a client with infinite patience would wait) has an
// atom at 0 of mass E = P(fewer than c busy) and on (0, ∞) the density
//
//	v(x) = λ·B·E·e^(−βx) for 0 < x < τ,   v(x) = v(τ)·e^(−cμ(x−τ)) for x > τ,
//
// where B = B(c − 1, a) is Erlang B with c − 1 servers (π_{c−1} = B·E) and
// E follows from the total mass 1 (level crossing, as in Baccelli and
// Hébuterne's M/M/c+G analysis). By PASTA an arrival leaves iff V ≥ τ:
//
//	TimedOutQueued = ρ·B·E·e^(−βτ)
//	E = 1 / (1 + λ·B·τ·f(βτ) + ρ·B·e^(−βτ)),   f(x) = (1 − e^(−x))/x
//
// and one that starts after a wait x < τ is abandoned in service with
// probability e^(−(τ−x)/m). The integrals of these over v are closed forms
// in f, g(x) = (1 − e^(−x)(1 + x))/x² and h = f − g, always taken at
// arguments ≥ 0 (a factor e^(−βτ) is divided out when βτ < 0, as when
// ρ > 1: stable here, since those who would wait τ leave); small arguments
// use their power series, so ρ = 1 needs no special case. τ = 0 gives Erlang B's loss system
// (TimedOutQueued = B(c, a)); τ → ∞ gives Erlang C. Exponentials are
// detmath's, so results are the same on every platform. Cost: O(c).
//
// It returns an [*InputError] (matching [ErrInvalid]) when a field is
// outside its range or a result overflows float64.
func (q Reneging) Continuous() (RenegingMetrics, error) {
	if err := q.check(false); err != nil {
		return RenegingMetrics{}, err
	}
	m, tau, lam := q.MeanService, q.Patience, q.Lambda
	v := q.offered()
	b, lb, rho, bt, fs, gs, eBs, d, e := v.b, v.lb, v.rho, v.bt, v.fs, v.gs, v.eBs, v.d, v.e
	at := tau / m // τ/m
	eMu := detmath.ExpNeg(at)
	// The density's integrals with e^(−(τ−x)/m) where the service must fit:
	// ∫₀¹ (1, u, 1−u)·e^(−βτu − at(1−u)) du, kept divided by e^(−βτ) when
	// βτ < 0 as in offered.
	var f2, g2, h2 float64
	switch {
	case bt >= 0 && bt >= at:
		f2, g2, h2 = eMu*integralF(bt-at), eMu*integralG(bt-at), eMu*integralH(bt-at)
	case bt >= 0:
		f2, g2, h2 = eBs*integralF(at-bt), eBs*integralH(at-bt), eBs*integralG(at-bt)
	default:
		f2, g2, h2 = integralF(at-bt), integralH(at-bt), integralG(at-bt)
	}
	lbt := float64(lb * tau)
	tau2 := float64(tau * tau)

	out := RenegingMetrics{}
	out.TimedOutQueued = float64(float64(rho*b)*d) * eBs
	out.PWait = d * (float64(lbt*fs) + float64(float64(rho*b)*eBs))
	served := 1 - out.TimedOutQueued
	out.TimedOutInService = float64(e*eMu) + float64(float64(d*lbt)*f2)
	out.Completed = max(served-out.TimedOutInService, 0)
	dens := float64(lb * d)
	out.WaitServed = ratio(float64(float64(dens*tau2)*gs), served)
	waitDone := float64(dens*tau2) * (gs - g2)
	out.WaitCompleted = ratio(waitDone, out.Completed)
	// Service of the completed: E[S; S ≤ j] = m·(1 − e^(−j/m)(1 + j/m))
	// with j = τ − x, over the atom and the density.
	svcAtom := float64(e*m) * (1 - float64(eMu*(1+at)))
	svcDens := float64(dens*m) * (float64(tau*fs) - float64(tau*f2) - float64(at*float64(tau*h2)))
	out.ResponseCompleted = ratio(waitDone+svcAtom+svcDens, out.Completed)
	out.Busy = float64(lam*served) * m
	return out, q.finite(out)
}

// offeredWait holds the offered wait's distribution for a valid q (see
// [Reneging.Continuous]): atom E = k·d at 0, density λ·B·d·k·e^(−βx) on
// (0, τ). The density's integrals over (0, τ), with u = x/τ, are
// ∫₀¹ (1, u)·e^(−βτu) du; when βτ < 0 (ρ > 1 or close) they grow like
// e^(−βτ), so they are kept divided by it (k = e^(βτ) then, else 1), which
// keeps every value within [0, 1] whatever τ.
type offeredWait struct {
	b, lb, rho, beta, bt float64 // B(c−1, a), λ·B, ρ, β = c/m − λ, βτ
	k, fs, gs, eBs       float64 // the scale, ∫e^(−βτu), ∫u·e^(−βτu), e^(−βτ), each times k
	d, e                 float64 // E/k and E
}

func (q Reneging) offered() offeredWait {
	c := float64(q.Servers)
	m, tau, lam := q.MeanService, q.Patience, q.Lambda
	var v offeredWait
	a := float64(lam * m)
	v.rho = a / c
	v.b = erlangB(q.Servers-1, a)
	v.lb = float64(lam * v.b)
	v.beta = c/m - lam
	v.bt = float64(v.beta * tau)
	if v.bt >= 0 {
		v.k, v.fs, v.gs, v.eBs = 1, integralF(v.bt), integralG(v.bt), detmath.ExpNeg(v.bt)
	} else {
		v.k, v.fs, v.gs, v.eBs = detmath.ExpNeg(-v.bt), integralF(-v.bt), integralH(-v.bt), 1
	}
	v.d = 1 / (v.k + float64(float64(v.lb*tau)*v.fs) + float64(float64(v.rho*v.b)*v.eBs))
	v.e = v.k * v.d
	return v
}

// cdf returns P(V ≤ x) for 0 ≤ x ≤ τ: E + λ·B·E·∫₀ˣ e^(−βy) dy, the
// integral taken as x·e^(−βx)·f(−βx) with βx < 0 divided out as above.
func (v offeredWait) cdf(x, tau float64) float64 {
	if v.bt >= 0 {
		return v.d * (1 + float64(float64(v.lb*x)*integralF(float64(v.beta*x))))
	}
	// k·∫₀ˣ e^(−βy) dy = ∫₀ˣ e^(β(τ−y)) dy = x·e^(β(τ−x))·f(−βx).
	return v.e + float64(float64(v.lb*v.d)*x)*float64(detmath.ExpNeg(float64(-v.beta*(tau-x)))*integralF(float64(-v.beta*x)))
}

// integralF returns f(x) = ∫₀¹ e^(−xu) du = (1 − e^(−x))/x, by its power
// series Σ (−x)^k/(k!(k+1)) when |x| < 1.
func integralF(x float64) float64 {
	if x > -1 && x < 1 {
		return series(x, 1)
	}
	return (1 - detmath.Exp(-x)) / x
}

// integralG returns g(x) = ∫₀¹ u·e^(−xu) du = (1 − e^(−x)(1 + x))/x², by its
// power series Σ (−x)^k/(k!(k+2)) when |x| < 1.
func integralG(x float64) float64 {
	if x > -1 && x < 1 {
		return series(x, 2)
	}
	return (1 - float64(detmath.Exp(-x)*(1+x))) / float64(x*x)
}

// integralH returns h(x) = ∫₀¹ (1 − u)·e^(−xu) du = f(x) − g(x), by its
// power series Σ (−x)^k/(k!(k+1)(k+2)) when |x| < 1.
func integralH(x float64) float64 {
	if x > -1 && x < 1 {
		s, term := 0.0, 1.0
		for k := 0; k < 30; k++ {
			s += term / float64((k+1)*(k+2))
			term = float64(term*-x) / float64(k+1)
		}
		return s
	}
	return integralF(x) - integralG(x)
}

// series sums Σ (−x)^k/(k!(k+j)) for |x| < 1 (30 terms: the last is below
// 1e-32).
func series(x float64, j int) float64 {
	s, term := 0.0, 1.0 // term = (−x)^k/k!
	for k := 0; k < 30; k++ {
		s += term / float64(k+j)
		term = float64(term*-x) / float64(k+1)
	}
	return s
}

// MaxRenegingStates bounds the Markov chain of [Reneging.Discrete], which
// has c + 1 + (τ − 1)·c states and costs about a third of their cube in
// multiply-adds (the largest allowed take a few seconds).
const MaxRenegingStates = 2500

// maxDiscreteLambda bounds λ in [Reneging.Discrete], whose Poisson
// probabilities start from e^(−λ).
const maxDiscreteLambda = 100

// Discrete returns the same numbers exactly for lbsim's whole-cycle clock
// and step order, with no simulation noise: each cycle, step a ends the
// services due (each busy server independently with probability p = 1/m:
// geometric service of k ≥ 1 cycles, P(k) = (1 − p)^(k−1)·p); step a′
// removes the clients queued since τ cycles; step b adds a Poisson(λ)
// number of arrivals; step d starts queued clients, oldest first, on the
// idle servers. A client arriving at t therefore starts service at most
// τ − 1 cycles later, and completes iff its service time is at most τ minus
// its wait (a completion at step a of cycle t + τ comes before the timeout).
//
// The chain follows the offered wait rather than the queue: with all c
// servers busy, the completions of successive cycles are independent
// Binomial(c, p) counts, so a new client's start cycle depends only on the
// first cycle V after which no start slot has been claimed and on the r
// start slots of cycle V still unclaimed; slots are revealed lazily, cycle
// by cycle, when a client claims one. A client whose first free slot lies
// τ or more cycles after its arrival leaves, and learns only that the
// cycles up to then have no free slot (V = τ − 1, r = 0). With V = 0 the
// state is the number of idle servers. This gives c + 1 + (τ − 1)·c states;
// the stationary distribution is solved exactly by the GTH algorithm
// (Grassmann, Taksar and Heyman: no subtraction, so no cancellation; a
// chain too lopsided for it gives an [*InputError] rather than NaN), and
// the shares and waits are read off one more cycle from it. The arrivals
// of a cycle are cut where the Poisson tail falls below 1e-17.
//
// It returns an [*InputError] (matching [ErrInvalid]) when c < 1, λ < 0 or
// λ > 100, m < 1, τ is not a whole number ≥ 1, any is NaN or ±Inf, or the
// chain would exceed [MaxRenegingStates] states. Cost: O(n³) for n states.
func (q Reneging) Discrete() (RenegingMetrics, error) {
	if err := q.check(true); err != nil {
		return RenegingMetrics{}, err
	}
	ch := newRenegingChain(q)
	pi := ch.stationary()
	out := ch.metrics(pi)
	if err := q.finite(out); err != nil {
		return RenegingMetrics{}, err
	}
	return out, nil
}

// check validates q; discrete adds the limits of [Reneging.Discrete].
func (q Reneging) check(discrete bool) error {
	if err := checkServers(q.Servers); err != nil {
		return err
	}
	if !finite(q.Lambda) || q.Lambda < 0 || (discrete && q.Lambda > maxDiscreteLambda) {
		allowed := "λ must be a finite number ≥ 0 (mean arrivals per cycle)"
		if discrete {
			allowed = "λ must be a number from 0 to " + strconv.Itoa(maxDiscreteLambda) + " (mean arrivals per cycle)"
		}
		return &InputError{Name: "arrival rate λ", Value: exact(q.Lambda), Allowed: allowed}
	}
	if !finite(q.MeanService) || q.MeanService <= 0 || (discrete && q.MeanService < 1) {
		allowed := "m must be a finite number > 0"
		if discrete {
			allowed = "m must be a finite number ≥ 1 (cycles; a geometric service lasts at least one cycle)"
		}
		return &InputError{Name: "mean service time m", Value: exact(q.MeanService), Allowed: allowed}
	}
	if !finite(q.Patience) || q.Patience < 0 {
		return &InputError{Name: "patience τ", Value: exact(q.Patience), Allowed: "τ must be a finite number ≥ 0"}
	}
	if !discrete {
		return nil
	}
	if q.Patience < 1 || q.Patience != float64(int64(q.Patience)) || q.Patience > MaxRenegingStates {
		return &InputError{Name: "patience τ", Value: exact(q.Patience),
			Allowed: "τ must be a whole number of cycles from 1 to " + strconv.Itoa(MaxRenegingStates)}
	}
	if n := renegingStates(q.Servers, int(q.Patience)); n > MaxRenegingStates {
		return &InputError{Name: "(servers c, patience τ)", Value: "(" + strconv.Itoa(q.Servers) + ", " + exact(q.Patience) + ")",
			Allowed: "the chain has c + 1 + (τ − 1)·c = " + strconv.Itoa(n) + " states; at most " +
				strconv.Itoa(MaxRenegingStates) + " are allowed (use Continuous for larger ones)"}
	}
	return nil
}

// renegingStates returns c + 1 + (τ − 1)·c without overflow for valid c and
// τ ≤ MaxRenegingStates (c ≤ MaxServers).
func renegingStates(c, tau int) int { return c + 1 + (tau-1)*c }

// finite refuses metrics that overflowed.
func (q Reneging) finite(m RenegingMetrics) error {
	for _, x := range [...]float64{m.TimedOutQueued, m.TimedOutInService, m.Completed, m.PWait,
		m.WaitServed, m.WaitCompleted, m.ResponseCompleted, m.Busy} {
		if !finite(x) {
			return &InputError{Name: "(c, λ, m, τ)",
				Value:   "(" + strconv.Itoa(q.Servers) + ", " + exact(q.Lambda) + ", " + exact(q.MeanService) + ", " + exact(q.Patience) + ")",
				Allowed: "these are so extreme that a result overflows float64; use a coarser time unit or a smaller patience"}
		}
	}
	return nil
}

// renegingChain is the offered-wait Markov chain of [Reneging.Discrete].
// State (V, r): V = 0 and r ∈ 0 … c idle servers with nobody queued, or
// V ∈ 1 … τ−1 and r ∈ 0 … c−1 (all busy; start slots claimed through V
// cycles ahead, r of cycle V's still free). Index: c − r for V = 0 (so
// state 0, every server idle, is reachable from every state, as GTH
// needs), else c + 1 + (V−1)·c + r.
type renegingChain struct {
	c, tau int
	p      float64     // 1/m, a busy server's chance to finish in a cycle
	q0     float64     // (1 − p)^c: no completion among c busy servers
	bin    [][]float64 // bin[n][k] = P(Binomial(n, p) = k)
	pois   []float64   // P(A = j) for the arrivals A of a cycle, cut at the tail
	tail   []float64   // P(A > j)
	n      int         // states
	lambda float64     // λ
}

// newRenegingChain precomputes the binomial and Poisson probabilities.
func newRenegingChain(q Reneging) *renegingChain {
	c, tau := q.Servers, int(q.Patience)
	ch := &renegingChain{c: c, tau: tau, p: 1 / q.MeanService, n: renegingStates(c, tau), lambda: q.Lambda}
	// Binomial(n, p) for n = 0 … c by adding one Bernoulli at a time: every
	// value stays in [0, 1] and nothing underflows early.
	ch.bin = make([][]float64, c+1)
	ch.bin[0] = []float64{1}
	for n := 1; n <= c; n++ {
		prev, row := ch.bin[n-1], make([]float64, n+1)
		for k, x := range prev {
			row[k] += float64(x * (1 - ch.p))
			row[k+1] += float64(x * ch.p)
		}
		ch.bin[n] = row
	}
	ch.q0 = ch.bin[c][0]
	// Poisson(λ) from e^(−λ) by the recurrence, up to the first j ≥ 2λ
	// with P(A = j) < 1e-17 (beyond it the ratio of successive terms is
	// below 1/2, so the mass left out is below 1e-17); the tail P(A > j) is
	// summed from the far end.
	pk := detmath.ExpNeg(q.Lambda)
	for j := 0; ; j++ {
		ch.pois = append(ch.pois, pk)
		if float64(j) >= 2*q.Lambda && pk < 1e-17 {
			break
		}
		pk = float64(pk*q.Lambda) / float64(j+1)
	}
	ch.tail = make([]float64, len(ch.pois))
	s := 0.0
	for j := len(ch.pois) - 1; j >= 0; j-- {
		ch.tail[j] = s // P(A > j) within the cut
		s += ch.pois[j]
	}
	return ch
}

// idx returns the index of state (v, r).
func (ch *renegingChain) idx(v, r int) int {
	if v == 0 {
		return ch.c - r
	}
	return ch.c + 1 + (v-1)*ch.c + r
}

// preArrival maps a distribution at the end of a cycle to the distribution
// relative to the next cycle before its arrivals: V moves one cycle closer;
// with V = 0 the busy servers finish Binomially and free their servers.
func (ch *renegingChain) preArrival(x, out []float64) {
	clear(out)
	c := ch.c
	for r := 0; r <= c; r++ {
		w := x[ch.idx(0, r)]
		if w == 0 {
			continue
		}
		for k, pk := range ch.bin[c-r] {
			out[ch.idx(0, r+k)] += float64(w * pk)
		}
	}
	for v := 1; v < ch.tau; v++ {
		for r := 0; r < c; r++ {
			out[ch.idx(v-1, r)] += x[ch.idx(v, r)]
		}
	}
}

// claim lets one more client arrive in the current cycle, in every state of
// distribution x at once: out is the distribution after it, started[u] the
// mass that starts service u cycles after arriving, and the result the mass
// that leaves. The reveal of fresh slots is a running sum over V (R below),
// so one claim costs O(τ·c).
func (ch *renegingChain) claim(x, out, started []float64) (left float64) {
	clear(out)
	clear(started)
	c, tau := ch.c, ch.tau
	for v := 0; v < tau; v++ {
		top := c - 1
		if v == 0 {
			top = c
		}
		for r := 1; r <= top; r++ {
			w := x[ch.idx(v, r)]
			out[ch.idx(v, r-1)] += w
			started[v] += w
		}
	}
	// R(u) = Σ_{V<u} x(V, 0)·q0^(u−1−V): the mass from states with no free
	// slot whose first fresh completion cycle is u; its count k ≥ 1 of
	// slots is Binomial(c, p) given ≥ 1, one of them claimed.
	bc, rr := ch.bin[c], 0.0
	for u := 1; u < tau; u++ {
		rr = float64(ch.q0*rr) + x[ch.idx(u-1, 0)]
		if rr == 0 {
			continue
		}
		for k := 1; k <= c; k++ {
			out[ch.idx(u, k-1)] += float64(rr * bc[k])
		}
		started[u] += float64(rr * (1 - ch.q0))
	}
	rr = float64(ch.q0*rr) + x[ch.idx(tau-1, 0)]
	out[ch.idx(tau-1, 0)] += rr
	return rr
}

// stationary builds the one-cycle transition matrix row by row and solves
// π = πP by GTH.
func (ch *renegingChain) stationary() []float64 {
	n := ch.n
	p := make([][]float64, n)
	x, d, nx := make([]float64, n), make([]float64, n), make([]float64, n)
	started := make([]float64, ch.tau)
	for s := range n {
		clear(x)
		x[s] = 1
		ch.preArrival(x, d)
		row := make([]float64, n)
		for j, pj := range ch.pois {
			if j > 0 {
				ch.claim(d, nx, started)
				d, nx = nx, d
			}
			for i, w := range d {
				row[i] += float64(pj * w)
			}
		}
		p[s] = row
	}
	// GTH keeps state 0 to the end and needs every other state to reach
	// it with a probability that does not underflow. Take a likely state:
	// the most probable one 64 cycles after starting with every server
	// idle (all idle when lightly loaded, "all abandon" when overloaded;
	// reachable from all idle, so in the chain's one closed class), and
	// swap it with state 0.
	dist, next := make([]float64, n), make([]float64, n)
	dist[ch.idx(0, ch.c)] = 1
	for range 64 {
		clear(next)
		for i, w := range dist {
			if w == 0 {
				continue
			}
			for j, x := range p[i] {
				next[j] += float64(w * x)
			}
		}
		dist, next = next, dist
	}
	best := 0
	for j, x := range dist {
		if x > dist[best] {
			best = j
		}
	}
	swap := func() {
		p[0], p[best] = p[best], p[0]
		for _, row := range p {
			row[0], row[best] = row[best], row[0]
		}
	}
	swap()
	pi := gth(p)
	pi[0], pi[best] = pi[best], pi[0]
	return pi
}

// gth returns the stationary distribution of the stochastic matrix p (which
// it overwrites), by the Grassmann–Taksar–Heyman elimination: state k is
// censored out with its exit mass computed as a sum of its transitions to
// the states below it, never as 1 − p[k][k]. State 0 must be reachable from
// every state.
func gth(p [][]float64) []float64 {
	n := len(p)
	for k := n - 1; k > 0; k-- {
		s := 0.0
		for _, x := range p[k][:k] {
			s += x
		}
		pk := p[k][:k]
		for i := range k {
			a := p[i][k] / s
			p[i][k] = a
			if a == 0 {
				continue
			}
			row := p[i][:k]
			for j, x := range pk {
				row[j] += float64(a * x)
			}
		}
	}
	pi := make([]float64, n)
	pi[0] = 1
	total := 1.0
	for k := 1; k < n; k++ {
		s := 0.0
		for i := range k {
			s += float64(pi[i] * p[i][k])
		}
		pi[k] = s
		total += s
	}
	for i := range pi {
		pi[i] /= total
	}
	return pi
}

// metrics follows one cycle from the stationary distribution and reads the
// shares and waits off its arrivals.
func (ch *renegingChain) metrics(pi []float64) RenegingMetrics {
	n, tau := ch.n, ch.tau
	d, nx := make([]float64, n), make([]float64, n)
	started, byWait := make([]float64, tau), make([]float64, tau)
	ch.preArrival(pi, d)
	// The (j+1)-th arrival of a cycle exists with probability P(A > j).
	// With λ = 0 one arrival is added to see what it would meet (PASTA),
	// so the shares are their limits as λ → 0.
	weights := ch.tail
	if ch.lambda == 0 {
		weights = []float64{1}
	}
	arrivals, left := 0.0, 0.0
	for _, wj := range weights {
		if wj == 0 {
			break
		}
		l := ch.claim(d, nx, started)
		left += float64(wj * l)
		for u, w := range started {
			byWait[u] += float64(wj * w)
		}
		arrivals += wj
		d, nx = nx, d
	}
	// q^k and E[S; S ≤ k] = (1 − q^k(1 + kp))/p for the geometric service.
	q := 1 - ch.p
	qk := make([]float64, tau+1)
	qk[0] = 1
	for k := 1; k <= tau; k++ {
		qk[k] = float64(qk[k-1] * q)
	}
	var served, waitSum, inSvc, done, doneWait, doneSvc, waited float64
	for u, w := range byWait {
		k := tau - u // the service may last at most k cycles
		served += w
		waitSum += float64(float64(u) * w)
		inSvc += float64(w * qk[k])
		ok := float64(w * (1 - qk[k]))
		done += ok
		doneWait += float64(float64(u) * ok)
		doneSvc += float64(w * ((1 - float64(qk[k]*(1+float64(float64(k)*ch.p)))) / ch.p))
		if u > 0 {
			waited += w
		}
	}
	return RenegingMetrics{
		TimedOutQueued:    left / arrivals,
		TimedOutInService: inSvc / arrivals,
		Completed:         done / arrivals,
		PWait:             (waited + left) / arrivals,
		WaitServed:        ratio(waitSum, served),
		WaitCompleted:     ratio(doneWait, done),
		ResponseCompleted: ratio(doneWait+doneSvc, done),
		Busy:              float64(ch.lambda*(1-left/arrivals)) / ch.p,
	}
}

// ratio returns x/y, or 0 when y is 0 (a mean over nobody).
func ratio(x, y float64) float64 {
	if y == 0 {
		return 0
	}
	return x / y
}
