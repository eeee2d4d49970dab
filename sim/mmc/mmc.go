// Package mmc runs lbsim's central queue as an M/M/c system and sets what it
// measures beside the Erlang C theory of package queueing.
//
// The run: a fixed pool of c servers (no scaling, no firewall, no queue
// cap), Poisson arrivals with a constant mean λ per cycle, geometric service
// times with mean m cycles. After a warm-up, every dispatch contributes its
// wait (arrival to dispatch) and every cycle its queue length and busy
// servers; the measurement window is cut into batches whose means give 95%
// confidence intervals (batch means).
//
// The discrete clock biases the measurement slightly: arrivals and
// completions happen on whole cycles, a freed server is reused within the
// same cycle, and a request dispatched at t starts losing time at t + 1. The
// measured Wq comes out lower than Erlang C by roughly 1/m relative (an
// independent simulation measured −2.8% at c = 20, ρ = 0.8, m = 25). With m
// ≥ 100 the bias is near 1%, which is why lbsim mmc defaults to m = 100.
// Near ρ = 0.9 the measured Wq converges slowly; judge it by its interval.
package mmc

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lbsim/lbsim/queueing"
	"github.com/lbsim/lbsim/sim"
)

// Params describe one M/M/c check.
type Params struct {
	Servers     int      // c
	Rate        sim.Rate // λ, arrivals per cycle
	MeanService int      // m, cycles
	Cycles      int64    // the run's length, warm-up included
	Warmup      int64    // cycles discarded at the start
	Seed        uint64
	Batches     int // batches for the intervals (default 20)
	// Queues and Policy choose the pooled queue (first-idle: M/M/c) or
	// per-server queues routed by Policy; Choices is p2c's d (0 = 2).
	Queues  sim.QueueMode
	Policy  sim.Policy
	Choices int
	// Shape, when set, is the service shape (its MeanService replaces
	// MeanService); nil means geometric with mean MeanService, M/M/c.
	Shape *sim.Shape
	// Tail is the fan-out and hedging of the run (zero: none); either on
	// implies per-server queues, and sets the tail theory (PredictTail)
	// beside the requests' measured response.
	Tail TailInput
	// MaxQueued bounds the queued requests (sim.WithMaxQueued; 0 means
	// sim.DefaultMaxQueued): an offered load beyond the pool's capacity
	// stops the run with a *sim.QueueLimitError instead of filling memory.
	MaxQueued int
	// Stop, when not nil, is asked every 4096 cycles whether to stop (a
	// signal on the command line): Run then returns ErrStopped.
	Stop func() bool
}

// ErrStopped is Run's error when Params.Stop asked it to stop.
var ErrStopped = errors.New("mmc: the simulation was stopped before its last cycle")

// Config returns the simulator configuration of the check.
func (p Params) Config() sim.Config {
	c := sim.DefaultConfig()
	c.Servers, c.MinServers, c.MaxServers = p.Servers, p.Servers, p.Servers
	c.Cycles, c.Seed = p.Cycles, p.Seed
	c.InitialPerServer = 0
	c.Rate, c.Wave = p.Rate, false
	c.Service, c.MeanService = sim.Geometric, p.MeanService
	if p.Shape != nil {
		sh := *p.Shape
		if sh.TaskMin == 0 && sh.TaskMax == 0 { // a shape that does not read them
			sh.TaskMin, sh.TaskMax = c.TaskMin, c.TaskMax
		}
		c.SetShape(sh)
	}
	c.Blocked = nil
	c.QueueCap = 0
	c.Queues, c.Policy, c.Choices = p.Queues, p.Policy, p.Choices
	c.Fanout = p.Tail.Fanout
	if p.Tail.HedgeAfter > 0 {
		c.HedgeAfter, c.HedgeMax = int64(p.Tail.HedgeAfter), p.Tail.HedgeMax
		c.HedgeBudget = sim.Decimal(math.Round(p.Tail.HedgeBudget * sim.DecimalScale))
	}
	return c
}

