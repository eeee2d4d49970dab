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
// k < 256) taken once for all of them: FNV-1a is a byte at a time, so the
// hash of the common prefix is the same for every point
// (TestAppendPointsMatchesRingPoint checks it against RingPoint).
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
