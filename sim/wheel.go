package sim

// wheel is a timing wheel of completions: bucket c mod size holds the ids of
// the servers whose request completes at cycle c. Every processing time is
// below size, so one bucket never mixes two cycles of live entries. An entry
// whose server no longer completes at that cycle (it failed) is stale and
// skipped by the reader.
type wheel struct {
	buckets [][]int32
	mask    int64
}

// fit makes the wheel hold completions up to span cycles ahead. It reports
// whether it had to resize, which empties the wheel.
func (w *wheel) fit(span int64) bool {
	if int64(len(w.buckets)) > span {
		return false
	}
	size := int64(16)
	for size <= span {
		size *= 2
	}
	// Entries keep their cycle only implicitly, so a resize drops them; the
	// model re-adds its busy servers afterwards.
	w.buckets = make([][]int32, size)
	w.mask = size - 1
	return true
}

func (w *wheel) add(cycle int64, id int) {
	b := &w.buckets[cycle&w.mask]
	*b = append(*b, int32(id))
}

// take returns the bucket of cycle and empties it; the returned slice is
// valid until the next add to that bucket.
func (w *wheel) take(cycle int64) []int32 {
	b := &w.buckets[cycle&w.mask]
	ids := *b
	*b = ids[:0]
	return ids
}
