package sim_test

// This file is a plain reference model of the clock, written from the
// model's rules (the package documentation and README) against sim's public
// API only: slices and scans, no index, ring, wheel, window or shortcut. The
// differential tests (reference_diff_test.go) run it beside the real model
// and compare every event, every timeline row and the summary.
//
// What it does not rewrite: the request stream. Requests come from a second
// sim.Model that only generates them (refRequests), or from the trace; the
// point here is plain policies and a plain clock, not a second copy of the
// arrival generator. The routing and fault generators are drawn plainly from
// math/rand/v2, as the model documents them.
//
// It follows the client side's and detection's rules (docs/cli.md and the
// README describe them) plainly too: each attempt carries its arrival and
// deadline and is found by scanning every queue at step a′; a request's
// retries are counted in a map; a granted retry waits in a list until its
// step b; the retry budget counts grants and first admissions in the last
// 1,000 cycles by scanning lists of cycles; the jitter is drawn from its
// own generator (stream "lbsim-ry"); a server's health runs, errors,
// ejection, warm-up and the cycle since which it has been out are fields
// of it; the candidates are brought up to date (sync) after every change
// of a server's state. Gray faults change how the attempts dispatched to a
// server end (slow, failing, hanging).
//
// Each policy's plain pick is one entry of refPolicies, keyed by sim.Policy;
// reference_policies_test.go registers today's, and a new policy registers
// its own from its own test file (registerRefPolicy in an init function).

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"

	"github.com/lbsim/lbsim/detmath"
	"github.com/lbsim/lbsim/sim"
)

// The PCG stream constants of the model's generators: with the seed, they
// define the routing and fault streams (sim/model.go).
const (
	refFaultStream    = 0x6c6273696d2d6674 // "lbsim-ft"
	refRouteStream    = 0x6c6273696d2d7274 // "lbsim-rt"
	refRetryStream    = 0x6c6273696d2d7279 // "lbsim-ry"
	refFleetStream    = 0x6c6273696d2d666c // "lbsim-fl"
	refThrottleStream = 0x6c6273696d2d7468 // "lbsim-th"
	refPartsStream    = 0x6c6273696d2d7074 // "lbsim-pt"
	refHedgeStream    = 0x6c6273696d2d6867 // "lbsim-hg"
)

// refPolicy is one policy written the obvious way. Pooled picks, among the
// idle active servers (ascending id), the one that takes the oldest queued
// request, or nil to leave the queue waiting; Route picks, among the
// candidates (in the routing generator's draw order, see refBalancer.cands),
// the one whose queue request r joins, or nil for the lobby. A policy the
// mode refuses may leave its func nil. The hooks are optional: Added when a
// server is created, Entered when the policy comes into force (at cycle 0
// or by a change), Completed when a server completes a request.
type refPolicy struct {
	Pooled    func(b *refBalancer, idle []*refServer) *refServer
	Route     func(b *refBalancer, r *refReq, cands []*refServer) *refServer
	Added     func(b *refBalancer, s *refServer)
	Entered   func(b *refBalancer)
	Completed func(b *refBalancer, s *refServer, r *refReq)
}

// refPolicies holds each policy's plain version.
var refPolicies = map[sim.Policy]refPolicy{}

// registerRefPolicy adds policy p's plain version; each policy registers
// once.
func registerRefPolicy(p sim.Policy, rp refPolicy) {
	if _, dup := refPolicies[p]; dup {
		panic(fmt.Sprintf("reference: policy %v registered twice", p))
	}
	refPolicies[p] = rp
}

// refReq is an attempt of a request: the request as the events show it
// (Arrival is the request's first arrival, Retry set on a retry), the cycle
// the attempt arrived, its deadline (0: none), and the cycle its wait
// counts from (its arrival, or the cycle a failed server gave it back).
type refReq struct {
	sim.Request
	arrived, deadline int64
	from              int64
	// routed is the cycle it last joined a server's queue (per-server).
	routed int64
	// joined is the cycle it last joined the queue it is in (shedding
	// reads it).
	joined int64
	// bal is the attempt's balancer in a fleet, from 0.
	bal int
	// hedge is the attempt of its part (0 the first, h hedge h) and sent
	// its place in the order of sending (hedging).
	hedge uint8
	sent  int64
}

// refServer is one server, live, down or gone.
type refServer struct {
	m      *refModel
	id     int
	speed  sim.Speed
	weight int
	busy   bool
	req    refReq // in service, when busy
	done   int64  // completion cycle, when busy (refNever for a hanging attempt)
	// ends is how the attempt in service ends (the gray state it was
	// dispatched under); abandoned: its client gave up on it (timeout) at
	// cycle abandonedAt and the server works on.
	ends        sim.Gray
	started     int64 // the cycle the attempt in service was dispatched
	abandoned   bool
	abandonedAt int64
	// retiring: serves what it holds, then leaves; down: failed; gone:
	// left the pool for good.
	retiring, down, gone bool
	queue                []refReq // its own queue (per-server)
	emptyAt              int64    // the last cycle at whose end its queue was empty
	score                []int64  // smooth weighted round-robin's current, by balancer of the fleet
	// state is a policy's own per-server value (its hooks keep it).
	state any
	// gray is the server's gray state, slow its slow factor (Slow).
	gray sim.Gray
	slow sim.Speed
	// Detection: ejected (byHealth: by the health checks, else by
	// outlier ejection until cycle until), its ejections since its last
	// completion, its run of errors, its runs of failed and passed
	// probes; warming until its Ready; outSince is the cycle since which
	// it has been down or ejected without a break (−1: it is neither);
	// refused: it refused an attempt in this cycle's dispatch.
	ejected, byHealth bool
	until             int64
	ejections, errRun int
	fails, passes     int
	warming           bool
	readyAt           int64
	outSince          int64
	refused           bool
	known             bool // down, and the balancer knows it
}

// refNever is the done cycle of a hanging attempt: after any run.
const refNever = 1 << 62

// A down server keeps its slot: live. A candidate takes new work: live,
// not retiring, ejected or warming, and not down unless the balancer does
// not know it: it went down while the health checks were on, and they have
// not been turned off since (the balancer learns of it only by them).
func (s *refServer) live() bool { return !s.gone }
func (s *refServer) active() bool {
	return !s.gone && !s.retiring && !s.ejected && !s.warming && (!s.down || !s.known)
}
func (s *refServer) idleActive() bool { return s.active() && !s.busy }

// cycles returns how long s takes for a request of work time at speed 1:
// ⌈time·100 ÷ speed⌉.
func (s *refServer) cycles(time uint32) int64 {
	return (int64(time)*sim.SpeedScale + int64(s.speed) - 1) / int64(s.speed)
}

// Load is the requests queued at s plus the one in service.
func (s *refServer) Load() int64 {
	n := int64(len(s.queue))
	if s.busy {
		n++
	}
	return n
}

// Work is the cycles s needs at cycle t for all it holds: what remains of
// the request in service and the service cycles of its queue.
func (s *refServer) Work(t int64) int64 {
	var w int64
	if s.busy {
		w = s.done - t
	}
	for _, r := range s.queue {
		w += s.cycles(r.Time)
	}
	return w
}

// refBalancer is one pool with its queue (pooled) or its servers' queues
// and lobby (per-server).
type refBalancer struct {
	m       *refModel
	index   int
	servers []*refServer // by id − 1
	queue   []refReq     // pooled: the central queue
	emptyAt int64        // pooled: the last cycle at whose end the queue was empty
	lobby   []refReq     // per-server
	// cands are the candidates' ids in the order the routing generator
	// draws from: a new candidate is appended, and one that stops being a
	// candidate is replaced by the last.
	cands []int
	// rrLast is the last server given a request (pooled: dispatched to;
	// per-server: routed to), where round-robin goes on from; in a fleet,
	// each balancer's (rrLasts).
	rrLast  int
	rrLasts []int
	// The fleet: the periodic board ([load, work] by server id, refreshed
	// at the multiples of T) and what each balancer sent since;
	// join-idle-queue's queues of idle servers and whom each server
	// registered with (balancer + 1); each balancer's picks, by server id.
	board map[int][2]int64
	sent  []map[int][2]int64
	iq    [][]int
	reg   map[int]int
	picks []map[int]int64
	tally []sim.FleetShare
	// state is a policy's own balancer-wide value (its hooks keep it).
	state map[sim.Policy]any

	tot          sim.Totals
	last         sim.CycleStats
	waits, resps []int64
	// Fan-out: the parts sent (admitted × K), and the server step a is
	// at (0 outside step a): a sibling cancelled at a higher id has not
	// been served this cycle. dues are step a′'s attempts not yet taken
	// (a cancellation may take one first).
	parts  int64
	stepAt int
	dues   []*refDue
	// transit: the attempts a server gave back being routed again.
	transit []*refDue
	// The client side: retries granted but not yet arrived; the cycles
	// of the first attempts admitted and of the retries granted (the
	// retry budget's window).
	retrying       []refRetry
	admits, grants []int64
	// tt is target tracking's record (reference_target_test.go).
	tt refTarget
	// The throttle: the attempts that reached it and the attempts
	// completed, by cycle; the completions counted up to the last cycle.
	thReq, thAcc map[int64]int64
	thDone       int64
	// The concurrency limit (reference_limit_test.go): the pool's
	// adaptive limit and each server's, by id (0 or absent: the start
	// value).
	poolLimit int
	limits    map[int]int
}

