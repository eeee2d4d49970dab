package sim

import "math/bits"

// exactBelow is the bound below which a latency histogram counts every
// value exactly; above it values share log-linear buckets.
const exactBelow = 1 << 16

// subBuckets is the number of buckets per power of two above exactBelow,
// so a bucket spans at most 1/256 of its values.
const subBuckets = 256

// latency is a histogram of non-negative whole-cycle latencies (waits or
// response times) with bounded memory: one counter per value below
// exactBelow (grown as values appear), and above it 256 log-linear buckets
// per power of two. Quantiles are exact below exactBelow and within 1/256
// relative above; the maximum is always exact.
type latency struct {
	exact []uint64 // exact[v]: how many values equal v, for v < len(exact)
	log   []uint64 // log[i]: the bucket of index logIndex(v)
	// slow counts the values added outside exact (grown or logged) and
	// slowMax is the largest of them; count and maximum follow from these
	// and exact, so the common add is one increment.
	slow    int64
	slowMax int64
}

// logIndex returns the bucket of v ≥ exactBelow: its power of two above
// 2^16 and its top eight bits below the leading one.
func logIndex(v int64) int {
	e := 63 - bits.LeadingZeros64(uint64(v)) // 2^e ≤ v < 2^(e+1), e ≥ 16
	return (e-16)*subBuckets + int(uint64(v)>>(e-8)&(subBuckets-1))
}

// logLow returns the smallest value of bucket i.
func logLow(i int) int64 {
	e := i/subBuckets + 16
	return int64(1)<<e | int64(i%subBuckets)<<(e-8)
}

// add counts one value v ≥ 0. The common case, a value the exact table
// already covers, is one increment (and inlines).
func (h *latency) add(v int64) {
	if uint64(v) < uint64(len(h.exact)) {
		h.exact[v]++
		return
	}
	h.addSlow(v)
}

func (h *latency) addSlow(v int64) {
	if v < exactBelow {
		h.grow(int(v))
		h.exact[v]++
		return
	}
	h.slow++
	h.slowMax = max(h.slowMax, v)
	i := logIndex(v)
	for i >= len(h.log) {
		h.log = append(h.log, 0)
	}
	h.log[i]++
}

// count returns how many values were added.
func (h *latency) count() int64 {
	n := h.slow
	for _, c := range h.exact {
		n += int64(c)
	}
	return n
}

// maximum returns the largest value added, or 0.
func (h *latency) maximum() int64 {
	if h.slow > 0 {
		return h.slowMax
	}
	for v := len(h.exact) - 1; v >= 0; v-- {
		if h.exact[v] > 0 {
			return int64(v)
		}
	}
	return 0
}

func (h *latency) grow(v int) {
	n := min(max(2*len(h.exact), v+1, 64), exactBelow)
	h.exact = append(h.exact, make([]uint64, n-len(h.exact))...)
}

// merge adds every value of o.
func (h *latency) merge(o *latency) {
	if len(o.exact) > len(h.exact) {
		h.grow(len(o.exact) - 1)
	}
	for v, c := range o.exact {
		h.exact[v] += c
	}
	for len(h.log) < len(o.log) {
		h.log = append(h.log, 0)
	}
	for i, c := range o.log {
		h.log[i] += c
	}
	h.slow += o.slow
	h.slowMax = max(h.slowMax, o.slowMax)
}

// Tail holds a run's latency percentiles, in cycles: waits of dispatched
// requests and response times (completion − arrival) of completed ones.
type Tail struct {
	WaitP50, WaitP90, WaitP95, WaitP99, WaitMax                     int64
	ResponseP50, ResponseP90, ResponseP95, ResponseP99, ResponseMax int64
}

// percentiles returns the nearest-rank 50th, 90th, 95th and 99th
// percentiles and the maximum in one pass over the histogram. A
// p-quantile is the smallest value v such that at least ⌈p·n⌉ of the n
// values are ≤ v (0 with no values); above exactBelow it is the low end of
// v's bucket, never more than the maximum.
func (h *latency) percentiles() (p50, p90, p95, p99, mx int64) {
	n := h.count()
	if n == 0 {
		return 0, 0, 0, 0, 0
	}
	pcts := [4]int64{50, 90, 95, 99}
	var out [4]int64
	var rank [4]int64
	for i, p := range pcts {
		rank[i] = max((n*p+99)/100, 1)
	}
	k, seen := 0, int64(0)
	for v, c := range h.exact {
		if c == 0 {
			continue
		}
		seen += int64(c)
		for k < 4 && seen >= rank[k] {
			out[k] = int64(v)
			k++
		}
	}
	for i, c := range h.log {
		seen += int64(c)
		for k < 4 && seen >= rank[k] {
			out[k] = min(logLow(i), h.slowMax)
			k++
		}
	}
	return out[0], out[1], out[2], out[3], h.maximum()
}

// tail reads the percentiles of the two histograms.
func tail(wait, resp *latency) Tail {
	var t Tail
	t.WaitP50, t.WaitP90, t.WaitP95, t.WaitP99, t.WaitMax = wait.percentiles()
	t.ResponseP50, t.ResponseP90, t.ResponseP95, t.ResponseP99, t.ResponseMax = resp.percentiles()
	return t
}

// setTail fills in the percentile fields.
func (s *Summary) setTail(t Tail) {
	s.WaitP50, s.WaitP90, s.WaitP95, s.WaitP99, s.WaitMax = t.WaitP50, t.WaitP90, t.WaitP95, t.WaitP99, t.WaitMax
	s.ResponseP50, s.ResponseP90, s.ResponseP95, s.ResponseP99, s.ResponseMax = t.ResponseP50, t.ResponseP90, t.ResponseP95, t.ResponseP99, t.ResponseMax
}
