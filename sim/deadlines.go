package sim

// This file keeps the attempts' deadlines (client.go) without a record or
// a heap entry per attempt where it can.
//
// A first attempt (no retry before it) is kept as one word in firsts, a
// ring indexed by request id: its arrival and where it is. While the
// timeout stays the same, first attempts arrive in id order and time out
// in that order (deadline = arrival + timeout, arrival non-decreasing in
// id), so the deadlines are read off the ring by a cursor, as from a
// FIFO: an epoch per timeout in force, each with its own cursor, because
// a --set of the timeout breaks the order between attempts that arrived
// before and after it. A retry keeps a flight in a map and its deadline
// in a FIFO per timeout (retries arrive by cycle and request id, so in
// order while the timeout stays the same); first attempts spilled out of
// the ring (an epoch too many, or a straggler holding the ring's front
// while it grows) and the deadlines of a retry queue too many keep a
// flight and an explicit deadline in a typed heap, as every attempt did
// before.
//
// Invariant: every attempt out with a deadline has exactly one of a
// nonzero firsts entry (whose epoch is the last one starting at or below
// its id) or a flight whose live deadline is in a retry queue or the
// heap; step a′ takes them all in (due, arrival, id) order, merging the
// heap's top, each retry queue's head and each epoch's cursor. The tests
// check it against every deadline in the heap (TestDeadlineRingMatchesHeap).

// A firsts entry packs an attempt's arrival (bits 24 and up) and its
// place (bits 0–23): locQueued for the central queue or the lobby, else
// 2 + 2·slot, +1 when in service. 0 means no attempt out.
const (
	locQueued    = 1
	locBits      = 24
	locMask      = 1<<locBits - 1
	locInService = 1
)

// maxLocSlot is the highest slot an entry can name: far above the slots
// a balancer keeps (at most twice its live servers and compactMin more,
// see compactDue).
const maxLocSlot = (locMask - 2) / 2

var _ [maxLocSlot - 4*MaxServersLimit]struct{}

// locOf returns the place of an attempt queued or in service at slot id
// (0: the central queue or the lobby).
func locOf(id int, inService bool) uint64 {
	if id == 0 {
		return locQueued
	}
	l := 2 + 2*uint64(id)
	if inService {
		l |= locInService
	}
	return l
}

// placeOf is locOf's inverse.
func placeOf(e uint64) (id int, inService bool) {
	l := e & locMask
	if l == locQueued {
		return 0, false
	}
	return int(l-2) >> 1, l&locInService != 0
}

// firstRing holds the first attempts with a deadline by request id, in
// a circular buffer whose size is a power of two: the entry of request
// base+i is at(i), 0 ≤ i < n.
type firstRing struct {
	base int64
	buf  []uint64
	head int
	n    int
	live int // nonzero entries
}

// at returns the i-th entry from the front.
func (r *firstRing) at(i int64) uint64 { return r.buf[(int64(r.head)+i)&int64(len(r.buf)-1)] }

// end returns the id after the last one the ring holds.
func (r *firstRing) end() int64 { return r.base + int64(r.n) }

// get returns request id's entry, 0 if it has none.
func (r *firstRing) get(id int64) uint64 {
	if i := uint64(id - r.base); i < uint64(r.n) {
		return r.at(int64(i))
	}
	return 0
}

// set replaces request id's nonzero entry by v (nonzero).
func (r *firstRing) set(id int64, v uint64) {
	r.buf[(int64(r.head)+id-r.base)&int64(len(r.buf)-1)] = v
}

// push appends the entry of request id, beyond the last one held, with
// zeros for the ids between.
func (r *firstRing) push(id int64, v uint64) {
	if r.n == 0 {
		r.base = id
	}
	for {
		if r.n == len(r.buf) {
			buf := make([]uint64, max(2*len(r.buf), 64))
			for i := range r.n {
				buf[i] = r.at(int64(i))
			}
			r.buf, r.head = buf, 0
		}
		i := (r.head + r.n) & (len(r.buf) - 1)
		r.n++
		if r.end() > id {
			r.buf[i] = v
			r.live++
			return
		}
		r.buf[i] = 0 // a request never admitted, or not watched
	}
}

