package sim

// fifo is a ring buffer of requests. Its capacity is a power of two and
// doubles when full; it never shrinks during a run.
type fifo struct {
	buf  []Request
	head int // index of the oldest request
	n    int
}

func (q *fifo) Len() int { return q.n }

// at returns the i-th oldest request, 0 ≤ i < Len.
func (q *fifo) at(i int) Request { return q.buf[(q.head+i)&(len(q.buf)-1)] }

func (q *fifo) grow() {
	size := max(2*len(q.buf), 64)
	buf := make([]Request, size)
	for i := range q.n {
		buf[i] = q.at(i)
	}
	q.buf, q.head = buf, 0
}

// pushBack appends r as the newest request.
func (q *fifo) pushBack(r Request) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = r
	q.n++
}

// pushFront puts r before every other request (a request taken back from a
// failed server goes first).
func (q *fifo) pushFront(r Request) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.head = (q.head - 1) & (len(q.buf) - 1)
	q.buf[q.head] = r
	q.n++
}

// popFront removes and returns the oldest request; Len must be > 0.
func (q *fifo) popFront() Request {
	r := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return r
}