// Measured holds what the simulation measured after the warm-up. The CI
// fields are 95% batch-means intervals [low, high].
type Measured struct {
	Rho         float64    `json:"rho"` // busy servers ÷ c, time-averaged (= utilisation)
	PWait       float64    `json:"p_wait"`
	Wq          float64    `json:"wq"`
	Lq          float64    `json:"lq"`
	W           float64    `json:"w"`
	L           float64    `json:"l"`
	Utilisation float64    `json:"utilisation"`
	WqCI        [2]float64 `json:"wq_ci"`
	LqCI        [2]float64 `json:"lq_ci"`
	PWaitCI     [2]float64 `json:"p_wait_ci"`
	Dispatched  int64      `json:"dispatched"` // requests measured
	Batches     int        `json:"batches"`
	// Lambda and MeanService are the arrival rate and the mean service
	// time the run realized after the warm-up: theory at these values
	// separates the queue's behaviour from the sampling noise of its inputs.
	Lambda      float64 `json:"lambda"`
	MeanService float64 `json:"mean_service"`
	// AvgService is the run's avg_service: the mean service cycles
	// given at dispatch over the whole run, warm-up included.
	AvgService float64 `json:"avg_service"`
	// Response is measured with fan-out or hedging on (the tail theory's
	// side), over the whole run.
	Response *Response `json:"response,omitempty"`
}

// Response is what a run measured of its requests' response times and
// attempts, over the whole run (warm-up included: a run starts empty).
type Response struct {
	Completed          int64   `json:"completed"`
	AvgResponse        float64 `json:"avg_response"`
	P50                int64   `json:"response_p50"`
	P99                int64   `json:"response_p99"`
	AttemptsPerRequest float64 `json:"attempts_per_request"` // attempts ÷ admitted
}

// Theory is a queueing model's prediction, with the JSON names of
// docs/cli.md; Model names the model (and says when it is an
// approximation).
type Theory struct {
	Model       string  `json:"model"`
	Rho         float64 `json:"rho"`
	PWait       float64 `json:"p_wait"`
	Wq          float64 `json:"wq"`
	Lq          float64 `json:"lq"`
	W           float64 `json:"w"`
	L           float64 `json:"l"`
	Utilisation float64 `json:"utilisation"`
}

// Report is a check's outcome. Theory is nil when it does not apply (ρ ≥ 1);
// TheoryError then says why, and the measurement is still made.
type Report struct {
	Servers     int     `json:"servers"`
	Rate        float64 `json:"rate"`
	MeanService int     `json:"mean_service"`
	// Service describes the service shape; ServiceMean and
	// ServiceSecond are the exact moments E[S] and E[S²] of the times it
	// draws, which the theory uses.
	Service       string  `json:"service"`
	ServiceMean   float64 `json:"service_mean"`
	ServiceSecond float64 `json:"service_second_moment"`
	Cycles        int64   `json:"cycles"`
	Warmup        int64   `json:"warmup"`
	Seed          uint64  `json:"seed"`
	Queues        string  `json:"queues"`
	Policy        string  `json:"policy"`
	Theory        *Theory `json:"theory"`
	TheoryError   string  `json:"theory_error,omitempty"`
	// Bounds, when theory has no closed form for the routing policy,
	// bracket its mean wait between known models.
	Bounds *Bounds `json:"bounds,omitempty"`
	// Tail is the tail theory, with fan-out or hedging on.
	Tail     *Tail    `json:"tail,omitempty"`
	Measured Measured `json:"measured"`
	Notes    []string `json:"notes,omitempty"`
}

// Bounds bracket a mean wait Wq between two known models, and say which.
type Bounds struct {
	WqLow  float64 `json:"wq_low"`
	WqHigh float64 `json:"wq_high"`
	Note   string  `json:"note"`
}

// Validate checks the parameters, naming the flag that is wrong.
func (p Params) Validate() error {
	switch {
	case p.Cycles < 1 || p.Cycles > sim.MaxCycles:
		return fmt.Errorf("--cycles %d: must be a whole number from 1 to %d", p.Cycles, sim.MaxCycles)
	case p.Warmup < 0 || p.Warmup >= p.Cycles:
		return fmt.Errorf("--warmup %d: must be from 0 to below --cycles (%d)", p.Warmup, p.Cycles)
	case p.Batches != 0 && (p.Batches < 2 || p.Batches > 1000):
		return fmt.Errorf("--batches %d: must be from 2 to 1000", p.Batches)
	case p.Cycles-p.Warmup < int64(max(p.Batches, 20)):
		return fmt.Errorf("--cycles %d: leave at least one cycle per batch after the warm-up", p.Cycles)
	}
	c := p.Config()
	return c.Validate()
}

