package mmc

import (
	"errors"
	"fmt"

	"github.com/lbsim/lbsim/queueing"
	"github.com/lbsim/lbsim/sim"
)

// LowLoad is the most load per server (hedging's extra work included) at
// which the tail theory takes parts to start at once on idle servers: at
// ρ ≤ 0.1 a part routed to an idle server when there is one rarely waits.
const LowLoad = 0.1

// TailInput is what the tail theory reads of a run besides its
// configuration: the fan-out and hedging settings.
type TailInput struct {
	Fanout      int     // K, parts a request (0: not given, as 1)
	HedgeAfter  int     // D, cycles after a part's first attempt (0 = no hedging)
	HedgeMax    int     // H, hedges a part at most (0 means 1)
	HedgeBudget float64 // F, hedges per part allowed over 1,000 cycles (0 = no budget)
}

// On reports whether the tail theory is asked for: a fan-out given (1
// included) or hedging on.
func (in TailInput) On() bool { return in.Fanout >= 1 || in.HedgeAfter > 0 }

// TailOf returns the fan-out and hedging of cfg as the tail theory reads
// them: zero (not On) when both are off.
func TailOf(cfg sim.Config) TailInput {
	var in TailInput
	if cfg.Fanout > 1 {
		in.Fanout = cfg.Fanout
	}
	if cfg.HedgeAfter > 0 {
		in.HedgeAfter, in.HedgeMax = int(cfg.HedgeAfter), max(cfg.HedgeMax, 1)
		in.HedgeBudget = float64(cfg.HedgeBudget) / sim.DecimalScale
	}
	return in
}

// Tail is what theory says of a fan-out or hedged run: the low-load
// distribution (F(t)^K, hedged or not) and the fork-join mean, each only
// where its assumptions hold; the matching Why says why not.
type Tail struct {
	Fanout     int     `json:"fanout"`
	HedgeAfter int     `json:"hedge_after"`
	HedgeMax   int     `json:"hedge_max"`
	Load       float64 `json:"load"` // ρ a server, hedging's extra work included
	// LowLoad is the no-queueing prediction; LowLoadWhy says why it does
	// not apply.
	LowLoad    *LowLoadTail `json:"low_load,omitempty"`
	LowLoadWhy string       `json:"low_load_why,omitempty"`
	// ForkJoin is Flatto–Hahn's or Nelson–Tantawi's mean, when every
	// request asks every server; ForkJoinWhy says why it does not apply.
	ForkJoin    *ForkJoinTail `json:"fork_join,omitempty"`
	ForkJoinWhy string        `json:"fork_join_why,omitempty"`
	Notes       []string      `json:"notes,omitempty"`
}

// LowLoadTail is the tail at no queueing: every part (and hedge) starts at
// once on an idle server of its own.
type LowLoadTail struct {
	Model      string `json:"model"`
	PartP50    int    `json:"part_p50"` // one part's time (its first attempt's), cycles
	PartP99    int    `json:"part_p99"`
	RequestP50 int    `json:"request_p50"` // the request's response, hedged if on
	RequestP99 int    `json:"request_p99"`
	// HedgedPartP99 is, with hedging, a part's p99 response: the first of
	// its attempts to complete (0 without hedging).
	HedgedPartP99 int `json:"hedged_part_p99,omitempty"`
	// WithinPartP99 is the share of requests that finish within a part's
	// p99: F(p99)^K for the discrete times (0.99^K for continuous ones,
	// AllWithin).
	WithinPartP99 float64 `json:"within_part_p99"`
	AllWithin     float64 `json:"all_within"`
	// AttemptsPerRequest is K × the attempts a part sends (1 + the
	// hedges); ExtraLoad the share of server-cycles hedging adds.
	AttemptsPerRequest float64 `json:"attempts_per_request"`
	ExtraLoad          float64 `json:"extra_load"`
	AvgResponse        float64 `json:"avg_response"`
}

// ForkJoinTail is the mean response of a fork-join queue.
type ForkJoinTail struct {
	Model       string  `json:"model"`
	AvgResponse float64 `json:"avg_response"`
	Exact       bool    `json:"exact"`
}

