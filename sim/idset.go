package sim

import "math/bits"

// idset is a set of server ids (≥ 1) as a bitset, with the ordered queries
// that dispatch and scaling need. Bit i of the set stands for id i+1.
type idset struct {
	w   []uint64
	n   int // number of members
	low int // no word below w[low] has a member
	// fen counts the members of the words as a Fenwick tree (fen[i] sums
	// the words i−(i&−i) … i−1), so nth costs O(log words) in a large
	// set. It is built by the first nth on a large set and kept up to
	// date from then on; nil until then, or after w grew.
	fen []int32
}

// fenwickFrom is the size in words from which nth uses the Fenwick tree;
// below it a scan of the words is as fast.
const fenwickFrom = 16

// count adds d to the count of word wi in the Fenwick tree, if built.
func (s *idset) count(wi int, d int32) {
	if s.fen == nil {
		return
	}
	for i := wi + 1; i < len(s.fen); i += i & -i {
		s.fen[i] += d
	}
}

func (s *idset) add(id int) {
	i := id - 1
	for i>>6 >= len(s.w) {
		s.w = append(s.w, 0)
		s.fen = nil // rebuilt by the next nth
	}
	if s.w[i>>6]&(1<<(i&63)) == 0 {
		s.w[i>>6] |= 1 << (i & 63)
		s.n++
		s.low = min(s.low, i>>6)
		s.count(i>>6, 1)
	}
}

func (s *idset) remove(id int) {
	i := id - 1
	if i>>6 < len(s.w) && s.w[i>>6]&(1<<(i&63)) != 0 {
		s.w[i>>6] &^= 1 << (i & 63)
		s.n--
		s.count(i>>6, -1)
	}
}

func (s *idset) has(id int) bool {
	i := id - 1
	return i>>6 < len(s.w) && s.w[i>>6]&(1<<(i&63)) != 0
}

// first returns the lowest member, or 0 when the set is empty.
func (s *idset) first() int {
	if s.n == 0 {
		return 0
	}
	for s.w[s.low] == 0 {
		s.low++
	}
	return s.low<<6 + bits.TrailingZeros64(s.w[s.low]) + 1
}

// last returns the highest member, or 0 when the set is empty.
func (s *idset) last() int {
	if s.n == 0 {
		return 0
	}
	for i := len(s.w) - 1; i >= 0; i-- {
		if w := s.w[i]; w != 0 {
			return i<<6 + 63 - bits.LeadingZeros64(w) + 1
		}
	}
	return 0
}

// next returns the lowest member ≥ id, or 0 when there is none.
func (s *idset) next(id int) int {
	if s.n == 0 {
		return 0
	}
	i := max(id-1, s.low<<6)
	for wi := i >> 6; wi < len(s.w); wi++ {
		w := s.w[wi]
		if wi == i>>6 {
			w &= ^uint64(0) << (i & 63)
		}
		if w != 0 {
			return wi<<6 + bits.TrailingZeros64(w) + 1
		}
	}
	return 0
}

// nth returns the k-th lowest member, 0 ≤ k < n.
func (s *idset) nth(k int) int {
	if len(s.w) >= fenwickFrom {
		return s.nthFenwick(k)
	}
	for wi := s.low; wi < len(s.w); wi++ {
		w := s.w[wi]
		c := bits.OnesCount64(w)
		if k >= c {
			k -= c
			continue
		}
		for ; k > 0; k-- {
			w &= w - 1
		}
		return wi<<6 + bits.TrailingZeros64(w) + 1
	}
	return 0
}

// nthFenwick is nth by a descent of the Fenwick tree, building it first if
// needed: O(log words) instead of a scan of every word.
func (s *idset) nthFenwick(k int) int {
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
	pos, rest := 0, int32(k)
	for step := 1 << (bits.Len(uint(len(s.w))) - 1); step > 0; step >>= 1 {
		if next := pos + step; next <= len(s.w) && s.fen[next] <= rest {
			pos = next
			rest -= s.fen[next]
		}
	}
	w := s.w[pos] // the word holding the member; rest members of it come first
	for ; rest > 0; rest-- {
		w &= w - 1
	}
	return pos<<6 + bits.TrailingZeros64(w) + 1
}