// clear removes request id's entry, if it has one.
func (r *firstRing) clear(id int64) {
	if i := uint64(id - r.base); i < uint64(r.n) {
		k := (r.head + int(i)) & (len(r.buf) - 1)
		if r.buf[k] == 0 {
			return
		}
		r.buf[k] = 0
		r.live--
		if i == 0 {
			r.trim()
		}
	}
}

// trim drops the entries of ended attempts from the ring's front.
func (r *firstRing) trim() {
	mask := len(r.buf) - 1
	for r.n > 0 && r.buf[r.head] == 0 {
		r.head = (r.head + 1) & mask
		r.n--
		r.base++
	}
}

// epoch is the stretch of first attempts that arrived under one timeout:
// ids from first on (up to the next epoch's first), each due at its
// arrival + timeout; cur is the lowest id whose deadline has not passed.
type epoch struct {
	first, timeout, cur int64
}

// deadline is an explicit deadline (a retry's, or a spilled first
// attempt's), ordered by cycle, then oldest attempt first: by arrival,
// then request id. f is the attempt's flight: the deadline holds while
// the flight is out with that arrival and deadline (live).
type deadline struct {
	due, at, id int64
	f           *flight
}

// live reports whether d is still the deadline of an attempt out.
func (d deadline) live() bool {
	f := d.f
	return !f.ended && !f.waiting && f.at == d.at && f.due == d.due
}

// deadlineQueue holds the retries' deadlines under one timeout, in the
// order they arrived, which is their order (see retryDeadline).
type deadlineQueue struct {
	timeout int64
	q       []deadline
	head    int
}

// retryDeadline keeps deadline d of a retry that arrived under timeout T.
// Retries arrive by cycle, then by request id, so while the timeout stays
// the same their deadlines come in order and a FIFO holds them; a change
// of the timeout starts another, and a fifth spills the oldest into the
// heap.
func (c *clientSide) retryDeadline(d deadline, T int64) {
	if maxEpochs == 0 {
		c.keepDeadline(d) // the tests' plain path: every deadline in the heap
		return
	}
	if n := len(c.rq); n == 0 || c.rq[n-1].timeout != T {
		c.rq = append(c.rq, deadlineQueue{timeout: T})
		if len(c.rq) > maxEpochs {
			old := &c.rq[0]
			for _, d := range old.q[old.head:] {
				if d.live() {
					c.keepDeadline(d)
				}
			}
			c.rq = c.rq[1:]
		}
	}
	dq := &c.rq[len(c.rq)-1]
	if len(dq.q) == cap(dq.q) && dq.head >= len(dq.q)/2 {
		// Move what is left to the front rather than grow: the queue is
		// read from its head as it is written at its tail.
		n := copy(dq.q, dq.q[dq.head:])
		clear(dq.q[n:])
		dq.q, dq.head = dq.q[:n], 0
	}
	dq.q = append(dq.q, d)
	c.noteDue(d.due)
	if n := len(dq.q) - dq.head; n > 2*len(c.flights)+1024 {
		// Drop the deadlines of retries that have ended: at least half go.
		dq.q, dq.head = dropEnded(dq.q, dq.head), 0
	}
}

// retryHead returns the earliest live deadline of retry queue k, dropping
// those of retries that have ended; ok is false when it has none (the
// queue is then dropped unless it is the last).
func (c *clientSide) retryHead(k int) (d deadline, ok bool) {
	dq := &c.rq[k]
	for dq.head < len(dq.q) {
		if d := dq.q[dq.head]; d.live() {
			return d, true
		}
		dq.q[dq.head] = deadline{}
		dq.head++
	}
	dq.q, dq.head = dq.q[:0], 0
	return deadline{}, false
}

