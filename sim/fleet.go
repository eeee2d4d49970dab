package sim

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// A fleet is several balancers sharing one pool of per-server queues
// (Config.Balancers = K > 1), each knowing the servers' loads only as
// Config.LoadInfo says: exactly, from its own requests (local), or from a
// shared board refreshed every T cycles plus its own picks since
// (periodic); the fleet's view (loadView) keeps what they read. Every
// attempt routed at arrival, and every retry, is handed to one balancer
// drawn from the fleet generator, and keeps it for life (the packed
// request's member): a lobby drain or a re-route after a failure uses the
// same balancer. All balancers share the routing generator, so random
// routing, and least-connections and p2c with exact information, route
// exactly as one balancer would. The router in force picks for the
// attempt's balancer (fleetPicker) by the view; the fleet never asks which
// policy is in force, only what the policy table says it does.
//
// The fleet's state is kept in a fleet value only while something reads
// it (K > 1, a periodic board, or a policy that keeps a registry of idle
// servers, join-idle-queue); otherwise Balancer.fleet is nil and a run is
// exactly a single balancer's. Memory: the view's (loadView), 8 bytes per
// balancer per server slot for the picks (max_share), and one entry per
// registration in the I-queues.
type fleet struct {
	b *Balancer
	k int
	// pcg is the fleet generator: the balancer of each attempt, and the
	// balancer a server registers with under join-idle-queue.
	pcg *rand.PCG
	// last holds, by balancer, the id (not the slot) of the server it
	// last routed to, 0 before any: round-robin goes on from it.
	last []int64
	// v is what the balancers read of the servers' loads and work.
	v *loadView
	// picker is the router in force, when it picks for a balancer of its
	// own (nil: the router's pick serves every balancer).
	picker fleetPicker
	// Join-idle-queue: each balancer's queue of idle servers (slots), and
	// by slot−1 the balancer a server registered with, plus 1 (0: none),
	// and the number of its registration (an entry of an I-queue whose
	// number is not its slot's is one it has since left).
	iq   []slotQueue
	reg  []int32
	gen  []uint32
	regd idset // the registered servers (reg ≠ 0)
	// iqSteps counts the I-queue entries the registrations, departures
	// and picks touched, for the test that bounds them.
	iqSteps int64
}

// fleetStream is the stream constant of the fleet generator.
const fleetStream = 0x6c6273696d2d666c // "lbsim-fl"

// wantsFleet reports whether a balancer needs fleet state under cfg.
func wantsFleet(cfg *Config) bool {
	return cfg.Balancers > 1 || cfg.LoadInfo > 0 || cfg.Policy.keepsIdle()
}

// stepsEveryCycle reports whether the fleet may act in a cycle without an
// event: a periodic board refreshes, idle servers register.
func (f *fleet) stepsEveryCycle() bool {
	return f.v.boardLoad != nil || f.b.m.cfg.Policy.keepsIdle()
}

// ensureFleet makes the balancer's fleet state when its settings need it
// (at the start, or when join-idle-queue comes into force); once made, it
// stays for the rest of the run.
func (b *Balancer) ensureFleet() {
	cfg := &b.m.cfg
	if b.fleet != nil || !b.perServer || !wantsFleet(cfg) {
		return
	}
	k := max(cfg.Balancers, 1)
	n := len(b.srv)                // 0 but for a fleet of one that jiq's coming into force makes
	capHint := max(n, cfg.Servers) // the servers to come at the start: no slice grows by doubling
	f := &fleet{b: b, k: k, pcg: rand.NewPCG(cfg.Seed, fleetStream), last: make([]int64, k), iq: make([]slotQueue, k)}
	f.v = newLoadView(b, k, n, capHint)
	f.reg, f.gen = make([]int32, n, capHint), make([]uint32, n, capHint)
	if g := b.lastGiven; g > 0 {
		f.last[0] = int64(b.idOf(g)) // round-robin goes on from the last pick
	}
	b.fleet = f
	for j := len(b.tally.routed); j < k; j++ {
		b.tally.routed = append(b.tally.routed, 0)
		b.tally.most = append(b.tally.most, 0)
		b.tally.picks = append(b.tally.picks, make([]int64, n, capHint))
	}
}

// draw returns a uniform draw from 0 to n−1 on the fleet generator, as
// math/rand/v2's IntN draws it (drawN).
func (f *fleet) draw(n int) int { return drawN(f.pcg, n) }

