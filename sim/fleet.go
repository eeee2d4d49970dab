package sim

import (
	"math/rand/v2"
	"slices"
)

// A fleet is several balancers sharing one pool of per-server queues
// (Config.Balancers = K > 1), each knowing the servers' loads only as
// Config.LoadInfo says: exactly, from its own requests (local), or from a
// shared board refreshed every T cycles plus its own picks since
// (periodic). Every attempt routed at arrival, and every retry, is handed
// to one balancer drawn from the fleet generator, and keeps it for life
// (the packed request's member): a lobby drain or a re-route after a
// failure uses the same balancer. All balancers share the routing
// generator, so random routing, and least-connections and p2c with exact
// information, route exactly as one balancer would.
//
// The fleet's state is kept in a fleet value only while something reads
// it (K > 1, a periodic board, or join-idle-queue's queues of idle
// servers); otherwise Balancer.fleet is nil and a run is exactly a single
// balancer's. Memory: K counts per live server for local and periodic
// information (and per-balancer routers for swrr and peak-ewma), one slot
// per idle server in the I-queues.
type fleet struct {
	b *Balancer
	k int
	// pcg is the fleet generator: the balancer of each attempt, and the
	// balancer a server registers with under join-idle-queue.
	pcg *rand.PCG
	// last holds, by balancer, the id (not the slot) of the server it
	// last routed to, 0 before any: round-robin goes on from it.
	last []int64
	// local holds, by balancer and slot−1, the attempts of the balancer
	// that the server holds (LoadLocal only).
	local [][]int32
	// The periodic board (LoadInfo > 0): each server's load and work at
	// the last refresh (0 for a server created since), and by balancer
	// and slot−1 what it has sent there since: picks, and their service
	// cycles at the server's speed.
	boardLoad, boardWork []int64
	sentLoad, sentWork   [][]int64
	// boardAt is the cycle of the last refresh.
	boardAt int64
	// Join-idle-queue: each balancer's queue of idle servers (slots), and
	// by slot−1 the balancer a server registered with, plus 1 (0: none).
	iq  []slotQueue
	reg []int32
}

// fleetStream is the stream constant of the fleet generator.
const fleetStream = 0x6c6273696d2d666c // "lbsim-fl"

// wantsFleet reports whether a balancer needs fleet state under cfg.
func wantsFleet(cfg *Config) bool {
	return cfg.Balancers > 1 || cfg.LoadInfo > 0 || cfg.Policy == JIQ
}

// stepsEveryCycle reports whether the fleet may act in a cycle without an
// event: a periodic board refreshes, idle servers register under jiq.
func (f *fleet) stepsEveryCycle() bool { return f.boardLoad != nil || f.b.m.cfg.Policy == JIQ }

