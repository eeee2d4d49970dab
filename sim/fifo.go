package sim

// fifo is a queue of requests: a ring buffer whose capacity is a power of
// two and doubles when full, up to fifoBlock requests; a longer queue
// holds them in blocks of fifoBlock, adding one when the last is full and
// dropping the first when it has emptied. No buffer is larger than a block
// (1.5 MB), so a long queue grows without asking for one large piece of
// memory or copying what it holds. It keeps each request packed in 24
// bytes (see packed), and beside it, in a parallel ring (or blocks), the
// cycle it joined the queue in 4 bytes: 28 bytes a queued attempt, so a
// queue of a million requests takes 29 MB.
type fifo struct {
	buf  []packed    // a short queue's ring; nil once the queue is in blocks
	blk  *[][]packed // a long queue's blocks, the oldest request in the first (a pointer: the many short queues stay small)
	head int         // index of the oldest request, in buf or in blk[0]
	n    int
	// jbuf and jblk hold each request's joined cycle (the cycle it last
	// joined this queue: routed, drained from the lobby, retried or
	// requeued), in the same places as buf and blk hold the request.
	jbuf []int32
	jblk *[][]int32
	// front is how many of the oldest requests were put at the head by
	// pushFront (requeued: they joined after the others, so the queue is
	// in joined order from place front on).
	front int
	// The queue's empty history (see standing): emptied is the last cycle
	// in which it became empty, since the first cycle from whose end on it
	// has not been empty (meaningful while it holds a request). A queue
	// made at cycle c counts as empty before c.
	emptied, since int64
}

// fifoBlock is the number of requests in a block of a long queue.
const (
	fifoBlockShift = 16
	fifoBlock      = 1 << fifoBlockShift
)

// packed is a Request in 24 bytes: its ID, its addresses, and one word with
// the attempt's balancer in a fleet (bits 56–63: 0 for the first, and for
// a single balancer), the arrival cycle (bits 24–55), the retry flag (bit
// 23), the processing time (bits 2–22) and two more flags (bit 1
// streaming, bit 0 requeued). Every cycle fits in 32 bits (MaxCycles),
// every processing time in 21 (MaxTaskTime) and every balancer in 8
// (MaxBalancers).
type packed struct {
	id   int64
	addr uint64 // Src<<32 | Dst
	meta uint64
}

const (
	packedRequeued     = 1 << 0 // meta's flag bits
	packedStreaming    = 1 << 1
	packedRetry        = 1 << 23
	packedTimeShift    = 2
	packedArrivalShift = 24
	packedTimeMask     = 1<<(packedArrivalShift-1-packedTimeShift) - 1
	packedMemberShift  = 56
	packedArrivalMask  = 1<<(packedMemberShift-packedArrivalShift) - 1
)

// MaxCycles must fit the packed arrival's 32 bits, and the last balancer
// of a fleet the member's 8.
var (
	_ [packedArrivalMask - MaxCycles]struct{}
	_ [1<<(64-packedMemberShift) - MaxBalancers]struct{}
)

// MaxTaskTime must fit the packed time's 21 bits.
var _ [packedTimeMask - MaxTaskTime]struct{}

// newPacked packs a request from its parts; flags are packedRequeued and
// packedStreaming. See packed for the bounds it relies on.
func newPacked(id int64, addr uint64, arrival int64, time uint32, flags uint64) packed {
	return packed{id: id, addr: addr, meta: uint64(arrival)<<packedArrivalShift | uint64(time)<<packedTimeShift | flags}
}

// pack returns r packed.
func pack(r Request) packed {
	var flags uint64
	if r.Type == Streaming {
		flags |= packedStreaming
	}
	if r.Requeued {
		flags |= packedRequeued
	}
	if r.Retry {
		flags |= packedRetry
	}
	return newPacked(r.ID, uint64(r.Src)<<32|uint64(r.Dst), r.Arrival, r.Time, flags).withMember(int(r.Member))
}

// time returns the request's processing time.
func (p packed) time() uint32 { return uint32(p.meta>>packedTimeShift) & packedTimeMask }

// arrival returns the cycle the request arrived.
func (p packed) arrival() int64 { return int64(p.meta>>packedArrivalShift) & packedArrivalMask }

// member returns the attempt's balancer in a fleet, from 0 (Config.Balancers
// numbers them from 1).
func (p packed) member() int { return int(p.meta >> packedMemberShift) }

// withMember returns the attempt handed to balancer k (from 0) of a fleet.
func (p packed) withMember(k int) packed {
	p.meta = p.meta&(1<<packedMemberShift-1) | uint64(k)<<packedMemberShift
	return p
}

