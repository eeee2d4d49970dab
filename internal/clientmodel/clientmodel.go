// Package clientmodel is a small model of lbsim's client side, written
// apart from the simulator to check it: a pooled first-come-first-served
// queue in front of a fixed pool of c servers, Poisson arrivals whose rate
// may change at given cycles, geometric service, and the client rules of
// timeouts, retries with a fixed backoff and a retry budget, as lbsim's
// rules state them (arrival, a′ timeouts, b retries then arrivals, d
// dispatch). A request keeps its service time on every attempt, as in
// lbsim, where the time is drawn with the request: a request too long for
// the timeout fails on every attempt. It has no faults, health checks, queue cap, jitter or
// scaling, and shares no code with package sim: it counts what lbsim
// counts, so that long runs of both can be compared statistically.
//
// Its random numbers come from its own generators (PCG seeded by the
// seed), so a run is deterministic but not the same stream as lbsim's.
package clientmodel

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/lbsim/lbsim/detmath"
)

// Phase sets the arrival rate from cycle From on.
type Phase struct {
	From int64   // first cycle of the phase
	Rate float64 // λ, mean arrivals per cycle: 0 … 1000
}

// Params describe one run. The zero value is not valid.
type Params struct {
	Servers     int     // c, fixed: 1 … 100,000
	MeanService float64 // m of the geometric service (k ≥ 1 cycles, p = 1/m): ≥ 1
	Phases      []Phase // arrival rates; the first must start at cycle 0, From strictly increasing
	Timeout     int64   // T: an attempt is abandoned at a′ of arrival + T (0 = never)
	Retries     int     // N: a request is retried after a timeout while it has had fewer than N retries
	Backoff     int64   // B: retry k arrives B·2^(k−1) cycles after its attempt ended
	// BudgetMillionths is the retry budget F in millionths (0 = none): a
	// retry is granted at cycle e only if granted retries in e−999 … e,
	// times 10⁶, are below F times first attempts admitted in those cycles
	// so far.
	BudgetMillionths int64
	Cycles           int64  // the run: cycles 0 … Cycles−1
	From             int64  // the window counted in Result.Window: cycles From … Cycles−1
	Seed             uint64 // seeds the arrival and service generators
}

// Counts are what a run counted, over the run or over the window. Shares
// and waits are ratios of them.
type Counts struct {
	Admitted          int64 // first attempts (requests) that arrived
	Retries           int64 // retries that arrived
	Completed         int64 // requests that finished with their client waiting
	TimedOut          int64 // requests whose last attempt timed out with no retry left
	GaveUpBudget      int64 // requests refused a retry by the budget
	TimedOutQueued    int64 // attempts that left the queue at their deadline
	TimedOutInService int64 // attempts abandoned in service
	Dispatched        int64 // attempts started on a server
	TotalWait         int64 // their waits, from their own arrival
	TotalResponse     int64 // completed requests' times from their first arrival
	WastedCycles      int64 // cycles of abandoned work from abandonment to its end
}

// Result is a run's outcome.
type Result struct {
	Total, Window Counts
	// InFlight is requests queued, in service or waiting to retry at the
	// end; Total.Admitted = Completed + TimedOut + GaveUpBudget + InFlight.
	InFlight int64
}

// attempt is one try of a request.
type attempt struct {
	req      int64 // request id
	first    int64 // the request's first arrival
	arrival  int64 // this attempt's arrival
	deadline int64 // arrival + T, or -1
	state    uint8
	server   int
}

const (
	queued uint8 = iota
	inService
	ended // completed, timed out, or its work abandoned
)

// server is one server: busy until done with attempt a (nil: abandoned).
type server struct {
	busy bool
	done int64
	a    *attempt
	lost int64 // cycle its work was abandoned (when a is nil and busy)
}

// retry is a granted retry waiting for its arrival.
type retry struct {
	due, req, first int64
}

// Validate returns an error naming the first parameter outside its range.
func (p Params) Validate() error {
	switch {
	case p.Servers < 1 || p.Servers > 100_000:
		return fmt.Errorf("clientmodel: servers %d: want 1 … 100000", p.Servers)
	case !(p.MeanService >= 1 && p.MeanService <= 1e9):
		return fmt.Errorf("clientmodel: mean service %g: want 1 … 1e9 cycles", p.MeanService)
	case len(p.Phases) == 0 || p.Phases[0].From != 0:
		return errors.New("clientmodel: phases: want at least one, the first from cycle 0")
	case p.Timeout < 0 || p.Timeout > 1e9:
		return fmt.Errorf("clientmodel: timeout %d: want 0 … 1e9 cycles", p.Timeout)
	case p.Retries < 0 || p.Retries > 10:
		return fmt.Errorf("clientmodel: retries %d: want 0 … 10", p.Retries)
	case p.Backoff < 0 || p.Backoff > 1<<30:
		return fmt.Errorf("clientmodel: backoff %d: want 0 … 2^30 cycles", p.Backoff)
	case p.BudgetMillionths < 0 || p.BudgetMillionths > 1_000_000:
		return fmt.Errorf("clientmodel: retry budget %d millionths: want 0 … 1000000", p.BudgetMillionths)
	case p.Cycles < 1 || p.Cycles > 1e10:
		return fmt.Errorf("clientmodel: cycles %d: want 1 … 1e10", p.Cycles)
	case p.From < 0 || p.From >= p.Cycles:
		return fmt.Errorf("clientmodel: window from %d: want 0 … cycles − 1 = %d", p.From, p.Cycles-1)
	}
	for i, ph := range p.Phases {
		if !(ph.Rate >= 0 && ph.Rate <= 1000) {
			return fmt.Errorf("clientmodel: phase %d rate %g: want 0 … 1000 per cycle", i, ph.Rate)
		}
		if i > 0 && ph.From <= p.Phases[i-1].From {
			return fmt.Errorf("clientmodel: phase %d starts at %d, not after phase %d's %d", i, ph.From, i-1, p.Phases[i-1].From)
		}
	}
	return nil
}