// ensureFleet makes the balancer's fleet state when its settings need it
// (at the start, or when join-idle-queue comes into force); once made, it
// stays for the rest of the run.
func (b *Balancer) ensureFleet() {
	cfg := &b.m.cfg
	if b.fleet != nil || !b.perServer || !wantsFleet(cfg) {
		return
	}
	k := max(cfg.Balancers, 1)
	f := &fleet{b: b, k: k, pcg: rand.NewPCG(cfg.Seed, fleetStream), last: make([]int64, k), iq: make([]slotQueue, k)}
	n := len(b.srv) // 0 but for a fleet of one that jiq's coming into force makes
	if cfg.LoadInfo == LoadLocal && k > 1 {
		// K > 1 makes the fleet when the balancer is built, before any
		// request: every count starts at 0.
		f.local = make([][]int32, k)
		for j := range f.local {
			f.local[j] = make([]int32, n)
		}
	}
	if cfg.LoadInfo > 0 {
		f.boardLoad, f.boardWork = make([]int64, n), make([]int64, n)
		f.sentLoad, f.sentWork = make([][]int64, k), make([][]int64, k)
		for j := range k {
			f.sentLoad[j], f.sentWork[j] = make([]int64, n), make([]int64, n)
		}
	}
	f.reg = make([]int32, n)
	if g := b.lastGiven; g > 0 {
		f.last[0] = int64(b.idOf(g)) // round-robin goes on from the last pick
	}
	b.fleet = f
	for j := len(b.tally.routed); j < k; j++ {
		b.tally.routed = append(b.tally.routed, 0)
		b.tally.most = append(b.tally.most, 0)
		b.tally.picks = append(b.tally.picks, make([]int64, n))
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
	for len(f.reg) < s {
		f.reg = append(f.reg, 0)
		for j := range f.local {
			f.local[j] = append(f.local[j], 0)
		}
		if f.boardLoad != nil {
			f.boardLoad = append(f.boardLoad, 0)
			f.boardWork = append(f.boardWork, 0)
			for j := range f.k {
				f.sentLoad[j] = append(f.sentLoad[j], 0)
				f.sentWork[j] = append(f.sentWork[j], 0)
			}
		}
	}
}

// hold adds d to what attempt r's balancer holds at server s, for local
// information: r joined s's queue or service (1), or left it, served or
// not (−1). Every request in and out of a server's hands passes here.
func (b *Balancer) hold(s int, r packed, d int32) {
	if f := b.fleet; f != nil && f.local != nil {
		f.local[r.member()][s-1] += d
	}
}

// viewed reports whether the balancers read something other than the
// true loads.
func (f *fleet) viewed() bool {
	info := f.b.m.cfg.LoadInfo
	return info > 0 || (info == LoadLocal && f.k > 1)
}

// load returns what balancer k believes server s's load to be.
func (f *fleet) load(k, s int) int64 {
	switch info := f.b.m.cfg.LoadInfo; {
	case info > 0:
		return f.boardLoad[s-1] + f.sentLoad[k][s-1]
	case info == LoadLocal && f.local != nil:
		return int64(f.local[k][s-1])
	}
	return f.b.load(s)
}

// work returns what balancer k believes server s's remaining work to be at
// cycle t: its own attempts' (local), or the board's plus what it sent
// (periodic).
func (f *fleet) work(k, s int, t int64) int64 {
	b := f.b
	switch info := b.m.cfg.LoadInfo; {
	case info > 0:
		return f.boardWork[s-1] + f.sentWork[k][s-1]
	case info == LoadLocal && f.local != nil:
		var w int64
		srv := &b.srv[s-1]
		if srv.busy && srv.req.member() == k {
			w = max(srv.done-t, 0)
		}
		q := &b.sq[s-1]
		for i := range q.n {
			if r := q.at(i); r.member() == k {
				w += int64(srv.speed.Cycles(r.time()))
			}
		}
		return w
	}
	return b.remainingWork(s, t)
}

// remainingWork returns server s's remaining work at cycle t: the cycles its
// attempt in service has still to run (abandoned work included) and the
// service cycles of its queue at its speed.
func (b *Balancer) remainingWork(s int, t int64) int64 {
	var w int64
	if srv := &b.srv[s-1]; srv.busy {
		w = max(srv.done-t, 0)
	}
	return w + b.queuedWork(s)
}

// refresh writes every server's load and work on the board at cycle t and
// forgets what each balancer sent since the last refresh.
func (f *fleet) refresh(t int64) {
	b := f.b
	for s := 1; s <= len(b.srv); s++ {
		if b.srv[s-1].gone {
			f.boardLoad[s-1], f.boardWork[s-1] = 0, 0
			continue
		}
		f.boardLoad[s-1], f.boardWork[s-1] = b.load(s), b.remainingWork(s, t)
	}
	for j := range f.k {
		clear(f.sentLoad[j])
		clear(f.sentWork[j])
	}
	f.boardAt = t
}

// refreshDue refreshes the board when cycle t is a multiple of the period
// (step c, before scaling).
func (f *fleet) refreshDue(t int64) {
	if period, ok := f.b.m.cfg.LoadInfo.Periodic(); ok && t%period == 0 {
		f.refresh(t)
	}
}

// fleetEndOfCycle is the fleet's part of the end of cycle t (step e, or
// the end of cycle 0 when start): the board's first refresh, and
// join-idle-queue's registrations while it is in force.
func (b *Balancer) fleetEndOfCycle(t int64, start bool) {
	f := b.fleet
	if f == nil {
		return
	}
	if start && f.boardLoad != nil {
		f.refresh(t)
	}
	if b.m.cfg.Policy == JIQ {
		f.register()
	}
}

// pick is the pick of attempt r at cycle t by its balancer (r.member()),
// reading what that balancer knows.
func (f *fleet) pick(r packed, t int64) int {
	b := f.b
	k := r.member()
	p := b.m.cfg.Policy
	switch {
	case p == RoundRobin:
		return f.nextAfter(f.last[k])
	case p == P2C && f.viewed():
		ids := b.cands.ids
		return pickDrawnBy(b.m, len(ids), min(b.m.cfg.choices(), len(ids)), func(x int) int64 { return f.load(k, int(ids[x])) }, ids)
	case p == LeastConnections && f.viewed():
		return f.leastLoaded(k)
	case p == LeastWork && f.viewed():
		return f.leastWork(k, t)
	}
	return b.rt.pick(r, t)
}

// picked notes balancer k's pick of server s for attempt r: round-robin's
// pointer, and what the balancer sent since the board's refresh.
func (f *fleet) picked(k, s int, r packed) {
	b := f.b
	f.last[k] = int64(b.idOf(s))
	if f.sentLoad != nil {
		f.sentLoad[k][s-1]++
		f.sentWork[k][s-1] += int64(b.srv[s-1].speed.Cycles(r.time()))
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

// leastLoaded is least-connections by balancer k's view: the least load per
// weight, the lowest id on a tie, never a server of weight 0.
func (f *fleet) leastLoaded(k int) int {
	b := f.b
	best, bestLoad, bestW := 0, int64(0), int64(0)
	for s := b.active.first(); s != 0; s = b.active.next(s + 1) {
		w := int64(b.weightOf(s))
		if w == 0 {
			continue
		}
		l := f.load(k, s)
		if best == 0 || l*bestW < bestLoad*w {
			best, bestLoad, bestW = s, l, w
		}
	}
	return best
}

// leastWork is least-work by balancer k's view at cycle t, the lowest id on
// a tie.
func (f *fleet) leastWork(k int, t int64) int {
	b := f.b
	best, bestWork := 0, int64(0)
	for s := b.active.first(); s != 0; s = b.active.next(s + 1) {
		if w := f.work(k, s, t); best == 0 || w < bestWork {
			best, bestWork = s, w
		}
	}
	return best
}

// register is join-idle-queue's registration (the end of cycle 0 and step
// e): every candidate that is idle with an empty queue and not registered
// registers, in id order, with a balancer drawn from the fleet generator.
func (f *fleet) register() {
	b := f.b
	for s := b.free.first(); s != 0; s = b.free.next(s + 1) {
		if f.reg[s-1] != 0 {
			continue
		}
		k := 0
		if f.k > 1 {
			k = f.draw(f.k)
		}
		f.reg[s-1] = int32(k + 1)
		f.iq[k].push(int32(s))
	}
}

// unregister takes server s out of the I-queue that holds it: it stopped
// being a candidate.
func (f *fleet) unregister(s int) {
	if s > len(f.reg) || f.reg[s-1] == 0 {
		return
	}
	f.iq[f.reg[s-1]-1].remove(int32(s))
	f.reg[s-1] = 0
}

// idleHead is join-idle-queue's pick for balancer k: the head of its
// I-queue, no longer registered (busy or not by now), or with none a
// uniform draw among the candidates on the routing generator.
func (f *fleet) idleHead(k int) int {
	b := f.b
	q := &f.iq[k]
	for q.len() > 0 {
		s := int(q.pop())
		f.reg[s-1] = 0
		if b.active.has(s) {
			return s
		}
	}
	ids := b.cands.ids
	return int(ids[b.m.routeDraw(len(ids))])
}

// renumber moves the fleet's state to the slots of rn (compact).
func (f *fleet) renumber(rn *renumbering) {
	keep := func(i int) bool { return rn.to[i] != 0 }
	for j := range f.local {
		f.local[j] = compactSlice(f.local[j], keep)
	}
	if f.boardLoad != nil {
		f.boardLoad = compactSlice(f.boardLoad, keep)
		f.boardWork = compactSlice(f.boardWork, keep)
		for j := range f.k {
			f.sentLoad[j] = compactSlice(f.sentLoad[j], keep)
			f.sentWork[j] = compactSlice(f.sentWork[j], keep)
		}
	}
	f.reg = compactSlice(f.reg, keep)
	for j := range f.iq {
		f.iq[j].renumber(rn)
	}
}

// digest folds the fleet's state into Model.Hash: its generator, the
// pointers, the counts and the I-queues.
func (f *fleet) digest(put func(int64)) {
	state, _ := f.pcg.MarshalBinary()
	for _, c := range state {
		put(int64(c))
	}
	for _, v := range f.last {
		put(v)
	}
	for _, l := range f.local {
		var sum int64
		for i, v := range l {
			sum += int64(i+1) * int64(v)
		}
		put(sum)
	}
	for j := range f.sentLoad {
		var sum int64
		for i, v := range f.sentLoad[j] {
			sum += int64(i+1) * v
		}
		put(sum)
	}
	for i, v := range f.boardLoad {
		put(int64(i+1) * v)
	}
	for j := range f.iq {
		put(int64(f.iq[j].len()))
	}
}

// slotQueue is a FIFO of slots (a balancer's I-queue).
type slotQueue struct{ s []int32 }

func (q *slotQueue) len() int     { return len(q.s) }
func (q *slotQueue) push(s int32) { q.s = append(q.s, s) }
func (q *slotQueue) pop() int32   { s := q.s[0]; q.s = q.s[1:]; return s }
func (q *slotQueue) remove(s int32) {
	q.s = slices.DeleteFunc(q.s, func(v int32) bool { return v == s })
}

// renumber moves the queue's slots to their new numbers, dropping those
// given up.
func (q *slotQueue) renumber(rn *renumbering) {
	q.s = slices.DeleteFunc(q.s, func(v int32) bool { return rn.of(int(v)) == 0 })
	for i, v := range q.s {
		q.s[i] = int32(rn.of(int(v)))
	}
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
		return f.load(k, s), true
	}
	return b.load(s), true
}

// BoardAt returns the cycle of the periodic board's last refresh, and
// false when the balancers read no board.
func (b *Balancer) BoardAt() (int64, bool) {
	if f := b.fleet; f != nil && f.boardLoad != nil {
		return f.boardAt, true
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
