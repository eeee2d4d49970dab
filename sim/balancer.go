package sim

import (
	"iter"
	"slices"
)

// Balancer is one server pool and where its requests wait: one central
// FIFO (pooled) or a FIFO per server and a lobby (per-server). A Model has
// one, or two when it runs as a P/S switch (one for each request type). Its
// methods are read-only views; the Model drives it through the clock.
type Balancer struct {
	m     *Model
	index int    // position in Model.Balancers
	name  string // "" for the central queue, "P" or "S" in a switch

	queue fifo // the central queue (pooled)

	// rt is the router of the policy in force (routers keeps each
	// policy's, made when first used), caps its capabilities.
	rt      router
	caps    Caps
	routers [numPolicies]router

	// Per-server mode (perServer): each server's queue, the lobby, the
	// total queued (lobby included), the idle candidates with an empty
	// queue (free), the idle servers with a non-empty queue (ready), and
	// the candidates as a dense array for uniform draws.
	perServer bool
	// serveNow: an arrival routed to an idle server is dispatched at
	// once rather than in step d (runRouted sets it in the cycles where
	// nothing in between can tell).
	serveNow bool
	// ruled: a discipline or shedding is in force (routeCycles sets it
	// for its stretch; workEach's early hand-out reads it).
	ruled bool
	// limited: a pooled arrival past the firewall is checked against the
	// pool's concurrency limit (admitLimited); sampling: an adaptive limit
	// takes a sample at every ending.
	limited, sampling bool
	// rerouting: a failed server's requests are routed again, at the start
	// of a cycle, before step a.
	rerouting bool
	// lastGiven is the last server given a request (pooled: dispatched
	// to; per-server: routed to), whatever the policy: round-robin goes on
	// from it.
	lastGiven int
	sq        []fifo // per-server mode: each server's own queue, by id−1
	lobby     fifo
	queued    int
	free      idset
	ready     idset
	cands     cands

	// waits and resps are the latency histograms of dispatched and
	// completed requests.
	waits, resps latency

	// grays holds the gray state of the servers that have one, ends how
	// the attempts in service that will not simply complete (dispatched to
	// a failing or hanging server) end: RunTo's shortcuts wait for both to
	// be empty.
	grays map[int]grayInfo
	ends  map[int]outcome
	// grayStart holds, by server id, the dispatch and done cycles of the
	// last attempt dispatched to it while gray (the views read it while
	// that attempt is in service: its time is not the plain one).
	grayStart map[int][2]int64

	srv       []server  // by slot−1; a server that left stays as gone until compact
	ids       []int32   // by slot−1: the server's id (ascending)
	created   int       // servers created: the last id given
	left      int       // slots of servers that have left (compact gives them up)
	firstLive int       // no server below index firstLive is live
	idle      idset     // idle active servers
	active    rankedSet // live servers that are not retiring (random faults draw from them)
	live      int
	busy      int
	retiring  int
	down      int // failed servers
	wheel     wheel

	// requeuedAt holds, for each queued request taken back from a failed
	// server, the cycle it was requeued; its next wait counts from there
	// (a retry's, if it was not taken back, from its arrival: its
	// flight's at).
	requeuedAt map[int64]int64
	repairs    repairQueue // random faults' pending comebacks, by cycle

	// The client side and detection (client.go, detect.go): watching is
	// set while a client setting is on; cl holds the attempts' deadlines
	// and the retries; det the servers' probes and error runs; ejected and
	// warming the servers out of the candidates for those reasons (warming
	// by the cycle each becomes ready); outSince the cycle each server
	// down or ejected became so; refused the pooled servers that refused
	// an attempt this cycle.
	watching bool
	cl       *clientSide
	th       *throttle // the throttle's window, while it is on
	det      []detState
	ejected  map[int]ejection
	warming  map[int]int64
	outSince outTimes
	touched  bool // what randomFaults read ahead (repairQueue.prefetch), kept so the reads stay
	refused  []int
	// shedBuf is shedding's scratch list; shedSteps counts the places
	// shedding looked at and shedCalls the queues it looked at (a test
	// reads them: the places must grow with what is shed, not with the
	// queues' lengths).
	shedBuf              []packed
	shedSteps, shedCalls int64
	// shedOut holds, under fan-out, the attempts a queue has just shed
	// while they end one by one (shedParts); shedFrom is that queue's
	// server slot until the server has been told it holds nothing, and
	// shedLeft counts the attempts shed that have not yet ended.
	shedOut            []packed
	shedFrom, shedLeft int
	// cleanRounds counts the probe rounds passed in bulk (probe): at
	// most MaxCycles, so an int32 holds it.
	cleanRounds int32
	// known holds the down servers the balancer knows are down while
	// health checks are on: they went down while health checks were off,
	// or were down when they were turned off (it goes on knowing if they
	// are turned on again). With them off every down server is known
	// (knownDown), and known is written only when they come on.
	known map[int]bool

	// fleet is the state of a fleet of balancers, of stale load
	// information or of join-idle-queue (fleet.go), nil when none is on;
	// tally counts each balancer's picks (per-server).
	fleet *fleet
	tally tally
	// tap notes the draws of p2c and peak-EWMA while a view asks
	// (TapDraws, draws.go), nil otherwise; the model never reads it.
	tap *drawTap

	// target is target tracking's state (autoscale.go), nil under the
	// queue rule.
	target *targetScaler
	// lim is the concurrency limit's state (conclimit.go), nil while it
	// is off.
	lim *concLimit

	// stepAt is, under fan-out, the slot step a is ending an attempt at
	// (0 outside step a): a sibling cancelled at a later slot has not
	// been served this cycle.
	stepAt int
	// transit holds, under fan-out, the attempts a server gave back that
	// are being routed again (takeBack): live, on no server.
	transit []packed

	tot  Totals
	last CycleStats
	// intAt is the last cycle whose end-of-cycle levels are in
	// tot.ServerCycles and tot.BusyCycles (see catchUp).
	intAt int64
}

