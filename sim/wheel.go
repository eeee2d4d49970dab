package sim

import "math/bits"

// wheel is a timing wheel of completions: bucket c mod size holds the ids of
// the servers whose request completes at cycle c. Every processing time is
// below size, so one bucket never mixes two cycles of live entries. An entry
// whose server no longer completes at that cycle (it failed) is stale and
// skipped by the reader. A bitmap marks the non-empty buckets, so the next
// cycle with a completion is found a word (64 cycles) at a time.
type wheel struct {
	buckets [][]int32
	used    []uint64 // bit i set: bucket i is not empty
	mask    int64
}

// fit makes the wheel hold completions up to span cycles ahead. It reports
// whether it had to resize, which empties the wheel.
func (w *wheel) fit(span int64) bool {
	if int64(len(w.buckets)) > span {
		return false
	}
	size := int64(64)
	for size <= span {
		size *= 2
	}
	// Entries keep their cycle only implicitly, so a resize drops them; the
	// model re-adds its busy servers afterwards.
	w.buckets = make([][]int32, size)
	w.used = make([]uint64, size/64)
	w.mask = size - 1
	return true
}

func (w *wheel) add(cycle int64, id int) {
	i := cycle & w.mask
	w.buckets[i] = append(w.buckets[i], int32(id))
	w.used[i>>6] |= 1 << (i & 63)
}

// has reports whether the bucket of cycle holds any entry.
func (w *wheel) has(cycle int64) bool {
	i := cycle & w.mask
	return w.used[i>>6]&(1<<(i&63)) != 0
}

// take returns the bucket of cycle and empties it; the returned slice is
// valid until the next add to that bucket.
func (w *wheel) take(cycle int64) []int32 {
	i := cycle & w.mask
	ids := w.buckets[i]
	w.buckets[i] = ids[:0]
	w.used[i>>6] &^= 1 << (i & 63)
	return ids
}

// next returns the first cycle in [from, to] whose bucket holds an entry,
// or to+1 when there is none.
func (w *wheel) next(from, to int64) int64 {
	size := w.mask + 1
	for c := from; c <= to; {
		i := c & w.mask
		word := w.used[i>>6] >> (i & 63)
		if word != 0 {
			if c += int64(bits.TrailingZeros64(word)); c <= to {
				return c
			}
			return to + 1
		}
		c += 64 - i&63 // the start of the next word
		if c-from >= size {
			return to + 1 // every bucket seen
		}
	}
	return to + 1
}
