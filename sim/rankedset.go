package sim

import "math/bits"

// rankedSet is an idset whose nth costs O(log words) however large the set:
// it also counts the members of its words in a Fenwick tree, kept up to
// date by add and remove. Random faults draw the server that fails with
// nth over the active servers, so a large pool failing often would
// otherwise scan its words for every failure. Its add and remove cost
// O(log words) and are not inlined, so the sets changed on every dispatch
// (idle) stay plain idsets.
type rankedSet struct {
	idset
	// fen[i] counts the members of words i−(i&−i) … i−1; nil until the
	// first nth on a large set, and after the words grew.
	fen []int32
}

// rankedFrom is the size in words from which nth uses the Fenwick tree;
// below it a scan of the words is as fast.
const rankedFrom = 16

func (s *rankedSet) add(id int) {
	if s.has(id) {
		return
	}
	words := len(s.w)
	s.idset.add(id)
	if len(s.w) != words {
		s.fen = nil // rebuilt by the next nth
	}
	s.count((id-1)>>6, 1)
}

func (s *rankedSet) remove(id int) {
	if !s.has(id) {
		return
	}
	s.idset.remove(id)
	s.count((id-1)>>6, -1)
}

// count adds d to the count of word wi, if the tree is built.
func (s *rankedSet) count(wi int, d int32) {
	if s.fen == nil {
		return
	}
	for i := wi + 1; i < len(s.fen); i += i & -i {
		s.fen[i] += d
	}
}

// nth returns the k-th lowest member, 0 ≤ k < n, by a descent of the
// Fenwick tree (built first if needed) in a large set.
func (s *rankedSet) nth(k int) int {
	if len(s.w) < rankedFrom {
		return s.idset.nth(k)
	}
	if k < 0 || k >= s.n {
		return 0
	}
	if s.fen == nil {
		s.fen = make([]int32, len(s.w)+1)
		for wi, w := range s.w {
			s.fen[wi+1] += int32(bits.OnesCount64(w))
			if j := wi + 1 + (wi+1)&-(wi+1); j < len(s.fen) {
				s.fen[j] += s.fen[wi+1]
			}
		}
	}
	// The descent and the search in the word take their steps without a
	// branch on the data (a mask from the sign of a difference): the
	// picks are random, so a branch would be guessed wrong half the time.
	pos, rest := 0, k
	for step := 1 << (bits.Len(uint(len(s.w))) - 1); step > 0; step >>= 1 {
		if next := pos + step; next <= len(s.w) {
			c := int(s.fen[next])
			take := (c - rest - 1) >> 63 // all ones when c ≤ rest: the member is beyond these words
			pos += step & take
			rest -= c & take
		}
	}
	// The word holding the member; rest members of it come first.
	return pos<<6 + selectBit(s.w[pos], rest) + 1
}

// selectBit returns the place of the set bit of w that has r set bits
// below it, 0 ≤ r < OnesCount64(w), by halving the word six times.
func selectBit(w uint64, r int) int {
	pos := 0
	for sh := 32; sh > 0; sh >>= 1 {
		c := bits.OnesCount64(w & (1<<uint(sh) - 1))
		take := (c - r - 1) >> 63 // all ones when c ≤ r: the bit is in the high half
		pos += sh & take
		r -= c & take
		w >>= uint(sh & take)
	}
	return pos
}
