package sim

import (
	"fmt"
	"strings"
)

// Policy chooses the server that gets a request: in the pooled mode the
// idle active server that takes the oldest queued request, in the
// per-server mode the candidate whose queue a new request joins.
//
// A Policy's number is stored in snapshots and share links: the list is
// append-only. Never reorder or remove a policy; add new ones at the end.
type Policy uint8

// The policies. Each one's behaviour in both queue modes is in its
// PolicyInfo (Info).
const (
	// FirstIdle gives the request to the idle active server with the lowest
	// id (pooled mode only).
	FirstIdle Policy = iota
	// RoundRobin takes the server that comes next by id, wrapping, after the
	// last server given a request, even if that server has since left; the
	// first request goes to the lowest id.
	RoundRobin
	// Random picks uniformly, with the run's routing generator.
	Random
	// SWRR is nginx's smooth weighted round-robin (package swrr) over the
	// idle active servers (pooled) or the candidates (per-server);
	// Config.Weights gives the weights.
	SWRR
	// LeastConnections picks the least load (queued + in service) per
	// weight; pooled, it is FirstIdle.
	LeastConnections
	// P2C draws Config.Choices distinct candidates and takes the least
	// loaded (power of d choices); pooled, it is Random.
	P2C
	// LeastWork picks the least remaining work in cycles at the server's
	// speed; pooled, the fastest idle server.
	LeastWork
	// Hash routes by consistent hashing of the source address (per-server
	// mode only).
	Hash
	// PeakEWMA draws two candidates and takes the lower peak-EWMA response
	// time × (load + 1), as Finagle and Linkerd (per-server mode only).
	PeakEWMA
	// JIQ is join-idle-queue (Lu et al., 2011): each balancer keeps a
	// queue of idle servers that registered with it and routes to its
	// head, uniformly among the candidates when it is empty (per-server
	// mode only).
	JIQ
	numPolicies
)

// PolicyInfo describes a policy: its name, what it does in each queue
// mode, the settings it reads, and how its router is made (the router
// declares what its picks read: Caps).
type PolicyInfo struct {
	Name string
	// Pooled and PerServer say what the policy does in each mode, in a
	// line; Refused, when set, is the message given when the policy is
	// asked for in a mode it does not support (empty Pooled or
	// PerServer).
	Pooled, PerServer string
	PooledRefused     string
	PerServerRefused  string
	// DefaultIn says in which queue modes it is the policy used when none
	// is given (DefaultPolicy): one policy a mode.
	DefaultIn modes
	// Params are the settings the policy owns, each with the queue modes
	// in which it reads it: their rows join the settings table (Rows), and
	// a flag of one is refused when no policy in force reads it.
	Params []PolicyParam
	// Theory is the queueing model known for its per-server routing.
	Theory Theory
	// ReadsLoad: its per-server picks read the servers' loads (or work),
	// so a fleet's load information (--load-info) changes them: its router
	// picks for each balancer by that balancer's view (fleetPicker).
	ReadsLoad bool
	// KeepsIdle: it keeps a registry of idle servers that register with a
	// balancer at the end of each cycle (join-idle-queue): a run under it
	// keeps fleet state, K = 1 too, and is stepped a cycle at a time.
	KeepsIdle bool
	// PerBalancer: each balancer of a fleet keeps its own router (the
	// state of its own picks), see fleetRouter.
	PerBalancer bool
	// newRouter makes the policy's router for a balancer (route_*.go).
	newRouter func(b *Balancer) router
}

// Reads is what a router's per-server picks read of the servers. RunTo
// routes a window of arrivals before serving them (window.go) when what
// the picks read is known without serving them: for every kind but
// ReadsLoads.
type Reads uint8

// What a per-server policy reads.
const (
	// ReadsNothing: the picks depend only on the arrivals and the
	// candidates.
	ReadsNothing Reads = iota
	// ReadsWork: each server's remaining work, as the cycle it will have
	// done all it holds. Only routing moves that cycle, until the server
	// reaches it and is free.
	ReadsWork
	// ReadsLoads: the loads of the candidates (all of them, or a few
	// drawn at random), which completions change.
	ReadsLoads
)

