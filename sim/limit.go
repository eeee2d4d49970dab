package sim

import (
	"fmt"
	"math"
)

// DefaultMaxQueued is the bound on queued requests of a model built
// without WithMaxQueued. A queued request takes 24 bytes and a long queue
// grows in blocks of 1.5 MB, so 20 million queued requests take about
// 0.5 GB, asked for a block at a time. The bound is a fixed
// number, not a share of the machine's memory, so whether a run stops, and
// where, is the same on every machine.
const DefaultMaxQueued = 20_000_000

// MaxQueuedLimit is the largest bound WithMaxQueued accepts.
const MaxQueuedLimit = 200_000_000

// WithMaxQueued bounds the requests queued at the end of a cycle (all
// queues of the model together) at n, 1 ≤ n ≤ MaxQueuedLimit; other values
// leave DefaultMaxQueued. A run whose queue exceeds the bound stops at the
// end of that cycle (see Err): it does not change a run that stays within.
func WithMaxQueued(n int) Option {
	return func(m *Model) {
		if n >= 1 && n <= MaxQueuedLimit {
			m.maxQueued = n
		}
	}
}

// QueueLimitError reports a run stopped because more requests were queued
// than its bound allows: the arrivals outpace the servers.
type QueueLimitError struct {
	Cycle  int64 // the cycle at whose end the bound was exceeded
	Queued int   // requests queued then
	Limit  int   // the bound (WithMaxQueued)
}

// Error says where the run stopped and why, without a flag's spelling: the
// command line and the page add how to change the bound.
func (e *QueueLimitError) Error() string {
	return fmt.Sprintf("the run stopped at cycle %d: %d requests were queued (or waiting to retry), more than the limit of %d queued requests; the arrivals outpace the servers (lower the rate, add servers or set a queue capacity)",
		e.Cycle, e.Queued, e.Limit)
}

// Err returns why the run stopped before its last cycle (a
// *QueueLimitError), or nil. A stopped model is Done and steps no further;
// its summary describes the cycles it ran, not the configured run.
func (m *Model) Err() error { return m.stopped }

// checkQueued stops the run when the requests queued at the end of cycle t
// exceed the bound. It is the only place the bound is checked; QueueLen
// counts every queue of the model.
func (m *Model) checkQueued(t int64) {
	q := m.QueueLen()
	for _, b := range m.bal {
		if b.cl != nil {
			q += int(b.cl.waiting) // requests waiting to retry hold memory as queued ones do
		}
	}
	if q > m.maxQueued && m.stopped == nil {
		m.stopped = &QueueLimitError{Cycle: t, Queued: q, Limit: m.maxQueued}
	}
}

// quietSpan returns how many cycles of arrivals, at most, fit below the
// bound on queued requests from the current queue: RunTo takes no larger
// stretch at once, so the bound is checked at the very cycle Step would
// check it.
func (m *Model) quietSpan() int64 {
	room := int64(m.maxQueued) - int64(m.QueueLen())
	if room <= 0 {
		return 0
	}
	return room / m.arrBound
}

// arrivalBound returns a number of arrivals no cycle can exceed under cfg:
// each of the Poisson draw's parts (mean ≤ poissonPart) counts at most its
// kmax < part + maxPart, and the wave lifts the mean by WaveAmplitude
// percent at most.
func arrivalBound(cfg *Config) int64 {
	peak := cfg.Rate.PerCycle()
	if cfg.Wave {
		peak *= 1 + float64(cfg.WaveAmplitude)/100
	}
	parts := int64(math.Ceil(peak/poissonPart)) + 1
	return int64(math.Ceil(peak)) + 1 + parts*maxPart
}
