package sim

import "math/bits"

// idset is a set of server ids (≥ 1) as a bitset, with the ordered queries
// that dispatch and scaling need. Bit i of the set stands for id i+1.
type idset struct {
	w   []uint64
	n   int // number of members
	low int // no word below w[low] has a member
}

func (s *idset) add(id int) {
	i := id - 1
	for i>>6 >= len(s.w) {
		s.w = append(s.w, 0)
	}
	if s.w[i>>6]&(1<<(i&63)) == 0 {
		s.w[i>>6] |= 1 << (i & 63)
		s.n++
		s.low = min(s.low, i>>6)
	}
}

func (s *idset) remove(id int) {
	i := id - 1
	if i>>6 < len(s.w) && s.w[i>>6]&(1<<(i&63)) != 0 {
		s.w[i>>6] &^= 1 << (i & 63)
		s.n--
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
