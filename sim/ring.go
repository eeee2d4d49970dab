package sim

import "slices"

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

// fnvAdd continues FNV-1a-64 hash h over the 4 bytes of a, big-endian,
// one byte at a time from the high one, as hash/fnv would.
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

// ringPoint is one point of the ring: its position, placed by its
// server's id, and the server's slot (the code says id). Slots keep the
// ids' order, so points at the same position order the same by either.
type ringPoint struct {
	at uint64
	id int32 // the server's slot
	k  int32
}

// ring is the consistent-hashing ring of the live servers' points, sorted
// by position, then id, then k. A server that joins is added (insert); the
// ring is built afresh (rebuild) when the servers that left have left too
// many points on it, or after another policy was in force. A point whose
// server is not a candidate is passed over. start[b] is the index of
// the first point whose top bits bits are ≥ b, so a lookup searches
// only its own slice of the ring (a few points) instead of all of it.
//
// The points of servers added since the ring was last merged wait beside
// it (add): over holds them, and each bucket of the index chains its own
// in ring order (head[b] is 1 + the index in over of bucket b's first,
// next[i] of the one after over[i], 0 ending a chain). A lookup reads both
// (ownerOver). They are merged into points (merge) when they are more than
// 1/overShare of them, or once as many lookups as points have passed since
// the last server was added. So a scale-up costs its own points' chaining
// plus a share of the merges: each copies the ring once, after it has
// grown by a fixed fraction, so every point is copied a bounded number of
// times (overShare + 1 on average) as the ring grows, and a whole growth
// costs about that many copies of the final ring, not one per scale-up. A
// ring that stops growing is one sorted array again after as many lookups
// as it has points, which pay for the merge.
type ring struct {
	points []ringPoint
	spare  []ringPoint // the buffer merge writes into, swapped with points
	start  []int32
	bits   uint // how many top bits of a position index the ring
	stale  bool
	over   []ringPoint
	next   []int32
	head   []int32
	looks  int // lookups since the last insert, while over is not empty
}

// overShare: the points waiting beside the ring are merged into it when
// they are more than 1/overShare of it. A smaller share merges more often;
// a larger one makes the chains a lookup walks longer. Growing a pool from
// 20 to 20,000 servers (BenchmarkHashScaleUp) took 23–26 µs a scale-up
// with 2, 46–51 with 4 and 53–56 with 8, and a run that grows so
// (routing 200 arrivals a cycle) took about the same time with each.
const overShare = 2

