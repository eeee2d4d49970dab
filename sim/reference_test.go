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
// Each policy's plain pick is one entry of refPolicies, keyed by sim.Policy;
// reference_policies_test.go registers today's, and a new policy registers
// its own from its own test file (registerRefPolicy in an init function).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lbsim/lbsim/internal/detmath"
	"github.com/lbsim/lbsim/sim"
)

// The PCG stream constants of the model's generators: with the seed, they
// define the routing and fault streams (sim/model.go).
const (
	refFaultStream = 0x6c6273696d2d6674 // "lbsim-ft"
	refRouteStream = 0x6c6273696d2d7274 // "lbsim-rt"
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

// refReq is a request and the cycle its wait counts from (its arrival, or
// the cycle a failed server gave it back).
type refReq struct {
	sim.Request
	from int64
	// routed is the cycle it last joined a server's queue (per-server).
	routed int64
}

// refServer is one server, live, down or gone.
type refServer struct {
	id     int
	speed  sim.Speed
	weight int
	busy   bool
	req    refReq // in service, when busy
	done   int64  // completion cycle, when busy
	// retiring: serves what it holds, then leaves; down: failed; gone:
	// left the pool for good.
	retiring, down, gone bool
	queue                []refReq // its own queue (per-server)
	score                int64    // smooth weighted round-robin's current
	// state is a policy's own per-server value (its hooks keep it).
	state any
}

// A down server keeps its slot: live, not active.
func (s *refServer) live() bool       { return !s.gone }
func (s *refServer) active() bool     { return !s.gone && !s.down && !s.retiring }
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
	lobby   []refReq     // per-server
	// cands are the candidates' ids in the order the routing generator
	// draws from: a new candidate is appended, and one that stops being a
	// candidate is replaced by the last.
	cands []int
	// rrLast is the last server given a request (pooled: dispatched to;
	// per-server: routed to), where round-robin goes on from.
	rrLast int
	// state is a policy's own balancer-wide value (its hooks keep it).
	state map[sim.Policy]any

	tot          sim.Totals
	last         sim.CycleStats
	waits, resps []int64
}

// refRepair is a random fault's pending comeback.
type refRepair struct {
	cycle int64
	id    int
	bal   int
}

// refModel is the reference model of one run.
type refModel struct {
	cfg     sim.Config
	reqs    refRequests
	route   *rand.Rand
	fpcg    *rand.PCG
	frng    *rand.Rand
	bal     []*refBalancer
	pending []sim.Change
	repairs []refRepair // in the order scheduled
	cycle   int64
	events  []sim.Event
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
		cfg:     cfg.Clone(),
		reqs:    reqs,
		route:   rand.New(rand.NewPCG(cfg.Seed, refRouteStream)),
		fpcg:    rand.NewPCG(cfg.Seed, refFaultStream),
		pending: slices.Clone(changes),
	}
	m.frng = rand.New(m.fpcg)
	slices.SortStableFunc(m.pending, func(a, b sim.Change) int { return int(a.Cycle - b.Cycle) })
	n := 1
	if cfg.Switch {
		n = 2
	}
	for i := range n {
		b := &refBalancer{m: m, index: i, state: map[sim.Policy]any{}}
		m.bal = append(m.bal, b)
		if e := m.policy().Entered; e != nil {
			e(b)
		}
		for range cfg.Servers {
			b.addServer()
		}
	}
	for _, r := range m.reqs.at(0) {
		m.arrive(r, 0)
	}
	for _, b := range m.bal {
		b.tot.InitialQueue = int64(b.queued())
		b.tot.ServersMin = math.MaxInt
		b.dispatch(0)
	}
	m.serversMin = math.MaxInt
	m.record()
	return m, nil
}

func (m *refModel) emit(b *refBalancer, kind sim.EventKind, server int, wait int64, r sim.Request) {
	m.events = append(m.events, sim.Event{Cycle: m.cycle, Kind: kind, Balancer: b.index, Server: server, Wait: wait, Request: r})
}

