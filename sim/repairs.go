package sim

// repairQueue holds random faults' pending comebacks ordered by cycle,
// and among comebacks of one cycle by the order they were scheduled. A
// comeback no earlier than the last one in run (always so with mttr 1, and
// often with a short one) goes at its end, in order, at O(1); the others
// go into a binary heap, O(log n). The earliest is the first of run or
// the heap's top, so push and pop cost at most O(log n) however many
// servers are down.
type repairQueue struct {
	h   []repair // a binary heap
	run []repair // from run[next], in order: each no earlier than the one before
	// next is the first of run still pending; the array is used again
	// once all are taken.
	next int
	seq  int64 // the next repair's place in scheduling order
}

// repairBatch is how many servers' records randomFaults asks for at once
// ahead of their comebacks (see prefetch).
const repairBatch = 16

// repair is a failed server's scheduled comeback.
type repair struct {
	cycle int64
	seq   int64
	id    int
}

func (a repair) before(b repair) bool {
	return a.cycle < b.cycle || (a.cycle == b.cycle && a.seq < b.seq)
}

// push schedules server id's comeback at cycle.
func (q *repairQueue) push(cycle int64, id int) {
	r := repair{cycle: cycle, seq: q.seq, id: id}
	q.seq++
	if n := len(q.run); n == q.next || q.run[n-1].cycle <= cycle {
		if n == cap(q.run) && q.next >= n/2 { // full, and half taken: move down rather than grow
			q.run, q.next = append(q.run[:0], q.run[q.next:]...), 0
		}
		q.run = append(q.run, r)
		return
	}
	q.h = append(q.h, r)
	for i := len(q.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.h[i].before(q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

// popDue removes and returns the earliest comeback if it is due at cycle
// t, in scheduling order among those of t.
func (q *repairQueue) popDue(t int64) (id int, ok bool) {
	if q.next < len(q.run) && q.run[q.next].cycle == t && (len(q.h) == 0 || q.run[q.next].before(q.h[0])) {
		id = q.run[q.next].id
		if q.next++; q.next == len(q.run) {
			q.run, q.next = q.run[:0], 0
		}
		return id, true
	}
	if len(q.h) == 0 || q.h[0].cycle != t {
		return 0, false
	}
	id = q.h[0].id
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.h[l].before(q.h[m]) {
			m = l
		}
		if r < last && q.h[r].before(q.h[m]) {
			m = r
		}
		if m == i {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return id, true
}

// prefetch reads the down flag of the servers of the next repairBatch
// comebacks in run after the first k, all at once: reads that do not wait
// on each other overlap, so their records arrive from memory together
// before their turns (with 100,000 servers they are not in the cache). It
// returns what it read, which the caller keeps so that the reads stay.
func (q *repairQueue) prefetch(srv []server, k int) bool {
	var any bool
	from := q.next + k
	for i := from; i < min(from+repairBatch, len(q.run)); i++ {
		if id := q.run[i].id; id >= 1 && id <= len(srv) {
			any = any != srv[id-1].down
		}
	}
	return any
}

// Len returns the number of pending comebacks.
func (q *repairQueue) Len() int { return len(q.h) + len(q.run) - q.next }