type batch struct {
	waits, waited, n     int64
	service              int64
	queue, busy, samples int64
	arrivals             int64
}

// Run simulates the check and computes theory and measurement.
func Run(p Params) (Report, error) {
	if p.Batches == 0 {
		p.Batches = 20
	}
	if err := p.Validate(); err != nil {
		return Report{}, err
	}
	cfg := p.Config()
	mom := sim.ServiceMoments(&cfg)
	r := Report{Servers: p.Servers, Rate: p.Rate.PerCycle(), MeanService: cfg.MeanService,
		Service: cfg.Shape().String(), ServiceMean: mom.Mean, ServiceSecond: mom.Second,
		Cycles: p.Cycles, Warmup: p.Warmup, Seed: p.Seed, Queues: p.Queues.String(), Policy: p.Policy.String()}
	if err := r.theory(p, cfg, mom); err != nil {
		return Report{}, err
	}
	if cfg.Service == sim.Geometric && p.MeanService < 100 && !p.Tail.On() {
		r.Notes = append(r.Notes, fmt.Sprintf("m = %d < 100: the whole-cycle clock makes the measured Wq lower than Erlang C by roughly 1/m (%.1f%%); use --mean-service 100 or more for a match within 1-2%%", p.MeanService, 100/float64(p.MeanService)))
	}
	if r.Theory != nil && r.Theory.Rho >= 0.85 {
		r.Notes = append(r.Notes, "ρ ≥ 0.85: the measured Wq wanders for a long time; judge it by its interval, and run longer to narrow it")
	}

	m, err := sim.New(cfg, sim.WithEvents(), sim.WithMaxQueued(p.MaxQueued))
	if err != nil {
		return Report{}, err
	}
	window := p.Cycles - p.Warmup
	bs := make([]batch, p.Batches)
	for m.Step() {
		t := m.Cycle()
		if p.Stop != nil && t%4096 == 0 && p.Stop() {
			return Report{}, ErrStopped
		}
		if t <= p.Warmup {
			continue
		}
		b := &bs[(t-p.Warmup-1)*int64(p.Batches)/window]
		for _, e := range m.Events() {
			if e.Kind == sim.Arrive {
				b.arrivals++
			}
			if e.Kind == sim.Dispatch {
				b.service += int64(e.Request.Time)
				b.n++
				b.waits += e.Wait
				if e.Wait > 0 {
					b.waited++
				}
			}
		}
		last := m.Last()
		b.queue += int64(last.Queue)
		b.busy += int64(last.Busy)
		b.samples++
	}
	if err := m.Err(); err != nil {
		return Report{}, err
	}
	sum := m.Summary()
	r.Measured.AvgService = sum.AvgService
	if p.Tail.On() {
		r.Measured.Response = &Response{Completed: sum.Completed, AvgResponse: sum.AvgResponse,
			P50: sum.ResponseP50, P99: sum.ResponseP99}
		if sum.Admitted > 0 {
			r.Measured.Response.AttemptsPerRequest = float64(sum.Attempts) / float64(sum.Admitted)
		}
	}
	return r, r.measure(bs, float64(p.Servers))
}

// theory fills in what queueing theory says of the configuration (see
// Predict and PredictShape).
func (r *Report) theory(p Params, cfg sim.Config, mom sim.Moments) error {
	if p.Tail.On() {
		tl, err := PredictTail(cfg, p.Tail)
		if err != nil {
			return err
		}
		r.Tail = &tl
		r.TheoryError = "fan-out and hedging send a request's attempts to the servers in groups, not as a Poisson stream: no queueing model is known here for the waits; the tail theory below is for the responses"
		return nil
	}
	var pr Prediction
	var err error
	if cfg.Service == sim.Geometric {
		pr, err = Predict(p.Servers, r.Rate, float64(cfg.MeanService), p.Queues, p.Policy, p.Choices)
	} else {
		pr, err = PredictShape(p.Servers, r.Rate, mom, cfg.Service, p.Queues, p.Policy, p.Choices)
	}
	if err != nil {
		return err
	}
	r.Theory, r.Bounds, r.TheoryError = pr.Theory, pr.Bounds, pr.Why
	r.Notes = append(r.Notes, pr.Notes...)
	return nil
}