// server is one server's state, in 40 bytes: a large pool's servers
// share the cache with its queues and timing wheel. Its weight lives in
// the policies that read it (weightOf).
type server struct {
	req      packed // the request in service, when busy
	done     int64  // cycle the request completes (or ends in error)
	speed    Speed
	busy     bool
	retiring bool
	down     bool // failed; it keeps its slot until it comes back
	gone     bool
}

func (b *Balancer) emit(kind EventKind, server int, wait int64, r Request) {
	m := b.m
	if server > 0 {
		server = b.idOf(server)
	}
	if f := m.fan; f != nil && r.ID > 0 {
		id, j := f.split(r.ID)
		r.ID, r.Part = id, uint8(j)
	}
	m.events = append(m.events, Event{Cycle: m.cycle, Kind: kind, Balancer: b.index, Server: server, Wait: wait, Request: r})
}

// due takes the servers whose attempt in service is due at cycle t off
// the timing wheel (with stale entries), in the order step a ends them: in
// id order while the client side or detection is on and an attempt may
// end otherwise than by completing, where the order tells (an error may
// eject a server, which counts the servers live and ejected when it is
// decided, or be retried, whose jitter and budget are drawn and granted
// in turn); else in the order they were put on the wheel, which nothing
// can tell from id order but the order of the cycle's events (recorded
// in id order too while watching). Only attempts with an end of their
// own (b.ends) end otherwise than by completing.
func (b *Balancer) due(t int64) []int32 {
	ids := b.wheel.take(t)
	if b.watching && (len(b.ends) > 0 || b.m.recordEvents) {
		slices.Sort(ids)
	}
	return ids
}

// work is step a: every request whose completion cycle is t completes.
func (b *Balancer) work(t int64) {
	if b.perServer {
		if b.m.fan != nil {
			b.workParts(t)
			return
		}
		b.workEach(t, false)
		return
	}
	ids := b.due(t)
	if b.sampling && len(ids) > 1 {
		slices.Sort(ids) // the pool's limit moves with each ending, in id order
	}
	for _, id32 := range ids {
		id := int(id32)
		s := &b.srv[id-1]
		if !s.busy || s.done != t {
			continue // stale entry
		}
		if b.sampling {
			b.sample(id, t, int64(b.queue.Len()+b.busy))
		}
		s.busy = false
		b.busy--
		if len(b.ends) > 0 && b.endsOf(id) != completes {
			b.unfinished(id, t)
		} else {
			b.resps.add(b.completed(s, t))
			if b.watching {
				b.succeeded(id, s.req)
			}
			if b.m.recordEvents {
				b.emit(Complete, id, 0, s.req.unpack())
			}
		}
		if s.retiring {
			b.leave(id)
			continue
		}
		if b.watching && !b.active.has(id) {
			continue // ejected: it takes nothing new
		}
		b.idle.add(id) // setIdle, written out
		if b.caps.TracksIdle {
			b.rt.idle(id, true)
		}
	}
}