// PredictTail returns the tail theory for cfg with fan-out and hedging as
// in (see Tail). It fails only on numbers no run can have; a theory that
// does not apply is a Why.
func PredictTail(cfg sim.Config, in TailInput) (Tail, error) {
	in.Fanout, in.HedgeMax = max(in.Fanout, 1), max(in.HedgeMax, 1)
	tl := Tail{Fanout: in.Fanout}
	if in.HedgeAfter > 0 {
		tl.HedgeAfter, tl.HedgeMax = in.HedgeAfter, in.HedgeMax
	}
	survive, limit := sim.ServiceSurvival(&cfg)
	part := queueing.Times{Survive: survive, Max: limit}
	lambda := FitInput(cfg).Lambda
	attempts, extra := 1.0, 0.0
	if in.HedgeAfter > 0 {
		c, err := queueing.Hedging(part, in.HedgeAfter, in.HedgeMax)
		if err != nil {
			return Tail{}, err
		}
		attempts, extra = c.Attempts, c.ExtraLoad
	}
	mean := part.Mean()
	tl.Load = lambda * float64(in.Fanout) * mean * (1 + extra) / float64(cfg.Servers)
	if why := fitWhy(cfg); why != "" {
		tl.LowLoadWhy, tl.ForkJoinWhy = why, why
		return tl, nil
	}
	var err error
	tl.LowLoad, tl.LowLoadWhy, err = lowLoad(cfg, in, part, attempts, extra, tl.Load)
	if err != nil {
		return Tail{}, err
	}
	tl.ForkJoin, tl.ForkJoinWhy, err = forkJoin(cfg, in, lambda*mean)
	if err != nil {
		return Tail{}, err
	}
	tl.Notes = append(tl.Notes, tailNotes(cfg, in, tl.LowLoad, tl.ForkJoin)...)
	return tl, nil
}

// fitWhy returns why no tail theory applies to cfg whatever its fan-out,
// or "": the reasons M/M/c gives that are not about the service shape or
// the routing policy (a pool that changes, faults, timeouts, a trace, a
// wave, unequal speeds, two balancers).
func fitWhy(cfg sim.Config) string {
	in := FitInput(cfg)
	in.Service, in.Routing, in.MeanService = queueing.ServiceGeometric, queueing.RoutingSplit, max(in.MeanService, 100)
	in.Lambda, in.QueueCap = 0, 0 // the load is judged by each theory; at low load no queue fills
	fit := queueing.CheckFit(in)
	if fit.Applies {
		return ""
	}
	return "no closed form: " + fit.Reasons[0]
}

// lowLoad returns the no-queueing tail, or why it does not apply.
func lowLoad(cfg sim.Config, in TailInput, part queueing.Times, attempts, extra, load float64) (*LowLoadTail, string, error) {
	resp := part
	model := fmt.Sprintf("no queueing: P(response ≤ t) = F(t)^%d", in.Fanout)
	if in.HedgeAfter > 0 {
		h, err := queueing.Hedged(part, in.HedgeAfter, in.HedgeMax)
		if err != nil {
			return nil, "", err
		}
		resp = h
		model = fmt.Sprintf("no queueing, hedged after %d: P(part > t) = Π (1 − F(t − j·%d)), j = 0…%d; P(response ≤ t) = (1 − that)^%d", in.HedgeAfter, in.HedgeAfter, in.HedgeMax, in.Fanout)
	}
	if why := lowLoadWhy(cfg, in, resp, attempts, load); why != "" {
		return nil, why, nil
	}
	req, err := queueing.FanOut(resp, in.Fanout)
	if err != nil {
		return nil, "", err
	}
	lt := &LowLoadTail{Model: model, AttemptsPerRequest: float64(in.Fanout) * attempts, ExtraLoad: extra,
		AllWithin: queueing.AllWithin(in.Fanout, 0.99), AvgResponse: req.Mean()}
	errs := []error{}
	for _, q := range []struct {
		d   queueing.Times
		p   float64
		dst *int
	}{{part, 0.5, &lt.PartP50}, {part, 0.99, &lt.PartP99}, {req, 0.5, &lt.RequestP50}, {req, 0.99, &lt.RequestP99}} {
		v, err := q.d.Quantile(q.p)
		*q.dst, errs = v, append(errs, err)
	}
	if in.HedgeAfter > 0 {
		v, err := resp.Quantile(0.99)
		lt.HedgedPartP99, errs = v, append(errs, err)
	}
	all, err := queueing.FanOut(part, in.Fanout)
	lt.WithinPartP99 = all.CDF(lt.PartP99)
	return lt, "", errors.Join(append(errs, err)...)
}

// lowLoadWhy returns why the low-load model does not apply, or "";
// resp is the distribution of a part's response there.
func lowLoadWhy(cfg sim.Config, in TailInput, resp queueing.Times, attempts, load float64) string {
	live := in.Fanout
	if in.HedgeAfter > 0 {
		live *= 1 + in.HedgeMax
	}
	switch p := cfg.Policy; {
	case cfg.Queues != sim.PerServer:
		return "no closed form: fan-out routes each part at arrival, to per-server queues"
	case !findsIdle(cfg):
		return fmt.Sprintf("no closed form: %v routing can send a part to a busy server while others are idle; the low-load model needs a policy that finds an idle one (round-robin, swrr, least-connections, least-work, jiq or p2c, with one balancer or exact loads)", p)
	case load > LowLoad:
		return loadWhy(resp, in.Fanout, load)
	case cfg.Servers < live:
		return fmt.Sprintf("no closed form: %d servers are fewer than the %d attempts a request can hold at once, so some share a server", cfg.Servers, live)
	case in.HedgeAfter > 0 && in.HedgeBudget > 0 && attempts-1 >= in.HedgeBudget:
		return fmt.Sprintf("no closed form: a part sends %.3g hedges on average, and the budget allows %g: it denies hedges", attempts-1, in.HedgeBudget)
	}
	return ""
}

