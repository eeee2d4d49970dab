package sim

// ltree is a tournament tree over server ids: each leaf holds a server
// that takes part (or none), each inner node the better of its two
// children, so the best server is at the root and a change of one server's
// key costs one walk from its leaf to the root (log₂ of the ids). Ties go
// to the lower id, which the left child always has.
//
// The walks wait until the root is read: a change writes its leaf and
// notes it, and best brings the inner nodes up to date first. A pool that
// is seldom asked (least-connections finds an idle server without it) then
// pays one write a change; one asked at every arrival pays what it did.
//
// In load mode a server's key is its load and better means a lower
// load/weight (compared as load(a)·w(b) < load(b)·w(a)); otherwise better
// means a lower key. A node is the server's key and id packed in one word,
// key<<32 | id, so that while every weight is equal and every key below
// 2^32 one unsigned comparison orders two servers, ties included; beyond
// that (mixed) the comparison reads the exact keys and weights.
//
// In load mode, while every weight is equal and every load below
// maxBucket, the servers are instead kept in buckets by load (bucketed):
// a change of load moves a server from one bucket to the next, and the
// best server is the lowest id of the lowest non-empty bucket, with no
// walk at all. The leaves are written either way, so leaving the buckets
// (a weight that differs, a load that reaches maxBucket) rebuilds the
// tree from them.
type ltree struct {
	node   []uint64 // node[1] is the root; leaves at len(node)/2 …; none = all ones
	key    []int64  // by id−1
	weight []int64  // by id−1, in load mode
	load   bool
	mixed  bool  // weights differ, or a key reached 2^32
	w0     int64 // the first weight seen
	// dirty lists the leaves written since the inner nodes were last
	// brought up to date (see settle).
	dirty []int32
	// bucketed: bucket[k] holds the servers taking part whose load is k,
	// and no bucket below lo holds one (the lowest load may be higher).
	// The buckets move with each change (the tree's walks wait for best).
	bucketed bool
	bucket   []idset
	lo       int
	members  int
}

// maxBucket bounds the loads kept in buckets: a load that reaches it turns
// the buckets into the tree.
const maxBucket = 1 << 16

// newLoadTree returns an empty tree in load mode, bucketed until told
// otherwise.
func newLoadTree() *ltree { return &ltree{load: true, bucketed: true} }

const noNode = ^uint64(0)

// better returns the better of nodes a and b, where a's id is the lower
// (so a wins ties).
func (t *ltree) better(a, b uint64) uint64 {
	if !t.mixed || a == noNode || b == noNode {
		return min(a, b)
	}
	ia, ib := a&(1<<32-1)-1, b&(1<<32-1)-1
	ka, kb := t.key[ia], t.key[ib]
	if t.load {
		ka, kb = ka*t.weight[ib], kb*t.weight[ia]
	}
	if kb < ka {
		return b
	}
	return a
}

// set makes server id take part (in) or not, with its key already in
// t.key: it writes the leaf, and best walks from it later.
func (t *ltree) set(id int, in bool) {
	leaves := len(t.node) / 2
	if in {
		if i, v, ok := t.plainLeaf(id); ok { // the common case of a tree by key
			if t.node[i] != v {
				// The end of set below, written out for this case: a
				// leaf that takes part, no bucket, no mixed keys.
				t.node[i] = v
				t.dirty = append(t.dirty, int32(i))
				if len(t.dirty) > leaves {
					t.rebuild() // cheaper than a walk for each
				}
			}
			return
		}
	}
	if id > leaves {
		t.grow(id)
		leaves = len(t.node) / 2
	}
	i := leaves + id - 1
	v := noNode
	if in {
		k := t.key[id-1]
		if !t.mixed && (k < 0 || k >= 1<<32-1 || t.load && t.w0 != 0 && t.weight[id-1] != t.w0) {
			t.mixed = true
			t.unbucket()
			t.rebuild()
		}
		if t.bucketed && k >= maxBucket {
			t.unbucket()
			t.rebuild()
		}
		if t.w0 == 0 {
			t.w0 = t.weight[id-1]
		}
		v = uint64(min(max(k, 0), 1<<32-1))<<32 | uint64(id)
	} else if t.node[i] == noNode {
		return
	}
	if t.node[i] == v && !t.mixed {
		return // mixed: the key may have changed beyond what the node shows
	}
	if t.bucketed {
		old := t.node[i]
		t.node[i] = v
		t.move(id, old, v)
		return
	}
	t.node[i] = v
	t.dirty = append(t.dirty, int32(i))
	if len(t.dirty) > leaves {
		t.rebuild() // cheaper than a walk for each
	}
}

