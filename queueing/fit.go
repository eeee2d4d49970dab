package queueing

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Service-time distributions understood by [CheckFit], as lbsim names them.
const (
	ServiceGeometric = "geometric" // mean m cycles: the discrete form of exponential, as M/M/c needs
	ServiceUniform   = "uniform"   // whole cycles from tmin to tmax, lbsim's default
	ServiceConstant  = "constant"  // every request takes exactly m cycles
)

// generalShapes are lbsim's other service shapes: M/G/c, for which
// [MGC] has Pollaczek–Khinchine (random routing) and Allen–Cunneen (the
// pooled queue), not Erlang C.
var generalShapes = []string{"lognormal", "pareto", "bimodal", "empirical"}

// Routing is the queueing model known for a routing policy's per-server
// queues. With one central queue every policy only picks an idle server
// for the oldest request, so none changes how long requests wait; with
// per-server queues they route at arrival, and the model depends on them.
// The caller says which applies (lbsim's policy table does).
type Routing uint8

// The per-server routing models.
const (
	// RoutingNone: no queueing model is known.
	RoutingNone Routing = iota
	// RoutingSplit: c independent queues, each fed λ/c (random routing).
	RoutingSplit
	// RoutingSupermarket: the supermarket model (Mitzenmacher), a limit for
	// many servers (the power of d choices).
	RoutingSupermarket
	// RoutingBounds: no closed form; bounds between the pooled queue and
	// random routing, or the supermarket limit (round-robin,
	// least-connections).
	RoutingBounds
)

// FitInput describes the parts of an lbsim run's configuration that decide
// whether the run is an M/M/c queue. Times are in cycles; Lambda is mean
// arrivals per cycle.
type FitInput struct {
	Servers     int     // c, the servers at the start
	Lambda      float64 // λ, mean arrivals per cycle (after the firewall, if it blocks any)
	MeanService float64 // m, mean service time in cycles
	Service     string  // service-time distribution: ServiceGeometric, ServiceUniform or ServiceConstant
	Autoscaling bool    // the pool grows and shrinks with queue pressure
	Wave        bool    // the arrival rate follows a wave instead of staying constant
	Faults      bool    // servers go down and come back during the run
	Trace       bool    // requests come from a trace file instead of being generated
	Switch      bool    // switch mode: two balancers, each with its own queue and pool
	QueueCap    int     // queue capacity; 0 means unbounded
	Policy      string  // the dispatch policy's name, for the messages
	Routing     Routing // per-server: the model known for the policy's routing
	Weighted    bool    // pooled: the policy reads weights (a weight-0 server never serves)
	// PerServer is set when requests are routed at arrival to per-server
	// queues instead of waiting in one central queue.
	PerServer bool
	// UnequalSpeeds is set when the servers do not all serve at speed 1.
	UnequalSpeeds bool
	// Timeout, when above 0, is the cycles after which a client abandons
	// a request that has not finished (and may retry it).
	Timeout int64
	// Changes names the settings changed during the run (the --set
	// flags, a page's sliders), each once, in the order first changed.
	Changes []string
}

// Fit is the answer of [CheckFit].
type Fit struct {
	// Applies is true when the run is an M/M/c queue, so Erlang C predicts
	// its steady state; then Reasons is empty.
	Applies bool
	// Reasons says, one plain sentence each, why M/M/c does not apply.
	Reasons []string
	// Caveats are things to know when comparing a run with the theory, even
	// when it applies: the whole-cycle clock bias, slow convergence near
	// ρ = 1, and so on.
	Caveats []string
}

// String renders the fit for a terminal: a first line saying whether M/M/c
// applies, then the reasons and caveats as "  - " items.
func (f Fit) String() string {
	var sb strings.Builder
	if f.Applies {
		sb.WriteString("M/M/c applies: Erlang C predicts this run's steady state.\n")
	} else {
		sb.WriteString("M/M/c does not apply:\n")
		for _, r := range f.Reasons {
			sb.WriteString("  - " + r + "\n")
		}
	}
	if len(f.Caveats) > 0 {
		sb.WriteString("Caveats:\n")
		for _, c := range f.Caveats {
			sb.WriteString("  - " + c + "\n")
		}
	}
	return sb.String()
}

