package main

import (
	"errors"
	"runtime/debug"
	"sync"

	"github.com/lbsim/lbsim/sim"
)

// queueShare divides the bound on queued requests (--max-queued) among the
// runs of compare, sweep and size that run at once, so that --jobs J runs
// together hold no more queued requests than one run may: each starts
// with its bound ÷ J. A run that outgrows its share is dropped and run
// again from its start alone, with its whole bound, while the others wait;
// so whether a run stops at --max-queued, and where, is what it would be
// with --jobs 1 (the bound only ever stops a run, it never changes one),
// and --jobs changes no result, only the time taken.
//
// The bounds of the runs under way add up to at most the largest run's
// bound (or J when a bound is below J: each run gets at least 1).
type queueShare struct {
	jobs int
	mu   sync.RWMutex // held for reading by a run on its share, for writing by one on its whole bound

	// seen, when set, is told the bound handed to each run as it starts
	// and the bounds of the runs then under way added up, this one
	// included (tests check the sum).
	seen func(bound, inFlight int)

	sumMu    sync.Mutex
	inFlight int  // the bounds of the runs under way, added up
	garbage  bool // a run stopped at its bound since the last collection
}

// newQueueShare returns the share of jobs runs at once (jobs ≥ 1: the
// runs that can really be under way together, not more than there are).
func (c *cli) newQueueShare(jobs int) *queueShare {
	return &queueShare{jobs: max(jobs, 1), seen: c.runBound}
}

// run calls do with the bound the run may use (do builds the model with
// it and runs it to the end) and returns what do returns, as if do had
// been called once with the whole bound.
func (q *queueShare) run(bound int, do func(bound int) (*sim.Model, error)) (*sim.Model, error) {
	if share := max(bound/q.jobs, 1); share < bound {
		q.mu.RLock()
		m, err := q.call(share, do)
		q.mu.RUnlock()
		if !stopped(err) {
			return m, err
		}
		// m is dropped here, before the run again: its queue is what the
		// share bounds.
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.garbage {
		// The runs stopped at a bound left queues as large as it behind
		// them: collect them before this run grows its own, or the heap
		// holds both (sequential runs at the default bound peaked at
		// 2.8 GB against one run's 1.3 GB).
		debug.FreeOSMemory()
		q.garbage = false
	}
	return q.call(bound, do)
}

// stopped reports whether err is a run stopped at its bound.
func stopped(err error) bool {
	var le *sim.QueueLimitError
	return errors.As(err, &le)
}

// call runs do with bound, counting the bound as under way meanwhile.
func (q *queueShare) call(bound int, do func(int) (*sim.Model, error)) (*sim.Model, error) {
	q.sumMu.Lock()
	q.inFlight += bound
	if q.seen != nil {
		q.seen(bound, q.inFlight)
	}
	q.sumMu.Unlock()
	m, err := do(bound)
	q.sumMu.Lock()
	q.inFlight -= bound
	q.garbage = q.garbage || stopped(err)
	q.sumMu.Unlock()
	return m, err
}
