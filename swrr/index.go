package swrr

import (
	"cmp"
	"math"
	"slices"
)

// Index gives exactly the picks of [Pool.PickAvailable] when the set of
// available backends changes seldom compared with the picks (the
// simulator's per-server queues: a server is available while it is a
// candidate, and that changes only when the pool scales or a server fails).
// It costs O(g + log n) per pick instead of O(n), for n backends of g
// distinct positive weights, and O(log n) per change of availability.
//
// The idea: between two changes of availability, every available backend's
// score grows by its weight at each pick, so with k the number of picks so
// far its score is base + weight·k, and only the winner's base moves (it
// loses the total). Backends of one weight keep their order by base, so a
// tournament tree per weight finds the best of that weight (the highest
// base, the earliest-listed on a tie), and the pick compares the g winners'
// scores. An unavailable backend keeps its score itself, frozen.
//
// With a single weight (no weights given, the common case) the picks settle
// into a rotation: once the available backends' bases lie within the total
// of each other, the winner's base falls below every other's, so each pick
// takes the next backend in the order of their bases. The index then picks
// from that order in O(1), leaving the trees to be rebuilt at the next
// change (see rotate).
//
// Backends made unavailable with SitOut (fan-out's siblings, each out from
// its pick to its request's last part) have the index keep a single
// weight's available backends in the order of their scores instead, so
// that such a change and the backends' return move nothing and fix no
// tree (sorted mode, sorted.go).
//
// The zero value is an empty index, ready to use. An Index is not safe for
// concurrent use.
type Index struct {
	weight []int64
	base   []int64 // score − weight·k while available, the score itself while not
	avail  []bool
	class  []int32 // by backend: its weight's class, or −1 for weight 0
	pos    []int32 // by backend: its leaf in its class's tree
	k      int64   // picks since the last rebase
	total  int64   // sum of the available backends' weights
	cls    []wclass
	byW    map[int64]int32
	// rot is the available backends in the order they are picked, while
	// rotating (the trees are then out of date); at is the next one.
	rot      []int32
	at       int
	rotating bool
	stale    bool // some class has outgrown its tree (settle)
	calm     int  // picks since the backends or their availability last changed
	on       int  // available backends
	sortState
}

// wclass is the backends of one positive weight, in index order, and their
// tournament tree.
type wclass struct {
	weight  int64
	members []int32 // backend indexes, ascending
	tree    []node  // tree[1] is the root; leaves from len(tree)/2
	stale   bool    // members outgrew the tree: it is made afresh at the next pick
}

// node is a backend's base and index, or none (an unavailable backend or
// an empty leaf), whose base is below every available backend's.
type node struct {
	base int64
	i    int32
}

var none = node{base: math.MinInt64, i: -1}

// rebaseAt bounds k, so that weight·k stays far from overflowing int64
// (MaxWeight · 2^31 < 2^61).
const rebaseAt = 1 << 31

// Add appends an unavailable backend with the given weight and a score of
// 0, and returns its index. It fails, changing nothing, if the weight is
// negative or larger than MaxWeight. Amortised O(log n).
func (x *Index) Add(weight int) (int, error) {
	if err := checkWeight(weight); err != nil {
		return 0, err
	}
	x.unrotate()
	i := len(x.weight)
	w := int64(weight)
	x.weight = append(x.weight, w)
	x.base = append(x.base, 0)
	x.avail = append(x.avail, false)
	if w == 0 {
		x.class = append(x.class, -1)
		x.pos = append(x.pos, -1)
		return i, nil
	}
	if x.byW == nil {
		x.byW = map[int64]int32{}
	}
	c, ok := x.byW[w]
	if !ok {
		c = int32(len(x.cls))
		x.byW[w] = c
		x.cls = append(x.cls, wclass{weight: w})
	}
	cl := &x.cls[c]
	x.class = append(x.class, c)
	x.pos = append(x.pos, int32(len(cl.members)))
	cl.members = append(cl.members, int32(i))
	if leaves := len(cl.tree) / 2; len(cl.members) > leaves {
		// Its tree is built, of the size it then needs, at the next pick
		// (settle): adding many backends before a pick builds it once.
		cl.stale, x.stale = true, true
	}
	return i, nil
}

// grow makes the class's tree of a power of two leaves, at least twice the
// old and as many as its members, all leaves empty.
func (c *wclass) grow() {
	leaves := max(1, len(c.tree)/2*2)
	for leaves < len(c.members) {
		leaves *= 2
	}
	c.tree = make([]node, 2*leaves)
	for i := range c.tree {
		c.tree[i] = none
	}
	c.stale = false
}