// CheckFit reports whether a run configured as in describes an M/M/c queue:
// a fixed pool of c servers, Poisson arrivals at a constant rate, geometric
// (discrete exponential) service times, one unbounded first-come-first-served
// queue, and ρ < 1. Each departure from that gives one reason; a pure M/M/c
// configuration gives none. Caveats are added for things that bias or slow
// down the comparison without invalidating it:
//
//   - m < 100: lbsim's whole-cycle clock makes the measured Wq lower than
//     Erlang C by roughly 1/m relative (an independent simulation: −2.8% to −4.8% at m = 25);
//   - ρ ≥ 0.85: the measured Wq converges slowly; trust the batch-means
//     interval, not a single number;
//   - swrr: a server of weight 0 never gets work.
//
// CheckFit never fails: invalid numbers become reasons, and Applies is true
// only when [MMC.Metrics] succeeds for the same c, λ and m. Cost: O(c).
func CheckFit(in FitInput) Fit {
	var f Fit
	reason := func(s string) { f.Reasons = append(f.Reasons, s) }
	caveat := func(s string) { f.Caveats = append(f.Caveats, s) }

	if in.Autoscaling {
		reason("autoscaling is on: the number of servers changes, but M/M/c assumes a fixed c " +
			"(turn scaling off, e.g. with min servers = max servers = c)")
	}
	if in.Faults {
		reason("fault injection is on: servers go down and come back, or fail, hang or slow down while in the pool, " +
			"but M/M/c assumes a fixed c of identical servers that never fail (and a requeued request jumps back to the head of the queue)")
	}
	if len(in.Changes) > 0 {
		reason("the settings change during the run (" + strings.Join(in.Changes, ", ") + "): " +
			"M/M/c describes one steady state under settings that stay the same")
	}
	if in.Timeout > 0 {
		reason("clients give up after " + strconv.FormatInt(in.Timeout, 10) + " cycles (a timeout), and may retry: " +
			"M/M/c assumes every request waits until it is served, and arrives once")
	}
	if in.Switch {
		reason("switch mode splits the traffic between two balancers, each with its own queue and pool; " +
			"M/M/c describes one queue in front of one pool")
	}
	if in.Trace {
		reason("requests come from a trace file; M/M/c assumes Poisson arrivals at a constant rate λ")
	}
	if in.Wave {
		reason("the arrival rate follows a wave; M/M/c assumes a constant rate λ (turn the wave off)")
	}

	switch in.Service {
	case ServiceGeometric:
	case ServiceUniform:
		reason("service times are uniform, not exponential (geometric): they vary less than M/M/c assumes, " +
			"so requests wait less than Erlang C says")
	case ServiceConstant:
		reason("service times are constant, not exponential (geometric): this is M/D/c, " +
			"where requests wait about half as long as Erlang C says")
	case "":
		reason("the service-time distribution is not given; M/M/c needs geometric (discrete exponential) service times")
	default:
		if slices.Contains(generalShapes, in.Service) {
			reason("service times are " + in.Service + ", not exponential (geometric): this is M/G/c, not M/M/c; " +
				"lbsim mmc with the same shape sets random routing beside Pollaczek–Khinchine and the pooled queue " +
				"beside the Allen–Cunneen approximation")
			break
		}
		reason("service-time distribution " + strconv.Quote(in.Service) + " is not known; allowed: " +
			strings.Join(append([]string{ServiceGeometric, ServiceUniform, ServiceConstant}, generalShapes...), ", "))
	}

	switch {
	case in.QueueCap > 0:
		reason("a queue capacity of " + strconv.Itoa(in.QueueCap) + " makes this M/M/c/K: arrivals that find " +
			"the queue full are discarded, so fewer requests wait and waits are shorter than Erlang C says " +
			"(use capacity 0, unbounded)")
	case in.QueueCap < 0:
		reason("queue capacity " + strconv.Itoa(in.QueueCap) + " is negative; allowed: 0 (unbounded) or more")
	}

	if in.UnequalSpeeds {
		reason("the servers run at different speeds; the queueing models here assume identical servers")
	}
	switch {
	case in.PerServer:
		switch in.Routing {
		case RoutingSplit:
			caveat(in.Policy + " routing to per-server queues is c independent M/M/1 queues, each fed λ/c: " +
				"theory is Wq = ρ·m/(1−ρ), not Erlang C")
		case RoutingSupermarket:
			caveat(in.Policy + "'s theory is the supermarket model (Mitzenmacher), a limit for many servers: " +
				"with few servers the measured wait lies above it")
		case RoutingBounds:
			caveat(in.Policy + " routing has no closed form: theory gives bounds (between the pooled queue's " +
				"Erlang C and random routing, or p2c's limit for least-connections)")
		default:
			reason("no queueing model is known for " + strconv.Quote(in.Policy) + " routing to per-server queues")
		}
	case in.Weighted:
		caveat("with " + in.Policy + " every server needs a weight ≥ 1: a server of weight 0 never gets work, " +
			"so fewer than c servers really serve")
	}

	q := MMC{Servers: in.Servers, Lambda: in.Lambda, MeanService: in.MeanService}
	m, err := q.Metrics() // the same validation as the theory side, overflow included
	var ie *InputError
	switch {
	case errors.As(err, &ie):
		reason(ie.Name + " = " + ie.Value + " is not allowed: " + ie.Allowed)
	case errors.Is(err, ErrUnstable):
		reason(strings.TrimPrefix(err.Error(), "queueing: "))
	case err == nil:
		if m.Rho >= 0.85 {
			caveat("ρ = " + short(m.Rho) + " is close to 1: the measured Wq settles very slowly (a simulation at " +
				"c = 5, ρ = 0.9, m = 100 was still 8.7% off after 4 million cycles); judge it by the " +
				"batch-means interval, not by a single number")
		}
	}
	if finite(in.MeanService) && in.MeanService > 0 {
		m := in.MeanService
		if m < 1 {
			reason("mean service time m = " + exact(m) + " cycles is below 1: lbsim's service times are " +
				"whole cycles ≥ 1, so their mean cannot be below 1")
		} else if m < 100 {
			pct := strconv.FormatFloat(100/m, 'f', 1, 64)
			if m <= 10 {
				pct = strconv.FormatFloat(100/m, 'f', 0, 64)
			}
			caveat("the whole-cycle clock makes the measured Wq a little lower than Erlang C, by roughly " +
				"1/m = " + pct + "% at m = " + short(m) + " cycles; " +
				"use m ≥ 100 where a match within 1–2% is wanted")
		}
	}

	f.Applies = len(f.Reasons) == 0
	return f
}