// admit passes one new request arriving at cycle t through the firewall
// and the queue's capacity (per-server: routes it), and reports whether it
// was queued.
func (b *Balancer) admit(r packed, t int64) bool {
	b.tot.Generated++
	b.last.Generated++
	kind := Arrive
	switch {
	case b.m.fw.Blocks(uint32(r.addr >> 32)):
		b.tot.Rejected++
		b.last.Rejected++
		kind = Reject
	case b.perServer:
		return b.route(r, t, routeFresh)
	case b.th != nil && b.throttles(t):
		b.tot.Admitted++ // a throttled first attempt is admitted, and ends
		b.throttled(r, t)
		return false
	case b.limited:
		return b.admitLimited(r, t)
	case b.m.cfg.QueueCap > 0 && b.queue.Len() >= b.m.cfg.QueueCap:
		b.tot.Discarded++
		b.last.Discarded++
		kind = Discard
	default:
		b.tot.Admitted++
		b.queue.pushBack(r, t)
		if b.watching {
			b.arrived(r, t)
		}
	}
	if b.m.recordEvents {
		b.emit(kind, 0, 0, r.unpack())
	}
	return kind == Arrive
}

// scale is step c: at most one scale-up or scale-down.
func (b *Balancer) scale() { b.scaleFor(b.queueLen()) }

// queueLen returns the number of queued requests: the central queue's, or
// every server queue's and the lobby's.
func (b *Balancer) queueLen() int {
	if b.perServer {
		return b.queued
	}
	return b.queue.Len()
}

// scaleFor is scale with the queue holding queued requests.
func (b *Balancer) scaleFor(queued int) {
	up, acts := b.scaleActs(queued)
	switch {
	case !acts:
		return
	case up:
		b.scaleUp()
		b.last.Scale = 1
		return
	}
	b.scaleDownOne()
	b.last.Scale = -1
}

// scaleUp adds one server (warming for the provision delay): one
// scale-up.
func (b *Balancer) scaleUp() {
	id := b.addServer(b.m.cfg.ProvisionDelay)
	b.tot.ScaleUps++
	if b.m.recordEvents {
		b.emit(ScaleUp, id, 0, Request{})
	}
}

// scaleDownOne removes the idle active server with the highest id, or
// marks the busy one with the highest id retiring: one scale-down.
func (b *Balancer) scaleDownOne() {
	b.tot.ScaleDowns++
	idle := &b.idle
	if b.perServer {
		idle = &b.free // idle with an empty queue
	}
	id := idle.last()
	if id == 0 && b.watching {
		// A down server that health checks have not found out, and that
		// refused an attempt this cycle, is the one active server
		// neither idle nor busy.
		if last := b.active.last(); !b.holds(last) {
			id = last
		}
	}
	if id != 0 {
		b.unsetIdle(id)
		b.uncandidate(id)
		if s := &b.srv[id-1]; s.down {
			s.down = false // the balancer did not know
			b.down--
			b.outSince.drop(id)
		}
		b.depart(id)
		b.live--
		if b.m.recordEvents {
			b.emit(ScaleDown, id, 0, Request{})
		}
		return
	}
	id = b.active.last()
	b.uncandidate(id)
	b.unsetIdle(id) // per-server: it may be idle with a queue
	b.srv[id-1].retiring = true
	b.retiring++
	if b.m.recordEvents {
		b.emit(Retire, id, 0, b.srv[id-1].req.unpack())
	}
}