// Prediction is what queueing theory says of a fixed pool: the numbers of
// a model (Theory), or where no closed form exists, Bounds on the mean
// wait; Why says why there is neither.
type Prediction struct {
	Model  string // the model used, in words
	Theory *Theory
	Bounds *Bounds
	Notes  []string
	Why    string
}

// Predict returns the theory for c servers, λ arrivals and mean service m
// per cycle, in queue mode q with the given policy (and p2c's d; 0 means
// 2): Erlang C for the pooled queue, c × M/M/1 for random routing, the
// supermarket model for p2c (a large-c limit), and bounds for round-robin
// and least-connections. An unstable load (ρ ≥ 1) gives Why, not an error;
// the error is for invalid numbers.
func Predict(c int, lambda, m float64, q sim.QueueMode, policy sim.Policy, d int) (Prediction, error) {
	mm := queueing.MMC{Servers: c, Lambda: lambda, MeanService: m}
	pooled, err := mm.Metrics()
	switch {
	case errors.Is(err, queueing.ErrUnstable):
		return Prediction{Why: err.Error()}, nil
	case err != nil:
		return Prediction{}, err
	}
	if q == sim.Pooled {
		return Prediction{Model: "M/M/c (Erlang C)", Theory: theoryOf(pooled, "M/M/c (Erlang C)")}, nil
	}
	split, err := mm.Split()
	if err != nil {
		return Prediction{}, err
	}
	if d == 0 {
		d = sim.DefaultChoices
	}
	market := -1.0
	if t, err := queueing.Supermarket(max(d, 2), pooled.Rho, m); err == nil {
		market = t - m
	}
	switch policy.TheoryFor(d) {
	case sim.TheorySplit:
		return Prediction{Model: "c × M/M/1", Theory: theoryOf(split, "c × M/M/1"),
			Notes: []string{fmt.Sprintf("%v routing splits the traffic into c independent M/M/1 queues, each fed λ/c: Wq = ρ·m/(1−ρ)", policy)}}, nil
	case sim.TheorySupermarket:
		x := split
		x.Wq, x.W = market, market+m
		x.Lq, x.L = lambda*x.Wq, lambda*x.W
		x.PWait = pooled.Rho // P(the least loaded of d is busy) in the limit: ρ^d
		for range d - 1 {
			x.PWait *= pooled.Rho
		}
		return Prediction{Model: fmt.Sprintf("supermarket, d = %d", d), Theory: theoryOf(x, fmt.Sprintf("supermarket, d = %d", d)),
			Notes: []string{fmt.Sprintf("%v: the supermarket model (Mitzenmacher), T = m·Σ ρ^((d^i−d)/(d−1)) with d = %d; a limit for large c: with few servers the measured wait lies above it", policy, d)}}, nil
	case sim.TheoryBetweenSplit:
		return Prediction{Model: "bounds", Bounds: &Bounds{WqLow: pooled.Wq, WqHigh: split.Wq,
			Note: fmt.Sprintf("no closed form: %v (each server fed an Erlang-c arrival stream) waits less than random routing (c × M/M/1) and more than the pooled queue (Erlang C)", policy)}}, nil
	case sim.TheoryBetweenMarket:
		hi := split.Wq
		if market >= 0 {
			hi = market
		}
		return Prediction{Model: "bounds", Bounds: &Bounds{WqLow: pooled.Wq, WqHigh: hi,
			Note: fmt.Sprintf("no closed form: %v (join the shortest queue) waits more than the pooled queue (Erlang C) and less than p2c (its supermarket limit shown as the upper bound)", policy)}}, nil
	}
	return Prediction{Why: fmt.Sprintf("no queueing model is known here for %v routing to per-server queues", policy)}, nil
}

// theoryOf turns a model's metrics into a Theory labelled model.
func theoryOf(x queueing.Metrics, model string) *Theory {
	return &Theory{Model: model, Rho: x.Rho, PWait: x.PWait, Wq: x.Wq, Lq: x.Lq, W: x.W, L: x.L, Utilisation: x.Utilisation}
}