// refRetry is a granted retry, due at step b of cycle due.
type refRetry struct {
	due int64
	r   refReq
}

// refRepair is a random fault's pending comeback.
type refRepair struct {
	cycle int64
	id    int
	bal   int
}

// refModel is the reference model of one run.
type refModel struct {
	cfg   sim.Config
	reqs  refRequests
	route *rand.Rand
	fpcg  *rand.PCG
	frng  *rand.Rand
	retry *rand.Rand // the retry generator (jitter)
	fleet *rand.Rand // the fleet generator (balancers, registrations)
	throt *rand.Rand // the throttle generator
	k     int        // the fleet's balancers
	// startInfo is the load information the run started with (the
	// summary's).
	startInfo sim.LoadInfo
	bal       []*refBalancer
	pending   []sim.Change
	repairs   []refRepair // in the order scheduled
	cycle     int64
	events    []sim.Event
	// tries holds, by request id, the retries granted to the request.
	tries map[int64]int
	// Fan-out: K, the parts generator, and the requests in flight (by
	// id: the parts not yet completed).
	fanK  int
	parts *rand.PCG
	fan   map[int64]int
	// fanBal holds, by request id, the balancer of a request in fan.
	fanBal map[int64]int
	// Hedging: on, the hedge generator, the attempts sent so far, the
	// requests hedged (by id) and the budget's records.
	hedging bool
	hgen    *rand.PCG
	seq     int64
	hedged  map[int64]*refHedged
	hsent   [2][]int64 // by balancer, the cycle of every hedge sent
	psent   [2][]int64 // by balancer, the cycle of every part first sent
	// The switch's peaks over both balancers' end-of-cycle totals.
	peakQueue              int64
	serversMin, serversMax int
}

func (m *refModel) perServer() bool { return m.cfg.Queues == sim.PerServer }

func (m *refModel) policy() refPolicy {
	rp, ok := refPolicies[m.cfg.Policy]
	if !ok {
		panic(fmt.Sprintf("reference: no plain version of policy %v (register one with registerRefPolicy)", m.cfg.Policy))
	}
	return rp
}

// newRef builds the reference run of cfg with changes (both as the real
// model accepted them) and runs cycle 0.
func newRef(cfg sim.Config, changes []sim.Change) (*refModel, error) {
	reqs, err := newRefRequests(cfg, changes)
	if err != nil {
		return nil, err
	}
	m := &refModel{
		cfg:       cfg.Clone(),
		reqs:      reqs,
		route:     rand.New(rand.NewPCG(cfg.Seed, refRouteStream)),
		fpcg:      rand.NewPCG(cfg.Seed, refFaultStream),
		retry:     rand.New(rand.NewPCG(cfg.Seed, refRetryStream)),
		fleet:     rand.New(rand.NewPCG(cfg.Seed, refFleetStream)),
		throt:     rand.New(rand.NewPCG(cfg.Seed, refThrottleStream)),
		k:         max(cfg.Balancers, 1),
		startInfo: cfg.LoadInfo,
		pending:   slices.Clone(changes),
		tries:     map[int64]int{},
		fanK:      max(cfg.Fanout, 1),
		parts:     rand.NewPCG(cfg.Seed, refPartsStream),
		fan:       map[int64]int{},
		fanBal:    map[int64]int{},
		hedging:   refHedging(cfg, changes),
		hgen:      rand.NewPCG(cfg.Seed, refHedgeStream),
		hedged:    map[int64]*refHedged{},
	}
	m.frng = rand.New(m.fpcg)
	slices.SortStableFunc(m.pending, func(a, b sim.Change) int { return int(a.Cycle - b.Cycle) })
	n := 1
	if cfg.Switch {
		n = 2
	}
	for i := range n {
		b := &refBalancer{m: m, index: i, emptyAt: -1, state: map[sim.Policy]any{}, board: map[int][2]int64{}, reg: map[int]int{},
			rrLasts: make([]int, m.k), iq: make([][]int, m.k), thReq: map[int64]int64{}, thAcc: map[int64]int64{}}
		for range m.k {
			b.sent = append(b.sent, map[int][2]int64{})
			b.picks = append(b.picks, map[int]int64{})
			b.tally = append(b.tally, sim.FleetShare{})
		}
		m.bal = append(m.bal, b)
		if e := m.policy().Entered; e != nil {
			e(b)
		}
		for range cfg.Servers {
			b.addServer(false)
		}
	}
	for _, r := range m.reqs.at(0) {
		m.arrive(r, 0)
	}
	for _, b := range m.bal {
		b.tot.InitialQueue = int64(b.queued())
		if m.fanK > 1 || refHedgingFromStart(cfg) {
			b.tot.InitialQueue = b.tot.Admitted // the queues hold parts
		}
		b.tot.ServersMin = math.MaxInt
		b.dispatch(0)
		if m.cfg.LoadInfo > 0 {
			b.refresh(0)
		}
		b.register()
	}
	m.serversMin = math.MaxInt
	m.record()
	return m, nil
}

func (m *refModel) emit(b *refBalancer, kind sim.EventKind, server int, wait int64, r sim.Request) {
	m.events = append(m.events, sim.Event{Cycle: m.cycle, Kind: kind, Balancer: b.index, Server: server, Wait: wait, Request: r})
}

// step runs cycle t = cycle + 1, each step for P, then for S: changes,
// random faults, the warming servers that are ready; a work; a′
// timeouts; b the lobby, retries, arrivals; c probes, ejection ends,
// replacement (each balancer), then scaling; d dispatch; e record.
func (m *refModel) step() {
	t := m.cycle + 1
	m.cycle = t
	m.events = m.events[:0]
	for _, b := range m.bal {
		b.last = sim.CycleStats{Cycle: t}
		for _, s := range b.servers {
			s.refused = false
		}
	}
	m.applyChanges(t)
	if m.cfg.MTBF > 0 {
		m.randomFaults(t)
	}
	for _, b := range m.bal {
		b.ready(t)
	}
	for _, b := range m.bal {
		b.work(t)
	}
	for _, b := range m.bal {
		b.timeouts(t)
	}
	for _, b := range m.bal {
		b.drainLobby(t)
	}
	for _, b := range m.bal {
		b.retries(t)
	}
	if m.hedging {
		for _, b := range m.bal {
			b.hedges(t) // P's, then S's
		}
	}
	for _, r := range m.reqs.at(t) {
		m.arrive(r, t)
	}
	for _, b := range m.bal {
		if I := m.cfg.HealthInterval; I > 0 && t%I == 0 {
			b.probe(t)
		}
		b.ejectionEnds(t)
		if R := m.cfg.ReplaceAfter; R > 0 {
			b.replace(t, R)
		}
	}
	for _, b := range m.bal {
		if T := int64(m.cfg.LoadInfo); T > 0 && t%T == 0 {
			b.refresh(t)
		}
	}
	switch {
	case m.cfg.Autoscaler == sim.TargetTracking:
		if p, _, _, _ := refTargetValues(&m.cfg); t%p == 0 {
			for _, b := range m.bal {
				b.targetEvaluate(t)
			}
		}
	case t%m.cfg.Cooldown == 0:
		for _, b := range m.bal {
			b.scale(t)
		}
	}
	for _, b := range m.bal {
		b.dispatch(t)
		b.register()
	}
	m.record()
}