// step runs cycle t = cycle + 1: changes, random faults, a work (and the
// lobby), b arrivals, c scaling, d dispatch, e record.
func (m *refModel) step() {
	t := m.cycle + 1
	m.cycle = t
	m.events = m.events[:0]
	for _, b := range m.bal {
		b.last = sim.CycleStats{Cycle: t}
	}
	m.applyChanges(t)
	if m.cfg.MTBF > 0 {
		m.randomFaults(t)
	}
	for _, b := range m.bal {
		b.work(t)
		b.drainLobby(t)
	}
	for _, r := range m.reqs.at(t) {
		m.arrive(r, t)
	}
	if t%m.cfg.Cooldown == 0 {
		for _, b := range m.bal {
			b.scale(t)
		}
	}
	for _, b := range m.bal {
		b.dispatch(t)
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
		case sim.SetDown, sim.SetUp:
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
	for _, c := range batch {
		if !c.IsFault() {
			continue
		}
		ref := sim.ServerRef(c.Value)
		b := m.bal[ref.Balancer()]
		if !b.canFault(ref.ID(), c.Setting == sim.SetUp) {
			b.tot.FaultsSkipped++
			continue
		}
		if c.Setting == sim.SetUp {
			b.bringUp(ref.ID())
		} else {
			b.takeDown(ref.ID(), t)
		}
	}
}

// randomFaults brings back the servers due at t, then fails a Poisson
// number (mean active ÷ MTBF) of active servers, each drawn uniformly by id
// order, for a repair time drawn from 1..2·MTTR − 1; balancer by balancer.
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
				b.bringUp(r.id)
			} else {
				b.tot.FaultsSkipped++
			}
		}
		active := b.ids((*refServer).active)
		n := refPoisson(float64(len(active))/float64(m.cfg.MTBF), m.fpcg)
		for ; n > 0 && len(active) > 0; n-- {
			id := active[m.frng.IntN(len(active))]
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
// balancer's queue.
func (m *refModel) arrive(r sim.Request, t int64) {
	b := m.bal[0]
	if len(m.bal) == 2 && r.Type == sim.Streaming {
		b = m.bal[1]
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
	q := refReq{Request: r, from: r.Arrival}
	if m.perServer() {
		b.route(q, t, true)
		return
	}
	if c := m.cfg.QueueCap; c > 0 && len(b.queue) >= c {
		b.tot.Discarded++
		b.last.Discarded++
		m.emit(b, sim.Discard, 0, 0, r)
		return
	}
	b.tot.Admitted++
	b.queue = append(b.queue, q)
	m.emit(b, sim.Arrive, 0, 0, r)
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

func (b *refBalancer) live() int { return len(b.ids((*refServer).live)) }
func (b *refBalancer) busyCount() int {
	return len(b.ids(func(s *refServer) bool { return s.live() && s.busy }))
}
func (b *refBalancer) retiringCount() int {
	return len(b.ids(func(s *refServer) bool { return s.live() && s.retiring }))
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

// addServer creates the next server, idle, with its speed and weight.
func (b *refBalancer) addServer() int {
	cfg := &b.m.cfg
	id := len(b.servers) + 1
	s := &refServer{id: id, speed: sim.SpeedScale, weight: 1}
	if id <= len(cfg.Speeds) {
		s.speed = cfg.Speeds[id-1]
	}
	if id <= len(cfg.Weights) {
		s.weight = cfg.Weights[id-1]
	}
	b.servers = append(b.servers, s)
	b.cands = append(b.cands, id)
	if a := b.m.policy().Added; a != nil {
		a(b, s)
	}
	return id
}

// uncandidate takes id out of the candidates: the last one takes its place
// in the draw order.
func (b *refBalancer) uncandidate(id int) {
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

// route sends r to the candidate the policy picks (per-server), or to the
// lobby; a fresh arrival is discarded when that queue already holds the
// cap. The policy picks first, then the cap is checked.
func (b *refBalancer) route(r refReq, t int64, fresh bool) {
	m := b.m
	var s *refServer
	if len(b.cands) > 0 {
		s = m.policy().Route(b, &r, b.candidates())
	}
	id, n := 0, len(b.lobby)
	if s != nil {
		id, n = s.id, len(s.queue)
	}
	if fresh {
		if c := m.cfg.QueueCap; c > 0 && n >= c {
			b.tot.Discarded++
			b.last.Discarded++
			m.emit(b, sim.Discard, id, 0, r.Request)
			return
		}
		b.tot.Admitted++
		m.emit(b, sim.Arrive, id, 0, r.Request)
	}
	if s == nil {
		b.lobby = append(b.lobby, r)
		return
	}
	b.given(s)
	r.routed = t
	s.queue = append(s.queue, r)
}

// given notes that s was given a request (see rrLast).
func (b *refBalancer) given(s *refServer) { b.rrLast = s.id }

// drainLobby routes the lobby's requests, oldest first, while there are
// candidates and the policy places them.
func (b *refBalancer) drainLobby(t int64) {
	for len(b.lobby) > 0 && len(b.cands) > 0 {
		r := b.lobby[0]
		s := b.m.policy().Route(b, &r, b.candidates())
		if s == nil {
			return
		}
		b.lobby = b.lobby[1:]
		b.given(s)
		r.routed = t
		s.queue = append(s.queue, r)
	}
}

// work is step a: every request due at t completes; a retiring server with
// nothing left leaves.
func (b *refBalancer) work(t int64) {
	m := b.m
	for _, s := range b.servers {
		if s.gone || s.down || !s.busy || s.done != t {
			continue
		}
		s.busy = false
		b.tot.Completed++
		b.last.Completed++
		resp := t - s.req.Arrival
		b.tot.TotalResponse += resp
		b.resps = append(b.resps, resp)
		m.emit(b, sim.Complete, s.id, 0, s.req.Request)
		if c := m.policy().Completed; c != nil {
			c(b, s, &s.req)
		}
		if s.retiring && len(s.queue) == 0 {
			s.retiring, s.gone = false, true
			m.emit(b, sim.Leave, s.id, 0, sim.Request{})
		}
	}
}

// scale is step c.
func (b *refBalancer) scale(t int64) {
	cfg := &b.m.cfg
	q := int64(b.queued()) * sim.FactorScale
	active := b.ids((*refServer).active)
	S := int64(len(active))
	if q > int64(cfg.ScaleUp)*S {
		if b.live() < cfg.MaxServers {
			id := b.addServer()
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
	idle := b.ids(func(s *refServer) bool { return s.idleActive() && len(s.queue) == 0 })
	if len(idle) > 0 {
		id := idle[len(idle)-1]
		b.server(id).gone = true
		b.uncandidate(id)
		b.m.emit(b, sim.ScaleDown, id, 0, sim.Request{})
		return
	}
	id := active[len(active)-1]
	b.server(id).retiring = true
	b.uncandidate(id)
	b.m.emit(b, sim.Retire, id, 0, sim.Request{})
}

// dispatch is step d: pooled, the oldest requests go to the idle active
// servers the policy picks; per-server, every idle server with a queue
// takes its oldest request, in id order.
func (b *refBalancer) dispatch(t int64) {
	if b.m.perServer() {
		for _, s := range b.servers {
			if !s.gone && !s.down && !s.busy && len(s.queue) > 0 {
				r := s.queue[0]
				s.queue = s.queue[1:]
				b.serve(s, r, t)
			}
		}
		return
	}
	for len(b.queue) > 0 {
		var idle []*refServer
		for _, s := range b.servers {
			if s.idleActive() {
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
		r := b.queue[0]
		b.queue = b.queue[1:]
		b.given(s)
		b.serve(s, r, t)
	}
}

// serve gives r to idle server s at cycle t.
func (b *refBalancer) serve(s *refServer, r refReq, t int64) {
	s.busy, s.req, s.done = true, r, t+s.cycles(r.Time)
	wait := t - r.from
	b.tot.ServiceCycles += s.cycles(r.Time)
	b.tot.ServiceCount++
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

// takeDown fails live server id at t: its request in service goes back to
// the head of the queue (pooled), or it and then its queue are routed again
// (per-server); each counts requeued, and waits from t. A retiring server
// leaves for good.
func (b *refBalancer) takeDown(id int, t int64) {
	m := b.m
	s := b.server(id)
	b.tot.Downs++
	m.emit(b, sim.Down, id, 0, sim.Request{})
	b.uncandidate(id)
	var again []refReq
	if s.busy {
		again = append(again, s.req)
		s.busy = false
	}
	again = append(again, s.queue...)
	s.queue = nil
	if s.retiring {
		s.retiring, s.gone = false, true
	} else {
		s.down = true
	}
	for _, r := range again {
		r.Requeued, r.from = true, t
		b.tot.Requeued++
		m.emit(b, sim.Requeue, id, 0, r.Request)
		if m.perServer() {
			b.route(r, t, false)
		} else {
			b.queue = append([]refReq{r}, b.queue...)
		}
	}
}

// bringUp returns failed server id to the pool, idle.
func (b *refBalancer) bringUp(id int) {
	b.server(id).down = false
	b.cands = append(b.cands, id)
	b.tot.Ups++
	b.m.emit(b, sim.Up, id, 0, sim.Request{})
}

// record is step e for one balancer.
func (b *refBalancer) record() {
	q, live, busy := b.queued(), b.live(), b.busyCount()
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
	}
	return l
}

// summary builds the summary of one balancer, or of the model's totals.
func (m *refModel) summary(ts []*refBalancer) sim.Summary {
	s := sim.Summary{Seed: m.cfg.Seed, Cycles: m.cycle}
	var waits, resps []int64
	for _, b := range ts {
		t := &b.tot
		s.InitialQueue += t.InitialQueue
		s.Generated += t.Generated
		s.Rejected += t.Rejected
		s.Discarded += t.Discarded
		s.Admitted += t.Admitted
		s.Completed += t.Completed
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
		s.FinalQueue += int64(b.queued())
		busy := int64(b.busyCount())
		s.InService += busy
		s.InFlight += int64(b.queued()) + busy
		s.ServersBusy += busy
		s.ServersFinal += int64(b.live())
		down := int64(len(b.ids(func(v *refServer) bool { return v.down })))
		s.ServersIdle += int64(b.live()) - busy - down
		s.ServersRetiring += int64(b.retiringCount())
		s.ServersDown += int64(len(b.ids(func(v *refServer) bool { return v.down })))
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
	s.Derive()
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