// scaleActs says whether scaling with queued requests in the queue acts,
// and if so whether it scales up. Only the queue and the number of active
// servers decide: it scales up when the queue exceeds ScaleUp per active
// server and the pool is below MaxServers, and down when the queue is
// below ScaleDown per active server and more than MinServers are active.
func (b *Balancer) scaleActs(queued int) (up, acts bool) {
	cfg := &b.m.cfg
	q := int64(queued) * FactorScale
	s := int64(b.active.n)
	if q > int64(cfg.ScaleUp)*s {
		return true, b.live < cfg.MaxServers
	}
	return false, q < int64(cfg.ScaleDown)*s && s > int64(cfg.MinServers)
}

// scaleQuiet reports whether scaling would not act with any number of
// queued requests from lo to hi, the pool as it is.
func (b *Balancer) scaleQuiet(lo, hi int64) bool {
	// Scaling up acts from some queue on, and down up to some queue: the
	// two ends decide.
	if up, acts := b.scaleActs(int(hi)); up && acts {
		return false
	}
	up, acts := b.scaleActs(int(lo))
	return up || !acts
}

// weightOf returns the weight of the server in slot s: Config.Weights
// gives the first ids', and the rest weigh 1.
func (b *Balancer) weightOf(s int) int {
	if ws, id := b.m.cfg.Weights, b.idOf(s); id <= len(ws) {
		return ws[id-1]
	}
	return 1
}

// addServer adds a server to the pool: a candidate at once, or with warm
// > 0 (scaling, after cycle 0) warming until warm cycles from now.
func (b *Balancer) addServer(warm int64) int {
	b.created++
	v := Speed(SpeedScale)
	if vs := b.m.cfg.Speeds; b.created <= len(vs) {
		v = vs[b.created-1]
	}
	id := len(b.srv) + 1 // its slot
	b.srv = append(b.srv, server{speed: v})
	b.ids = append(b.ids, int32(b.created))
	if b.lim != nil {
		b.lim.added(b)
	}
	if b.perServer {
		b.sq = append(b.sq, fifo{})
	}
	b.live++
	if b.fleet != nil {
		b.fleet.added(id)
	}
	b.rt.added(id, b.m.cycle)
	if warm > 0 && b.m.cycle > 0 {
		if b.warming == nil {
			b.warming = map[int]int64{}
		}
		b.warming[id] = b.m.cycle + warm
		b.cands.reserve(id)
		return id
	}
	b.candidate(id, b.m.cycle)
	b.setIdle(id)
	return id
}

// candidate makes server id, just added or back from a fault, a candidate
// for requests (active, and in per-server mode routable) at cycle t.
func (b *Balancer) candidate(id int, t int64) {
	b.active.add(id)
	if b.perServer {
		b.cands.add(id)
		b.free.add(id)
	}
	b.rt.candidate(id, t)
}

// uncandidate takes server id out of the candidates (it retires, leaves
// or fails).
func (b *Balancer) uncandidate(id int) {
	if b.fleet != nil {
		b.fleet.unregister(id)
	}
	b.active.remove(id)
	if b.perServer {
		b.cands.remove(id)
		b.free.remove(id)
	}
	b.rt.uncandidate(id)
}

// setIdle and unsetIdle add server id to the idle active servers and take
// it out, telling a router that tracks them. Per-server balancers keep no
// idle set: free and ready say what they need.
func (b *Balancer) setIdle(id int) {
	if b.perServer {
		return
	}
	b.idle.add(id)
	if b.caps.TracksIdle {
		b.rt.idle(id, true)
	}
}

func (b *Balancer) unsetIdle(id int) {
	if b.perServer {
		return
	}
	b.idle.remove(id)
	if b.caps.TracksIdle {
		b.rt.idle(id, false)
	}
}

// dispatchAll is step d, in either queue mode.
func (b *Balancer) dispatchAll(t int64) {
	switch {
	case b.perServer:
		if b.ready.n > 0 {
			b.dispatchEach(t)
		}
	case b.queue.n > 0 && b.idle.n > 0:
		b.dispatch(t)
	}
}

