package swrr

import "slices"

// This file is the Index's sorted mode, which exists only for speed: it
// makes cheap the pattern of fan-out, where each winner is made
// unavailable right after its pick (a request's part avoids the servers
// holding its siblings) and all of them are made available again after
// the request's last part. With the trees, each of those changes is a fix
// of a tree and ends the rotation, so every pick walks the trees.
//
// In sorted mode (one class of positive weight, as when rotating) the
// trees are out of date and rot is a cycle of positions read from at:
//
//   - main, from at: the available backends, in the order of their bases,
//     highest first, ties by index (a backend that sorts ahead of another
//     would be picked before it);
//   - then len(out) holes, whose contents mean nothing: the block, the
//     unavailable backends, are kept in out, in the order they left main;
//     back of them have become available again and are not yet placed;
//   - then, while loose, rot[at−1]: the last winner, available, its place
//     in main not yet checked.
//
// Every available backend of the class is in main, loose or out (back);
// an unavailable one is in out or was not in rot when sorted mode began
// (then its return ends sorted mode). rotAt[i] is backend i's position in
// rot while in main or loose, −1−j while out[j]. The bases and scores are
// always exact, as in tree mode; only the positions wait. So main's first
// backend is the highest-scored available one once the block's returns
// and the loose winner are placed (place), and a pick takes it. A winner
// made unavailable while loose joins the block with no move; the returns
// are placed a batch at a time in the holes, at main's end, last out
// first (a request's siblings come back in the order they won, and their
// scores nearly always sort the other way round and after main's), then
// sorted and merged into main if they are not already in order.
//
// Anything else (a move of more than placeCap positions, a backend not in
// rot coming back, a new backend, a change of several at once) ends sorted
// mode: the trees are rebuilt from the exact bases, as when rotating ends.
// TestIndexSiblingsMatchPickAvailable holds it to the Pool.
type sortState struct {
	sorted bool
	rotAt  []int32 // by backend: its position in rot, or −1−j while out[j]
	out    []int32 // the block, in the order its backends left main
	back   int     // of them, available again and not yet placed
	loose  bool    // rot[at−1], the last winner, is available and unplaced
	// sits is set by the first SitOut: from then on the index enters
	// sorted mode after a calm spell even when it cannot rotate, with the
	// unavailable backends of the class as the block, a rotation becomes
	// sorted mode when its last winner leaves, and changes of availability
	// no longer restart the calm spell. Without it the index works as it
	// did before sorted mode (runs without fan-out).
	sits bool
	tmp  []int32 // placeBack's scratch
}

// placeCap bounds the positions one placement moves a backend: past it,
// sorted mode ends (the trees cost O(log n) a pick).
const placeCap = 64

// enterSorted makes rot, which holds the available backends of the class
// in order from 0, a sorted cycle: the unavailable backends of the class
// become the block. With no block and holds (the rotation condition) it
// rotates instead.
func (x *Index) enterSorted(holds bool) {
	x.out = x.out[:0]
	for _, i := range x.cls[0].members {
		if !x.avail[i] {
			x.rot = append(x.rot, i) // a hole's content
			x.out = append(x.out, i)
		}
	}
	x.at, x.back, x.loose = 0, 0, false
	x.fillRotAt()
	for j, i := range x.out {
		x.rotAt[i] = int32(-1 - j)
	}
	if len(x.out) == 0 && holds {
		x.rotating = true
	} else {
		x.sorted = true
	}
}

// fillRotAt notes every backend's position in rot.
func (x *Index) fillRotAt() {
	if len(x.rotAt) < len(x.weight) {
		x.rotAt = make([]int32, len(x.weight))
	}
	for p, i := range x.rot {
		x.rotAt[i] = int32(p)
	}
}

// inMain reports whether backend i is in main or loose.
func (x *Index) inMain(i int) bool {
	return i < len(x.rotAt) && x.rotAt[i] >= 0 && int(x.rotAt[i]) < len(x.rot) && x.rot[x.rotAt[i]] == int32(i)
}

