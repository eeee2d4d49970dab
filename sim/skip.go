package sim

// skipAhead advances over the cycles after the current one and before
// limit in which no change, completion, scaling evaluation or dispatch is
// due. When no server is idle (so none could take an arrival), it admits
// those cycles' arrivals as Step would; otherwise it stops before the next
// cycle with arrivals. Skipped cycles change nothing else: the queue only
// grows in them, so its peak is taken at their end, and the pool stays as it
// is. Under target tracking the stretch ends before the next evaluation,
// and every cycle passed is sampled (step e) in closed form: the metric
// holds still between arrivals, so the cycles up to each arrival count
// its value as it stands, and the arrival's cycle the value after it.
// The next cycle is left to Step.
func (m *Model) skipAhead(limit int64) {
	if m.cfg.MTBF > 0 {
		return // random faults may strike any cycle
	}
	admit := m.cfg.Trace == nil
	for _, b := range m.bal {
		if b.perServer {
			switch {
			case b.lobby.n > 0 && b.active.n > 0, b.ready.n > 0:
				return // the lobby drains, or a dispatch is due
			case b.free.n > 0:
				admit = false // an arrival might be dispatched at once
			}
			continue
		}
		if b.idle.n > 0 {
			if b.queue.n > 0 {
				return // a dispatch is due
			}
			admit = false // an arrival would be dispatched at once
		}
	}
	t := m.cycle + 1
	end := limit - 1
	if admit {
		end = min(end, m.cycle+m.quietSpan())
	}
	end = m.nextAct(t, end, !admit) // each mechanism's next act (nextact.go)
	if !admit && end >= t {
		if tr := m.cfg.Trace; tr != nil {
			if m.tracePos < len(tr) {
				end = min(end, tr[m.tracePos].Cycle-1)
			}
		} else {
			// Nothing else draws from the stream in the cycles passed:
			// the blocks up to the next arrival are decided now.
			end = m.arr.nextArrival(&m.cfg, t, end, m.pcg) - 1
		}
	}
	if end < t {
		return
	}
	watching := m.watching()
	books := watching || m.trng != nil // the windows step e keeps (recordThrough)
	sampled := m.cycle                 // target tracking: the last cycle sampled
	sampleThrough := func(c int64) {
		if m.cfg.Autoscaler == TargetTracking && c > sampled {
			m.targetSampleCycles(c - sampled)
			sampled = c
		}
	}
	if admit {
		for c := m.arr.nextDue(t); c <= end; c = m.arr.nextDue(c + 1) {
			if !m.arr.decided(c) {
				if c = m.arr.nextArrival(&m.cfg, c, end, m.pcg); c > end {
					break
				}
			}
			if watching {
				m.recordThrough(c - 1) // the retry budget's (the throttle passes them at its first draw)
			}
			sampleThrough(c - 1)
			m.arrive(c)
			if books {
				end = min(end, m.recordThrough(c)) // a throttled attempt's retry (throttleskip.go)
			}
			sampleThrough(c)
		}
		m.notePeaks()
	}
	if books {
		m.recordThrough(end)
	}
	sampleThrough(end)
	m.cycle = end
	if m.cfg.Autoscaler == QueueRule && m.nextScale <= end {
		m.resyncScale() // evaluations passed that could not act (scaleIdle)
	}
}

// recordThrough records the retry budget's and the throttle's windows
// (step e's part of the client side) of every balancer up to cycle t, for
// cycles a shortcut passes without recording them, and returns the last
// cycle before the earliest retry pending (booksThrough).
func (m *Model) recordThrough(t int64) int64 {
	bound := int64(never)
	for _, b := range m.bal {
		bound = min(bound, b.booksThrough(t))
	}
	return bound
}