// dispatch is step d (pooled): the oldest requests go to idle active
// servers.
func (b *Balancer) dispatch(t int64) {
	if b.m.shedding() {
		b.shed(0, t)
	}
	for b.queue.Len() > 0 && b.idle.n > 0 {
		id := b.rt.pickIdle()
		if id == 0 {
			return // the router picks none of the idle servers (weights 0)
		}
		b.lastGiven = id
		b.idle.remove(id) // unsetIdle, written out
		if b.caps.TracksIdle {
			b.rt.idle(id, false)
		}
		r := b.queue.take(b.m.cfg.Discipline, t, b.m.codelInterval())
		if b.watching && b.srv[id-1].down {
			// Health checks have not found it out: it refuses, once
			// this cycle.
			b.refused = append(b.refused, id)
			b.refuse(id, r, t)
			continue
		}
		b.serve(id, r, t)
	}
}

// serve gives request r to server id at cycle t (the server is not busy)
// and counts the dispatch, in either queue mode: its wait (since it
// arrived, or since it was requeued) goes into the totals and the
// histogram, and the event into the cycle's events.
func (b *Balancer) serve(id int, r packed, t int64) {
	s := &b.srv[id-1]
	if b.watching {
		b.placed(r, id, true)
	}
	if len(b.grays) > 0 && b.grayOf(id).gray != Healthy {
		b.serveGray(id, r, t)
		return
	}
	time := int64(s.speed.Cycles(r.time()))
	if time > b.wheel.mask {
		b.refitWheel(time) // a long draw, or a slow server
	}
	s.req, s.done, s.busy = r, t+time, true
	if f := b.fleet; f != nil && f.v.hearsServe {
		f.v.served(id) // local counts' least-work reads who serves whom
	}
	b.wheel.add(s.done, id)
	b.busy++
	b.tot.ServiceCycles += time
	b.tot.ServiceCount++
	wait := b.dispatched(r, t)
	b.waits.add(wait)
	if b.m.recordEvents {
		b.emit(Dispatch, id, wait, r.unpack())
	}
}

// completed counts the completion at cycle t of server s's request and
// returns its response time; the caller marks the server free and adds the
// time to the histogram (small enough to inline, with those outside).
func (b *Balancer) completed(s *server, t int64) int64 {
	resp := t - s.req.arrival()
	b.tot.Completed++
	b.tot.TotalResponse += resp
	b.last.Completed++
	return resp
}

// dispatched counts request r dispatched at cycle t and returns its wait
// (from its arrival, or from when it was taken back from a failed server
// or, a hedge, sent);
// the caller counts its server busy and adds the wait to the histogram
// (small enough to inline, with those outside; so are the service cycles
// avg_service counts).
func (b *Balancer) dispatched(r packed, t int64) int64 {
	wait := t - r.arrival()
	if r.meta&(packedRequeued|packedRetry) != 0 || len(b.requeuedAt) > 0 { // a hedge waits from its sending
		wait = b.laterWait(r, t, wait)
	}
	b.tot.Dispatched++
	b.tot.TotalWait += wait
	b.last.Dispatched++
	return wait
}

// laterWait returns the wait at cycle t of request r, taken back from a
// failed server or a retry: from the cycle it was taken back, or else the
// cycle the retry arrived, which its flight holds (wait, if neither is
// known).
func (b *Balancer) laterWait(r packed, t, wait int64) int64 {
	if len(b.requeuedAt) > 0 {
		if at, ok := b.requeuedAt[r.id]; ok {
			delete(b.requeuedAt, r.id)
			return t - at
		}
	}
	if f := b.flightOf(r.id); f != nil && r.retry() {
		return t - f.at
	}
	return wait
}

// catchUp adds the end-of-cycle live and busy counts of the cycles after
// intAt up to c to the server-cycle totals, with the levels as they are
// now: callers make sure nothing changed them since intAt (the start of a
// cycle, before anything happens in it, or the end of a cycle).
func (b *Balancer) catchUp(c int64) {
	if n := c - b.intAt; n > 0 {
		b.tot.ServerCycles += n * int64(b.live)
		b.tot.BusyCycles += n * int64(b.busy)
		b.intAt = c
	}
}