// inBlock reports whether backend i is in the block.
func (x *Index) inBlock(i int) bool {
	if i >= len(x.rotAt) {
		return false
	}
	j := -1 - int(x.rotAt[i])
	return uint(j) < uint(len(x.out)) && x.out[j] == int32(i)
}

// behind returns the position n places before at in the cycle.
func (x *Index) behind(n int) int {
	p := x.at - n
	if p < 0 {
		p += len(x.rot)
	}
	return p
}

// ahead reports whether backend a sorts ahead of b: a higher base, or the
// same and a lower index (both available, of one class).
func (x *Index) ahead(a, b int32) bool {
	return x.base[a] > x.base[b] || x.base[a] == x.base[b] && a < b
}

// put sets rot's position p to backend i.
func (x *Index) put(p int, i int32) {
	x.rot[p] = i
	x.rotAt[i] = int32(p)
}

// PickSorted makes Pick's pick in sorted mode when nothing waits to be
// placed (the index's fast path for fan-out's parts after the first),
// small enough to inline; it returns ok == false, changing nothing,
// otherwise: then call Pick.
func (x *Index) PickSorted() (index int, ok bool) {
	if !x.sorted || x.loose || x.back > 0 || x.total == 0 || x.k == rebaseAt {
		return -1, false
	}
	x.k++
	i := x.rot[x.at]
	if x.at++; x.at == len(x.rot) {
		x.at = 0
	}
	x.base[i] -= x.total
	x.loose = true
	return int(i), true
}

// pickSorted is Pick in sorted mode: main's first backend, after placing
// what waits. It ends sorted mode and returns ok == false if that fails.
// (It does not start rotating when it could: a request's first part would
// then end the rotation again.)
func (x *Index) pickSorted() (index int, ok bool) {
	if (x.loose || x.back > 0) && !x.place() {
		x.unrotate()
		return -1, false
	}
	i := x.rot[x.at]
	x.k++
	x.base[i] -= x.total
	if x.at++; x.at == len(x.rot) {
		x.at = 0
	}
	x.loose = true
	return int(i), true
}

// setSorted is SetAvailable(i, on) in sorted mode, i's availability
// changing; it returns false, having changed no base, if sorted mode
// cannot take it (the caller then ends it). The loose winner leaving and
// a backend of the block coming back are the fast cases.
func (x *Index) setSorted(i int, on bool) bool {
	w := x.weight[i]
	if on {
		if x.inBlock(i) {
			x.back++ // placed at the next pick or change
			x.base[i] -= w * x.k
		} else if x.class[i] >= 0 {
			return false
		}
		x.total += w
		x.on++
	} else {
		if x.loose && x.rot[x.behind(1)] == int32(i) {
			x.loose = false // it joins the block: its position is a hole
			x.rotAt[i] = int32(-1 - len(x.out))
			x.out = append(x.out, int32(i))
		} else if x.class[i] >= 0 && !x.leave(int32(i)) {
			return false
		}
		x.base[i] += w * x.k
		x.total -= w
		x.on--
	}
	x.avail[i] = on
	return true
}

// leave moves backend i, in main and not the loose winner, into the
// block: after placing what waits, the backends after it in main move up.
func (x *Index) leave(i int32) bool {
	if (x.loose || x.back > 0) && !x.place() {
		return false
	}
	if !x.inMain(int(i)) {
		return false
	}
	p, end := int(x.rotAt[i]), x.behind(len(x.out)+1)
	for moves := 0; p != end; moves++ {
		if moves == placeCap {
			x.put(p, i)
			return false
		}
		q := p + 1
		if q == len(x.rot) {
			q = 0
		}
		x.put(p, x.rot[q])
		p = q
	}
	x.rotAt[i] = int32(-1 - len(x.out))
	x.out = append(x.out, i)
	return true
}