// applyChanges applies the changes of cycle t: the settings first, the
// whole batch, then its faults in order.
func (m *refModel) applyChanges(t int64) {
	j := 0
	for j < len(m.pending) && m.pending[j].Cycle == t {
		j++
	}
	batch := m.pending[:j]
	m.pending = m.pending[j:]
	old := m.cfg.Policy
	for _, c := range batch {
		v := c.Value
		switch c.Setting {
		case sim.SetRate:
			m.cfg.Rate = sim.Rate(v)
		case sim.SetWave:
			m.cfg.Wave = v != 0
		case sim.SetScaleUp:
			m.cfg.ScaleUp = sim.Factor(v)
		case sim.SetScaleDown:
			m.cfg.ScaleDown = sim.Factor(v)
		case sim.SetCooldown:
			m.cfg.Cooldown = v
		case sim.SetTaskMin:
			m.cfg.TaskMin = int(v)
		case sim.SetTaskMax:
			m.cfg.TaskMax = int(v)
		case sim.SetPolicy:
			m.cfg.Policy = sim.Policy(v)
		case sim.SetMinServers:
			m.cfg.MinServers = int(v)
		case sim.SetMaxServers:
			m.cfg.MaxServers = int(v)
		case sim.SetQueueCap:
			m.cfg.QueueCap = int(v)
		case sim.SetBlock:
			m.cfg.Blocked = append(slices.Clone(m.cfg.Blocked), sim.ValueRange(v))
		case sim.SetUnblock:
			r := sim.ValueRange(v)
			m.cfg.Blocked = slices.DeleteFunc(slices.Clone(m.cfg.Blocked), func(x sim.Range) bool { return x == r })
		case sim.SetTimeout:
			m.cfg.Timeout = v
		case sim.SetRetries:
			m.cfg.Retries = int(v)
		case sim.SetBackoff:
			m.cfg.Backoff = v
		case sim.SetJitter:
			m.cfg.Jitter = v != 0
		case sim.SetRetryBudget:
			m.cfg.RetryBudget = sim.Decimal(v)
		case sim.SetHealthInterval:
			m.cfg.HealthInterval = v
		case sim.SetHealthFall:
			m.cfg.HealthFall = int(v)
		case sim.SetHealthRise:
			m.cfg.HealthRise = int(v)
		case sim.SetEjectAfter:
			m.cfg.EjectAfter = int(v)
		case sim.SetEjectFor:
			m.cfg.EjectFor = v
		case sim.SetProvisionDelay:
			m.cfg.ProvisionDelay = v
		case sim.SetReplaceAfter:
			m.cfg.ReplaceAfter = v
		case sim.SetFailTime:
			m.cfg.FailTime = v
		case sim.SetChoices:
			m.cfg.Choices = int(v)
		case sim.SetLoadInfo:
			m.cfg.LoadInfo = sim.LoadInfo(v) // the next refresh at a multiple of the new period
		case sim.SetDiscipline:
			m.cfg.Discipline = sim.Discipline(v)
		case sim.SetCodelTarget:
			m.cfg.CodelTarget = v
		case sim.SetHedgeAfter:
			m.cfg.HedgeAfter = v // for the parts first sent from now on
		case sim.SetDown, sim.SetUp, sim.SetSlow, sim.SetFail, sim.SetHang, sim.SetHeal:
		case sim.SetScaleTarget:
			m.cfg.ScaleTarget = sim.Decimal(v)
		case sim.SetScaleTolerance:
			m.cfg.ScaleTolerance = sim.Decimal(v) // its value plus one
		case sim.SetScaleDownWindow:
			m.cfg.ScaleDownWindow = v // its value plus one
		default:
			panic(fmt.Sprintf("reference: unknown setting %v", c.Setting))
		}
	}
	if m.cfg.Policy != old {
		if e := m.policy().Entered; e != nil {
			for _, b := range m.bal {
				e(b)
			}
		}
	}
	if m.cfg.HealthInterval == 0 {
		// Health checks off: the balancer knows at once which servers
		// are down (and goes on knowing if they are turned on again).
		for _, b := range m.bal {
			for _, s := range b.servers {
				s.known = s.down
			}
			b.sync()
		}
	}
	for _, c := range batch {
		if !c.IsFault() {
			continue
		}
		ref := sim.ServerRef(c.Value)
		gray, slow := sim.Healthy, sim.Speed(0)
		switch c.Setting {
		case sim.SetSlow:
			ref, slow = sim.ValueSlow(c.Value)
			gray = sim.Slow
			if slow == sim.SpeedScale {
				gray, slow = sim.Healthy, 0
			}
		case sim.SetFail:
			gray = sim.Failing
		case sim.SetHang:
			gray = sim.Hanging
		}
		b := m.bal[ref.Balancer()]
		id := ref.ID()
		switch c.Setting {
		case sim.SetDown, sim.SetUp:
			if !b.canFault(id, c.Setting == sim.SetUp) {
				b.tot.FaultsSkipped++
				continue
			}
			if c.Setting == sim.SetUp {
				b.bringUp(id, t)
			} else {
				b.takeDown(id, t)
			}
		default:
			if id < 1 || id > len(b.servers) || b.server(id).gone || (b.server(id).gray == gray && b.server(id).slow == slow) {
				b.tot.FaultsSkipped++
				continue
			}
			s := b.server(id)
			s.gray, s.slow = gray, slow
			m.emit(b, sim.GrayFault, id, 0, sim.Request{})
		}
	}
}

// randomFaults brings back the servers due at t, then fails a Poisson
// number (mean active ÷ MTBF) of active servers, each drawn uniformly by
// id order (a draw of one down already, active because the health checks
// have not found it out, fails nothing), for a repair time drawn from
// 1..2·MTTR − 1; balancer by balancer.
func (m *refModel) randomFaults(t int64) {
	for _, b := range m.bal {
		keep := m.repairs[:0]
		var due []refRepair
		for _, r := range m.repairs {
			if r.cycle == t && r.bal == b.index {
				due = append(due, r)
			} else {
				keep = append(keep, r)
			}
		}
		m.repairs = keep
		for _, r := range due {
			if b.canFault(r.id, true) {
				b.bringUp(r.id, t)
			} else {
				b.tot.FaultsSkipped++
			}
		}
		active := b.ids((*refServer).active)
		n := refPoisson(float64(len(active))/float64(m.cfg.MTBF), m.fpcg)
		for ; n > 0 && len(active) > 0; n-- {
			id := active[m.frng.IntN(len(active))]
			if b.server(id).down {
				continue // with health checks on, a down server is active until ejected: it is down already
			}
			b.takeDown(id, t)
			m.repairs = append(m.repairs, refRepair{cycle: t + 1 + m.frng.Int64N(2*m.cfg.MTTR-1), id: id, bal: b.index})
			active = b.ids((*refServer).active)
		}
	}
}

// refPoisson draws a Poisson count of the given mean by inversion, one
// uniform of 53 bits per part, the mean split into parts of at most 500 so
// that e^−part stays a normal float; each part's count is the smallest k
// with u < P(count ≤ k), capped at part + 20·√part + 30.
func refPoisson(mean float64, r *rand.PCG) int {
	if mean <= 0 {
		return 0
	}
	parts := int(math.Ceil(mean / 500))
	part := mean / float64(parts)
	kmax := int(part + 20*math.Sqrt(part) + 30)
	n := 0
	for range parts {
		u := float64(r.Uint64()>>11) * 0x1p-53
		p := detmath.ExpNeg(part)
		f := p
		k := 0
		for u >= f && k < kmax {
			k++
			p = float64(p*part) * (1 / float64(k))
			f += p
		}
		n += k
	}
	return n
}

// arrive passes request r, arriving at t, through the firewall to its
// balancer's queue: its first attempt.
func (m *refModel) arrive(r sim.Request, t int64) {
	b := m.balOf(r)
	var times []uint32
	if m.fanOn() {
		times = m.partTimes(r) // right after the request is generated
	}
	b.tot.Generated++
	b.last.Generated++
	for _, x := range m.cfg.Blocked {
		if x.First <= r.Src && r.Src <= x.Last {
			b.tot.Rejected++
			b.last.Rejected++
			m.emit(b, sim.Reject, 0, 0, r)
			return
		}
	}
	if m.fanOn() {
		b.fanArrive(r, times, t)
		return
	}
	q := b.attempt(r, t)
	if m.perServer() {
		b.route(q, t, refFresh)
		return
	}
	if b.throttles(t) {
		b.admitted(t)
		b.throttled(q, t)
		return
	}
	if c := m.cfg.QueueCap; c > 0 && len(b.queue) >= c {
		b.tot.Discarded++
		b.last.Discarded++
		m.emit(b, sim.Discard, 0, 0, r)
		return
	}
	b.admitted(t)
	m.emit(b, sim.Arrive, 0, 0, r)
	if b.overLimit(nil) {
		b.refuseLimited(0, q, t)
		return
	}
	q.joined = t
	b.queue = append(b.queue, q)
}

// balOf returns the balancer of r's type.
func (m *refModel) balOf(r sim.Request) *refBalancer {
	if len(m.bal) == 2 && r.Type == sim.Streaming {
		return m.bal[1]
	}
	return m.bal[0]
}

// attempt returns an attempt of r arriving at t, with its deadline by the
// timeout in force.
func (b *refBalancer) attempt(r sim.Request, t int64) refReq {
	q := refReq{Request: r, arrived: t, from: t}
	if T := b.m.cfg.Timeout; T > 0 {
		q.deadline = t + T
	}
	return q
}

// admitted counts a first attempt admitted at t.
func (b *refBalancer) admitted(t int64) {
	b.tot.Admitted++
	b.admits = append(b.admits, t)
}

// record is step e.
func (m *refModel) record() {
	var q int64
	live := 0
	for _, b := range m.bal {
		b.record()
		q += int64(b.queued())
		live += b.live()
	}
	if m.cfg.Autoscaler == sim.TargetTracking {
		for _, b := range m.bal {
			b.targetSample()
		}
	}
	m.peakQueue = max(m.peakQueue, q)
	m.serversMin = min(m.serversMin, live)
	m.serversMax = max(m.serversMax, live)
}

// ids returns the ids of the servers with property ok, ascending.
func (b *refBalancer) ids(ok func(*refServer) bool) []int {
	var ids []int
	for _, s := range b.servers {
		if ok(s) {
			ids = append(ids, s.id)
		}
	}
	return ids
}

func (b *refBalancer) server(id int) *refServer { return b.servers[id-1] }