// findsIdle reports whether cfg's policy sends a part to an idle server
// when most are idle: round-robin and swrr come back to a server after it
// has long finished, least-connections and least-work take an idle one,
// jiq the head of its queue of idle servers, p2c one unless both draws
// are busy (about ρ²). Random and hash ignore the load, and peak-ewma may
// prefer a busy server of low cost (measured: its request p99 6% above
// F(t)^K's at ρ = 0.05). With several balancers, only exact loads keep
// that true (local counts herd; a balancer's idle queue may be empty).
func findsIdle(cfg sim.Config) bool {
	fleet := cfg.Balancers > 1
	switch p := cfg.Policy; p {
	case sim.RoundRobin, sim.SWRR:
		return true
	case sim.LeastConnections, sim.LeastWork:
		return !fleet || cfg.LoadInfo == sim.LoadExact
	case sim.JIQ:
		return !fleet
	case sim.P2C:
		return p.TheoryFor(cfg.Choices) != sim.TheorySplit && (!fleet || cfg.LoadInfo == sim.LoadExact)
	}
	return false
}

// loadWhy says why the low-load model does not apply at load ρ, with the
// bound it still gives: waiting only adds to an attempt's time, so the
// no-queueing p99 of a request (parts of time d) is a floor under it.
func loadWhy(d queueing.Times, k int, load float64) string {
	why := fmt.Sprintf("no closed form: at ρ = %.3g a server, above %g, parts may queue", load, LowLoad)
	if r, err := queueing.FanOut(d, k); err == nil {
		if p99, err := r.Quantile(0.99); err == nil {
			why += fmt.Sprintf("; without queueing a request's p99 would be %d cycles, a floor under it", p99)
		}
	}
	return why
}

// forkJoin returns the fork-join mean, or why it does not apply: every
// request asks every server (K = c, 2 … 32), geometric service, no
// hedging, ρ = λ·m < 1.
func forkJoin(cfg sim.Config, in TailInput, rho float64) (*ForkJoinTail, string, error) {
	switch {
	case in.Fanout < 2 || in.Fanout != cfg.Servers:
		return nil, fmt.Sprintf("no closed form: fork-join theory needs every request to ask every server (fan-out %d, %d servers)", in.Fanout, cfg.Servers), nil
	case in.Fanout > queueing.MaxForkJoin:
		return nil, fmt.Sprintf("no closed form: Nelson and Tantawi's approximation covers 2 to %d servers", queueing.MaxForkJoin), nil
	case cfg.Service != sim.Geometric:
		return nil, fmt.Sprintf("no closed form: fork-join theory needs geometric (exponential) service, and the service is %v", cfg.Service), nil
	case in.HedgeAfter > 0:
		return nil, "no closed form: hedging leaves no server free to hedge on when every request asks every server", nil
	}
	r, exact, err := queueing.ForkJoin(in.Fanout, rho, float64(cfg.MeanService))
	switch {
	case errors.Is(err, queueing.ErrUnstable):
		return nil, fmt.Sprintf("no steady state: each server's load ρ = λ·m = %.3g ≥ 1", rho), nil
	case err != nil:
		return nil, "", err
	}
	model := fmt.Sprintf("fork-join, Nelson–Tantawi approximation: R_%d = [H_%d/H₂ + (1 − H_%d/H₂)·4ρ/11]·R₂", in.Fanout, in.Fanout, in.Fanout)
	if exact {
		model = "fork-join, Flatto–Hahn (exact): R₂ = (12 − ρ)/8 · m/(1 − ρ)"
	}
	return &ForkJoinTail{Model: model, AvgResponse: r, Exact: exact}, "", nil
}

// tailNotes are the caveats of the tail theories that apply.
func tailNotes(cfg sim.Config, in TailInput, lt *LowLoadTail, fj *ForkJoinTail) []string {
	var notes []string
	if lt != nil && in.Fanout > 1 {
		notes = append(notes, fmt.Sprintf("a request's p99 is a part's %.6g-quantile (0.99^(1/%d)): only %.3g%% of requests finish within a part's p99 at no queueing",
			1-queueing.FanOutTail(in.Fanout, 0.99), in.Fanout, 100*queueing.AllWithin(in.Fanout, 0.99)))
	}
	if lt != nil && in.HedgeAfter > 0 {
		notes = append(notes, fmt.Sprintf("hedging after %d cycles sends about 1 − F(%d) = %.3g more attempts a part at no queueing, and adds %.3g%% to the servers' work",
			in.HedgeAfter, in.HedgeAfter, lt.AttemptsPerRequest/float64(in.Fanout)-1, 100*lt.ExtraLoad))
	}
	if fj != nil && cfg.MeanService < 100 {
		notes = append(notes, fmt.Sprintf("m = %d < 100: the whole-cycle clock makes measured responses a little lower than the fork-join formulas, by roughly 1/m", cfg.MeanService))
	}
	return notes
}
