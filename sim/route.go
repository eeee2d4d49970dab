package sim

import (
	"slices"
)

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
				// The end of set, written out: least-work at 10,000
				// servers takes 30 instructions a request more
				// through a call.
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
// The indices are masked by the tree's size (a power of two) so that they
// need no bounds checks: least-work at 20 servers took 864 instructions a
// request with them, 851 without.
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
			// move, written out: through the call least-connections
			// takes 1,118 instructions a request at 20 servers, 1,058
			// without.
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

// cands is the set of candidates as a dense array, for uniform draws in
// constant time: order is that of additions, with a removal moving the last
// one into the gap.
//
// Under p2c it also keeps each candidate's load (its queue and the request
// in service) beside its id, so that a choice reads one array at one index,
// not an id and then that id's load.
type cands struct {
	ids  []int32
	load []int32 // by index in ids, under p2c (loads); empty otherwise
	pos  []int32 // by id−1: index in ids + 1, or 0
	// loads: load is kept (p2c).
	loads bool
}

// add makes server id a candidate, with load 0: a server becomes one when it
// is created or comes back from a fault, idle with an empty queue.
func (c *cands) add(id int) {
	for len(c.pos) < id {
		c.pos = append(c.pos, 0)
	}
	if c.pos[id-1] != 0 {
		return
	}
	c.ids = append(c.ids, int32(id))
	if c.loads {
		c.load = append(c.load, 0)
	}
	c.pos[id-1] = int32(len(c.ids))
}

// addLoad adds d to server id's load, if it is a candidate and loads are
// kept.
func (c *cands) addLoad(id int, d int32) {
	if c.loads {
		if p := c.pos[id-1]; p != 0 {
			c.load[p-1] += d
		}
	}
}

func (c *cands) remove(id int) {
	if id > len(c.pos) || c.pos[id-1] == 0 {
		return
	}
	i := c.pos[id-1] - 1
	n := len(c.ids) - 1
	last := c.ids[n]
	c.ids[i] = last
	c.pos[last-1] = i + 1
	c.ids = c.ids[:n]
	if c.loads {
		c.load[i] = c.load[n]
		c.load = c.load[:n]
	}
	c.pos[id-1] = 0
}

// mix is MurmurHash3's 64-bit finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// FNV-1a-64's offset basis and prime.
const fnvOffset, fnvPrime = 14695981039346656037, 1099511628211

// fnvAdd continues FNV-1a-64 hash h over the 4 bytes of a, big-endian.
// Written out: a loop over the four bytes costs each request's key
// about 20 instructions more.
func fnvAdd(h uint64, a uint32) uint64 {
	h = (h ^ uint64(a>>24)) * fnvPrime
	h = (h ^ uint64(a>>16&0xff)) * fnvPrime
	h = (h ^ uint64(a>>8&0xff)) * fnvPrime
	return (h ^ uint64(a&0xff)) * fnvPrime
}

// fnv8 is FNV-1a-64 of the 8 bytes of a and b, big-endian.
func fnv8(a, b uint32) uint64 { return fnvAdd(fnvAdd(fnvOffset, a), b) }

// fnv4 is FNV-1a-64 of the 4 bytes of a, big-endian (no allocation, unlike
// hash/fnv: a request's key is taken for every arrival).
func fnv4(a uint32) uint64 { return fnvAdd(fnvOffset, a) }

// RingPoints is the number of points each server has on the hash ring.
const RingPoints = 64

// RingPoint returns the position on the hash ring of server id's point k:
// mix(FNV-1a-64(id ‖ k)), both as 4 bytes big-endian.
func RingPoint(id, k int) uint64 { return mix(fnv8(uint32(id), uint32(k))) }

// HashKey returns the ring position of a request from source address src:
// mix(FNV-1a-64(src's 4 bytes a.b.c.d)).
func HashKey(src uint32) uint64 { return mix(fnv4(src)) }

// ringPoint is one point of the ring.
type ringPoint struct {
	at uint64
	id int32
	k  int32
}

// ring is the consistent-hashing ring of the live servers' points, sorted
// by position, then id, then k. It is rebuilt when a server joins; a point
// whose server is not a candidate is passed over. start[b] is the index of
// the first point whose top bits bits are ≥ b, so a lookup searches
// only its own slice of the ring (a few points) instead of all of it.
type ring struct {
	points []ringPoint
	spare  []ringPoint // the buffer insert merges into, swapped with points
	start  []int32
	bits   uint // how many top bits of a position index the ring
	stale  bool
}

// rebuild builds the ring of the servers that have not left: a counting
// sort by the index's buckets (the positions are hashes, so a bucket holds
// a few points), then an insertion sort of each bucket. The points are
// hashed twice, once to count and once to place, rather than written to a
// buffer first: a ring of 10,000 servers then needs no second 10 MB (the
// time measured the same).
func (r *ring) rebuild(b *Balancer) {
	n := 0
	for id := 1; id <= len(b.srv); id++ {
		if !b.srv[id-1].gone {
			n += RingPoints
		}
	}
	r.size(n)
	shift := 64 - r.bits
	start := r.start
	clear(start)
	var buf [RingPoints]ringPoint
	for id := 1; id <= len(b.srv); id++ {
		if !b.srv[id-1].gone {
			for _, p := range appendPoints(buf[:0], id) {
				start[p.at>>shift+1]++
			}
		}
	}
	startsFromCounts(start)
	// start[k] is now the first index of bucket k; place each point.
	pts := slices.Grow(r.points[:0], n)[:n]
	next := slices.Clone(start[:len(start)-1])
	for id := 1; id <= len(b.srv); id++ {
		if !b.srv[id-1].gone {
			for _, p := range appendPoints(buf[:0], id) {
				bk := p.at >> shift
				pts[next[bk]] = p
				next[bk]++
			}
		}
	}
	for bk := range len(start) - 1 {
		seg := pts[start[bk]:start[bk+1]]
		for i := 1; i < len(seg); i++ {
			for j := i; j > 0 && before(&seg[j], &seg[j-1]); j-- {
				seg[j], seg[j-1] = seg[j-1], seg[j]
			}
		}
	}
	r.points = pts
	r.stale = false
}