// totals returns the counters with the server-cycles of the cycles not
// yet caught up (levels unchanged since then) added in.
func (b *Balancer) totals() Totals {
	t := b.tot
	if n := b.m.cycle - b.intAt; n > 0 {
		t.ServerCycles += n * int64(b.live)
		t.BusyCycles += n * int64(b.busy)
	}
	b.clientLevels(&t, b.m.cycle)
	if f := b.m.fan; f != nil {
		t.Fanout, t.InFlightRequests = f.k, f.live[b.index]
	}
	return t
}

// record is step e: the levels at the end of the cycle.
func (b *Balancer) record() {
	b.catchUp(b.m.cycle)
	q := b.queueLen()
	b.last.Queue, b.last.Servers, b.last.Busy, b.last.Retiring = q, b.live, b.busy, b.retiring
	b.tot.PeakQueue = max(b.tot.PeakQueue, int64(q))
	b.tot.ServersMin = min(b.tot.ServersMin, b.live)
	b.tot.ServersPeak = max(b.tot.ServersPeak, b.live)
	if b.cl != nil {
		b.cl.recordWindow(b, b.m.cycle)
	}
	if b.th != nil {
		b.th.record(b, b.m.cycle)
	}
	if b.compactDue() {
		b.compact()
	}
}

// refitWheel makes the timing wheel hold the longest processing time,
// re-adding the requests in service when it had to grow.
func (b *Balancer) refitWheel(span int64) {
	if b.wheel.fit(span) {
		for i := range b.srv {
			if s := &b.srv[i]; s.busy {
				b.wheel.add(s.done, i+1)
			}
		}
	}
}

// faultCheck says why server id cannot go down (up = false) or come back
// (up = true) now, or returns "" when it can.
func (b *Balancer) faultCheck(id int, up bool) string {
	switch {
	case id < 1 || id > len(b.srv) || b.srv[id-1].gone:
		return "does not exist (it was never created or has left the pool)"
	case up && !b.srv[id-1].down:
		return "is not down"
	case !up && b.srv[id-1].down:
		return "is already down"
	}
	return ""
}

// takeDown fails server id at cycle t, which must be live. With health
// checks off the balancer knows at once: it stops being a candidate, and
// its attempt in service goes back to the head of the queue with its
// arrival kept (per-server: it and then the server's queue are routed
// again). With them on it stays a candidate (refusing what it is given,
// see refuse) and what it holds ends in error. A retiring server that
// fails has finished retiring: it leaves the pool.
func (b *Balancer) takeDown(id int, t int64) {
	s := &b.srv[id-1]
	b.tot.Downs++
	if b.m.recordEvents {
		b.emit(Down, id, 0, Request{})
	}
	unseen := b.healthOn() && !s.retiring // else known at once (see knownDown)
	if b.active.has(id) && !unseen {
		b.uncandidate(id)
		b.unsetIdle(id)
	}
	if b.healthOn() {
		b.failHeld(id, t)
	} else {
		b.takeBack(id, t)
	}
	if s.retiring {
		s.retiring = false // it has finished retiring
		b.depart(id)
		b.retiring--
		b.live--
		return
	}
	b.noteOut(id, t) // replacement counts from here, even if turned on later
	s.down = true    // it keeps its slot: live, not active
	b.down++
}

// takeBack takes what server id holds back at cycle t, at the start of
// the cycle: its attempt in service goes to the head of the queue
// (per-server: it and then its queue are routed again); abandoned work is
// dropped.
func (b *Balancer) takeBack(id int, t int64) {
	s := &b.srv[id-1]
	var again []packed // per-server: the requests to route again
	if s.busy {
		r := s.req
		s.busy = false
		b.busy--
		b.hold(id, r, -1)
		switch b.endsOf(id) {
		case abandons:
			b.abandonedEnds(id, t)
		default:
			delete(b.ends, id) // an attempt that would have ended in error, or hung, ends here
			if b.perServer {
				again = append(again, r)
			} else {
				b.requeue(r, id, t)
				b.queue.pushFront(r.requeue(), t)
				b.placed(r, 0, false)
			}
		}
		if b.perServer {
			b.cands.addLoad(id, -1)
		}
	}
	if b.perServer {
		q := &b.sq[id-1]
		b.queued -= q.Len()
		b.cands.addLoad(id, -int32(q.Len()))
		for q.Len() > 0 {
			r := q.popFront(t)
			b.hold(id, r, -1)
			again = append(again, r)
		}
		b.ready.remove(id)
		q.reset(t) // its buffer goes: a server down for long holds none
	}
	b.rerouting = true // before step a: a request due now has not completed
	if b.m.fan != nil {
		b.toTransit(again)
	}
	for _, r := range again {
		if b.m.fan != nil && b.endedInTransit(r) {
			continue // cancelled on the way: its request ended
		}
		b.requeue(r, id, t)
		b.route(r.requeue(), t, routeAgain)
	}
	b.transit = nil
	b.rerouting = false
}