func (b *refBalancer) count(ok func(*refServer) bool) int { return len(b.ids(ok)) }
func (b *refBalancer) live() int                          { return b.count((*refServer).live) }
func (b *refBalancer) busyCount() int {
	return b.count(func(s *refServer) bool { return s.live() && s.busy })
}
func (b *refBalancer) retiringCount() int {
	return b.count(func(s *refServer) bool { return s.live() && s.retiring })
}
func (b *refBalancer) abandonedCount() int {
	return b.count(func(s *refServer) bool { return s.live() && s.busy && s.abandoned })
}

// queued returns the requests waiting: the central queue, or every server
// queue and the lobby.
func (b *refBalancer) queued() int {
	n := len(b.queue) + len(b.lobby)
	for _, s := range b.servers {
		n += len(s.queue)
	}
	return n
}

// addServer creates the next server, idle, with its speed and weight;
// warming when scaling adds it with a provision delay.
func (b *refBalancer) addServer(scaled bool) int {
	cfg := &b.m.cfg
	id := len(b.servers) + 1
	s := &refServer{m: b.m, id: id, speed: sim.SpeedScale, weight: 1, outSince: -1, emptyAt: b.m.cycle - 1}
	if id <= len(cfg.Speeds) {
		s.speed = cfg.Speeds[id-1]
	}
	if id <= len(cfg.Weights) {
		s.weight = cfg.Weights[id-1]
	}
	if P := cfg.ProvisionDelay; scaled && P > 0 {
		s.warming, s.readyAt = true, b.m.cycle+P
	}
	b.servers = append(b.servers, s)
	b.sync()
	if a := b.m.policy().Added; a != nil {
		a(b, s)
	}
	return id
}

// sync brings the candidates up to date with the servers' states: those
// that stopped being one leave (by ascending id), the new ones are
// appended (by ascending id).
func (b *refBalancer) sync() {
	for _, id := range slices.Clone(b.cands) {
		if !b.server(id).active() {
			b.uncandidate(id)
		}
	}
	for _, s := range b.servers {
		if s.active() && !slices.Contains(b.cands, s.id) {
			b.cands = append(b.cands, s.id)
		}
	}
	for _, s := range b.servers {
		out := !s.gone && (s.down || s.ejected)
		switch {
		case !out:
			s.outSince = -1
		case s.outSince < 0:
			s.outSince = b.m.cycle
		}
	}
}

// uncandidate takes id out of the candidates: the last one takes its place
// in the draw order.
func (b *refBalancer) uncandidate(id int) {
	b.unregister(id)
	i := slices.Index(b.cands, id)
	if i < 0 {
		return
	}
	n := len(b.cands) - 1
	b.cands[i] = b.cands[n]
	b.cands = b.cands[:n]
}

// candidates returns the candidates in draw order.
func (b *refBalancer) candidates() []*refServer {
	var cs []*refServer
	for _, id := range b.cands {
		cs = append(cs, b.server(id))
	}
	return cs
}

// How an attempt comes to be routed (per-server): a first attempt, a
// retry, or one routed again (taken back from a server, or out of the
// lobby).
type refRouting uint8

const (
	refFresh refRouting = iota
	refRetrying
	refAgain
)

// route sends r to the candidate the policy picks (per-server), or to the
// lobby; a first attempt or a retry is discarded when that queue already
// holds the cap. The policy picks first, then the cap is checked. An
// attempt routed to a down server (a candidate only with health checks
// on) ends in error at once.
func (b *refBalancer) route(r refReq, t int64, how refRouting) {
	m := b.m
	if how != refAgain && m.perServer() && m.k > 1 {
		r.bal = m.fleet.IntN(m.k)
	}
	if how != refAgain && b.throttles(t) {
		if how == refFresh {
			b.admitted(t)
		} else {
			b.tot.Retries++
			b.last.Retries++
		}
		b.throttled(r, t)
		return
	}
	s := b.pick(&r)
	id, n := 0, len(b.lobby)
	if s != nil {
		id, n = s.id, len(s.queue)
		b.routedTo(s, &r) // even if the cap then discards it
	}
	full := how != refAgain && m.cfg.QueueCap > 0 && n >= m.cfg.QueueCap
	switch how {
	case refFresh:
		if full {
			b.tot.Discarded++
			b.last.Discarded++
			m.emit(b, sim.Discard, id, 0, r.Request)
			return
		}
		b.admitted(t)
		m.emit(b, sim.Arrive, id, 0, r.Request)
	case refRetrying:
		b.tot.Retries++
		b.last.Retries++
		if full {
			b.tot.RetriesDiscarded++
			m.emit(b, sim.Discard, id, 0, r.Request)
			b.ended(r, t, refDiscarded, true)
			return
		}
		m.emit(b, sim.Retry, id, 0, r.Request)
	}
	if s == nil {
		b.lobby = append(b.lobby, r)
		return
	}
	if how != refAgain && !s.down && b.overLimit(s) {
		b.refuseLimited(s.id, r, t)
		return
	}
	b.enqueue(s, r, t)
}

// enqueue puts r at the back of s's queue at t, or, s being down, ends it
// in error there (after step b has started).
func (b *refBalancer) enqueue(s *refServer, r refReq, t int64) {
	if s.down {
		b.refuse(s, r, t)
		return
	}
	r.routed, r.joined = t, t
	s.queue = append(s.queue, r)
}

// refuse ends attempt r in error at down server s, which it did not
// occupy (step b or d of t).
func (b *refBalancer) refuse(s *refServer, r refReq, t int64) {
	b.tot.Errors++
	b.last.Errors++
	b.m.emit(b, sim.Error, s.id, 0, r.Request)
	b.erred(s, t)
	b.ended(r, t, refErrored, true)
}

// given notes that s was given a request (see rrLast).
func (b *refBalancer) given(s *refServer) { b.rrLast = s.id }

// routedTo notes that attempt r's balancer picked s: its round-robin
// pointer, what it sent since the board's refresh, its tally.
func (b *refBalancer) routedTo(s *refServer, r *refReq) {
	b.given(s)
	b.rrLasts[r.bal] = s.id
	x := b.sent[r.bal][s.id]
	b.sent[r.bal][s.id] = [2]int64{x[0] + 1, x[1] + s.cycles(r.Time)}
	b.picks[r.bal][s.id]++
	f := &b.tally[r.bal]
	f.Routed++
	most := int64(0)
	for _, n := range b.picks[r.bal] {
		most = max(most, n)
	}
	f.MaxShare = float64(most) / float64(f.Routed)
}

// refresh writes every live server's load and work on the board at t and
// forgets what the balancers sent.
func (b *refBalancer) refresh(t int64) {
	clear(b.board)
	for _, s := range b.servers {
		if s.live() {
			b.board[s.id] = [2]int64{s.Load(), s.Work(t)}
		}
	}
	for _, m := range b.sent {
		clear(m)
	}
}

// seen is what r's balancer believes s's load and remaining work at t are
// (LoadInfo): the board's plus what it sent since (periodic), its own
// attempts' (local, in a fleet), or the truth.
func (b *refBalancer) seen(r *refReq, s *refServer, t int64) [2]int64 {
	switch info := b.m.cfg.LoadInfo; {
	case info > 0:
		board, sent := b.board[s.id], b.sent[r.bal][s.id]
		return [2]int64{board[0] + sent[0], board[1] + sent[1]}
	case info == sim.LoadLocal && b.m.k > 1:
		var v [2]int64
		for _, q := range s.queue {
			if q.bal == r.bal {
				v[0]++
				v[1] += s.cycles(q.Time)
			}
		}
		if s.busy && s.req.bal == r.bal {
			v[0]++
			v[1] += max(s.done-t, 0)
		}
		return v
	}
	return [2]int64{s.Load(), s.Work(t)}
}

// loadSeen and workSeen are seen's load, and its work at t.
func (b *refBalancer) loadSeen(r *refReq, s *refServer) int64 { return b.seen(r, s, b.m.cycle)[0] }
func (b *refBalancer) workSeen(r *refReq, s *refServer, t int64) int64 {
	return b.seen(r, s, t)[1]
}

// register is join-idle-queue's registration, while it is in force: every
// candidate idle with an empty queue and not registered registers, by
// ascending id, with a balancer drawn from the fleet generator.
func (b *refBalancer) register() {
	if b.m.cfg.Policy != sim.JIQ || !b.m.perServer() {
		return
	}
	for _, s := range b.servers {
		if s.active() && !s.busy && len(s.queue) == 0 && b.reg[s.id] == 0 {
			k := 0
			if b.m.k > 1 {
				k = b.m.fleet.IntN(b.m.k)
			}
			b.reg[s.id] = k + 1
			b.iq[k] = append(b.iq[k], s.id)
		}
	}
}

// unregister takes s out of the I-queue that holds it.
func (b *refBalancer) unregister(id int) {
	if k := b.reg[id]; k > 0 {
		b.iq[k-1] = slices.DeleteFunc(b.iq[k-1], func(v int) bool { return v == id })
		delete(b.reg, id)
	}
}