// assign hands attempt r, routed at arrival or as a retry, to a balancer
// of the fleet.
func (f *fleet) assign(r packed) packed {
	if f.k == 1 {
		return r
	}
	return r.withMember(f.draw(f.k))
}

// added makes room for a server created in slot s (0 on the board).
func (f *fleet) added(s int) {
	f.reg, f.gen = grown(f.reg, s), grown(f.gen, s)
	f.v.added(s)
}

// hold adds d to what attempt r's balancer holds at server s, for the
// view: r joined s's queue or service (1), or left it, served or not
// (−1). Every request in and out of a server's hands passes here.
func (b *Balancer) hold(s int, r packed, d int32) {
	if f := b.fleet; f != nil && f.v.counts {
		f.v.hold(s, r, d)
	}
}

// viewed reports whether the balancers read something other than the
// true loads.
func (f *fleet) viewed() bool { return f.v.viewed() }

// refreshDue refreshes the board when cycle t is a multiple of the period
// (step c, before scaling).
func (f *fleet) refreshDue(t int64) {
	if period, ok := f.b.m.cfg.LoadInfo.Periodic(); ok && t%period == 0 {
		f.v.refresh(t)
	}
}

// fleetEndOfCycle is the fleet's part of the end of cycle t (step e, or
// the end of cycle 0 when start): the board's first refresh, and the
// registrations of idle servers while a policy that keeps them is in
// force.
func (b *Balancer) fleetEndOfCycle(t int64, start bool) {
	f := b.fleet
	if f == nil {
		return
	}
	if start && f.v.boardLoad != nil {
		f.v.refresh(t)
	}
	if b.m.cfg.Policy.keepsIdle() {
		f.register()
	}
}

// fleetPicker is a router whose per-server picks in a fleet are its
// attempt's balancer's own: they read that balancer's view of the loads
// (the fleet's loadView) or state of its own. Every policy the table says
// reads load has one (TestLoadReadersHaveViews); without it the fleet
// would route by the true loads.
type fleetPicker interface {
	fleetPick(f *fleet, r packed, t int64) int
	// ownPicks reports whether, in fleet f, its picks differ from pick's
	// (with exact information, p2c's do not).
	ownPicks(f *fleet) bool
}

// pick is the pick of attempt r at cycle t by its balancer (r.member()),
// reading what that balancer knows.
func (f *fleet) pick(r packed, t int64) int {
	if f.picker != nil {
		return f.picker.fleetPick(f, r, t)
	}
	return f.b.rt.pick(r, t)
}

// picked notes balancer k's pick of server s for attempt r: round-robin's
// pointer, and what the balancer sent since the board's refresh.
func (f *fleet) picked(k, s int, r packed) {
	f.last[k] = int64(f.b.idOf(s))
	if f.v.sentLoad != nil {
		f.v.picked(k, s, r)
	}
}

// nextAfter is round-robin for a balancer that last routed to server id
// last: the candidate next by id, wrapping.
func (f *fleet) nextAfter(last int64) int {
	b := f.b
	from, _ := slices.BinarySearch(b.ids, int32(last)+1) // the first slot of a later id
	set := &b.active.idset
	if id := set.next(from + 1); id != 0 {
		return id
	}
	return set.first()
}

// register is join-idle-queue's registration (the end of cycle 0 and step
// e): every candidate that is idle with an empty queue and not registered
// registers, in id order, with a balancer drawn from the fleet generator.
// The free servers not registered are found a word of 64 at a time
// (free &^ regd), so that a pool of idle servers costs a cycle its words,
// not its servers.
func (f *fleet) register() {
	b := f.b
	for wi, w := range b.free.w {
		if wi < len(f.regd.w) {
			w &^= f.regd.w[wi]
		}
		f.iqSteps++
		for ; w != 0; w &= w - 1 {
			f.registerOne(wi<<6 + bits.TrailingZeros64(w) + 1)
		}
	}
}

// registerOne registers server s, free and not registered, with a balancer
// drawn from the fleet generator.
func (f *fleet) registerOne(s int) {
	k := 0
	if f.k > 1 {
		k = f.draw(f.k)
	}
	f.reg[s-1] = int32(k + 1)
	f.regd.add(s)
	f.gen[s-1]++
	q := &f.iq[k]
	if len(q.e)-q.h >= 2*q.live+64 {
		f.compactQueue(k)
	}
	f.iqSteps += q.push(iqEntry{int32(s), f.gen[s-1]})
}