// The models of PredictShape, as Theory.Model names them.
const (
	ModelPollaczekKhinchine = "c × M/G/1 (Pollaczek–Khinchine)"
	ModelAllenCunneen       = "M/G/c (Allen–Cunneen approximation)"
)

// PredictShape returns the theory for c servers, λ arrivals per cycle and
// service times of the given shape with moments mom (sim.ServiceMoments):
// for random routing to per-server queues, c independent M/G/1 queues by
// Pollaczek–Khinchine (exact); for the pooled queue, the Allen–Cunneen
// approximation, labelled so. Other routings have no model here (Why):
// p2c among them unless it draws d = 1 candidate (p2c's d, 0 meaning
// sim.DefaultChoices), which is random routing.
func PredictShape(c int, lambda float64, mom sim.Moments, shape sim.Service, q sim.QueueMode, policy sim.Policy, d int) (Prediction, error) {
	g := queueing.MGC{Servers: c, Lambda: lambda, Mean: mom.Mean, Second: mom.Second}
	var x queueing.Metrics
	var err error
	var pr Prediction
	switch {
	case q == sim.Pooled:
		x, err = g.AllenCunneen()
		pr = Prediction{Model: ModelAllenCunneen, Notes: []string{fmt.Sprintf(
			"Allen–Cunneen is an approximation: Erlang C's Wq at the same mean, times (1 + cs²)/2 with cs² = %.4g the service times' squared coefficient of variation", g.SCV())}}
	case policy.TheoryFor(d) == sim.TheorySplit:
		x, err = g.Split()
		pr = Prediction{Model: ModelPollaczekKhinchine, Notes: []string{
			"random routing splits the traffic into c independent M/G/1 queues, each fed λ/c: Wq = λ₁·E[S²] ÷ (2(1 − ρ)), from the exact moments of the times drawn"}}
	default:
		return Prediction{Why: fmt.Sprintf("no queueing model is known here for %v routing to per-server queues with %v service times (random routing has one: c × M/G/1)", policy, shape)}, nil
	}
	switch {
	case errors.Is(err, queueing.ErrUnstable):
		return Prediction{Why: err.Error()}, nil
	case err != nil:
		return Prediction{}, err
	}
	pr.Theory = theoryOf(x, pr.Model)
	return pr, nil
}

// minBatchDispatches is the fewest dispatches a batch must hold to carry
// information of its own; smaller batches are merged (mergeSmall).
const minBatchDispatches = 10

func (b *batch) add(o batch) {
	b.n += o.n
	b.waits += o.waits
	b.waited += o.waited
	b.service += o.service
	b.arrivals += o.arrivals
	b.queue += o.queue
	b.busy += o.busy
	b.samples += o.samples
}

// mergeSmall merges every batch with fewer than minBatchDispatches
// dispatches into the next one (a short last one into the one before), so
// that no batch is empty or nearly so: such a batch's ratio is noise, and an
// empty one would count as a batch without a measurement.
func mergeSmall(bs []batch) []batch {
	var out []batch
	var carry batch
	for _, b := range bs {
		carry.add(b)
		if carry.n >= minBatchDispatches {
			out = append(out, carry)
			carry = batch{}
		}
	}
	if carry.samples > 0 {
		if len(out) == 0 {
			return []batch{carry}
		}
		out[len(out)-1].add(carry)
	}
	return out
}

