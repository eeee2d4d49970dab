package sim

// This file holds what each mechanism says of when it next acts: the
// first cycle at which it may change the model's state by itself, in the
// cycles RunTo's shortcuts pass (see shortcut). Each is a method on its
// piece; nextAct combines them for skipAhead, and the per-server cycle
// loop and saturated stretches read the same methods. A mechanism that
// cannot say (random faults, a fleet's periodic board or join-idle-queue
// registrations, a client side with a server out) closes the gate
// instead, and every cycle is stepped.
//
// The arrivals say theirs by drawing (arrivals.nextArrival), so only a
// caller that knows nothing else draws before that cycle asks them.

// never is later than every cycle a run can reach: a mechanism's next act
// when it has none.
const never = MaxCycles + 1

// scaleNext returns the next cycle at which scaling is evaluated and may
// act: the next multiple of the cooldown, or never while no evaluation
// could act whatever the queue (scaleFixed), or, with still (the queues
// and pools hold still up to the caller's end: no arrival, completion or
// change comes before it), while no evaluation acts with the queues as
// they are (scaleIdle). Under target tracking it is the next
// evaluation, a multiple of the period, whatever it will decide: each
// evaluation reads the period's samples and keeps its proposal, so Step
// takes it; the cycles between are sampled by the shortcut that passes
// them (skipAhead).
func (m *Model) scaleNext(still bool) int64 {
	if m.cfg.Autoscaler == TargetTracking {
		return m.targetNext()
	}
	if m.scaleFixed() || still && m.scaleIdle() {
		return never
	}
	return m.nextScale
}

// scaleIdle reports whether scaling would not act now at any balancer,
// with its queue and pool as they are, none retiring or warming: while
// neither changes, no later evaluation acts either.
func (m *Model) scaleIdle() bool {
	for _, b := range m.bal {
		if b.retiring != 0 || len(b.warming) != 0 {
			return false
		}
		if _, acts := b.scaleActs(b.queueLen()); acts {
			return false
		}
	}
	return true
}

// changeNext returns the cycle of the next scheduled change (a setting or
// an explicit fault), or never.
func (m *Model) changeNext() int64 {
	if len(m.pending) > 0 {
		return m.pending[0].Cycle
	}
	return never
}

// nextCompletion returns the first cycle in [t, end] at which an attempt
// in service at b may end, or end+1 when none can.
func (b *Balancer) nextCompletion(t, end int64) int64 {
	if b.busy == 0 || end < t {
		return end + 1
	}
	return b.wheel.seek(t, end)
}

// nextAct returns the last cycle in [t−1, end] before which no mechanism
// but the arrivals acts: a scheduled change, a completion at any balancer,
// a hedge due (with arrivals, those they bring too), scaling (the client side's deadlines, retries and probe rounds bound end
// already, see watchLimit). With still, the caller admits no arrival
// before the cycle returned (an idle server would take one): the queues
// and pools then hold still, and scaling counts only if it acts with them
// as they are.
func (m *Model) nextAct(t, end int64, still bool) int64 {
	end = min(end, m.changeNext()-1)
	for _, b := range m.bal {
		end = b.nextCompletion(t, end) - 1
	}
	if m.fan != nil {
		end = min(end, m.hedgeNext(t, !still)-1) // hedgeskip.go
	}
	return min(end, m.scaleNext(still)-1)
}