// place places the loose winner and the block's returns in main.
func (x *Index) place() bool {
	if x.loose {
		x.loose = false
		p := x.behind(1)
		if len(x.out) > 0 { // it moves to the first hole
			q := x.behind(1 + len(x.out))
			x.put(q, x.rot[p])
			p = q
		}
		if !x.bubble(p) {
			return false
		}
	}
	if x.back > 0 {
		return x.placeBack()
	}
	return true
}

// bubble moves the backend at position p, main's end, towards main's
// first past the backends it sorts ahead of. It reports whether it stayed
// within placeCap moves.
func (x *Index) bubble(p int) bool {
	i := x.rot[p]
	for moves := 0; p != x.at; moves++ {
		q := p - 1
		if q < 0 {
			q = len(x.rot) - 1
		}
		if !x.ahead(i, x.rot[q]) {
			break
		}
		if moves == placeCap {
			x.put(p, i)
			return false
		}
		x.put(p, x.rot[q])
		p = q
	}
	x.put(p, i)
	return true
}

// placeBack puts the block's returns in the first holes, last out first,
// sorts them if they are not in order, and merges them into main (which
// they then end).
func (x *Index) placeBack() bool {
	s, c, n := x.behind(len(x.out)), x.back, len(x.rot)
	x.back = 0
	inOrder, p := true, s
	if out := x.out; c == len(out) { // all back
		rot, rotAt, base := x.rot, x.rotAt, x.base
		i := out[c-1]
		for j := c - 1; j >= 0; j-- {
			prev := i
			i = out[j]
			if base[i] > base[prev] || base[i] == base[prev] && i < prev {
				inOrder = false
			}
			rot[p] = i
			rotAt[i] = int32(p)
			if p++; p == n {
				p = 0
			}
		}
		x.out = out[:0]
	} else { // some stay out: they keep their order
		var prev int32 = -1
		for j := len(x.out) - 1; j >= 0; j-- {
			if i := x.out[j]; x.avail[i] {
				if prev >= 0 && !x.ahead(prev, i) {
					inOrder = false
				}
				x.put(p, i)
				prev = i
				if p++; p == n {
					p = 0
				}
			}
		}
		kept := 0
		for _, i := range x.out {
			if !x.avail[i] {
				x.rotAt[i] = int32(-1 - kept)
				x.out[kept] = i
				kept++
			}
		}
		x.out = x.out[:kept]
	}
	if !inOrder {
		x.sortRun(s, c)
	}
	// Each return sorts after the one before it: once one stays, the rest do.
	for p, j := s, 0; j < c && p != x.at; j++ {
		q := p - 1
		if q < 0 {
			q = n - 1
		}
		if !x.ahead(x.rot[p], x.rot[q]) {
			break
		}
		if !x.bubble(p) {
			return false
		}
		if p++; p == n {
			p = 0
		}
	}
	return true
}

// sortRun sorts the c positions of rot from s.
func (x *Index) sortRun(s, c int) {
	run := x.tmp[:0]
	for j, p := 0, s; j < c; j++ {
		run = append(run, x.rot[p])
		if p++; p == len(x.rot) {
			p = 0
		}
	}
	slices.SortFunc(run, func(a, b int32) int {
		switch {
		case a == b:
			return 0
		case x.ahead(a, b):
			return -1
		}
		return 1
	})
	for j, p := 0, s; j < c; j++ {
		x.put(p, run[j])
		if p++; p == len(x.rot) {
			p = 0
		}
	}
	x.tmp = run
}

// SitOut makes backend i unavailable as SetAvailable(i, false) does, for
// a backend that will soon be available again: fan-out's siblings, each
// made unavailable right after its pick until the request's last part.
// The first SitOut has the index take that pattern from then on in sorted
// mode, where the winner's leaving and the siblings' return move nothing
// and fix no tree.
func (x *Index) SitOut(i int) {
	x.sits = true
	x.SetAvailable(i, false)
}