// drainLobby routes the lobby's requests, oldest first, while there are
// candidates and the policy places them.
func (b *refBalancer) drainLobby(t int64) {
	for len(b.lobby) > 0 && len(b.cands) > 0 {
		r := b.lobby[0]
		s := b.pick(&r)
		if s == nil {
			return
		}
		b.lobby = b.lobby[1:]
		b.routedTo(s, &r)
		b.enqueue(s, r, t)
	}
}

// ready is the start of cycle t for the warming servers: those due take
// their place among the candidates.
func (b *refBalancer) ready(t int64) {
	for _, s := range b.servers {
		if s.live() && s.warming && s.readyAt == t {
			s.warming = false
			b.sync()
			b.m.emit(b, sim.Ready, s.id, 0, sim.Request{})
		}
	}
}

// work is step a: every attempt due at t ends, completed or in error, and
// abandoned work ends uncounted; a retiring server with nothing left
// leaves.
func (b *refBalancer) work(t int64) {
	m := b.m
	for _, s := range b.servers {
		if s.gone || s.down || !s.busy || s.done != t {
			continue
		}
		if m.hedging && !s.abandoned && s.ends != sim.Failing && b.yields(s, t) {
			continue // a sibling sent earlier completes its part now and cancels this one
		}
		b.aimdSample(s, t)
		s.busy = false
		switch {
		case s.abandoned:
			b.tot.WastedCycles += t - s.abandonedAt
			s.abandoned = false
		case s.ends == sim.Failing:
			b.tot.Errors++
			b.last.Errors++
			m.emit(b, sim.Error, s.id, 0, s.req.Request)
			b.erred(s, t)
			b.stepAt = s.id
			b.ended(s.req, t, refErrored, false)
			b.stepAt = 0
		case m.fanOn() && m.fan[s.req.ID] > 1:
			if m.hedging {
				b.partWon(s, t)
			}
			m.fan[s.req.ID]--
			b.tot.PartsDone++ // a part before its request's last
			m.emit(b, sim.Complete, s.id, 0, s.req.Request)
			s.errRun, s.ejections = 0, 0
			if c := m.policy().Completed; c != nil {
				c(b, s, &s.req)
			}
		default:
			if m.hedging {
				b.partWon(s, t)
			}
			delete(m.fan, s.req.ID)
			b.tot.Completed++
			b.last.Completed++
			resp := t - s.req.Arrival
			b.tot.TotalResponse += resp
			b.resps = append(b.resps, resp)
			m.emit(b, sim.Complete, s.id, 0, s.req.Request)
			s.errRun, s.ejections = 0, 0
			if c := m.policy().Completed; c != nil {
				c(b, s, &s.req)
			}
		}
		b.freed(s)
	}
}

// freed: a retiring server that has just finished with nothing left
// leaves.
func (b *refBalancer) freed(s *refServer) {
	if s.retiring && len(s.queue) == 0 {
		s.retiring, s.gone = false, true
		b.sync()
		b.m.emit(b, sim.Leave, s.id, 0, sim.Request{})
	}
}

// refDue is an attempt step a′ of this cycle takes: in service at server,
// or queued at queue (per-server; both nil: the central queue or the
// lobby); taken: a cancellation took it first (fan-out).
type refDue struct {
	r      refReq
	server *refServer
	queue  *refServer
	taken  bool
}

// timeouts is step a′: every attempt whose deadline is t is abandoned, in
// the order of their arrivals, then request ids, then parts, then the
// order they were sent (a part's attempts, hedging).
func (b *refBalancer) timeouts(t int64) {
	m := b.m
	b.dues = nil
	keep := func(q []refReq, at *refServer) []refReq {
		var kept []refReq
		for _, r := range q {
			if r.deadline == t {
				b.dues = append(b.dues, &refDue{r: r, queue: at})
			} else {
				kept = append(kept, r)
			}
		}
		return kept
	}
	b.queue = keep(b.queue, nil)
	b.lobby = keep(b.lobby, nil)
	for _, s := range b.servers {
		s.queue = keep(s.queue, s)
		if s.live() && s.busy && !s.abandoned && s.req.deadline == t {
			b.dues = append(b.dues, &refDue{r: s.req, server: s})
		}
	}
	slices.SortStableFunc(b.dues, func(x, y *refDue) int {
		if x.r.arrived != y.r.arrived {
			return int(x.r.arrived - y.r.arrived)
		}
		if x.r.ID != y.r.ID {
			return int(x.r.ID - y.r.ID)
		}
		if x.r.Part != y.r.Part {
			return int(x.r.Part) - int(y.r.Part)
		}
		return int(x.r.sent - y.r.sent) // hedging: the attempt sent first
	})
	for _, d := range b.dues {
		if d.taken {
			continue
		}
		d.taken = true
		// The server first (freed from a hanging attempt, or left with
		// nothing by a queued one: a retiring server with nothing left,
		// no attempt still to time out in its queue included, leaves),
		// then the attempt's end.
		if q := d.queue; q != nil && b.emptied(q) {
			b.freed(q)
		}
		if s := d.server; s != nil {
			if s.ends == sim.Hanging {
				s.busy = false
				if b.emptied(s) {
					b.freed(s)
				}
			} else {
				s.abandoned, s.abandonedAt = true, t
			}
		}
		b.last.TimedOut++
		id := 0
		if d.server == nil {
			b.tot.TimedOutQueued++
		} else {
			b.tot.TimedOutInService++
			id = d.server.id
		}
		m.emit(b, sim.TimedOut, id, 0, d.r.Request)
		b.ended(d.r, t, refTimedOut, false)
	}
	b.dues = nil
}

// emptied reports whether s holds nothing, no attempt still to time out
// this cycle in its queue included; the server step a is ending an
// attempt at is freed once that end is handled (fan-out: the
// cancellations it causes come first).
func (b *refBalancer) emptied(s *refServer) bool {
	return !s.busy && len(s.queue) == 0 && s.id != b.stepAt &&
		!slices.ContainsFunc(b.dues, func(x *refDue) bool { return !x.taken && x.queue == s })
}

// How an attempt ended.
type refEnd uint8

const (
	refErrored refEnd = iota
	refTimedOut
	refDiscarded // a retry the queue cap discarded
)

// ended applies the retry rule to attempt r that ended at cycle e: a
// retry while the request has had fewer than the retries allowed and the
// budget grants it, due at the first step b not yet started at or after
// e + its backoff (late: step b of e has started); else the request ends
// (a GiveUp event).
func (b *refBalancer) ended(r refReq, e int64, how refEnd, late bool) {
	m := b.m
	cfg := &m.cfg
	if _, live := m.fan[r.ID]; m.fanOn() && !live {
		return // its request has ended: the part ends with it
	}
	if m.hedging && (b.partLive(r) || b.retryPending(r)) {
		return // another attempt of its part is live, or a retry of it pending: this one ends alone
	}
	k := m.tries[r.ID] + 1
	if k <= cfg.Retries {
		if F := int64(cfg.RetryBudget); F > 0 {
			in := func(cs []int64) int64 {
				var n int64
				for _, c := range cs {
					if c >= e-999 && c <= e {
						n++
					}
				}
				return n
			}
			if in(b.grants)*sim.DecimalScale >= F*int64(m.fanK)*in(b.admits) {
				b.tot.GaveUpBudget++
				m.emit(b, sim.GiveUp, 0, 0, r.Request)
				delete(m.tries, r.ID)
				b.fanEnd(r, e)
				return
			}
		}
		m.tries[r.ID] = k
		b.grants = append(b.grants, e)
		d := cfg.Backoff << (k - 1)
		if cfg.Jitter && d > 0 {
			d = m.retry.Int64N(d + 1)
		}
		due := e + d
		if d == 0 && late {
			due = e + 1
		}
		next := r
		next.Retry, next.Requeued = true, false
		if r.hedge > 0 {
			next.Time = m.hedged[r.ID].times[r.Part] // a hedge's retry carries the part's time
		}
		b.retrying = append(b.retrying, refRetry{due: due, r: next})
		return
	}
	if how == refTimedOut {
		b.tot.TimedOut++
	} else {
		b.tot.Failed++
	}
	m.emit(b, sim.GiveUp, 0, 0, r.Request)
	delete(m.tries, r.ID)
	b.fanEnd(r, e)
}

// retries is the retries' part of step b: those due at t arrive, by
// request id.
func (b *refBalancer) retries(t int64) {
	var due []refRetry
	keep := b.retrying[:0:0]
	for _, x := range b.retrying {
		if x.due == t {
			due = append(due, x)
		} else {
			keep = append(keep, x)
		}
	}
	b.retrying = keep
	slices.SortStableFunc(due, func(x, y refRetry) int {
		if x.r.ID != y.r.ID {
			return int(x.r.ID - y.r.ID)
		}
		return int(x.r.Part) - int(y.r.Part)
	})
	for _, x := range due {
		if _, live := b.m.fan[x.r.ID]; b.m.fanOn() && !live || b.m.hedging && b.m.partDone(x.r) {
			continue // its request has ended, or its part completed: the retry is dropped
		}
		r := b.attempt(x.r.Request, t)
		if b.m.hedging {
			b.m.seq++
			r.hedge, r.sent = x.r.hedge, b.m.seq // in the place of the attempt it retries
		}
		if b.m.perServer() {
			b.route(r, t, refRetrying)
			continue
		}
		b.tot.Retries++
		b.last.Retries++
		if b.throttles(t) {
			b.throttled(r, t)
			continue
		}
		if c := b.m.cfg.QueueCap; c > 0 && len(b.queue) >= c {
			b.tot.RetriesDiscarded++
			b.m.emit(b, sim.Discard, 0, 0, r.Request)
			b.ended(r, t, refDiscarded, true)
			continue
		}
		b.m.emit(b, sim.Retry, 0, 0, r.Request)
		if b.overLimit(nil) {
			b.refuseLimited(0, r, t)
			continue
		}
		r.joined = t
		b.queue = append(b.queue, r)
	}
}

