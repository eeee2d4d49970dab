package sim

// viewIndex is what least-connections and least-work keep, by balancer of
// a fleet, to pick the least by a view (loadView) other than the truth in
// O(log n) a pick, amortised, where scanning every candidate would cost
// O(n): the least load per weight (a server of weight 0 never), or the
// least remaining work, the lowest id on a tie, over the candidates.
//
// With local counts, a balancer's servers fall in three groups: those at
// which it holds nothing (load and work 0: the lowest id of them, from an
// id set, is the pick), those at which it holds attempts, by its count (or,
// for work, by the service of its attempts there, none in service), and,
// for work, those serving one of its attempts, by the cycle that balancer
// believes they are done (that attempt's done cycle plus the service of its
// other attempts there), whose work falls as time goes on while their order
// stays. With a board, the candidates when the board was written, by their
// entry, are one order shared by every balancer, taken from a heap as far
// as a balancer reads it, and each balancer goes down it past the servers it
// has sent to since (which only grows until the next refresh); those, and
// the servers that became candidates since, are in a heap of its own by
// their entry plus what it sent.
//
// The heaps are lazy: a change pushes the server's new entry, and an entry
// that no longer says the server's state is dropped when it reaches the
// top (or, in one pass, once a heap has grown to twice what it held after
// its last compaction). The index is rebuilt from the view after a
// refresh, a renumbering, or when its router comes into force (stale), at
// the next pick.
type viewIndex struct {
	v     *loadView
	work  bool // the least work; otherwise the least load per weight
	stale bool
	zero  []idset    // local: by balancer, the candidates it holds nothing at
	heap  []lazyHeap // by balancer (see above)
	busy  []lazyHeap // local work: by balancer, the servers serving its attempts
	// The board: the shared order, the heap it is taken from, and each
	// balancer's place in it.
	shared lazyHeap
	order  []int32
	cursor []int
	seen   idset // scratch for compacting a heap, empty between compactions
	before func(a, b hent) bool
	// ops counts the steps of the heaps and of going down the order, and
	// rebuilt those of the rebuilds, for the tests that bound their cost.
	ops, rebuilt int64
}

// viewIndexFor returns the index a router of b keeps (old, made again
// when nil) of the least load per weight, or the least work, by the fleet's
// view, or nil when the balancers read the truth (or b is pooled).
func viewIndexFor(b *Balancer, old *viewIndex, work bool) *viewIndex {
	f := b.fleet
	if f == nil || !f.viewed() || !b.perServer {
		return nil
	}
	if old == nil || old.v != f.v {
		return newViewIndex(f.v, work)
	}
	old.stale = true
	f.v.ix = old
	if work {
		f.v.keepWork()
	}
	return old
}

// hent is a lazy heap's entry: a server's slot and its key when pushed.
type hent struct {
	key int64
	id  int32
}

// newViewIndex makes the index of the least load per weight, or of the
// least work, by view v, and has v tell it of every change.
func newViewIndex(v *loadView, work bool) *viewIndex {
	x := &viewIndex{v: v, work: work, stale: true}
	x.before = x.loadBefore
	if work {
		x.before = keyBefore
		if v.count != nil {
			v.keepWork()
		}
	}
	v.ix = x
	return x
}

func keyBefore(a, b hent) bool { return a.key < b.key || a.key == b.key && a.id < b.id }

// loadBefore orders by load per weight, compared as load(a)·w(b) <
// load(b)·w(a), then by id.
func (x *viewIndex) loadBefore(a, b hent) bool {
	wa, wb := int64(x.v.b.weightOf(int(a.id))), int64(x.v.b.weightOf(int(b.id)))
	l, r := a.key*wb, b.key*wa
	return l < r || l == r && a.id < b.id
}

// eligible reports whether server s may be picked: a candidate, of
// positive weight for loads.
func (x *viewIndex) eligible(s int) bool {
	b := x.v.b
	return b.active.has(s) && (x.work || b.weightOf(s) > 0)
}

// key returns server s's key in balancer k's heap, and whether it belongs
// there (in busy when inBusy).
func (x *viewIndex) key(k, s int, inBusy bool) (int64, bool) {
	v := x.v
	if v.boardLoad != nil {
		if x.work {
			return v.boardWork[s-1] + v.sentWork[k][s-1], true
		}
		return v.boardLoad[s-1] + v.sentLoad[k][s-1], true
	}
	c := v.count[k][s-1]
	switch {
	case c == 0:
		return 0, false
	case !x.work:
		return int64(c), !inBusy
	case v.serving(k, s):
		srv := &v.b.srv[s-1]
		return srv.done + v.held[k][s-1] - v.cycles(s, srv.req), inBusy
	}
	return v.held[k][s-1], !inBusy
}