// popRetry drops the head of retry queue k.
func (c *clientSide) popRetry(k int) {
	dq := &c.rq[k]
	dq.q[dq.head] = deadline{}
	dq.head++
	if dq.head == len(dq.q) {
		dq.q, dq.head = dq.q[:0], 0
	}
}

func (a deadline) less(b deadline) bool {
	if a.due != b.due {
		return a.due < b.due
	}
	if a.at != b.at {
		return a.at < b.at
	}
	return a.id < b.id
}

// deadlineHeap is a binary min-heap of deadlines, typed (no boxing).
type deadlineHeap []deadline

func (h *deadlineHeap) push(d deadline) { heapPush((*[]deadline)(h), d, deadline.less) }
func (h *deadlineHeap) pop() deadline   { return heapPop((*[]deadline)(h), deadline.less) }

// heapPush adds x to the min-heap *h.
func heapPush[T any](h *[]T, x T, less func(a, b T) bool) {
	s := append(*h, x)
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !less(s[i], s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
	*h = s
}

// heapPop removes the least element of the min-heap *h (not empty) and
// returns it.
func heapPop[T any](h *[]T, less func(a, b T) bool) T {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	siftDown(s, 0, less)
	*h = s
	return top
}

// siftDown moves s[i] down to its place in the min-heap s.
func siftDown[T any](s []T, i int, less func(a, b T) bool) {
	n := len(s)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && less(s[r], s[l]) {
			j = r
		}
		if !less(s[j], s[i]) {
			return
		}
		s[i], s[j] = s[j], s[i]
		i = j
	}
}

// retryAt is a retry waiting to arrive at cycle at: by cycle, then
// request id; f is its flight.
type retryAt struct {
	at, id int64
	f      *flight
}

func (a retryAt) less(b retryAt) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.id < b.id
}

// retryHeap is a binary min-heap of waiting retries, typed.
type retryHeap []retryAt

func (h *retryHeap) push(x retryAt) { heapPush((*[]retryAt)(h), x, retryAt.less) }
func (h *retryHeap) pop() retryAt   { return heapPop((*[]retryAt)(h), retryAt.less) }

// addFirst records first attempt r arriving at cycle t under timeout T
// (> 0), queued.
func (c *clientSide) addFirst(id, t, T int64) {
	if n := len(c.epochs); n == 0 || c.epochs[n-1].timeout != T {
		c.epochs = append(c.epochs, epoch{first: id, timeout: T, cur: id})
		if len(c.epochs) > max(maxEpochs, 1) {
			c.spillEpoch()
		}
	}
	r := &c.firsts
	if gap := id - r.end(); r.n > 0 && gap > int64(4*r.live)+ringSlack {
		c.spillAll() // a long stretch of ids not watched: no word for each
	}
	r.push(id, uint64(t)<<locBits|locQueued)
	c.noteDue(t + T)
	if int64(r.n) > int64(4*r.live)+ringSlack {
		c.spillFront()
	}
}

// maxEpochs bounds the epochs kept, and the retries' queues: one more
// (timeouts changed often, as a slider does) spills the oldest into the
// heap (0: retries' deadlines go to the heap at once). ringSlack is the ring's
// room beyond four times its live entries before its front half is
// spilled: 512 KB, so that the attempts in service a long time while
// thousands arrive (a long tail of service times) stay in the ring; past
// it the ring costs at most 32 bytes a live entry.
// Both are variables for the tests, which spill everything to check the
// ring against the heap.
var (
	maxEpochs       = 4
	ringSlack int64 = 1 << 16
)

// spillEpoch moves the oldest epoch's attempts into flights with explicit
// deadlines and drops it.
func (c *clientSide) spillEpoch() {
	e, end := c.epochs[0], c.epochs[1].first
	for id := max(e.cur, c.firsts.base); id < end; id++ {
		if v := c.firsts.get(id); v != 0 {
			c.spill(id, v, e.timeout)
		}
	}
	c.epochs = c.epochs[1:]
}