// erred counts an error on s at t for outlier ejection: its run grows, and
// reaching the threshold ejects it (unless the ⌊L/2⌋ rule says no: the run
// is kept).
func (b *refBalancer) erred(s *refServer, t int64) {
	s.errRun++
	if E := b.m.cfg.EjectAfter; E > 0 && s.errRun >= E && !s.ejected && !s.gone && b.mayEject() {
		b.eject(s, false)
		k := min(s.ejections, sim.MaxEjections)
		s.until = t + b.ejectFor()<<(k-1)
	}
}

func (b *refBalancer) ejectFor() int64 {
	if b.m.cfg.EjectFor == 0 {
		return sim.DefaultEjectFor
	}
	return b.m.cfg.EjectFor
}

// mayEject is the ⌊L/2⌋ rule: one more ejection leaves at most half the
// live servers (rounded down) ejected.
func (b *refBalancer) mayEject() bool {
	ejected := b.count(func(s *refServer) bool { return s.live() && s.ejected })
	return ejected+1 <= b.live()/2
}

// eject takes s out of the candidates.
func (b *refBalancer) eject(s *refServer, byHealth bool) {
	s.ejected, s.byHealth = true, byHealth
	s.ejections++
	s.errRun = 0
	b.tot.Ejections++
	b.sync()
	b.m.emit(b, sim.Eject, s.id, 0, sim.Request{})
}

// restore makes ejected s a candidate again (if it can be one).
func (b *refBalancer) restore(s *refServer) {
	s.ejected, s.byHealth = false, false
	b.sync()
	b.m.emit(b, sim.Restore, s.id, 0, sim.Request{})
}

// probe is the health checks at step c of t: every live server by id;
// down, failing and hanging servers fail, the others pass; enough fails
// in a row eject a server, enough passes restore one the checks ejected.
func (b *refBalancer) probe(t int64) {
	cfg := &b.m.cfg
	fall, rise := cfg.HealthFall, cfg.HealthRise
	if fall == 0 {
		fall = sim.DefaultHealthFall
	}
	if rise == 0 {
		rise = sim.DefaultHealthRise
	}
	for _, s := range b.servers {
		if !s.live() {
			continue
		}
		if s.down || s.gray == sim.Failing || s.gray == sim.Hanging {
			s.fails++
			s.passes = 0
		} else {
			s.passes++
			s.fails = 0
		}
		switch {
		case !s.ejected && s.fails >= fall && b.mayEject():
			b.eject(s, true)
		case s.ejected && s.byHealth && s.passes >= rise:
			b.restore(s)
		}
	}
}

// ejectionEnds restores at step c of t the servers whose outlier
// ejection ends then.
func (b *refBalancer) ejectionEnds(t int64) {
	for _, s := range b.servers {
		if s.live() && s.ejected && !s.byHealth && s.until == t {
			b.restore(s)
		}
	}
}

// replace takes out of the pool, at step c of t, every server down or
// ejected without a break for at least R cycles: its work goes back as
// for a server going down with health checks off.
func (b *refBalancer) replace(t, R int64) {
	for _, s := range b.servers {
		if !s.live() || s.outSince < 0 || t-s.outSince < R {
			continue
		}
		b.tot.Replaced++
		s.gone, s.retiring = true, false
		b.sync()
		b.m.emit(b, sim.Replace, s.id, 0, sim.Request{})
		b.giveBack(s, t)
	}
}

// giveBack takes s's attempts back at t, as a server going down with
// health checks off gives them: the attempt in service back to the head
// of the queue (pooled), or it and then its queue routed again
// (per-server); each counts requeued, and waits from t. Abandoned work is
// dropped.
func (b *refBalancer) giveBack(s *refServer, t int64) {
	m := b.m
	b.transit = nil
	for _, r := range b.takeHeld(s, t) {
		b.transit = append(b.transit, &refDue{r: r})
	}
	defer func() { b.transit = nil }()
	for _, x := range b.transit {
		if x.taken {
			continue // cancelled on the way (fan-out): its request ended
		}
		x.taken = true
		r := x.r
		r.Requeued, r.from, r.joined = true, t, t
		b.tot.Requeued++
		m.emit(b, sim.Requeue, s.id, 0, r.Request)
		if m.perServer() {
			b.route(r, t, refAgain)
		} else {
			b.queue = append([]refReq{r}, b.queue...)
		}
	}
}

// takeHeld empties server s at t and returns the attempts it held: the
// one in service (abandoned work is dropped, its cycles wasted), then its
// queue, oldest first.
func (b *refBalancer) takeHeld(s *refServer, t int64) []refReq {
	var held []refReq
	if s.busy {
		if s.abandoned {
			b.tot.WastedCycles += t - s.abandonedAt
			s.abandoned = false
		} else {
			held = append(held, s.req)
		}
		s.busy = false
	}
	held = append(held, s.queue...)
	s.queue = nil
	return held
}

// scale is step c's scaling.
func (b *refBalancer) scale(t int64) {
	cfg := &b.m.cfg
	q := int64(b.queued()) * sim.FactorScale
	active := b.ids((*refServer).active)
	S := int64(len(active))
	if q > int64(cfg.ScaleUp)*S {
		if b.live() < cfg.MaxServers {
			id := b.addServer(true)
			b.tot.ScaleUps++
			b.last.Scale = 1
			b.m.emit(b, sim.ScaleUp, id, 0, sim.Request{})
		}
		return
	}
	if !(q < int64(cfg.ScaleDown)*S && S > int64(cfg.MinServers)) {
		return
	}
	b.tot.ScaleDowns++
	b.last.Scale = -1
	b.removeByQueueRule()
}

// removeByQueueRule takes the idle active server with the highest id (its
// queue empty) out of the pool, or else marks the busy active one with the
// highest id retiring.
func (b *refBalancer) removeByQueueRule() {
	active := b.ids((*refServer).active)
	idle := b.ids(func(s *refServer) bool { return s.idleActive() && len(s.queue) == 0 })
	if len(idle) > 0 {
		id := idle[len(idle)-1]
		b.server(id).gone = true
		b.sync()
		b.m.emit(b, sim.ScaleDown, id, 0, sim.Request{})
		return
	}
	id := active[len(active)-1]
	b.server(id).retiring = true
	b.sync()
	b.m.emit(b, sim.Retire, id, 0, sim.Request{})
}

// dispatch is step d: pooled, the oldest requests go to the idle active
// servers the policy picks (a down one refuses its attempt, once a
// cycle); per-server, every idle server with a queue takes its oldest
// request, in id order.
func (b *refBalancer) dispatch(t int64) {
	if b.m.perServer() {
		for again := true; again; {
			again = false
			for _, s := range b.servers {
				if !s.gone && !s.down && !s.busy && len(s.queue) > 0 {
					if s.queue = b.shed(s.queue, s.emptyAt, s.id, t); len(s.queue) == 0 {
						b.freed(s)
						continue
					}
					var r refReq
					r, s.queue = b.m.takeFrom(s.queue, s.emptyAt, t)
					b.serve(s, r, t)
				}
			}
			// With fan-out a shed part may end its request and cancel a
			// sibling in service at a server passed: free at once, it
			// takes work in this step d too (another pass, in id order).
			again = b.m.fanOn() && slices.ContainsFunc(b.servers, func(s *refServer) bool {
				return !s.gone && !s.down && !s.busy && len(s.queue) > 0
			})
		}
		return
	}
	if len(b.queue) > 0 && b.m.cfg.CodelTarget > 0 && slices.ContainsFunc(b.servers, func(s *refServer) bool { return s.idleActive() && !s.refused }) {
		b.queue = b.shed(b.queue, b.emptyAt, 0, t)
	}
	for len(b.queue) > 0 {
		var idle []*refServer
		for _, s := range b.servers {
			if s.idleActive() && !s.refused {
				idle = append(idle, s)
			}
		}
		if len(idle) == 0 {
			return
		}
		s := b.m.policy().Pooled(b, idle)
		if s == nil {
			return
		}
		var r refReq
		r, b.queue = b.m.takeFrom(b.queue, b.emptyAt, t)
		b.given(s)
		if s.down {
			s.refused = true
			b.refuse(s, r, t)
			continue
		}
		b.serve(s, r, t)
	}
}