// Keep keeps the backends i for which keep(i) is true and deletes the
// others, as [Pool.Keep] does: the backends kept move down, keeping their
// order, weights, scores and availability, and the picks go on exactly as
// PickAvailable's on such a pool. keep is called once per backend, in
// index order. The index is built afresh, in memory for the backends kept.
// O(n log n).
func (x *Index) Keep(keep func(i int) bool) {
	var y Index
	for i, w := range x.weight {
		if !keep(i) {
			continue
		}
		j, _ := y.Add(int(w)) // cannot fail: the weight was checked when it was added
		y.base[j] = x.Score(i)
		y.SetAvailable(j, x.avail[i]) // with no pick yet, the base is the score
	}
	*x = y
}

// Grow makes room for n more backends, so that adding them allocates
// their arrays once.
func (x *Index) Grow(n int) {
	x.weight = slices.Grow(x.weight, n)
	x.base = slices.Grow(x.base, n)
	x.avail = slices.Grow(x.avail, n)
	x.class = slices.Grow(x.class, n)
	x.pos = slices.Grow(x.pos, n)
}

// SetAvailableEach makes every backend i take part in picks or not as
// on(i) says, as SetAvailable on each in turn would, in O(n) (the trees
// are built once, not fixed a backend at a time).
func (x *Index) SetAvailableEach(on func(i int) bool) {
	x.unrotate()
	for i, w := range x.weight {
		want := on(i)
		if x.avail[i] == want {
			continue
		}
		if want {
			x.base[i] -= w * x.k
			x.total += w
			x.on++
		} else {
			x.base[i] += w * x.k
			x.total -= w
			x.on--
		}
		x.avail[i] = want
	}
	x.rebuild()
}

// Total returns the sum of the available backends' weights: Pick fails
// when it is 0.
func (x *Index) Total() int64 { return x.total }

// Len returns the number of backends.
func (x *Index) Len() int { return len(x.weight) }

// Available reports whether backend i takes part in picks.
func (x *Index) Available(i int) bool { return x.avail[i] }

// SetAvailable makes backend i take part in picks or not; its score
// carries over. O(log n).
func (x *Index) SetAvailable(i int, on bool) {
	if x.avail[i] == on {
		return
	}
	if x.sorted {
		// The fast cases of setSorted (sorted.go): the loose winner leaves
		// (its position becomes a hole), a backend of the block comes back
		// (placed at the next pick or change).
		w := x.weight[i]
		if on {
			if r := -1 - int(x.rotAt[i]); uint(r) < uint(len(x.out)) && x.out[r] == int32(i) {
				x.back++
				x.base[i] -= w * x.k
				x.total += w
				x.on++
				x.avail[i] = true
				return
			}
		} else if x.loose && x.rot[x.behind(1)] == int32(i) {
			x.loose = false
			x.rotAt[i] = int32(-1 - len(x.out))
			x.out = append(x.out, int32(i))
			x.base[i] += w * x.k
			x.total -= w
			x.on--
			x.avail[i] = false
			return
		}
		if x.setSorted(i, on) {
			return
		}
	} else if x.rotating && !on && x.sits && x.rot[x.behind(1)] == int32(i) {
		// The last winner leaves (fan-out): the rotation is a sorted
		// cycle, the winner loose.
		x.rotating, x.sorted, x.sits = false, true, true
		x.out, x.back, x.loose = x.out[:0], 0, true
		x.setSorted(i, false)
		return
	}
	x.unrotate()
	w := x.weight[i]
	if on {
		x.base[i] -= w * x.k
		x.total += w
		x.on++
	} else {
		x.base[i] += w * x.k
		x.total -= w
		x.on--
	}
	x.avail[i] = on
	if c := x.class[i]; c >= 0 {
		x.fix(&x.cls[c], int(x.pos[i]))
	}
}

// Score returns backend i's current score.
func (x *Index) Score(i int) int64 {
	if x.avail[i] {
		return x.base[i] + x.weight[i]*x.k
	}
	return x.base[i]
}

// Pick performs one pick among the available backends, exactly as
// [Pool.PickAvailable] with the same scores and availability would, and
// returns the winner's index. It returns ok == false, changing nothing,
// when no available backend has a positive weight.
func (x *Index) Pick() (index int, ok bool) {
	if x.total == 0 {
		return -1, false
	}
	if x.k == rebaseAt {
		x.rebase()
	}
	if i, ok := x.PickRotating(); ok {
		return i, true
	}
	if x.sorted {
		if i, ok := x.pickSorted(); ok {
			return i, true
		}
	}
	if x.stale {
		x.settle()
	}
	x.k++
	best, bestScore := -1, int64(0)
	for c := range x.cls {
		cl := &x.cls[c]
		root := cl.tree[1]
		if root.i < 0 {
			continue
		}
		i, s := int(root.i), root.base+cl.weight*x.k
		if best < 0 || s > bestScore || s == bestScore && i < best {
			best, bestScore = i, s
		}
	}
	x.base[best] -= x.total
	x.fix(&x.cls[x.class[best]], int(x.pos[best]))
	if x.calm++; x.calm >= x.on/4+len(x.weight)/32 && len(x.cls) == 1 {
		x.rotate()
	}
	return best, true
}