// spillFront moves the entries in the front half of the ring into flights
// with explicit deadlines: an attempt held long (a hanging server, a long
// timeout) must not keep every later id's word alive behind it.
func (c *clientSide) spillFront() {
	r := &c.firsts
	end := r.base + int64((r.n+1)/2)
	k := 0
	for id := r.base; id < end; id++ {
		v := r.get(id)
		if v == 0 {
			continue
		}
		for k+1 < len(c.epochs) && c.epochs[k+1].first <= id {
			k++
		}
		c.spill(id, v, c.epochs[k].timeout)
	}
	r.trim()
}

// spillAll moves every entry into a flight with an explicit deadline.
func (c *clientSide) spillAll() {
	for c.firsts.n > 0 {
		c.spillFront()
	}
}

// spill moves first attempt id's entry v, of an epoch with timeout T,
// into a flight with an explicit deadline.
func (c *clientSide) spill(id int64, v uint64, T int64) {
	at := int64(v >> locBits)
	server, inService := placeOf(v)
	f := &flight{req: packed{id: id}, at: at, due: at + T, server: server, inService: inService}
	c.flights[id] = f
	c.keepDeadline(deadline{f.due, at, id, f})
	c.firsts.clear(id)
}

// keepDeadline pushes explicit deadline d on the heap, pruning the heap
// when the deadlines of ended attempts may make up half of it.
func (c *clientSide) keepDeadline(d deadline) {
	c.deadlines.push(d)
	c.noteDue(d.due)
	if len(c.deadlines) > 2*len(c.flights)+1024 {
		c.prune()
	}
}

// noteDue lowers dueFloor to a deadline just kept.
func (c *clientSide) noteDue(due int64) { c.dueFloor = min(c.dueFloor, due) }

// nextFirst returns epoch k's next first attempt out, advancing its
// cursor over the ended ones; ok is false when it has none.
func (c *clientSide) nextFirst(k int) (id int64, v uint64, ok bool) {
	e := &c.epochs[k]
	r := &c.firsts
	end := r.end()
	if k+1 < len(c.epochs) {
		end = min(end, c.epochs[k+1].first)
	}
	e.cur = max(e.cur, r.base)
	for ; e.cur < end; e.cur++ {
		if v := r.at(e.cur - r.base); v != 0 {
			return e.cur, v, true
		}
	}
	return 0, 0, false
}

// nextDue returns the earliest deadline of an attempt out, or 0 if none.
// Explicit deadlines of attempts that have ended count (it is a bound).
func (c *clientSide) nextDue() int64 {
	due := int64(0)
	if len(c.deadlines) > 0 {
		due = c.deadlines[0].due
	}
	for _, dq := range c.rq {
		if dq.head < len(dq.q) && (due == 0 || dq.q[dq.head].due < due) {
			due = dq.q[dq.head].due
		}
	}
	for k := range c.epochs {
		if _, v, ok := c.nextFirst(k); ok {
			d := int64(v>>locBits) + c.epochs[k].timeout
			if due == 0 || d < due {
				due = d
			}
		}
	}
	return due
}

// dropEpochs drops the epochs, but the last, whose attempts have all
// ended.
func (c *clientSide) dropEpochs() {
	for len(c.epochs) > 1 {
		if _, _, ok := c.nextFirst(0); ok {
			return
		}
		c.epochs = c.epochs[1:]
	}
}

// prune drops the heap's deadlines of attempts that have ended (completed,
// or ended otherwise before their timeout): they would pile up for a long
// timeout. At least half the heap goes each time, so pruning costs O(1) a
// deadline pushed, amortised.
func (c *clientSide) prune() {
	keep := dropEnded(c.deadlines, 0)
	c.deadlines = keep
	for i := len(keep)/2 - 1; i >= 0; i-- {
		siftDown(keep, i, deadline.less)
	}
}

// dropEnded moves the live deadlines of s[from:] to the front of s, in
// their order, clears the rest of s and returns the live ones.
func dropEnded(s []deadline, from int) []deadline {
	keep := s[:0]
	for _, d := range s[from:] {
		if d.live() {
			keep = append(keep, d)
		}
	}
	clear(s[len(keep):])
	return keep
}