// serve gives r to idle server s at cycle t: it takes its time at the
// server's speed, slowed when the server is slow; on a failing server it
// ends in error after the fail time, on a hanging one never.
func (b *refBalancer) serve(s *refServer, r refReq, t int64) {
	c := s.cycles(r.Time)
	s.busy, s.req, s.ends, s.started = true, r, s.gray, t
	switch s.gray {
	case sim.Slow:
		c = (c*int64(s.slow) + sim.SpeedScale - 1) / sim.SpeedScale
	case sim.Failing:
		c = max(b.m.cfg.FailTime, 1)
	}
	s.done = t + c
	if s.gray == sim.Hanging {
		s.done = refNever
	}
	if s.gray == sim.Healthy || s.gray == sim.Slow {
		b.tot.ServiceCycles += c
		b.tot.ServiceCount++
	}
	wait := t - r.from
	b.tot.Dispatched++
	b.tot.TotalWait += wait
	b.last.Dispatched++
	b.waits = append(b.waits, wait)
	b.m.emit(b, sim.Dispatch, s.id, wait, r.Request)
}

// canFault reports whether server id can go down (up false) or come back.
func (b *refBalancer) canFault(id int, up bool) bool {
	if id < 1 || id > len(b.servers) || b.server(id).gone {
		return false
	}
	return up == b.server(id).down
}

// takeDown fails live server id at t. Abandoned work on it is dropped.
// With health checks off its attempts go back (giveBack); with them on,
// its attempt in service and then its queue end in error. A retiring
// server leaves for good: with health checks on, after those errors
// (they count towards its ejection while it is still live).
func (b *refBalancer) takeDown(id int, t int64) {
	m := b.m
	s := b.server(id)
	b.tot.Downs++
	m.emit(b, sim.Down, id, 0, sim.Request{})
	if m.cfg.HealthInterval == 0 {
		if s.retiring {
			s.retiring, s.gone = false, true
		} else {
			s.down, s.known = true, true
		}
		b.sync()
		b.giveBack(s, t)
		return
	}
	if !s.retiring {
		s.down, s.known = true, false // a candidate until the checks find it out
		b.sync()
	}
	for _, r := range b.takeHeld(s, t) {
		b.tot.Errors++
		b.last.Errors++
		m.emit(b, sim.Error, id, 0, r.Request)
		b.erred(s, t)
		b.ended(r, t, refErrored, false)
	}
	if s.retiring {
		s.retiring, s.gone = false, true
		b.sync()
	}
}

// bringUp returns failed server id to the pool, idle.
func (b *refBalancer) bringUp(id int, t int64) {
	b.server(id).down, b.server(id).known = false, false
	b.sync()
	b.tot.Ups++
	b.m.emit(b, sim.Up, id, 0, sim.Request{})
}

// record is step e for one balancer.
func (b *refBalancer) record() {
	b.thAcc[b.m.cycle] = b.tot.Completed + b.tot.PartsDone - b.thDone // attempts completed
	b.thDone = b.tot.Completed + b.tot.PartsDone
	q, live, busy := b.queued(), b.live(), b.busyCount()
	if len(b.queue) == 0 {
		b.emptyAt = b.m.cycle
	}
	for _, s := range b.servers {
		if len(s.queue) == 0 {
			s.emptyAt = b.m.cycle
		}
	}
	b.last.Queue, b.last.Servers, b.last.Busy, b.last.Retiring = q, live, busy, b.retiringCount()
	b.tot.PeakQueue = max(b.tot.PeakQueue, int64(q))
	b.tot.ServersMin = min(b.tot.ServersMin, live)
	b.tot.ServersPeak = max(b.tot.ServersPeak, live)
	b.tot.ServerCycles += int64(live)
	b.tot.BusyCycles += int64(busy)
}

// Last returns the timeline row of the last cycle, over both balancers.
func (m *refModel) Last() sim.CycleStats {
	if len(m.bal) == 1 {
		return m.bal[0].last
	}
	l := sim.CycleStats{Cycle: m.cycle}
	for _, b := range m.bal {
		x := b.last
		l.Queue += x.Queue
		l.Servers += x.Servers
		l.Busy += x.Busy
		l.Retiring += x.Retiring
		l.Generated += x.Generated
		l.Rejected += x.Rejected
		l.Discarded += x.Discarded
		l.Completed += x.Completed
		l.Dispatched += x.Dispatched
		l.Scale += x.Scale
		l.Errors += x.Errors
		l.TimedOut += x.TimedOut
		l.Retries += x.Retries
		l.Shed += x.Shed
		l.Limited += x.Limited
		l.Throttled += x.Throttled
		l.Hedges += x.Hedges
		l.Cancelled += x.Cancelled
	}
	return l
}

// Cycle returns the last cycle run.
func (m *refModel) Cycle() int64 { return m.cycle }

// Events returns the last cycle's events.
func (m *refModel) Events() []sim.Event { return m.events }

// Pool counts the servers at the end of the last cycle, over both
// balancers: active ones are the candidates.
func (m *refModel) Pool() sim.Pool {
	var p sim.Pool
	for _, b := range m.bal {
		count := func(ok func(*refServer) bool) int {
			return b.count(func(s *refServer) bool { return s.live() && ok(s) })
		}
		p.Live += b.live()
		p.Active += len(b.cands)
		p.Busy += count(func(s *refServer) bool { return s.busy })
		p.Idle += count(func(s *refServer) bool { return !s.busy && !s.down && !s.warming })
		p.Retiring += count(func(s *refServer) bool { return s.retiring })
		p.Down += count(func(s *refServer) bool { return s.down })
		p.Ejected += count(func(s *refServer) bool { return s.ejected })
		p.Warming += count(func(s *refServer) bool { return s.warming })
	}
	return p
}

// summary builds the summary of one balancer, or of the model's totals.
func (m *refModel) summary(ts []*refBalancer) sim.Summary {
	s := sim.Summary{Seed: m.cfg.Seed, Cycles: m.cycle, Balancers: m.k, LoadInfo: m.startInfo.String(), Fleet: []sim.FleetShare{}}
	for _, b := range ts {
		if m.perServer() {
			s.Fleet = append(s.Fleet, b.tally...)
		}
	}
	for _, f := range s.Fleet {
		s.MaxShare = max(s.MaxShare, f.MaxShare)
	}
	var waits, resps []int64
	for _, b := range ts {
		t := &b.tot
		s.InitialQueue += t.InitialQueue
		s.Generated += t.Generated
		s.Rejected += t.Rejected
		s.Discarded += t.Discarded
		s.Admitted += t.Admitted
		s.Completed += t.Completed
		s.Errors += t.Errors
		s.Shed += t.Shed
		s.Limited += t.Limited
		s.Throttled += t.Throttled
		s.Retries += t.Retries
		s.RetriesDiscarded += t.RetriesDiscarded
		s.Failed += t.Failed
		s.TimedOut += t.TimedOut
		s.GaveUpBudget += t.GaveUpBudget
		s.TimedOutQueued += t.TimedOutQueued
		s.TimedOutInService += t.TimedOutInService
		s.WastedCycles += t.WastedCycles
		s.Replaced += t.Replaced
		s.Ejections += t.Ejections
		s.Dispatched += t.Dispatched
		s.TotalWait += t.TotalWait
		s.ServiceCycles += t.ServiceCycles
		s.ServiceCount += t.ServiceCount
		s.TotalResponse += t.TotalResponse
		s.ServerCycles += t.ServerCycles
		s.BusyServerCycles += t.BusyCycles
		s.ScaleUps += t.ScaleUps
		s.ScaleDowns += t.ScaleDowns
		s.Requeued += t.Requeued
		s.Down += t.Downs
		s.Up += t.Ups
		s.FaultsSkipped += t.FaultsSkipped
		q := int64(b.queued())
		s.FinalQueue += q
		busy, abandoned := int64(b.busyCount()), int64(b.abandonedCount())
		s.InService += busy - abandoned
		s.AbandonedInService += abandoned
		s.InFlight += q + busy - abandoned + int64(len(b.retrying))
		for _, v := range b.servers {
			if v.live() && v.busy && v.abandoned {
				s.WastedCycles += m.cycle - v.abandonedAt + 1
			}
		}
		s.ServersBusy += busy
		s.ServersFinal += int64(b.live())
		down := int64(b.count(func(v *refServer) bool { return v.live() && v.down }))
		warming := int64(b.count(func(v *refServer) bool { return v.live() && v.warming }))
		s.ServersIdle += int64(b.count(func(v *refServer) bool { return v.live() && !v.busy && !v.down && !v.warming }))
		s.ServersRetiring += int64(b.retiringCount())
		s.ServersDown += down
		s.ServersEjected += int64(b.count(func(v *refServer) bool { return v.live() && v.ejected }))
		s.ServersWarming += warming
		s.Lobby += int64(len(b.lobby))
		for _, v := range b.servers {
			s.ServerQueueMax = max(s.ServerQueueMax, int64(len(v.queue)))
		}
		waits = append(waits, b.waits...)
		resps = append(resps, b.resps...)
		s.PeakQueue, s.ServersMin, s.ServersPeak = t.PeakQueue, int64(t.ServersMin), int64(t.ServersPeak)
	}
	if len(ts) > 1 {
		s.PeakQueue, s.ServersMin, s.ServersPeak = m.peakQueue, int64(m.serversMin), int64(m.serversMax)
	}
	s.WaitP50, s.WaitP90, s.WaitP95, s.WaitP99, s.WaitMax = refPercentiles(waits)
	s.ResponseP50, s.ResponseP90, s.ResponseP95, s.ResponseP99, s.ResponseMax = refPercentiles(resps)
	limitSummary(&s, ts)
	s.Fanout = int64(m.fanK)
	s.Parts = s.Admitted
	if m.fanOn() {
		s.Parts, s.InFlight = 0, 0
		for id := range m.fan {
			if slices.ContainsFunc(ts, func(b *refBalancer) bool { return b.index == m.fanBal[id] }) {
				s.InFlight++
			}
		}
	}
	for _, b := range ts {
		s.AttemptsCompleted += b.tot.Completed + b.tot.PartsDone
		s.Cancelled += b.tot.Cancelled
		s.Hedges += b.tot.Hedges
		s.HedgesWon += b.tot.HedgesWon
		s.HedgesDenied += b.tot.HedgesDenied
		if m.fanOn() {
			s.Parts += b.parts
		}
	}
	s.Derive()
	// cost = server-cycles × C, C a price in millionths, rounded once.
	s.Cost, _ = new(big.Rat).Mul(big.NewRat(s.ServerCycles, 1), big.NewRat(int64(m.cfg.ServerCost), sim.DecimalScale)).Float64()
	return s
}