// policies is the one table of policies: the flag help, the page's
// selector, the theory code, the snapshot codec and the balancer (for each
// policy's router) read it. Adding a policy takes an entry here and a
// router file.
var policies = [numPolicies]PolicyInfo{
	FirstIdle: {Name: "first-idle", newRouter: newFirstIdle, DefaultIn: pooledOnly,
		Pooled:           "the idle server with the lowest id",
		PerServerRefused: "first-idle needs the pooled queue; use least-connections"},
	RoundRobin: {Name: "round-robin", newRouter: newRoundRobin, DefaultIn: perServerOnly,
		Pooled:    "the next idle server by id after the last one picked",
		PerServer: "the next candidate by id after the last one picked",
		Theory:    TheoryBetweenSplit},
	Random: {Name: "random", newRouter: newRandom,
		Pooled:    "uniform over the idle servers",
		PerServer: "uniform over the candidates",
		Theory:    TheorySplit},
	SWRR: {Name: "swrr", newRouter: newSWRR,
		Pooled:    "smooth weighted round-robin over the idle servers",
		PerServer: "smooth weighted round-robin over the candidates",
		Params:    []PolicyParam{{weightsRow, bothModes}}, PerBalancer: true},
	LeastConnections: {Name: "least-connections", newRouter: newLeastConnections,
		Pooled:    "as first-idle",
		PerServer: "the least load (queued + in service) per weight",
		Params:    []PolicyParam{{weightsRow, perServerOnly}}, Theory: TheoryBetweenMarket, ReadsLoad: true},
	P2C: {Name: "p2c", newRouter: newP2C,
		Pooled:    "uniform over the idle servers",
		PerServer: "the least loaded of --choices candidates drawn at random",
		Params:    []PolicyParam{{choicesRow, perServerOnly}}, Theory: TheorySupermarket, ReadsLoad: true},
	LeastWork: {Name: "least-work", newRouter: newLeastWork,
		Pooled:    "the fastest idle server",
		PerServer: "the least remaining work in cycles at each server's speed", ReadsLoad: true},
	Hash: {Name: "hash", newRouter: newHash,
		PooledRefused: "hash routes at arrival: use --queues per-server",
		PerServer:     "consistent hashing of the source address"},
	PeakEWMA: {Name: "peak-ewma", newRouter: newPeakEWMA,
		PooledRefused: "peak-ewma routes at arrival: use --queues per-server",
		PerServer:     "the lower cost × (load + 1) of two candidates drawn at random, cost the server's peak-EWMA response time",
		Params:        []PolicyParam{{ewmaDecayRow, perServerOnly}}, ReadsLoad: true, PerBalancer: true},
	JIQ: {Name: "jiq", newRouter: newJIQ,
		PooledRefused: "jiq routes at arrival: use --queues per-server",
		PerServer:     "join-idle-queue: the head of the balancer's queue of idle servers, else uniform over the candidates",
		KeepsIdle:     true},
}

// Theory is the queueing model known for a policy's per-server routing:
// what lbsim mmc and the page's theory panel set beside the measurement.
type Theory uint8

// The per-server routing models.
const (
	// TheoryNone: no model is known.
	TheoryNone Theory = iota
	// TheorySplit: c independent queues, each fed λ/c (random routing).
	TheorySplit
	// TheorySupermarket: the supermarket model (Mitzenmacher) of the power
	// of d choices, a limit for many servers.
	TheorySupermarket
	// TheoryBetweenSplit: no closed form; between the pooled queue and
	// the split (round-robin).
	TheoryBetweenSplit
	// TheoryBetweenMarket: no closed form; between the pooled queue and
	// the supermarket limit (join the shortest queue).
	TheoryBetweenMarket
)

// TheoryFor returns the model known for the policy's per-server routing
// drawing d candidates (Config.Choices; 0 means DefaultChoices): the power
// of one choice is random routing.
func (p Policy) TheoryFor(d int) Theory {
	th := p.Info().Theory
	if th == TheorySupermarket && d == 1 {
		return TheorySplit
	}
	return th
}

// modes is a set of queue modes, one bit each.
type modes uint8

const (
	pooledOnly    = modes(1 << Pooled)
	perServerOnly = modes(1 << PerServer)
	bothModes     = modes(1<<Pooled | 1<<PerServer)
)

func (s modes) has(q QueueMode) bool { return s&(1<<q) != 0 }

// DefaultPolicy returns the policy used in queue mode q when none is given:
// first-idle pooled, round-robin (nginx's default) per-server.
func DefaultPolicy(q QueueMode) Policy {
	for p := range numPolicies {
		if policies[p].DefaultIn.has(q) {
			return p
		}
	}
	panic("sim: the policy table names no default for queue mode " + q.String())
}

