package sim

import (
	"math/bits"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestIdsetAgainstSortedSlice runs random additions and removals, across
// many words and both levels, and checks every query against a sorted slice.
func TestIdsetAgainstSortedSlice(t *testing.T) {
	t.Run("idset", func(t *testing.T) { checkSetAgainstSortedSlice(t, &idset{}) })
	t.Run("rankedSet", func(t *testing.T) { checkSetAgainstSortedSlice(t, &rankedSet{}) })
}

// orderedSet is what idset and rankedSet share.
type orderedSet interface {
	add(int)
	remove(int)
	has(int) bool
	first() int
	last() int
	next(int) int
	nth(int) int
	size() int
}

func (s *idset) size() int     { return s.n }
func (s *rankedSet) size() int { return s.n }

func checkSetAgainstSortedSlice(t *testing.T, proto orderedSet) {
	rapid.Check(t, func(t *rapid.T) {
		var s orderedSet = &idset{}
		if _, ok := proto.(*rankedSet); ok {
			s = &rankedSet{}
		}
		var ref []int
		maxID := rapid.SampledFrom([]int{70, 5000, 300_000}).Draw(t, "max")
		id := rapid.IntRange(1, maxID)
		for range rapid.IntRange(1, 200).Draw(t, "ops") {
			x := id.Draw(t, "id")
			i, found := slices.BinarySearch(ref, x)
			if rapid.Bool().Draw(t, "add") {
				s.add(x)
				if !found {
					ref = slices.Insert(ref, i, x)
				}
			} else {
				s.remove(x)
				if found {
					ref = slices.Delete(ref, i, i+1)
				}
			}
			if s.size() != len(ref) {
				t.Fatalf("n = %d, want %d", s.size(), len(ref))
			}
			first, last := 0, 0
			if len(ref) > 0 {
				first, last = ref[0], ref[len(ref)-1]
			}
			if s.first() != first || s.last() != last {
				t.Fatalf("first, last = %d, %d; want %d, %d", s.first(), s.last(), first, last)
			}
			q := id.Draw(t, "query")
			want := 0
			if j, _ := slices.BinarySearch(ref, q); j < len(ref) {
				want = ref[j]
			}
			if got := s.next(q); got != want {
				t.Fatalf("next(%d) = %d, want %d (set %v)", q, got, want, ref)
			}
			if s.has(q) != slices.Contains(ref, q) {
				t.Fatalf("has(%d) = %v", q, s.has(q))
			}
			if len(ref) > 0 {
				k := rapid.IntRange(0, len(ref)-1).Draw(t, "k")
				if got := s.nth(k); got != ref[k] {
					t.Fatalf("nth(%d) = %d, want %d", k, got, ref[k])
				}
			}
		}
	})
}

// TestRepairQueueOrder: comebacks come out by cycle and, within a cycle, in
// the order they were scheduled, as a sorted insertion after every
// comeback of the same cycle gives them.
func TestRepairQueueOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q repairQueue
		var ref []repair
		now := int64(1)
		for range rapid.IntRange(1, 300).Draw(t, "ops") {
			if rapid.IntRange(0, 2).Draw(t, "op") > 0 {
				back := now + rapid.Int64Range(1, 20).Draw(t, "delay")
				id := len(ref) + 1000
				q.push(back, id)
				i, _ := slices.BinarySearchFunc(ref, back, func(r repair, c int64) int {
					if r.cycle <= c {
						return -1
					}
					return 1
				})
				ref = slices.Insert(ref, i, repair{cycle: back, id: id})
				continue
			}
			now++
			for {
				id, ok := q.popDue(now)
				wantOK := len(ref) > 0 && ref[0].cycle == now
				if ok != wantOK || (ok && id != ref[0].id) {
					t.Fatalf("cycle %d: popDue = %d, %v; want %v", now, id, ok, ref[:min(len(ref), 3)])
				}
				if !ok {
					break
				}
				ref = ref[1:]
			}
			if q.Len() != len(ref) {
				t.Fatalf("Len %d, want %d", q.Len(), len(ref))
			}
		}
	})
}

// TestSelectBit checks selectBit against clearing the lowest bits one by
// one, on random words and on the edges (one bit, every bit).
func TestSelectBit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.Uint64().Draw(t, "w")
		switch rapid.IntRange(0, 3).Draw(t, "edge") {
		case 1:
			w = 1 << rapid.IntRange(0, 63).Draw(t, "bit")
		case 2:
			w = ^uint64(0)
		}
		if w == 0 {
			return
		}
		v := w
		for r := range bits.OnesCount64(w) {
			if got, want := selectBit(w, r), bits.TrailingZeros64(v); got != want {
				t.Fatalf("selectBit(%#x, %d) = %d, want %d", w, r, got, want)
			}
			v &= v - 1
		}
	})
}