// Summary reports the run as of the last cycle: in a switch, the totals
// with each balancer's own summary under P and S.
func (m *refModel) Summary() sim.Summary {
	s := m.summary(m.bal)
	if len(m.bal) == 2 {
		p, q := m.summary(m.bal[:1]), m.summary(m.bal[1:])
		s.P, s.S = &p, &q
	}
	return s
}

// refPercentiles returns the nearest-rank 50th, 90th, 95th and 99th
// percentiles and the maximum (all 0 with no values): the p-th is the
// value at rank ⌈p·n/100⌉ in ascending order. Values stay below 2^16 in
// these tests, where the model's histogram is exact.
func refPercentiles(vs []int64) (p50, p90, p95, p99, mx int64) {
	if len(vs) == 0 {
		return
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := int64(len(s))
	at := func(p int64) int64 { return s[max((n*p+99)/100, 1)-1] }
	return at(50), at(90), at(95), at(99), s[n-1]
}

// refRequests gives each cycle's requests in generation order.
type refRequests interface {
	at(t int64) []sim.Request
}

// newRefRequests returns the run's requests: the trace's rows, or those a
// second model generates.
func newRefRequests(cfg sim.Config, changes []sim.Change) (refRequests, error) {
	if cfg.Trace != nil {
		return &refTrace{rows: cfg.Trace}, nil
	}
	return newRefGenerated(cfg, changes)
}

// refTrace numbers the trace's rows as they come.
type refTrace struct {
	rows   []sim.TraceRow
	pos    int
	lastID int64
}

func (r *refTrace) at(t int64) []sim.Request {
	var out []sim.Request
	for r.pos < len(r.rows) && r.rows[r.pos].Cycle == t {
		row := r.rows[r.pos]
		r.pos++
		r.lastID++
		out = append(out, sim.Request{ID: r.lastID, Arrival: t, Src: row.Src, Dst: row.Dst, Time: row.Time, Type: row.Type})
	}
	return out
}

// refGenerated reads the requests off a second model that only generates
// them: no firewall, cap, switch, faults or scaling, the same seed and
// arrival settings (and their changes, and the task range's, which the
// times are drawn from), so each request arrives there unchanged: a change
// of anything else does not move the request stream.
type refGenerated struct {
	m *sim.Model
}

func newRefGenerated(cfg sim.Config, changes []sim.Change) (*refGenerated, error) {
	g := cfg.Clone()
	g.Blocked, g.QueueCap, g.Switch, g.Queues, g.Policy = nil, 0, false, sim.Pooled, sim.FirstIdle
	g.MTBF, g.MTTR, g.Speeds, g.Weights, g.Choices = 0, 0, nil, nil, 0
	g.Balancers, g.LoadInfo, g.Fanout, g.HedgeAfter, g.HedgeMax, g.HedgeBudget = 1, sim.LoadExact, 0, 0, 0, 0
	g.CodelTarget, g.Throttle = 0, 0
	g.Timeout, g.Retries, g.Backoff, g.Jitter, g.RetryBudget = 0, 0, 0, false, 0
	g.HealthInterval, g.EjectAfter, g.ProvisionDelay, g.ReplaceAfter = 0, 0, 0, 0
	g.ScaleUp, g.ScaleDown, g.Cooldown, g.MinServers, g.MaxServers = sim.MaxFactor, 0, 1, 1, cfg.Servers
	changes = slices.Clone(changes)
	slices.SortStableFunc(changes, func(a, b sim.Change) int { return int(a.Cycle - b.Cycle) })
	var gc []sim.Change
	for _, c := range changes {
		switch c.Setting {
		case sim.SetRate, sim.SetWave, sim.SetTaskMin, sim.SetTaskMax:
			gc = append(gc, c)
		}
	}
	m, err := sim.New(g, sim.WithEvents(), sim.WithMaxQueued(sim.MaxQueuedLimit))
	if err != nil {
		return nil, fmt.Errorf("the generating model: %w", err)
	}
	if err := m.Schedule(gc...); err != nil {
		return nil, fmt.Errorf("the generating model's changes: %w", err)
	}
	return &refGenerated{m: m}, nil
}

func (r *refGenerated) at(t int64) []sim.Request {
	for r.m.Cycle() < t {
		r.m.Step()
	}
	if r.m.Cycle() != t {
		panic(fmt.Sprintf("reference: requests of cycle %d asked at cycle %d", t, r.m.Cycle()))
	}
	var out []sim.Request
	for _, e := range r.m.Events() {
		if e.Kind == sim.Arrive {
			out = append(out, e.Request)
		}
	}
	return out
}

// throttles reports whether, with the throttle on, the client of an
// attempt reaching it at step b of t rejects it: v drawn uniformly from
// 0 … 100·(requests+1) − 1 for every attempt, throttled iff v <
// 100·requests − K₁₀₀·accepts, over the attempts that reached it and
// those completed in cycles t−1000 … t−1.
func (b *refBalancer) throttles(t int64) bool {
	K := int64(b.m.cfg.Throttle)
	if K == 0 {
		return false
	}
	var req, acc int64
	for c := t - 1000; c < t; c++ {
		req += b.thReq[c]
		acc += b.thAcc[c]
	}
	b.thReq[t]++
	return b.m.throt.Int64N(100*(req+1)) < 100*req-K*acc
}

// throttled ends attempt r, throttled by its client at step b of t.
func (b *refBalancer) throttled(r refReq, t int64) {
	b.tot.Throttled++
	b.last.Throttled++
	b.tot.Errors++
	b.last.Errors++
	b.m.emit(b, sim.Throttled, 0, 0, r.Request)
	b.ended(r, t, refErrored, true)
}

// shed is shedding at step d of t for queue q (server id's, 0 for the
// central one), last empty at the end of cycle emptyAt, whose server is
// idle: with a codel target M, every attempt that has waited in it more
// than its limit (M while it has been non-empty at the end of each of the
// last N cycles, N otherwise) ends in error, in queue order. It returns
// the rest.
func (b *refBalancer) shed(q []refReq, emptyAt int64, id int, t int64) []refReq {
	M := b.m.cfg.CodelTarget
	if M == 0 {
		return q
	}
	n := b.m.cfg.CodelInterval
	if n == 0 {
		n = sim.DefaultCodelInterval
	}
	limit := n
	if emptyAt < t-n {
		limit = M
	}
	if id != 0 && b.m.fanOn() {
		return b.shedEach(b.server(id), limit, t)
	}
	var kept []refReq
	for _, r := range q {
		if t-r.joined <= limit {
			kept = append(kept, r)
			continue
		}
		b.tot.Shed++
		b.last.Shed++
		b.tot.Errors++
		b.last.Errors++
		b.m.emit(b, sim.Shed, id, 0, r.Request)
		b.ended(r, t, refErrored, true)
	}
	return kept
}

// takeFrom takes the attempt a queue, last empty at the end of cycle
// emptyAt, hands out at step d of t: the oldest (fifo), the newest (lifo),
// or the newest while the queue has been non-empty at the end of each of
// the last N cycles (adaptive-lifo); it returns it and the rest.
func (m *refModel) takeFrom(q []refReq, emptyAt, t int64) (refReq, []refReq) {
	n := m.cfg.CodelInterval
	if n == 0 {
		n = sim.DefaultCodelInterval
	}
	if d := m.cfg.Discipline; d == sim.Lifo || d == sim.AdaptiveLifo && emptyAt < t-n {
		return q[len(q)-1], q[:len(q)-1]
	}
	return q[0], q[1:]
}