// PolicyParam is a setting a policy owns (its row) and the queue modes
// in which the policy reads it.
type PolicyParam struct {
	Row Row
	In  modes
}

// Reads reports whether the policy reads the setting called name in queue
// mode q.
func (p Policy) Reads(name string, q QueueMode) bool {
	for _, pp := range p.Info().Params {
		if pp.Row.Name == name && pp.In.has(q) {
			return true
		}
	}
	return false
}

// ReadsWeights reports whether the policy reads Config.Weights in queue
// mode q.
func (p Policy) ReadsWeights(q QueueMode) bool { return p.Reads("weights", q) }

// ReadsChoices reports whether the policy reads Config.Choices in queue
// mode q.
func (p Policy) ReadsChoices(q QueueMode) bool { return p.Reads("choices", q) }

// PoliciesReading lists, as "name (mode)" or "name", the policies for which
// reads reports true in some queue mode: the policies a setting applies to.
func PoliciesReading(reads func(Policy, QueueMode) bool) []string {
	var names []string
	for p := range numPolicies {
		pooled, each := reads(p, Pooled), reads(p, PerServer)
		switch {
		case pooled && each:
			names = append(names, p.String())
		case pooled:
			names = append(names, p.String()+" (pooled)")
		case each:
			names = append(names, p.String()+" (per-server)")
		}
	}
	return names
}

// keepsIdle reports whether the policy keeps a registry of idle servers
// (PolicyInfo.KeepsIdle), without copying its row.
func (p Policy) keepsIdle() bool { return p < numPolicies && policies[p].KeepsIdle }

// Info returns the policy's description and properties.
func (p Policy) Info() PolicyInfo {
	if p < numPolicies {
		return policies[p]
	}
	return PolicyInfo{Name: p.String()}
}

// Allowed returns "" when the policy runs in queue mode q, or the message
// that refuses it.
func (p Policy) Allowed(q QueueMode) string {
	info := p.Info()
	switch {
	case p >= numPolicies:
		return fmt.Sprintf("unknown policy number %d: allowed %s", uint8(p), strings.Join(PolicyNames(), ", "))
	case q == PerServer && info.PerServerRefused != "":
		return info.PerServerRefused
	case q == Pooled && info.PooledRefused != "":
		return info.PooledRefused
	}
	return ""
}

// String returns the policy's name as the --policy flag spells it.
func (p Policy) String() string {
	if p < numPolicies {
		return policies[p].Name
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// PolicyNames lists the policy names in their numbering order.
func PolicyNames() []string {
	names := make([]string, numPolicies)
	for i, p := range policies {
		names[i] = p.Name
	}
	return names
}

// PoliciesFor lists the policies that run in queue mode q, in numbering
// order.
func PoliciesFor(q QueueMode) []Policy {
	var ps []Policy
	for p := range numPolicies {
		if p.Allowed(q) == "" {
			ps = append(ps, p)
		}
	}
	return ps
}

// ParsePolicy reads a policy name.
func ParsePolicy(s string) (Policy, error) {
	for i, p := range policies {
		if s == p.Name {
			return Policy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown policy %q: allowed %s", quoted(s), strings.Join(PolicyNames(), ", "))
}

// QueueMode is where admitted requests wait: one central queue, or one
// queue per server. Its number is stored in snapshots: append-only.
type QueueMode uint8

// The queue modes.
const (
	// Pooled is one central FIFO feeding idle servers (the default).
	Pooled QueueMode = iota
	// PerServer routes each request at arrival to a server's own FIFO.
	PerServer
	numQueueModes
)

var queueModeNames = [numQueueModes]string{"pooled", "per-server"}

// String returns the name the --queues flag takes.
func (q QueueMode) String() string {
	if q < numQueueModes {
		return queueModeNames[q]
	}
	return fmt.Sprintf("QueueMode(%d)", uint8(q))
}

// QueueModeNames lists the queue modes' names in their numbering order.
func QueueModeNames() []string { return queueModeNames[:] }

// ParseQueueMode reads a queue mode's name.
func ParseQueueMode(s string) (QueueMode, error) {
	for i, n := range queueModeNames {
		if s == n {
			return QueueMode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown queue mode %q: allowed %s", quoted(s), strings.Join(queueModeNames[:], ", "))
}