// requeued reports whether the request was taken back from a failed server.
func (p packed) requeued() bool { return p.meta&packedRequeued != 0 }

// requeue returns the request marked as taken back from a failed server.
func (p packed) requeue() packed { p.meta |= packedRequeued; return p }

// retry reports whether the attempt is a retry (its wait counts from its
// own arrival, which the client side keeps).
func (p packed) retry() bool { return p.meta&packedRetry != 0 }

// streaming reports whether the request is of type S.
func (p packed) streaming() bool { return p.meta&packedStreaming != 0 }

// unpack returns the Request that p packs.
func (p packed) unpack() Request {
	r := Request{
		ID:       p.id,
		Arrival:  p.arrival(),
		Src:      uint32(p.addr >> 32),
		Dst:      uint32(p.addr),
		Time:     p.time(),
		Requeued: p.requeued(),
		Retry:    p.retry(),
		Member:   uint8(p.member()),
	}
	if p.streaming() {
		r.Type = Streaming
	}
	return r
}

func (q *fifo) Len() int { return q.n }

// ref returns the place of the i-th oldest request, 0 ≤ i < capacity.
func (q *fifo) ref(i int) *packed {
	if q.blk == nil {
		return &q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	k := q.head + i
	return &(*q.blk)[k>>fifoBlockShift][k&(fifoBlock-1)]
}

// at returns the i-th oldest request, 0 ≤ i < Len.
func (q *fifo) at(i int) packed { return *q.ref(i) }

// jref returns the place of the i-th oldest request's joined cycle.
func (q *fifo) jref(i int) *int32 {
	if q.jblk == nil {
		return &q.jbuf[(q.head+i)&(len(q.jbuf)-1)]
	}
	k := q.head + i
	return &(*q.jblk)[k>>fifoBlockShift][k&(fifoBlock-1)]
}

// joined returns the cycle the i-th oldest request last joined the queue,
// 0 ≤ i < Len.
func (q *fifo) joined(i int) int64 { return int64(*q.jref(i)) }

// move copies the request at place i, with its joined cycle, to place j.
func (q *fifo) move(i, j int) {
	*q.ref(j) = *q.ref(i)
	*q.jref(j) = *q.jref(i)
}

// grow makes room for one more request: a short queue's ring doubles up
// to fifoBlock requests, and a queue beyond that holds its requests in
// blocks of fifoBlock, so no buffer is ever larger than a block and
// growing copies no request already queued.
func (q *fifo) grow() {
	if q.blk == nil && len(q.buf) < fifoBlock {
		size := max(2*len(q.buf), 4) // per-server queues are mostly short: start small
		buf, jbuf := make([]packed, size), make([]int32, size)
		q.unwrap(buf, jbuf)
		q.buf, q.jbuf, q.head = buf, jbuf, 0
		return
	}
	if q.blk == nil { // a full ring becomes the first block
		first, jfirst := make([]packed, fifoBlock), make([]int32, fifoBlock)
		q.unwrap(first, jfirst)
		q.blk, q.buf, q.head = &[][]packed{first}, nil, 0
		q.jblk, q.jbuf = &[][]int32{jfirst}, nil
	}
	if q.head+q.n == len(*q.blk)<<fifoBlockShift {
		*q.blk = append(*q.blk, make([]packed, fifoBlock))
		*q.jblk = append(*q.jblk, make([]int32, fifoBlock))
	}
}

// unwrap copies a ring's requests and their joined cycles, oldest first,
// to the start of buf and jbuf (at most two pieces each).
func (q *fifo) unwrap(buf []packed, jbuf []int32) {
	if q.n == 0 {
		return
	}
	first := min(q.n, len(q.buf)-q.head) // from head to the ring's end
	copy(buf, q.buf[q.head:q.head+first])
	copy(buf[first:], q.buf[:q.n-first])
	copy(jbuf, q.jbuf[q.head:q.head+first])
	copy(jbuf[first:], q.jbuf[:q.n-first])
}

// full reports whether the next pushBack needs grow.
func (q *fifo) full() bool {
	if q.blk == nil {
		return q.n == len(q.buf)
	}
	return q.head+q.n == len(*q.blk)<<fifoBlockShift
}

// filling notes that the queue, empty, takes a request at cycle t: if it
// had been empty at the end of cycle t−1 it is non-empty from t's end.
func (q *fifo) filling(t int64) {
	if q.n == 0 && q.emptied < t {
		q.since = t
	}
}

// emptying notes that the queue is empty after a removal at cycle t.
func (q *fifo) emptying(t int64) {
	if q.n == 0 {
		q.emptied = t
	}
}

// standing reports whether at cycle t the queue has been non-empty at the
// end of every one of the last n cycles (cycles before 0, or before the
// queue was made, count as empty).
func (q *fifo) standing(t, n int64) bool { return q.n > 0 && q.since <= t-n }

// reset empties the queue and drops its buffers at cycle t, keeping its
// empty history.
func (q *fifo) reset(t int64) { *q = fifo{emptied: t, since: q.since} }

// pushBack appends p as the newest request at cycle t.
func (q *fifo) pushBack(p packed, t int64) {
	q.filling(t)
	if q.full() {
		q.grow()
	}
	if q.blk == nil { // the ring: one index for both (they have one length)
		k := (q.head + q.n) & (len(q.buf) - 1)
		q.buf[k] = p
		q.jbuf[k] = int32(t)
	} else {
		k := q.head + q.n
		(*q.blk)[k>>fifoBlockShift][k&(fifoBlock-1)] = p
		(*q.jblk)[k>>fifoBlockShift][k&(fifoBlock-1)] = int32(t)
	}
	q.n++
}

// pushFront puts p before every other request (a request taken back from a
// failed server goes first) at cycle t.
func (q *fifo) pushFront(p packed, t int64) {
	q.filling(t)
	switch {
	case q.blk != nil && q.head == 0: // a new first block
		*q.blk = append([][]packed{make([]packed, fifoBlock)}, *q.blk...)
		*q.jblk = append([][]int32{make([]int32, fifoBlock)}, *q.jblk...)
		q.head = fifoBlock
	case q.blk == nil && q.n == len(q.buf):
		q.grow()
		if q.blk != nil {
			q.pushFront(p, t)
			return
		}
	}
	if q.blk == nil {
		q.head = (q.head - 1) & (len(q.buf) - 1)
		q.buf[q.head], q.jbuf[q.head] = p, int32(t)
	} else {
		q.head--
		(*q.blk)[0][q.head], (*q.jblk)[0][q.head] = p, int32(t)
	}
	q.n++
	q.front++
}

// popFront removes and returns the oldest request at cycle t; Len must be
// > 0.
func (q *fifo) popFront(t int64) packed {
	p := *q.ref(0)
	q.n--
	if q.front > 0 {
		q.front--
	}
	q.emptying(t)
	if q.blk == nil {
		q.head = (q.head + 1) & (len(q.buf) - 1)
		return p
	}
	if q.head++; q.head == fifoBlock { // the first block is empty: it goes
		(*q.blk)[0], (*q.jblk)[0] = nil, nil
		*q.blk, q.head = (*q.blk)[1:], 0
		*q.jblk = (*q.jblk)[1:]
	}
	return p
}

// popBack removes and returns the newest request at cycle t; Len must be
// > 0. A block left empty stays until the queue grows into it again or
// its first block goes.
func (q *fifo) popBack(t int64) packed {
	p := *q.ref(q.n - 1)
	q.n--
	q.front = min(q.front, q.n)
	q.emptying(t)
	return p
}

// remove takes the request with the given id out of the queue and
// returns it with its place (from the oldest) and the places searched;
// the others keep their order. The search looks from the oldest, from
// the newest and onwards from place hint at once (a timeout strikes the
// oldest attempts under a fixed timeout, the newest after a shorter one
// is set, and the attempts of one cycle one after the other), so it costs
// three times the request's distance from the nearest of the three, plus
// moving the requests between it and the nearer end. The request must be
// in the queue. t is the cycle.
func (q *fifo) remove(id int64, hint int, t int64) (p packed, at, searched int) {
	if hint <= 0 || hint > q.n {
		hint = q.n // the search from the oldest covers it, or none is asked
	}
	i := -1
	for k := 0; k < q.n; k++ {
		searched++
		if q.ref(k).id == id {
			i = k
			break
		}
		if j := q.n - 1 - k; q.ref(j).id == id {
			i = j
			break
		}
		if j := hint + k; j < q.n && q.ref(j).id == id {
			i = j
			break
		}
	}
	if i < 0 {
		panic("sim: a request to remove is not in its queue")
	}
	p = q.at(i)
	front := q.front // the requests put at the head that stay
	if i < front {
		front--
	}
	if i < q.n-1-i {
		// Nearer the head: the requests before it move one place back.
		for j := i; j > 0; j-- {
			q.move(j-1, j)
		}
		q.popFront(t)
	} else {
		for j := i; j < q.n-1; j++ {
			q.move(j+1, j)
		}
		q.n--
		q.emptying(t)
	}
	q.front = front
	return p, i, searched
}