// rebuild builds the ring of the servers that have not left: a counting
// sort by the index's buckets (the positions are hashes, so a bucket holds
// a few points), then an insertion sort of each bucket. The points are
// hashed twice, once to count and once to place, rather than written to a
// buffer first, so a ring of many servers needs no second copy.
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
			for _, p := range appendPoints(buf[:0], b.idOf(id), id) {
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
			for _, p := range appendPoints(buf[:0], b.idOf(id), id) {
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
	r.over, r.next = r.over[:0], r.next[:0]
	r.stale = false
}

// appendPoints appends server id's points, named by its slot:
// RingPoint(id, k) for each k, with the hash of id's 4 bytes and of k's three high bytes (all 0, as
// k < 256) taken once for all of them: FNV-1a is a byte at a time, so the
// hash of the common prefix is the same for every point
// (TestAppendPointsMatchesRingPoint checks it against RingPoint).
func appendPoints(ps []ringPoint, id, slot int) []ringPoint {
	h := fnvAdd(fnvOffset, uint32(id)) * fnvPrime3
	for k := range RingPoints {
		ps = append(ps, ringPoint{mix((h ^ uint64(k)) * fnvPrime), int32(slot), int32(k)})
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
// joins the chain of its bucket beside the ring (a few points a chain),
// merged into the ring later (merge), or at once into a small ring. The points of servers that have left
// stay (a lookup passes over them, as over any server that is not a
// candidate) until they are as many as the live servers' points; then the
// ring is built afresh at the next lookup.
func (r *ring) insert(b *Balancer, id int) {
	if r.stale || len(r.points) == 0 || len(r.points)+len(r.over) > 2*RingPoints*b.live {
		r.stale = true // built in full at the next lookup
		return
	}
	var buf [RingPoints]ringPoint
	r.add(appendPoints(buf[:0], b.idOf(id), id))
	if len(r.over) != 0 && len(r.points) < mergeBelow {
		r.merge()
	}
}

// mergeBelow is the ring's size (64 servers' points, 64 KB) below which a
// server's points are merged at once (insert): a copy of so small a ring
// costs less than the lookups beside it (ownerOver) until the next merge,
// and growing through it costs a few copies of it at most.
const mergeBelow = 64 * RingPoints

// add puts points (a new server's) beside the built ring, each in its
// bucket's chain, and merges them into it when they are enough.
func (r *ring) add(ps []ringPoint) {
	if len(r.over) == 0 {
		n := len(r.start) - 1
		r.head = slices.Grow(r.head[:0], n)[:n]
		clear(r.head)
	}
	shift := 64 - r.bits
	for _, p := range ps {
		r.over = append(r.over, p)
		r.next = append(r.next, 0)
		at := &r.head[p.at>>shift]
		for *at != 0 && before(&r.over[*at-1], &p) {
			at = &r.next[*at-1]
		}
		r.next[len(r.next)-1] = *at
		*at = int32(len(r.over))
	}
	r.looks = 0
	if overShare*len(r.over) > len(r.points) {
		r.merge()
	}
}

// merge merges the points waiting beside the ring into it: each chained
// point goes in after the points of its bucket that come before it, the
// points between move in one copy, and each bucket's start moves up by
// the points merged below it. It costs a copy of the ring and a pass over
// the index (or the index built afresh, when the ring outgrows its bits).
func (r *ring) merge() {
	pts, start := r.points, r.start
	merged := slices.Grow(r.spare[:0], len(pts)+len(r.over))
	from, added := 0, int32(0)
	for bk, o := range r.head {
		j, end := int(start[bk]), int(start[bk+1])
		start[bk] += added
		for ; o != 0; o = r.next[o-1] {
			p := &r.over[o-1]
			for j < end && before(&pts[j], p) {
				j++ // a bucket holds a few points
			}
			merged = append(append(merged, pts[from:j]...), *p)
			from = j
			added++
		}
	}
	start[len(start)-1] += added
	r.points, r.spare = append(merged, pts[from:]...), pts
	r.over, r.next = r.over[:0], r.next[:0]
	if ringBits(len(r.points)) != r.bits {
		r.index()
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
	id, i := r.first(key, active)
	return r.ownerFrom(id, i, key, active)
}

// ownerFrom is owner given what first(key, active) returned: its server,
// unless points wait beside the ring (ownerOver). It is inlined, so that
// a lookup with no point waiting makes one call, to first, a leaf.
func (r *ring) ownerFrom(id, i int, key uint64, active *rankedSet) int {
	if len(r.over) != 0 {
		return r.ownerOver(key, active, i)
	}
	return id
}

// first returns the server and the index of the first point at or after
// key, wrapping, whose server is a candidate (a member of active), or 0
// and −1 when there is none; the points waiting beside the ring are not
// read.
func (r *ring) first(key uint64, active *rankedSet) (id, i int) {
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
			return id, i
		}
		i++
	}
	return 0, -1
}

// ownerOver is owner while points wait beside the ring: point i, the
// ring's own candidate (first), owns key unless a waiting point of a
// candidate comes before it, counting from key and wrapping. The chains
// are walked from key's bucket up to i's. With no candidate on the ring
// (i = −1: the walk would cover every bucket), or after as many such
// lookups as the ring has points without a server added, the ring is
// merged first.
func (r *ring) ownerOver(key uint64, active *rankedSet, i int) int {
	if r.looks++; i < 0 || r.looks >= len(r.points) {
		r.looks = 0
		r.merge()
		return r.owner(key, active)
	}
	best := &r.points[i]
	shift := 64 - r.bits
	nb := len(r.start) - 1
	b0 := int(key >> shift)
	// Step s walks bucket (b0+s) mod nb; b0's points below key come last,
	// at step nb.
	last := nb
	if bb := int(best.at >> shift); bb != b0 || best.at >= key {
		last = (bb - b0 + nb) % nb
	}
	for s := 0; s <= last; s++ {
		bk := b0 + s
		if bk >= nb {
			bk -= nb
		}
		for o := r.head[bk]; o != 0; o = r.next[o-1] {
			p := &r.over[o-1]
			if s == 0 && p.at < key {
				continue // comes last (at step nb: those at or above key again are no candidates)
			}
			if !fromKeyBefore(p, best, key) {
				return int(best.id)
			}
			if active.has(int(p.id)) {
				return int(p.id)
			}
		}
	}
	return int(best.id)
}

// fromKeyBefore reports whether point a comes before point b on the ring
// read from key on, wrapping: the positions counted from key, then id,
// then k.
func fromKeyBefore(a, b *ringPoint, key uint64) bool {
	da, db := a.at-key, b.at-key
	return da < db || da == db && (a.id < b.id || a.id == b.id && a.k < b.k)
}

// renumber moves the ring to the slots of renumbering rn: the points of
// the slots given up leave it, the others are named by their new slots
// and keep their order (slots keep the ids' order), and the ring is held
// in memory for what is left. The points waiting beside the ring are
// merged first. A stale ring is built afresh at the next lookup anyway:
// it lets its points go.
func (r *ring) renumber(rn *renumbering) {
	if !r.stale && len(r.over) != 0 {
		r.merge()
	}
	r.spare, r.over, r.next, r.head = nil, nil, nil, nil
	if r.stale {
		r.points = nil
		return
	}
	n := 0
	for _, p := range r.points {
		if rn.of(int(p.id)) != 0 {
			n++
		}
	}
	pts := make([]ringPoint, 0, n)
	for _, p := range r.points {
		if to := rn.of(int(p.id)); to != 0 {
			p.id = int32(to)
			pts = append(pts, p)
		}
	}
	r.points, r.looks = pts, 0
	r.index()
}