// plainLeaf returns server id's leaf and the node it takes part with, in
// the common case of a tree by key (least-work): one the tree holds, whose
// key one comparison orders (ok); set's general case takes the others.
func (t *ltree) plainLeaf(id int) (i int, v uint64, ok bool) {
	leaves := len(t.node) / 2
	k := uint64(t.key[id-1])
	if t.load || t.mixed || id > leaves || k >= 1<<32-1 {
		return 0, 0, false
	}
	return leaves + id - 1, k<<32 | uint64(id), true
}

// walk brings the inner nodes above node i, just written, up to date
// while none of them is mixed: the better of the node just brought up to
// date and its sibling, one level up, until a node keeps its value.
func walk(node []uint64, i int) {
	for v := node[i]; i > 1; {
		v = min(v, node[i^1])
		i >>= 1
		if node[i] == v {
			return
		}
		node[i] = v
	}
}

// climb is walk without its stop: it brings every node above node i up
// to date, writing each without reading it first. That is exact for any
// change of a leaf while no walk waits, and costs less than walk where
// every node above changes anyway, as when the best server's key rises.
// The indices are masked by the tree's size (a power of two), which keeps
// them in the tree and lets the compiler drop the bounds checks.
func climb(node []uint64, i int) {
	mask := len(node) - 1
	for v := node[i&mask]; i > 1; i >>= 1 {
		v = min(v, node[(i^1)&mask])
		node[(i>>1)&mask] = v
	}
}

// bump adds d to server id's load (load mode) and has it take part when
// its weight is positive. A server in the buckets that stays in them
// moves from one to the other here; anything else goes through set.
func (t *ltree) bump(id int, d int64) {
	k := t.key[id-1] + d
	t.key[id-1] = k
	if i := len(t.node)/2 + id - 1; t.bucketed && id <= len(t.node)/2 && uint64(k) < maxBucket {
		if old := t.node[i]; old != noNode {
			// move, written out for a server that stays in the
			// buckets: out of its old bucket, into the next.
			t.node[i] = uint64(k)<<32 | uint64(id)
			t.bucket[old>>32].remove(id)
			for int(k) >= len(t.bucket) {
				t.bucket = append(t.bucket, idset{})
			}
			t.bucket[k].add(id)
			t.lo = min(t.lo, int(k))
			return
		}
	}
	t.set(id, t.weight[id-1] > 0)
}

// move takes server id out of the bucket of leaf old and puts it into that
// of leaf new (either may be noNode: not taking part).
func (t *ltree) move(id int, old, new uint64) {
	if old != noNode {
		t.bucket[old>>32].remove(id)
		t.members--
	}
	if new != noNode {
		t.into(id, int(new>>32))
	}
}

// into puts server id, in no bucket, into bucket k.
func (t *ltree) into(id, k int) {
	for k >= len(t.bucket) {
		t.bucket = append(t.bucket, idset{})
	}
	t.bucket[k].add(id)
	t.members++
	t.lo = min(t.lo, k)
}

// rebuildBuckets empties the buckets and fills them from the leaves.
func (t *ltree) rebuildBuckets() {
	for k := range t.bucket {
		b := &t.bucket[k]
		clear(b.w)
		b.n, b.low = 0, 0
	}
	t.members, t.lo = 0, 0
	leaves := len(t.node) / 2
	for id := 1; id <= leaves; id++ {
		if v := t.node[leaves+id-1]; v != noNode {
			t.into(id, int(v>>32))
		}
	}
	t.dirty = t.dirty[:0]
}