// rotate starts rotating if the picks of the single class's available
// backends go round. In the order of their bases, highest first, ties by
// index, the first is the next winner; it goes round if its base less the
// total comes after the last in that order (below its base, or equal with a
// higher index), and then so does each next winner after the one before:
// the picks follow that order for good. That holds when the bases lie
// within the total of each other, and at exactly the total it depends on
// the indexes (a pool that has just picked some of its backends once is
// such a case). It is asked after a quarter as many calm picks as there are
// available backends, plus a thirty-second of all of them: its look at
// every backend and its sort of the available ones (and the rebuild of the
// trees when rotating ends) then cost at most about 32 + 4·log₂(available)
// steps a pick.
func (x *Index) rotate() {
	x.calm = 0
	x.rot = x.rot[:0]
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, i := range x.cls[0].members {
		if x.avail[i] {
			x.rot = append(x.rot, i)
			lo, hi = min(lo, x.base[i]), max(hi, x.base[i])
		}
	}
	if len(x.rot) == 0 || hi-lo > x.total && !x.sits {
		return
	}
	slices.SortFunc(x.rot, func(a, b int32) int {
		if c := cmp.Compare(x.base[b], x.base[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	first, last := x.rot[0], x.rot[len(x.rot)-1]
	// The first winner comes back after the last?
	holds := hi-lo < x.total || hi-lo == x.total && first > last
	if x.sits {
		x.enterSorted(holds) // sorted.go
		return
	}
	if !holds {
		return
	}
	x.at, x.rotating = 0, true
	x.fillRotAt()
}

// unrotate ends rotating before a change: it brings the trees up to date
// with the bases.
func (x *Index) unrotate() {
	if !x.rotating && !x.sorted {
		if !x.sits {
			x.calm = 0
		}
		return
	}
	x.calm = 0
	x.rotating, x.sorted = false, false
	x.rebuild()
}

// settle builds the trees of the classes that outgrew theirs.
func (x *Index) settle() {
	x.stale = false
	for c := range x.cls {
		if cl := &x.cls[c]; cl.stale {
			cl.grow()
			x.build(cl)
		}
	}
}

// rebuild makes every class's tree afresh from the bases.
func (x *Index) rebuild() {
	x.stale = false
	for c := range x.cls {
		cl := &x.cls[c]
		if cl.stale {
			cl.grow()
		}
		x.build(cl)
	}
}

// build makes class cl's tree afresh from the bases.
func (x *Index) build(cl *wclass) {
	leaves := len(cl.tree) / 2
	for p, i := range cl.members {
		cl.tree[leaves+p] = x.leaf(i)
	}
	for n := leaves - 1; n >= 1; n-- {
		cl.tree[n] = better(cl.tree[2*n], cl.tree[2*n+1])
	}
}

// PickRotating makes Pick's pick while the index rotates (see Index),
// small enough to inline; it returns ok == false, changing nothing, when
// the index does not rotate or must rebase first: then call Pick.
func (x *Index) PickRotating() (index int, ok bool) {
	if !x.rotating || x.k == rebaseAt {
		return -1, false
	}
	x.k++
	i := x.rot[x.at]
	if x.at++; x.at == len(x.rot) {
		x.at = 0
	}
	x.base[i] -= x.total
	return int(i), true
}

// leaf returns backend i's leaf: its base, or none while unavailable.
func (x *Index) leaf(i int32) node {
	if x.avail[i] {
		return node{x.base[i], i}
	}
	return none
}

// rebase folds the picks so far into the available backends' bases. O(n),
// once every 2^31 picks.
func (x *Index) rebase() {
	for i, on := range x.avail {
		if on {
			x.base[i] += x.weight[i] * x.k
		}
	}
	for c := range x.cls {
		if x.rotating || x.sorted {
			break // the trees are rebuilt from the bases when rotating ends
		}
		cl := &x.cls[c]
		for n := range cl.tree {
			if cl.tree[n].i >= 0 { // the same shift for the whole class
				cl.tree[n].base += cl.weight * x.k
			}
		}
	}
	x.k = 0
}

// fix updates the tree of class c from leaf p (member p) to the root
// (nothing while the tree is to be made afresh).
func (x *Index) fix(c *wclass, p int) {
	if c.stale {
		return
	}
	tree := c.tree
	n := len(tree)/2 + p
	tree[n] = x.leaf(c.members[p])
	for n > 1 {
		n /= 2
		tree[n] = better(tree[2*n], tree[2*n+1])
	}
}

// better returns the node with the higher base of a and b, a on a tie (a
// lists first).
func better(a, b node) node {
	if b.base > a.base {
		return b
	}
	return a
}