// failHeld ends what server id holds in error at cycle t, at the start of
// the cycle (health checks on: a server going down): its attempt in
// service, then (per-server) its queue, oldest first; abandoned work is
// dropped. A candidate stays one, in its place, its router told of each
// attempt it no longer holds.
func (b *Balancer) failHeld(id int, t int64) {
	s := &b.srv[id-1]
	cand := b.active.has(id)
	hear := cand && b.perServer && b.caps.Hears
	var failed []packed
	if s.busy {
		if cand && b.perServer && b.caps.Reads == ReadsWork {
			b.rt.(workPlacer).reschedule(id, t-s.done) // it ends now
		}
		s.busy = false
		b.busy--
		b.hold(id, s.req, -1)
		abandoned := b.endsOf(id) == abandons
		if !abandoned {
			delete(b.ends, id)
			failed = append(failed, s.req)
		}
		switch {
		case b.perServer:
			if cand {
				b.cands.addLoad(id, -1)
			}
			if hear {
				b.rt.completed(id, t, b.sq[id-1].n == 0, false)
			}
		case cand:
			b.setIdle(id)
		}
		if abandoned {
			b.abandonedEnds(id, t)
		}
	}
	if b.perServer {
		q := &b.sq[id-1]
		for q.Len() > 0 {
			r := q.popFront(t)
			b.queued--
			b.hold(id, r, -1)
			if cand {
				b.cands.addLoad(id, -1)
			}
			if hear {
				b.rt.left(id, r, t, q.Len() == 0)
			}
			failed = append(failed, r)
		}
		b.ready.remove(id)
		q.reset(t)
		if cand {
			b.free.add(id)
		}
	}
	if f := b.m.fan; f != nil {
		for _, r := range failed {
			b.partEnded(r) // no longer live: a sibling's error does not cancel it
		}
	}
	for _, r := range failed {
		b.erred(id, r, t, false)
	}
}

// leave takes retiring server id, which has just completed its last
// request, out of the pool; its queue's buffer goes with it.
func (b *Balancer) leave(id int) {
	b.srv[id-1].retiring = false
	b.depart(id)
	b.retiring--
	b.live--
	if b.m.recordEvents {
		b.emit(Leave, id, 0, Request{})
	}
}

// requeue counts request r taken back from failed server id at cycle t;
// its next wait counts from t.
func (b *Balancer) requeue(r packed, id int, t int64) {
	if b.requeuedAt == nil {
		b.requeuedAt = map[int64]int64{}
	}
	b.requeuedAt[r.id] = t
	if l := b.lim; l != nil && l.r > 0 {
		l.rejoin(r, t)
	}
	b.tot.Requeued++
	if b.m.recordEvents {
		b.emit(Requeue, id, 0, r.requeue().unpack())
	}
}

// bringUp returns failed server id to the pool at cycle t, idle, with the
// same id.
func (b *Balancer) bringUp(id int, t int64) {
	s := &b.srv[id-1]
	s.down = false
	b.down--
	if len(b.known) > 0 {
		delete(b.known, id)
	}
	if _, ej := b.ejected[id]; !ej {
		b.outSince.drop(id)
	}
	b.rejoin(id, t) // unless it is ejected, or still a candidate (health checks)
	b.tot.Ups++
	if b.m.recordEvents {
		b.emit(Up, id, 0, Request{})
	}
}

// Name returns "" for the central queue, or "P" or "S" in a switch.
func (b *Balancer) Name() string { return b.name }

// Totals returns this balancer's counters since cycle 0.
func (b *Balancer) Totals() Totals { return b.totals() }

