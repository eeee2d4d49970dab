package sim

// check compares the tree of done cycles with the balancer's queues: each
// busy candidate holds the cycle it will have done all it holds, and the
// best is the earliest, the lowest id on a tie.
func (r *leastWork) check(fail func(string, ...any), c int64) {
	b, ix := r.b, r.ix
	if ix == nil {
		return
	}
	want := 0
	for id := 1; id <= len(b.srv); id++ {
		s := &b.srv[id-1]
		if !b.active.has(id) || b.free.has(id) {
			continue
		}
		var work int64 // the service cycles of its queue, added up here
		for j := range b.sq[id-1].Len() {
			work += int64(s.speed.Cycles(b.sq[id-1].at(j).time()))
		}
		at := max(c, s.done) + work
		if !s.busy {
			at = c + work
		}
		if ix.key[id-1] != at {
			fail("server %d: indexed free-at %d, want %d", id, ix.key[id-1], at)
		}
		if want == 0 || at < ix.key[want-1] {
			want = id
		}
	}
	checkTree(ix, want, fail)
}
