package sim

// repairQueue holds random faults' pending comebacks as a binary heap
// ordered by cycle, and among comebacks of one cycle by the order they were
// scheduled, so push and pop cost O(log n) however many servers are down.
type repairQueue struct {
	h   []repair
	seq int64 // the next repair's place in scheduling order
}

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
	q.h = append(q.h, repair{cycle: cycle, seq: q.seq, id: id})
	q.seq++
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

// Len returns the number of pending comebacks.
func (q *repairQueue) Len() int { return len(q.h) }