// measure turns the batches into point estimates and intervals. Each
// estimate is the pooled ratio over the whole window (total wait ÷
// dispatches, and so on), and its interval is centred on it with the
// half-width of the batch means: so an estimate always lies inside its own
// interval.
func (r *Report) measure(bs []batch, c float64) error {
	var tot batch
	for _, b := range bs {
		tot.add(b)
	}
	asked := len(bs)
	if bs = mergeSmall(bs); len(bs) < asked {
		r.Notes = append(r.Notes, fmt.Sprintf("%d of the %d batches held fewer than %d dispatches and were merged with their neighbours: the intervals use %d batches", asked-len(bs), asked, minBatchDispatches, len(bs)))
	}
	var wq, lq, pw queueing.BatchMeans // fed whole batches: AddBatch needs no size
	for _, b := range bs {
		if b.n > 0 {
			wq.AddBatch(float64(b.waits), int(b.n))
			pw.AddBatch(float64(b.waited), int(b.n))
		}
		if b.samples > 0 {
			lq.AddBatch(float64(b.queue), int(b.samples))
		}
	}
	ms := &r.Measured
	ms.Dispatched, ms.Batches = tot.n, len(bs)
	if tot.n > 0 {
		ms.Wq = float64(tot.waits) / float64(tot.n)
		ms.PWait = float64(tot.waited) / float64(tot.n)
		ms.W = float64(tot.waits+tot.service) / float64(tot.n) // sojourn = wait + service
		ms.MeanService = float64(tot.service) / float64(tot.n)
	}
	if tot.samples > 0 {
		ms.Lq = float64(tot.queue) / float64(tot.samples)
		busy := float64(tot.busy) / float64(tot.samples)
		ms.Utilisation = busy / c
		ms.Rho = ms.Utilisation
		ms.L = ms.Lq + busy
		ms.Lambda = float64(tot.arrivals) / float64(tot.samples)
	}
	for _, ci := range []struct {
		bm       *queueing.BatchMeans
		estimate float64
		dst      *[2]float64
	}{{&wq, ms.Wq, &ms.WqCI}, {&lq, ms.Lq, &ms.LqCI}, {&pw, ms.PWait, &ms.PWaitCI}} {
		iv, err := ci.bm.Interval()
		if err != nil {
			return fmt.Errorf("too few measurements for an interval (%d requests dispatched after the warm-up, in %d batches of at least %d): run longer or use fewer --batches", tot.n, len(bs), minBatchDispatches)
		}
		*ci.dst = [2]float64{ci.estimate - iv.HalfWidth, ci.estimate + iv.HalfWidth}
	}
	return nil
}

// routing maps the policy table's theories to the queueing package's
// routing models.
var routing = map[sim.Theory]queueing.Routing{
	sim.TheoryNone:          queueing.RoutingNone,
	sim.TheorySplit:         queueing.RoutingSplit,
	sim.TheorySupermarket:   queueing.RoutingSupermarket,
	sim.TheoryBetweenSplit:  queueing.RoutingBounds,
	sim.TheoryBetweenMarket: queueing.RoutingBounds,
}

// FitInput describes a simulator configuration for queueing.CheckFit, so a
// view can say whether M/M/c theory applies to the run on screen and why not.
// changes are the run's scheduled changes (--set and --fault): a fault
// (down, up or gray) counts as fault injection, any other change as settings
// that change during the run.
func FitInput(cfg sim.Config, changes ...sim.Change) queueing.FitInput {
	in := queueing.FitInput{
		Servers:     cfg.Servers,
		Lambda:      cfg.Rate.PerCycle(),
		Service:     cfg.Service.String(),
		Autoscaling: cfg.MinServers != cfg.MaxServers,
		Wave:        cfg.Wave && cfg.WaveAmplitude > 0,
		Faults:      cfg.MTBF > 0,
		Trace:       cfg.Trace != nil,
		Switch:      cfg.Switch,
		QueueCap:    cfg.QueueCap,
		Policy:      cfg.Policy.String(),
		Routing:     routing[cfg.Policy.TheoryFor(cfg.Choices)],
		Weighted:    cfg.Policy.ReadsWeights(sim.Pooled),
		PerServer:   cfg.Queues == sim.PerServer,
		Timeout:     cfg.Timeout,
	}
	for _, c := range changes {
		switch name := c.Setting.String(); {
		case c.IsFault():
			in.Faults = true
		case !slices.Contains(in.Changes, name):
			in.Changes = append(in.Changes, name)
		}
	}
	for _, v := range cfg.Speeds {
		in.UnequalSpeeds = in.UnequalSpeeds || v != sim.SpeedScale
	}
	switch cfg.Service {
	case sim.Uniform:
		in.MeanService = float64(cfg.TaskMin+cfg.TaskMax) / 2
	default:
		in.MeanService = float64(cfg.MeanService)
	}
	if n := len(cfg.Blocked); n > 0 {
		var blocked float64
		fw := sim.NewFirewall(cfg.Blocked)
		for _, b := range fw.Ranges() {
			blocked += float64(uint64(b.Last)-uint64(b.First)+1) / (1 << 32)
		}
		in.Lambda *= 1 - blocked // generated sources are uniform over IPv4
	}
	return in
}
