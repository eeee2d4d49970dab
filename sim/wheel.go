package sim

import "math/bits"

// wheel is a timing wheel of completions: bucket c mod size holds the ids of
// the servers whose request completes at cycle c. Every processing time is
// below size, so one bucket never mixes two cycles of live entries. An entry
// whose server no longer completes at that cycle (it failed) is stale and
// skipped by the reader. A bitmap marks the non-empty buckets, and a
// summary marks its non-zero words, so the next cycle with a completion is
// found 4,096 cycles at a time (seek): a long service costs no scan of
// the cycles it spans.
type wheel struct {
	buckets [][]int32
	used    []uint64 // bit i set: bucket i is not empty
	sum     []uint64 // bit j clear: used[j] is zero (set: it may not be)
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
	w.sum = make([]uint64, (size/64+63)/64)
	w.mask = size - 1
	return true
}

func (w *wheel) add(cycle int64, id int) {
	i := cycle & w.mask
	w.buckets[i] = append(w.buckets[i], int32(id))
	w.used[i>>6] |= 1 << (i & 63)
	w.sum[i>>12] |= 1 << (i >> 6 & 63)
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
	w.used[i>>6] &^= 1 << (i & 63) // its summary bit is cleared when next finds the word empty
	return ids
}

// next returns the first cycle in [from, to] whose bucket holds an entry,
// or to+1 when there is none, reading the bitmap a word at a time: for
// completions near from (it inlines); seek finds far ones.
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

// seek is next through the summary: its cost does not grow with the
// cycles between from and the completion it finds.
func (w *wheel) seek(from, to int64) int64 {
	i := from & w.mask
	if word := w.used[i>>6] >> (i & 63); word != 0 { // the common case: soon
		if c := from + int64(bits.TrailingZeros64(word)); c <= to {
			return c
		}
		return to + 1
	}
	return w.nextFar(from, to)
}

// nextFar is seek past the word of from, found through the summary.
func (w *wheel) nextFar(from, to int64) int64 {
	if to < from {
		return to + 1
	}
	i := from & w.mask
	j, ok := w.nextWord(i>>6 + 1)
	if !ok {
		// Only the words up to i's may hold any (of i's, the bits below
		// i): a turn of the wheel on.
		if j, ok = w.nextWord(0); !ok {
			return to + 1
		}
	}
	b := j<<6 + int64(bits.TrailingZeros64(w.used[j]))
	if c := from + (b-i)&w.mask; c <= to {
		return c
	}
	return to + 1
}

// nextWord returns the first j ≥ from with used[j] not zero, read from the
// summary (clearing the bits of the words it finds empty), and whether
// there is one before the end of used.
func (w *wheel) nextWord(from int64) (int64, bool) {
	for k := from >> 6; k < int64(len(w.sum)); k++ {
		word := w.sum[k]
		if k == from>>6 {
			word &^= 1<<(from&63) - 1 // the words before from
		}
		for word != 0 {
			j := k<<6 + int64(bits.TrailingZeros64(word))
			if w.used[j] != 0 {
				return j, true
			}
			w.sum[k] &^= 1 << (j & 63)
			word &= word - 1
		}
	}
	return 0, false
}