// unbucket leaves the buckets for the tree, which rebuild then builds
// from the leaves.
func (t *ltree) unbucket() {
	t.bucketed, t.bucket, t.lo, t.members = false, nil, 0, 0
}

// settle brings the inner nodes up to date with the leaves written since
// the last time: a walk from each towards the root, which stops where a
// node keeps its value (the same winner with the same key: nothing above
// changes). Walking them one after another is exact: a walk that reads a
// sibling not brought up to date yet is redone from below when that
// sibling's own walk changes it.
func (t *ltree) settle() {
	node := t.node
	for _, leaf := range t.dirty {
		i := int(leaf)
		if !t.mixed {
			walk(node, i)
			continue
		}
		for i > 1 { // mixed: to the root, as a node shows a key only up to 2^32
			i >>= 1
			node[i] = t.better(node[2*i], node[2*i+1])
		}
	}
	t.dirty = t.dirty[:0]
}

// grow doubles the leaves until id fits, rebuilding the inner nodes.
func (t *ltree) grow(id int) {
	leaves := max(len(t.node)/2, 1)
	for leaves < id {
		leaves *= 2
	}
	old := t.node
	t.node = make([]uint64, 2*leaves)
	for i := range t.node {
		t.node[i] = noNode
	}
	if len(old) > 0 {
		copy(t.node[leaves:], old[len(old)/2:])
	}
	t.rebuild()
}

// rebuild recomputes every inner node from the leaves (or the buckets).
func (t *ltree) rebuild() {
	if t.bucketed {
		t.rebuildBuckets()
		return
	}
	for i := len(t.node)/2 - 1; i >= 1; i-- {
		t.node[i] = t.better(t.node[2*i], t.node[2*i+1])
	}
	t.dirty = t.dirty[:0]
}

// best returns the best server taking part, or 0.
func (t *ltree) best() int {
	if t.bucketed {
		if t.members == 0 {
			return 0
		}
		for t.bucket[t.lo].n == 0 {
			t.lo++
		}
		return t.bucket[t.lo].first()
	}
	if len(t.dirty) > 0 {
		t.settle()
	}
	if len(t.node) < 2 || t.node[1] == noNode {
		return 0
	}
	return int(t.node[1] & (1<<32 - 1))
}

// ensure sizes the key arrays for id.
func (t *ltree) ensure(id int) {
	for len(t.key) < id {
		t.key = append(t.key, 0)
		t.weight = append(t.weight, 1)
	}
}

// renumber moves the tree to the slots of renumbering rn: each server's
// key, weight and leaf go to its new slot, a given-up slot's go, and the
// arrays shrink to the slots kept (the tree's leaves to the power of two
// that holds them). The order of the slots is kept, so the best server
// stays the same server, and every later change and pick reads as it
// would have without the renumbering.
func (t *ltree) renumber(rn *renumbering) {
	n := 0 // the slots kept among those the keys cover
	for s := 1; s <= len(t.key); s++ {
		if to := rn.of(s); to != 0 {
			t.key[to-1], t.weight[to-1] = t.key[s-1], t.weight[s-1]
			n = to
		}
	}
	t.key = append([]int64(nil), t.key[:n]...)
	t.weight = append([]int64(nil), t.weight[:n]...)
	old := t.node
	if len(old) == 0 {
		return
	}
	leaves := 1
	for leaves < n {
		leaves *= 2
	}
	t.node = make([]uint64, 2*leaves)
	for i := range t.node {
		t.node[i] = noNode
	}
	for i, v := range old[len(old)/2:] {
		if to := rn.of(i + 1); to != 0 && v != noNode {
			t.node[leaves+to-1] = v&^(1<<32-1) | uint64(to)
		}
	}
	t.dirty = nil
	if t.bucketed {
		t.bucket = nil // rebuilt from the leaves, only as many as the loads
	}
	t.rebuild()
}
