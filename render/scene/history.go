package scene

import "github.com/lbsim/lbsim/sim"

// HistoryLen is the number of points a chart shows.
const HistoryLen = 240

// Sample is one point of the charts: the largest end-of-cycle queue and live pool over a
// bucket of Stride cycles, and the scale events in it.
type Sample struct {
	First      int64 // first cycle of the bucket
	Queue      int
	Servers    int
	Ups, Downs int
}

// History keeps the last HistoryLen samples for the charts. Each sample
// covers Stride cycles; the stride follows the speed so that the charts
// always span a few seconds of viewing.
type History struct {
	stride int64
	buf    [HistoryLen]Sample
	n      int // samples held
	head   int // index of the oldest
	cur    Sample
	curN   int64 // cycles in cur
}

// SetStride changes the cycles per sample; the samples already held stay.
func (h *History) SetStride(s int64) { h.stride = max(s, 1) }

// Stride returns the cycles per sample.
func (h *History) Stride() int64 { return max(h.stride, 1) }

// Add records the end-of-cycle row of one cycle.
func (h *History) Add(c sim.CycleStats) {
	if h.curN == 0 {
		h.cur = Sample{First: c.Cycle}
	}
	h.cur.Queue = max(h.cur.Queue, c.Queue)
	h.cur.Servers = max(h.cur.Servers, c.Servers)
	switch {
	case c.Scale > 0:
		h.cur.Ups++
	case c.Scale < 0:
		h.cur.Downs++
	}
	h.curN++
	if h.curN >= h.Stride() {
		h.push(h.cur)
		h.curN = 0
	}
}

func (h *History) push(s Sample) {
	if h.n < HistoryLen {
		h.buf[(h.head+h.n)%HistoryLen] = s
		h.n++
		return
	}
	h.buf[h.head] = s
	h.head = (h.head + 1) % HistoryLen
}

// Len returns the number of complete samples held.
func (h *History) Len() int { return h.n }

// At returns the i-th sample, 0 = oldest.
func (h *History) At(i int) Sample { return h.buf[(h.head+i)%HistoryLen] }

// Reset empties the history.
func (h *History) Reset() { *h = History{stride: h.stride} }
