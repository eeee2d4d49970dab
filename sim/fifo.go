package sim

// fifo is a ring buffer of requests. Its capacity is a power of two and
// doubles when full; it never shrinks during a run. It keeps each request
// packed in 24 bytes (see packed), so a queue of a million requests takes
// 25 MB.
type fifo struct {
	buf  []packed
	head int // index of the oldest request
	n    int
}

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

// at returns the i-th oldest request, 0 ≤ i < Len.
func (q *fifo) at(i int) packed { return q.buf[(q.head+i)&(len(q.buf)-1)] }

func (q *fifo) grow() {
	size := max(2*len(q.buf), 4) // per-server queues are mostly short: start small
	buf := make([]packed, size)
	for i := range q.n {
		buf[i] = q.at(i)
	}
	q.buf, q.head = buf, 0
}

// pushBack appends p as the newest request.
func (q *fifo) pushBack(p packed) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = p
	q.n++
}

// pushFront puts p before every other request (a request taken back from a
// failed server goes first).
func (q *fifo) pushFront(p packed) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.head = (q.head - 1) & (len(q.buf) - 1)
	q.buf[q.head] = p
	q.n++
}

// popFront removes and returns the oldest request; Len must be > 0.
func (q *fifo) popFront() packed {
	p := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
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
// in the queue.
func (q *fifo) remove(id int64, hint int) (p packed, at, searched int) {
	mask := len(q.buf) - 1
	if hint <= 0 || hint > q.n {
		hint = q.n // the search from the oldest covers it, or none is asked
	}
	i := -1
	for k := 0; k < q.n; k++ {
		searched++
		if q.buf[(q.head+k)&mask].id == id {
			i = k
			break
		}
		if j := q.n - 1 - k; q.buf[(q.head+j)&mask].id == id {
			i = j
			break
		}
		if j := hint + k; j < q.n && q.buf[(q.head+j)&mask].id == id {
			i = j
			break
		}
	}
	if i < 0 {
		panic("sim: a request to remove is not in its queue")
	}
	p = q.buf[(q.head+i)&mask]
	if i < q.n-1-i {
		// Nearer the head: the requests before it move one place back.
		for j := i; j > 0; j-- {
			q.buf[(q.head+j)&mask] = q.buf[(q.head+j-1)&mask]
		}
		q.head = (q.head + 1) & mask
	} else {
		for j := i; j < q.n-1; j++ {
			q.buf[(q.head+j)&mask] = q.buf[(q.head+j+1)&mask]
		}
	}
	q.n--
	return p, i, searched
}