// unregister takes server s out of the I-queue that holds it, in O(1): it
// stopped being a candidate. Its entry stays, no longer its registration,
// until it reaches the head or the queue is compacted.
func (f *fleet) unregister(s int) {
	if s > len(f.reg) || f.reg[s-1] == 0 {
		return
	}
	f.iqSteps++
	f.iq[f.reg[s-1]-1].live--
	f.reg[s-1] = 0
	f.regd.remove(s)
}

// registered reports whether I-queue entry e of balancer k is its slot's
// registration.
func (f *fleet) registered(k int, e iqEntry) bool {
	return f.reg[e.s-1] == int32(k+1) && f.gen[e.s-1] == e.gen
}

// idleHead is join-idle-queue's pick for balancer k: the head of its
// I-queue, no longer registered (busy or not by now), or with none a
// uniform draw among the candidates on the routing generator.
func (f *fleet) idleHead(k int) int {
	b := f.b
	q := &f.iq[k]
	for q.live > 0 {
		e := q.pop()
		f.iqSteps++
		if !f.registered(k, e) {
			continue // it left the queue
		}
		q.live--
		s := int(e.s)
		f.reg[s-1] = 0
		f.regd.remove(s)
		if b.active.has(s) {
			return s
		}
	}
	q.reset()
	ids := b.cands.ids
	return int(ids[b.m.routeDraw(len(ids))])
}

// idleHeadBut is idleHead among the candidates but those in skip
// (fan-out): the first registered candidate of balancer k's I-queue not
// in skip, unregistered and taken out of the queue, the entries before it
// that are no longer registrations, or whose server is no longer a
// candidate, dropped as idleHead drops them, the skipped ones kept in
// their places; 0 when there is none.
func (f *fleet) idleHeadBut(k int, skip []int) int {
	b := f.b
	q := &f.iq[k]
	kept := 0 // the skipped entries passed, moved up behind the head
	for i := q.h; i < len(q.e); i++ {
		e := q.e[i]
		f.iqSteps++
		s := int(e.s)
		switch {
		case !f.registered(k, e):
			// it left the queue
		case b.active.has(s) && slices.Contains(skip, s):
			q.e[q.h+kept] = e
			kept++
		default:
			q.live--
			f.reg[s-1] = 0
			f.regd.remove(s)
			if b.active.has(s) {
				// Taken: the entries passed and kept go back before the rest.
				copy(q.e[i+1-kept:], q.e[q.h:q.h+kept])
				q.h = i + 1 - kept
				return s
			}
		}
	}
	q.e = q.e[:q.h+kept]
	return 0
}

// compactQueue drops from balancer k's I-queue the entries of servers that
// have left it.
func (f *fleet) compactQueue(k int) {
	q := &f.iq[k]
	out := q.e[:0]
	for _, e := range q.e[q.h:] {
		if f.registered(k, e) {
			out = append(out, e)
		}
	}
	f.iqSteps += int64(len(q.e) - q.h)
	q.e, q.h = out, 0
}

// uncandidate is the fleet's part of server s leaving the candidates: its
// I-queue.
func (f *fleet) uncandidate(s int) { f.unregister(s) }

// renumber moves the fleet's state to the slots of rn (compact).
func (f *fleet) renumber(rn *renumbering) {
	keep := func(i int) bool { return rn.to[i] != 0 }
	for j := range f.iq {
		q := &f.iq[j]
		out := q.e[:0]
		for _, e := range q.e[q.h:] {
			if f.registered(j, e) && rn.of(int(e.s)) != 0 {
				out = append(out, iqEntry{int32(rn.of(int(e.s))), e.gen})
			}
		}
		q.e, q.h, q.live = out, 0, len(out)
	}
	f.v.renumber(rn)
	f.reg = compactSlice(f.reg, keep)
	f.gen = compactSlice(f.gen, keep)
	f.regd.renumber(rn)
}

// digest folds the fleet's state into Model.Hash: its generator, the
// pointers, the view's counts and the I-queues.
func (f *fleet) digest(put func(int64)) {
	state, _ := f.pcg.MarshalBinary()
	for _, c := range state {
		put(int64(c))
	}
	for _, v := range f.last {
		put(v)
	}
	f.v.digest(put)
	for j := range f.iq {
		put(int64(f.iq[j].live))
	}
}