// appendPoints appends server id's points: RingPoint(id, k) for each k,
// with the hash of id's 4 bytes and of k's three high bytes (all 0, as
// k < 256) taken once for all of them: hashing each point in full made a
// hash-routed run at 10,000 servers, which builds its ring once, 9%
// slower (145 against 133 ns a request).
func appendPoints(ps []ringPoint, id int) []ringPoint {
	h := fnvAdd(fnvOffset, uint32(id)) * fnvPrime3
	for k := range RingPoints {
		ps = append(ps, ringPoint{mix((h ^ uint64(k)) * fnvPrime), int32(id), int32(k)})
	}
	return ps
}

// fnvPrime3 is fnvPrime³ modulo 2^64: FNV-1a over three zero bytes.
const fnvPrime3 = 0x08a97b0004e7feab

// RingPoints < 256: appendPoints hashes only k's low byte.
var _ [256 - RingPoints]struct{}

// cmpPoints orders points by position, then id, then k.
func cmpPoints(a, b ringPoint) int {
	switch {
	case a.at != b.at:
		if a.at < b.at {
			return -1
		}
		return 1
	case a.id != b.id:
		return int(a.id - b.id)
	}
	return int(a.k - b.k)
}

// before reports whether point a comes before point b (cmpPoints < 0),
// small enough to inline.
func before(a, b *ringPoint) bool {
	return a.at < b.at || a.at == b.at && (a.id < b.id || a.id == b.id && a.k < b.k)
}

// insert adds server id, just created, to a built ring: each of its points
// goes in after the points of its bucket that come before it, the points
// between move in one copy, and each bucket's start moves up by the new
// points below it. Scaling up costs a copy of the ring and a pass over the
// index (or the index built afresh, when the ring outgrows its bits). The
// points of servers that have left stay (a lookup passes over them, as over
// any server that is not a candidate) until they are as many as the live
// servers' points; then the ring is built afresh at the next lookup.
func (r *ring) insert(b *Balancer, id int) {
	if r.stale || len(r.points) == 0 || len(r.points) > 2*RingPoints*b.live {
		r.stale = true // built in full at the next lookup
		return
	}
	var buf [RingPoints]ringPoint
	add := appendPoints(buf[:0], id)
	slices.SortFunc(add, cmpPoints)
	pts, start, shift := r.points, r.start, 64-r.bits
	merged := slices.Grow(r.spare[:0], len(pts)+len(add))
	from := 0
	for i := range add {
		p := &add[i]
		bk := p.at >> shift
		j, end := max(int(start[bk]), from), int(start[bk+1])
		for j < end && before(&pts[j], p) {
			j++ // a bucket holds a few points
		}
		merged = append(append(merged, pts[from:j]...), *p)
		from = j
	}
	r.points, r.spare = append(merged, pts[from:]...), pts
	if ringBits(len(r.points)) != r.bits {
		r.index()
		return
	}
	k := 0
	for bk := range start {
		for k < len(add) && add[k].at>>shift < uint64(bk) {
			k++
		}
		start[bk] += int32(k)
	}
}

// maxRingBits bounds the bucket index at 2^17 entries (512 KB).
const maxRingBits = 17

// ringBits returns the index's bits for n points: about four points a
// bucket, so that a lookup reads a cache line or two.
func ringBits(n int) uint {
	bits := uint(4)
	for bits < maxRingBits && 4<<bits < n {
		bits++
	}
	return bits
}

// size sets the index's bits for n points and sizes start to match.
func (r *ring) size(n int) {
	r.bits = ringBits(n)
	r.start = slices.Grow(r.start[:0], 1<<r.bits+1)[:1<<r.bits+1]
}

// index sizes and fills the bucket index of the sorted points: it counts
// the points of each bucket, then sums the counts.
func (r *ring) index() {
	r.size(len(r.points))
	shift := 64 - r.bits
	start := r.start // in locals: through r, each access would load them again
	clear(start)
	for _, p := range r.points {
		start[p.at>>shift+1]++
	}
	startsFromCounts(start)
	r.stale = false
}

// startsFromCounts turns start, where start[k+1] counts the points of
// bucket k, into each bucket's first index: the running sums.
func startsFromCounts(start []int32) {
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
}

// owner returns the candidate (a member of active) owning the first point
// at or after key, wrapping, or 0 when no point belongs to a candidate.
func (r *ring) owner(key uint64, active *rankedSet) int {
	b := key >> (64 - r.bits)
	i, hi := int(r.start[b]), int(r.start[b+1])
	ps := r.points
	scan := true
	if i+4 <= len(ps) {
		// The first four points from the bucket's start, counted without a
		// branch (how many lie below the key is a coin the processor
		// cannot call); the points past the bucket lie above the key.
		// Fewer than four below: the next point is the one.
		p := (*[4]ringPoint)(ps[i:])
		n := btou(p[0].at < key) + btou(p[1].at < key) + btou(p[2].at < key) + btou(p[3].at < key)
		i += int(n)
		scan = n == 4
	}
	for scan && i < hi && ps[i].at < key {
		i++ // a bucket holds a few points: a scan beats a search
	}
	for range ps {
		if i == len(ps) {
			i = 0
		}
		if id := int(ps[i].id); active.has(id) {
			return id
		}
		i++
	}
	return 0
}