// Source gives a run its arrivals and service times; [Run] uses random
// ones, tests may script them.
type Source interface {
	Arrivals(cycle int64, rate float64) int // new requests in the cycle's step b
	Service() int64                         // the service time, ≥ 1, of a request at its first dispatch
}

// random is the default Source: Poisson arrivals by inversion and geometric
// service by inversion, from two PCG streams.
type random struct {
	arr, svc *rand.Rand
	lq       float64 // ln(1 − 1/m), < 0 (0 for m = 1)
	rate, e  float64 // the last rate and e^(−rate)
}

func (r *random) Arrivals(_ int64, rate float64) int {
	if rate != r.rate {
		r.rate, r.e = rate, detmath.ExpNeg(rate)
	}
	if rate == 0 {
		return 0
	}
	// Poisson by inversion; rates up to 1000 stay finite: e^(−1000)
	// underflows, so large rates add Poisson(rate/2) draws.
	if rate > 500 {
		half := rate / 2
		return r.Arrivals(0, half) + r.Arrivals(0, half)
	}
	n, p, u := 0, r.e, r.arr.Float64()
	for cum := p; u >= cum && p > 0; cum += p {
		n++
		p = p * rate / float64(n)
	}
	return n
}

func (r *random) Service() int64 {
	if r.lq == 0 {
		return 1
	}
	return 1 + int64(detmath.Log(1-r.svc.Float64())/r.lq)
}

// Run runs p with random arrivals and service.
func Run(p Params) (Result, error) {
	src, err := randomSource(p)
	if err != nil {
		return Result{}, err
	}
	return RunWith(p, src, nil)
}

// randomSource returns Run's source for valid p.
func randomSource(p Params) (Source, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	src := &random{
		arr:  rand.New(rand.NewPCG(p.Seed, 0x6172)),
		svc:  rand.New(rand.NewPCG(p.Seed, 0x737663)),
		lq:   detmath.Log(1 - 1/p.MeanService),
		rate: -1,
	}
	if p.MeanService == 1 {
		src.lq = 0
	}
	return src, nil
}

// RunWith runs p with the given source. check, when not nil, is called at
// the end of every cycle with the running totals and in-flight count.
func RunWith(p Params, src Source, check func(cycle int64, total Counts, inFlight int64) error) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	r := &run{p: p, src: src, servers: make([]server, p.Servers), tries: map[int64]int{}, service: map[int64]int64{}}
	for r.t = 0; r.t < p.Cycles; r.t++ {
		r.startCycle()
		r.complete()
		r.timeouts()
		r.arrive()
		r.dispatch()
		if check != nil {
			if err := check(r.t, r.res.Total, inFlight(r.queue, r.servers, r.waiting)); err != nil {
				return r.res, fmt.Errorf("cycle %d: %w", r.t, err)
			}
		}
	}
	r.finish()
	return r.res, nil
}

// run is one run of the model: its state between the steps of a cycle.
type run struct {
	p         Params
	src       Source
	res       Result
	servers   []server
	queue     []*attempt      // FIFO; ended attempts are skipped
	byArrival []*attempt      // attempts in (arrival, id) order, for a′
	retries   []retry         // granted, waiting; sorted by (due, req) when used
	tries     map[int64]int   // retries granted, by request
	service   map[int64]int64 // service time, by request, from its first dispatch
	waiting   int64           // requests waiting to retry
	nextID    int64
	phase     int
	granted   [1000]int64 // retries granted in cycle t at [t % 1000]
	admitted  [1000]int64
	gSum      int64
	aSum      int64
	t         int64
}

// count adds to the run's totals, and to the window's from p.From on.
func (r *run) count(f func(*Counts)) {
	f(&r.res.Total)
	if r.t >= r.p.From {
		f(&r.res.Window)
	}
}

// startCycle slides the budget's window and finds the arrival phase.
func (r *run) startCycle() {
	slot := r.t % 1000
	r.gSum -= r.granted[slot]
	r.aSum -= r.admitted[slot]
	r.granted[slot], r.admitted[slot] = 0, 0
	for r.phase+1 < len(r.p.Phases) && r.p.Phases[r.phase+1].From <= r.t {
		r.phase++
	}
}

