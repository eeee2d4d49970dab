package sim

// reqRing holds fan-out's requests in flight by id (fanState.reqs), for a
// lookup at every part routed and completed without a map. Ids are issued
// in increasing order and most requests end roughly in that order, so the
// records sit in a ring indexed by id: the ids lo … lo+n−1 (the span) are
// at buf[(head + id − lo) mod len(buf)], nil where no request of that id is
// in flight. The few records put below lo (a request noted out of order,
// or one that stayed while the span moved on) sit in the map old.
//
// Invariants (TestReqRingMatchesMap holds them against a map):
//   - every record is in exactly one place: the ring, its id in the span, or
//     old, its id below lo (lo never decreases while old holds a record);
//   - the span starts at a record (buf[head] is not nil) or is empty;
//   - live counts the records in the ring.
//
// What bounds the ring: when the span must grow past len(buf), the buffer
// doubles only if more than half its slots hold records; otherwise the
// oldest id leaves the span (its record, if any, moves to old). So len(buf)
// is at most 4 × the most requests ever in flight at once, or minReqRing:
// a request that stays long costs a map entry, not a ring that grows with
// the ids issued while it stays.
type reqRing struct {
	buf  []*fanReq // len a power of two, or 0
	head int       // index in buf of id lo
	lo   int64
	n    int // the span's length
	live int // records in the ring
	old  map[int64]*fanReq
}

// minReqRing is the ring's first length.
const minReqRing = 64

// get returns the record of request id, nil if none is in flight.
func (r *reqRing) get(id int64) *fanReq {
	if i := uint64(id - r.lo); i < uint64(r.n) {
		return r.buf[(r.head+int(i))&(len(r.buf)-1)]
	}
	if len(r.old) > 0 {
		return r.old[id]
	}
	return nil
}

// put makes q the record of request id.
func (r *reqRing) put(id int64, q *fanReq) {
	if r.n == 0 && (id >= r.lo || len(r.old) == 0) {
		r.lo = id // empty: the span starts here
	}
	if id < r.lo {
		if r.old == nil {
			r.old = map[int64]*fanReq{}
		}
		r.old[id] = q
		return
	}
	if r.buf == nil {
		r.room()
	}
	for int64(r.n) <= id-r.lo {
		switch {
		case r.n == 0:
			r.lo, r.n = id, 1 // emptied by room: the span starts here
		case r.n == len(r.buf):
			r.room() // lo may move on
		default:
			r.n++ // an id with no request in flight (its slot is nil)
		}
	}
	k := (r.head + int(id-r.lo)) & (len(r.buf) - 1)
	if r.buf[k] == nil {
		r.live++
	}
	r.buf[k] = q
}

// room makes room for one more id at the span's end: it doubles the
// buffer if more than half of it holds records, else moves the oldest id
// out of the span (its record, if any, to old).
func (r *reqRing) room() {
	if r.live > len(r.buf)/2 || len(r.buf) == 0 {
		buf := make([]*fanReq, max(2*len(r.buf), minReqRing))
		for i := range r.n {
			buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
		}
		r.buf, r.head = buf, 0
		return
	}
	if q := r.buf[r.head]; q != nil {
		if r.old == nil {
			r.old = map[int64]*fanReq{}
		}
		r.old[r.lo] = q
		r.buf[r.head] = nil
		r.live--
	}
	r.advance()
	r.trim()
}

// del forgets request id's record.
func (r *reqRing) del(id int64) {
	if i := uint64(id - r.lo); i < uint64(r.n) {
		k := (r.head + int(i)) & (len(r.buf) - 1)
		if r.buf[k] != nil {
			r.buf[k] = nil
			r.live--
		}
		if i == 0 {
			r.trim()
		}
		return
	}
	if len(r.old) > 0 {
		delete(r.old, id)
	}
}

// advance moves the span's start one id on (its slot must be nil).
func (r *reqRing) advance() {
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.lo++
	r.n--
}

// trim moves the span's start past the ids with no record.
func (r *reqRing) trim() {
	for r.n > 0 && r.buf[r.head] == nil {
		r.advance()
	}
}

// len returns how many records it holds.
func (r *reqRing) len() int { return r.live + len(r.old) }

// each calls fn with every record and its id, in no set order.
func (r *reqRing) each(fn func(id int64, q *fanReq)) {
	for i := range r.n {
		if q := r.buf[(r.head+i)&(len(r.buf)-1)]; q != nil {
			fn(r.lo+int64(i), q)
		}
	}
	for id, q := range r.old {
		fn(id, q)
	}
}