// Last returns this balancer's timeline row of the last cycle completed.
func (b *Balancer) Last() CycleStats { return b.last }

// Pool returns the server counts at the end of the last cycle.
func (b *Balancer) Pool() Pool {
	idle := b.live - b.busy - b.down
	for id := range b.warming {
		if !b.srv[id-1].down {
			idle-- // warming: neither busy nor idle
		}
	}
	return Pool{Live: b.live, Active: b.active.n, Busy: b.busy, Idle: idle, Retiring: b.retiring, Down: b.down,
		Ejected: len(b.ejected), Warming: len(b.warming)}
}

// QueueLen returns the number of queued requests: the central queue's, or
// in per-server mode every server queue's and the lobby's.
func (b *Balancer) QueueLen() int { return b.queueLen() }

// PerServer reports whether the balancer routes requests at arrival to
// queues of their own per server.
func (b *Balancer) PerServer() bool { return b.perServer }

// CentralLen returns the length of the central queue (pooled) or of the
// lobby (per-server): the requests QueueAt reads.
func (b *Balancer) CentralLen() int {
	if b.perServer {
		return b.lobby.Len()
	}
	return b.queue.Len()
}

// QueueAt returns the i-th oldest request of the central queue (pooled) or
// of the lobby (per-server), 0 ≤ i < CentralLen().
func (b *Balancer) QueueAt(i int) Request {
	if b.perServer {
		return b.request(b.lobby.at(i))
	}
	return b.queue.at(i).unpack()
}

// ServerQueueAt returns the i-th oldest request queued at server id
// (per-server mode), 0 ≤ i < its ServerView's Queued.
func (b *Balancer) ServerQueueAt(id, i int) Request {
	return b.request(b.sq[b.slotOf(id)-1].at(i))
}

// Servers yields the live servers and the failed ones, in ascending id
// order; a failed server's State is Failed.
func (b *Balancer) Servers() iter.Seq[ServerView] {
	return func(yield func(ServerView) bool) {
		for b.firstLive < len(b.srv) && b.srv[b.firstLive].gone {
			b.firstLive++
		}
		for i := b.firstLive; i < len(b.srv); i++ {
			if !b.srv[i].gone && !yield(b.view(i+1)) {
				return
			}
		}
	}
}

// Server returns the view of server id, and whether it is live or down.
func (b *Balancer) Server(id int) (ServerView, bool) {
	s := b.slotOf(id)
	if s == 0 || b.srv[s-1].gone {
		return ServerView{}, false
	}
	return b.view(s), true
}

// view returns the view of the server in slot id.
func (b *Balancer) view(id int) ServerView {
	s := &b.srv[id-1]
	v := ServerView{ID: b.idOf(id), Speed: s.speed}
	if b.perServer {
		v.Queued = b.sq[id-1].Len()
	}
	switch {
	case s.down:
		v.State = Failed
	case s.retiring:
		v.State = Retiring
	case s.busy:
		v.State = Busy
	}
	g := b.grayOf(id)
	v.Gray, v.Slow = g.gray, g.slow
	_, v.Ejected = b.ejected[id]
	v.Ready, v.Warming = b.warming[id]
	v.Abandoned = s.busy && b.endsOf(id) == abandons
	if s.busy {
		v.Request, v.Done = b.request(s.req), s.done
		v.Start = b.started(id)
	}
	return v
}

// Summary reports this balancer as of the last cycle completed.
func (b *Balancer) Summary() Summary {
	s := b.totals().summary(b.m.cfg.Seed, b.m.cycle, b.Pool(), int64(b.queueLen()))
	s.ServerQueueMax = b.serverQueueMax()
	s.Lobby = int64(b.lobby.Len())
	s.setTail(tail(&b.waits, &b.resps))
	s.setFleet(b.m.cfg.Balancers, b.m.loadInfo, b.Fleet())
	s.SetCost(b.m.cfg.ServerCost)
	s.setLimits(b.limits())
	return s
}

// serverQueueMax returns the longest server queue, retiring servers'
// included (0 when pooled).
func (b *Balancer) serverQueueMax() int64 {
	n := 0
	for i := range b.sq {
		n = max(n, b.sq[i].Len())
	}
	return int64(n)
}