// slotQueue is a FIFO of registrations (a balancer's I-queue): a server
// leaves it in O(1) by no longer being registered (fleet.unregister); its
// entry is passed over at the head, and the queue compacted once most of
// it is such entries.
type slotQueue struct {
	e    []iqEntry
	h    int // the head: e[h]
	live int // the entries that are registrations
}

// iqEntry is a registration: a slot and its registration's number.
type iqEntry struct {
	s   int32
	gen uint32
}

// push appends e and returns the entries it moved, plus one.
func (q *slotQueue) push(e iqEntry) int64 {
	var moved int
	if q.h > 0 && q.h >= len(q.e)/2 {
		moved = copy(q.e, q.e[q.h:]) // the room before the head, once it is half
		q.e, q.h = q.e[:moved], 0
	}
	q.e = append(q.e, e)
	q.live++
	return int64(moved) + 1
}

func (q *slotQueue) pop() iqEntry {
	e := q.e[q.h]
	q.h++
	return e
}

// reset empties the queue, keeping its array (no entry is live).
func (q *slotQueue) reset() { q.e, q.h = q.e[:0], 0 }

// slots lists the registered slots in order (for tests).
func (f *fleet) slots(k int) []int32 {
	var out []int32
	q := &f.iq[k]
	for _, e := range q.e[q.h:] {
		if f.registered(k, e) {
			out = append(out, e.s)
		}
	}
	return out
}

// tally counts each balancer's picks (routed) and, of the servers it
// picked, the most picks naming one (most), kept as a running maximum so
// that servers that have left count without keeping their slots.
type tally struct {
	routed, most []int64
	picks        [][]int64 // by balancer and slot−1
}

// add counts balancer k's pick of server s.
func (t *tally) add(k, s int) {
	p := t.picks[k]
	for len(p) < s {
		p = append(p, 0)
	}
	t.picks[k] = p
	p[s-1]++
	t.routed[k]++
	t.most[k] = max(t.most[k], p[s-1])
}

// renumber moves the counts to their new slots (compact).
func (t *tally) renumber(rn *renumbering) {
	keep := func(i int) bool { return i < len(rn.to) && rn.to[i] != 0 }
	for j := range t.picks {
		t.picks[j] = compactSlice(t.picks[j], keep)
	}
}

// FleetSize returns the balancers of the fleet: Config.Balancers, 1 for a
// single balancer.
func (b *Balancer) FleetSize() int { return max(b.m.cfg.Balancers, 1) }

// Belief returns what balancer k of the fleet (from 0) reads as server
// id's load: the true load with exact information (or no fleet), its own
// attempts there with local counts, the board's entry plus its picks since
// with a periodic board; false when the server is not live.
func (b *Balancer) Belief(k, id int) (int64, bool) {
	s := b.slotOf(id)
	if s == 0 || b.srv[s-1].gone || k < 0 || k >= b.FleetSize() {
		return 0, false
	}
	if f := b.fleet; f != nil {
		return f.v.load(k, s), true
	}
	return b.load(s), true
}

// BoardAt returns the cycle of the periodic board's last refresh, and
// false when the balancers read no board.
func (b *Balancer) BoardAt() (int64, bool) {
	if f := b.fleet; f != nil && f.v.boardLoad != nil {
		return f.v.boardAt, true
	}
	return 0, false
}

// FleetShare is one balancer's routing: its picks, and the largest share
// of them that named one server.
type FleetShare struct {
	Routed   int64   `json:"routed"`
	MaxShare float64 `json:"max_share"`
}

// setFleet sets the summary's fleet: its balancers, the load information
// the run started with, and each balancer's routing.
func (s *Summary) setFleet(balancers int, info LoadInfo, shares []FleetShare) {
	s.Balancers, s.LoadInfo, s.Fleet = max(balancers, 1), info.String(), shares
	s.MaxShare = 0
	for _, f := range shares {
		s.MaxShare = max(s.MaxShare, f.MaxShare)
	}
}

// Fleet returns each balancer's routing so far (one at K = 1; none in the
// pooled mode, where no balancer routes at arrival).
func (b *Balancer) Fleet() []FleetShare {
	out := make([]FleetShare, len(b.tally.routed)) // empty, not nil, pooled
	for k := range out {
		out[k].Routed = b.tally.routed[k]
		if r := b.tally.routed[k]; r > 0 {
			out[k].MaxShare = float64(b.tally.most[k]) / float64(r)
		}
	}
	return out
}
