package sim

// check compares the tree of loads with the balancer's queues: each
// candidate of positive weight holds its load, and the best is the least
// load per weight, the lowest id on a tie.
func (r *leastConnections) check(fail func(string, ...any), _ int64) {
	b, ix := r.b, r.ix
	if ix == nil {
		return
	}
	want := 0
	for id := 1; id <= len(b.srv); id++ {
		if !b.active.has(id) || b.weightOf(id) == 0 {
			continue
		}
		if ix.key[id-1] != b.load(id) {
			fail("server %d: indexed load %d, load %d", id, ix.key[id-1], b.load(id))
		}
		if want == 0 || b.load(id)*int64(b.weightOf(want)) < b.load(want)*int64(b.weightOf(id)) {
			want = id
		}
	}
	checkTree(ix, want, fail)
}