// valid reports whether entry e of balancer k's heap (busy when inBusy)
// still says its server's state.
func (x *viewIndex) valid(k int, e hent, inBusy bool) bool {
	s := int(e.id)
	if !x.eligible(s) {
		return false
	}
	key, ok := x.key(k, s, inBusy)
	return ok && key == e.key
}

// changed notes that balancer k's view of server s changed (or that s
// started serving).
func (x *viewIndex) changed(k, s int) {
	if x.stale || !x.eligible(s) {
		return // a server that becomes a candidate is entered then
	}
	x.enter(k, s)
}

// enter puts server s, a candidate, where balancer k's view puts it.
func (x *viewIndex) enter(k, s int) {
	if x.v.boardLoad != nil {
		key, _ := x.key(k, s, false)
		x.push(k, false, hent{key, int32(s)})
		return
	}
	if x.v.count[k][s-1] == 0 {
		x.zero[k].add(s)
		return
	}
	x.zero[k].remove(s)
	if key, ok := x.key(k, s, true); ok {
		x.push(k, true, hent{key, int32(s)})
		return
	}
	key, _ := x.key(k, s, false)
	x.push(k, false, hent{key, int32(s)})
}

// candidate enters server s, which became a candidate, for every balancer.
func (x *viewIndex) candidate(s int) {
	if x.stale || !x.eligible(s) {
		return
	}
	for k := range x.v.k {
		x.enter(k, s)
	}
}

// uncandidate takes server s out of the sets of those held nothing at
// (the heaps drop its entries as they come up).
func (x *viewIndex) uncandidate(s int) {
	if x.stale {
		return
	}
	for k := range x.zero {
		x.zero[k].remove(s)
	}
}

// rebuild makes the index again from the view.
func (x *viewIndex) rebuild() {
	v, b := x.v, x.v.b
	x.stale = false
	x.heap = resized(x.heap, v.k)
	if v.boardLoad != nil {
		x.shared.empty()
		for s := b.active.first(); s != 0; s = b.active.next(s + 1) {
			if x.eligible(s) {
				key := v.boardLoad[s-1]
				if x.work {
					key = v.boardWork[s-1]
				}
				x.shared.e = append(x.shared.e, hent{key, int32(s)})
			}
		}
		x.rebuilt += int64(len(x.shared.e)) + x.shared.heapify(x.before)
		x.order = x.order[:0]
		x.cursor = resized(x.cursor, v.k)
		for k := range v.k {
			x.cursor[k] = 0
			x.heap[k].empty()
			for _, s := range v.touched[k] {
				if x.eligible(int(s)) {
					x.enter(k, int(s))
				}
			}
		}
		return
	}
	x.zero = resized(x.zero, v.k)
	if x.work {
		x.busy = resized(x.busy, v.k)
	}
	for k := range v.k {
		x.zero[k].reset()
		x.heap[k].empty()
		if x.busy != nil {
			x.busy[k].empty()
		}
	}
	for s := b.active.first(); s != 0; s = b.active.next(s + 1) {
		if x.eligible(s) {
			for k := range v.k {
				x.enter(k, s)
			}
		}
	}
	x.rebuilt += int64(v.k) * int64(b.active.n)
}

// resized returns s with length n, its elements kept.
func resized[T any](s []T, n int) []T {
	if len(s) >= n {
		return s[:n]
	}
	return append(s, make([]T, n-len(s))...)
}

// least returns balancer k's pick at cycle t: the least by its view, the
// lowest id on a tie, or 0 when no candidate may be picked.
func (x *viewIndex) least(k int, t int64) int {
	if x.stale {
		x.rebuild()
	}
	if x.v.boardLoad != nil {
		return x.leastOnBoard(k)
	}
	z := x.zero[k].first()
	if !x.work && z != 0 {
		return z // load 0 is the least there is; so is its lowest id
	}
	best, bestWork := z, int64(0)
	if h, ok := x.top(k, false); ok && (best == 0 || h.key < bestWork || h.key == bestWork && int(h.id) < best) {
		best, bestWork = int(h.id), h.key
	}
	if !x.work {
		return best
	}
	if h, ok := x.top(k, true); ok {
		// Its work at t: what is left of the attempt in service, and the
		// service of the rest (the key less t, never below the rest).
		srv := &x.v.b.srv[h.id-1]
		w := h.key - srv.done + max(srv.done-t, 0)
		if best == 0 || w < bestWork || w == bestWork && int(h.id) < best {
			best = int(h.id)
		}
	}
	return best
}