// complete is step a: the servers whose work ends now.
func (r *run) complete() {
	t := r.t
	for i := range r.servers {
		s := &r.servers[i]
		if !s.busy || s.done != t {
			continue
		}
		if s.a != nil {
			s.a.state = ended
			resp := t - s.a.first
			r.count(func(c *Counts) { c.Completed++; c.TotalResponse += resp })
			delete(r.tries, s.a.req)
			delete(r.service, s.a.req)
		} else {
			w := t - s.lost
			r.count(func(c *Counts) { c.WastedCycles += w })
		}
		*s = server{}
	}
}

// timeouts is step a′: the attempts due now, oldest first.
func (r *run) timeouts() {
	for len(r.byArrival) > 0 && r.byArrival[0].deadline == r.t {
		a := r.byArrival[0]
		r.byArrival = r.byArrival[1:]
		switch a.state {
		case queued:
			r.count(func(c *Counts) { c.TimedOutQueued++ })
		case inService:
			s := &r.servers[a.server]
			s.a, s.lost = nil, r.t
			r.count(func(c *Counts) { c.TimedOutInService++ })
		default:
			continue
		}
		a.state = ended
		r.end(a)
	}
	for len(r.byArrival) > 0 && r.byArrival[0].state == ended {
		r.byArrival = r.byArrival[1:]
	}
}

// end decides what follows an attempt that timed out at cycle e = t: a
// retry, or the request's end.
func (r *run) end(a *attempt) {
	k := r.tries[a.req]
	if k >= r.p.Retries {
		r.count(func(c *Counts) { c.TimedOut++ })
		delete(r.tries, a.req)
		delete(r.service, a.req)
		return
	}
	if r.p.BudgetMillionths > 0 && r.gSum*1_000_000 >= r.p.BudgetMillionths*r.aSum {
		r.count(func(c *Counts) { c.GaveUpBudget++ })
		delete(r.tries, a.req)
		delete(r.service, a.req)
		return
	}
	r.granted[r.t%1000]++
	r.gSum++
	r.tries[a.req] = k + 1
	d := r.p.Backoff << k // B·2^(k+1−1)
	r.retries = append(r.retries, retry{due: r.t + d, req: a.req, first: a.first})
	r.waiting++
}

// queueAttempt puts a new attempt at the queue's tail (and on the
// deadlines' list with a timeout).
func (r *run) queueAttempt(a *attempt) {
	if r.p.Timeout > 0 {
		a.deadline = r.t + r.p.Timeout
		r.byArrival = append(r.byArrival, a)
	}
	r.queue = append(r.queue, a)
}

// arrive is step b: the retries due now, by request id, then new arrivals.
func (r *run) arrive() {
	t := r.t
	slices.SortFunc(r.retries, func(x, y retry) int {
		if x.due != y.due {
			return int(x.due - y.due)
		}
		return int(x.req - y.req)
	})
	n := 0
	for n < len(r.retries) && r.retries[n].due == t {
		rt := r.retries[n]
		r.queueAttempt(&attempt{req: rt.req, first: rt.first, arrival: t, deadline: -1})
		r.waiting--
		r.count(func(c *Counts) { c.Retries++ })
		n++
	}
	r.retries = r.retries[n:]
	for range r.src.Arrivals(t, r.p.Phases[r.phase].Rate) {
		r.queueAttempt(&attempt{req: r.nextID, first: t, arrival: t, deadline: -1})
		r.nextID++
		r.admitted[t%1000]++
		r.aSum++
		r.count(func(c *Counts) { c.Admitted++ })
	}
}

// dispatch is step d: the oldest queued attempts to the idle servers.
func (r *run) dispatch() {
	t := r.t
	for i := range r.servers {
		if r.servers[i].busy {
			continue
		}
		for len(r.queue) > 0 && r.queue[0].state != queued {
			r.queue = r.queue[1:]
		}
		if len(r.queue) == 0 {
			break
		}
		a := r.queue[0]
		r.queue = r.queue[1:]
		a.state, a.server = inService, i
		svc, ok := r.service[a.req]
		if !ok {
			svc = r.src.Service()
			r.service[a.req] = svc
		}
		r.servers[i] = server{busy: true, done: t + svc, a: a}
		w := t - a.arrival
		r.count(func(c *Counts) { c.Dispatched++; c.TotalWait += w })
	}
}

// finish counts abandoned work still running at the end through the last
// cycle, and the requests in flight.
func (r *run) finish() {
	r.t = r.p.Cycles - 1
	for _, s := range r.servers {
		if s.busy && s.a == nil {
			w := r.t - s.lost + 1
			r.count(func(c *Counts) { c.WastedCycles += w })
		}
	}
	r.res.InFlight = inFlight(r.queue, r.servers, r.waiting)
}

// inFlight counts requests queued, in service with their client waiting,
// or waiting to retry.
func inFlight(queue []*attempt, servers []server, waiting int64) int64 {
	n := waiting
	for _, a := range queue {
		if a.state == queued {
			n++
		}
	}
	for _, s := range servers {
		if s.busy && s.a != nil {
			n++
		}
	}
	return n
}