// leastOnBoard is least with a board: the first server down the shared
// order that balancer k has not sent to since the refresh, or the top of
// its own heap, whichever comes first.
func (x *viewIndex) leastOnBoard(k int) int {
	v := x.v
	var c hent
	found := false
	for !found {
		i := x.cursor[k]
		if i == len(x.order) {
			if len(x.shared.e) == 0 {
				break
			}
			x.order = append(x.order, x.shared.e[0].id)
			x.ops += x.shared.pop(x.before)
		}
		s := int(x.order[i])
		if v.b.active.has(s) && v.sentLoad[k][s-1] == 0 {
			key := v.boardLoad[s-1]
			if x.work {
				key = v.boardWork[s-1]
			}
			c, found = hent{key, int32(s)}, true
			break
		}
		x.cursor[k]++
		x.ops++
	}
	h, ok := x.top(k, false)
	switch {
	case ok && (!found || x.before(h, c)):
		return int(h.id)
	case found:
		return int(c.id)
	}
	return 0
}

// top returns the top of balancer k's heap (busy) once the entries that no
// longer hold are dropped.
func (x *viewIndex) top(k int, inBusy bool) (hent, bool) {
	h := &x.heap[k]
	if inBusy {
		h = &x.busy[k]
	}
	for len(h.e) > 0 {
		if e := h.e[0]; x.valid(k, e, inBusy) {
			return e, true
		}
		x.ops += h.pop(x.before)
	}
	return hent{}, false
}

// push adds e to heap h of balancer k, compacting h first when it has
// grown to twice what it held after its last compaction (so that a heap
// holds at most about twice the servers it has entries for).
func (x *viewIndex) push(k int, inBusy bool, e hent) {
	h := &x.heap[k]
	if inBusy {
		h = &x.busy[k]
	}
	if len(h.e) >= h.limit {
		x.compact(k, inBusy, h)
	}
	x.ops += h.push(e, x.before)
}

// compact keeps, once each, the entries of h that still hold (seen marks
// those kept, and is empty again after).
func (x *viewIndex) compact(k int, inBusy bool, h *lazyHeap) {
	out := h.e[:0]
	for _, e := range h.e {
		if !x.seen.has(int(e.id)) && x.valid(k, e, inBusy) {
			x.seen.add(int(e.id))
			out = append(out, e)
		}
	}
	for _, e := range out {
		x.seen.remove(int(e.id))
	}
	x.ops += int64(len(h.e) + len(out))
	h.e = out
	h.limit = 2*len(out) + 64
	x.ops += h.heapify(x.before)
}

// lazyHeap is a binary min-heap of entries by an order, compacted when it
// reaches limit entries. Its operations return the steps they took.
type lazyHeap struct {
	e     []hent
	limit int
}

// empty empties the heap, keeping its array.
func (h *lazyHeap) empty() { h.e, h.limit = h.e[:0], 64 }

func (h *lazyHeap) push(e hent, before func(a, b hent) bool) int64 {
	h.e = append(h.e, e)
	s := h.e
	i, steps := len(s)-1, int64(1)
	for i > 0 {
		p := (i - 1) / 2
		steps++
		if !before(s[i], s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
	return steps
}

func (h *lazyHeap) pop(before func(a, b hent) bool) int64 {
	n := len(h.e) - 1
	h.e[0] = h.e[n]
	h.e = h.e[:n]
	return 1 + h.down(0, before)
}

func (h *lazyHeap) down(i int, before func(a, b hent) bool) int64 {
	s, n, steps := h.e, len(h.e), int64(0)
	for {
		l := 2*i + 1
		if l >= n {
			return steps
		}
		steps++
		c := l
		if r := l + 1; r < n && before(s[r], s[l]) {
			c = r
		}
		if !before(s[c], s[i]) {
			return steps
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
}

func (h *lazyHeap) heapify(before func(a, b hent) bool) int64 {
	var steps int64
	for i := len(h.e)/2 - 1; i >= 0; i-- {
		steps += h.down(i, before)
	}
	return steps
}

// reset empties the set, keeping its words.
func (s *idset) reset() {
	clear(s.w)
	s.n, s.low = 0, 0
}
