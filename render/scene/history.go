package scene

import "github.com/lbsim/lbsim/sim"

// HistoryLen is the most points a chart holds; when it is full, pairs of
// neighbours merge and each point covers twice as many cycles, so the
// charts always show the whole run so far with between HistoryLen/2 and
// HistoryLen points.
const HistoryLen = 240

// Sample is one point of the charts over a bucket of cycles: the largest
// end-of-cycle queue and live pool, the scale events, the attempts that
// ended in error, and the scaling thresholds and pool limits in force at
// the bucket's end.
type Sample struct {
	First, Last int64   // first and last cycle of the bucket
	Queue       int     // largest queue
	Servers     int     // largest live pool
	Ups, Downs  int     // scale-ups and scale-downs
	Errors      int     // attempts that ended in error (failing servers)
	UpLine      float32 // U·S: the queue above which the pool grows (S active servers)
	DownLine    float32 // D·S: the queue below which it shrinks
	MinServers  int
	MaxServers  int
	// Sums over the bucket: requests completed (their client waiting),
	// first attempts admitted (the offered load past the firewall) and
	// retries arriving.
	Completed, Admitted, Retries int64
	// States are the live servers by state at the end of the bucket's
	// cycle with the largest live pool: they add up to Servers.
	States States
	// Waits are the percentiles of the run's waits so far at the
	// bucket's end, while the waits chart is shown (else zero); a bucket
	// still filling holds the last complete one's.
	Waits     Waits
	haveWaits bool // Waits were read at the bucket's end
}

// Waits are percentiles of the waits of the requests dispatched so far,
// in cycles (sim.Summary's WaitP50, WaitP95, WaitP99).
type Waits struct{ P50, P95, P99 int64 }

// WaitsOf reads model m's waits' percentiles so far.
func WaitsOf(m *sim.Model) Waits {
	sum := m.Summary()
	return Waits{sum.WaitP50, sum.WaitP95, sum.WaitP99}
}

// States counts live servers by state, each server in one: down, else
// warming, else ejected, else busy (retiring included), else idle.
type States struct{ Busy, Idle, Down, Warming, Ejected int }

// Sum returns the number of servers counted.
func (st States) Sum() int { return st.Busy + st.Idle + st.Down + st.Warming + st.Ejected }

// StatesOf counts model m's live servers by state (see States): from its
// pool's counts while no server is down, warming or ejected, else server
// by server.
func StatesOf(m *sim.Model) States {
	p := m.Pool()
	if p.Down == 0 && p.Warming == 0 && p.Ejected == 0 {
		return States{Busy: p.Busy, Idle: p.Live - p.Busy}
	}
	return statesByServer(m)
}

// statesByServer counts model m's live servers by state one by one, as
// States says: StatesOf without its shortcut.
func statesByServer(m *sim.Model) States {
	var st States
	for _, b := range m.Balancers() {
		for v := range b.Servers() {
			switch {
			case v.State == sim.Failed:
				st.Down++
			case v.Warming:
				st.Warming++
			case v.Ejected:
				st.Ejected++
			case v.State == sim.Busy || v.State == sim.Retiring:
				st.Busy++
			default:
				st.Idle++
			}
		}
	}
	return st
}

// PerCycle returns n, a sum over the sample's cycles, per cycle.
func (s Sample) PerCycle(n int64) float32 { return float32(n) / float32(s.Last-s.First+1) }

// merge returns the sample covering a and then b.
func merge(a, b Sample) Sample {
	states := b.States // the states of the larger pool, the later on a tie
	if a.Servers > b.Servers {
		states = a.States
	}
	waits, have := a.Waits, a.haveWaits // the later, when read
	if b.haveWaits {
		waits, have = b.Waits, true
	}
	return Sample{States: states, First: a.First, Last: b.Last, Queue: max(a.Queue, b.Queue), Servers: max(a.Servers, b.Servers),
		Ups: a.Ups + b.Ups, Downs: a.Downs + b.Downs, Errors: a.Errors + b.Errors, UpLine: b.UpLine, DownLine: b.DownLine,
		MinServers: b.MinServers, MaxServers: b.MaxServers,
		Completed: a.Completed + b.Completed, Admitted: a.Admitted + b.Admitted, Retries: a.Retries + b.Retries,
		Waits: waits, haveWaits: have}
}

// History keeps the charts' samples of the whole run so far.
type History struct {
	stride int64 // cycles per complete sample
	buf    [HistoryLen]Sample
	n      int // complete samples held
	cur    Sample
	curN   int64 // cycles in cur
}

// Stride returns the cycles per sample.
func (h *History) Stride() int64 { return max(h.stride, 1) }

// Closes reports whether the next Add completes a sample: only then are
// the waits' percentiles, which cost a pass over the run's histogram, read
// for it (AddWaits).
func (h *History) Closes() bool { return h.curN+1 >= h.Stride() }

// Add records the end-of-cycle row of one cycle, the settings in force
// during it and its servers' states.
func (h *History) Add(c sim.CycleStats, cfg *sim.Config, st States) {
	h.add(c, cfg, st, Waits{}, false)
}

// AddWaits is Add, with the waits' percentiles so far at the cycle's end.
func (h *History) AddWaits(c sim.CycleStats, cfg *sim.Config, st States, w Waits) {
	h.add(c, cfg, st, w, true)
}

func (h *History) add(c sim.CycleStats, cfg *sim.Config, st States, w Waits, haveWaits bool) {
	active := float32(c.Servers - c.Retiring)
	smp := Sample{First: c.Cycle, Last: c.Cycle, Queue: c.Queue, Servers: c.Servers, Errors: c.Errors, States: st,
		UpLine: float32(cfg.ScaleUp.Float()) * active, DownLine: float32(cfg.ScaleDown.Float()) * active,
		MinServers: cfg.MinServers, MaxServers: cfg.MaxServers,
		Completed: int64(c.Completed), Retries: int64(c.Retries), Waits: w, haveWaits: haveWaits}
	if c.Cycle > 0 { // cycle 0 admits the initial queue at once: not a rate
		smp.Admitted = int64(c.Generated - c.Rejected - c.Discarded)
	}
	switch {
	case c.Scale > 0:
		smp.Ups = 1
	case c.Scale < 0:
		smp.Downs = 1
	}
	if h.curN == 0 {
		h.cur = smp
		if !haveWaits && h.n > 0 {
			h.cur.Waits = h.buf[h.n-1].Waits // the last read, until this one's end
		}
	} else {
		h.cur = merge(h.cur, smp)
	}
	h.curN++
	if h.curN < h.Stride() {
		return
	}
	h.buf[h.n] = h.cur
	h.n++
	h.curN = 0
	if h.n == HistoryLen {
		for i := range HistoryLen / 2 {
			h.buf[i] = merge(h.buf[2*i], h.buf[2*i+1])
		}
		h.n = HistoryLen / 2
		h.stride = h.Stride() * 2
	}
}

// Len returns the number of samples held, the one being filled included.
func (h *History) Len() int {
	if h.curN > 0 {
		return h.n + 1
	}
	return h.n
}

// At returns the i-th sample, 0 = oldest; the last may be partial.
func (h *History) At(i int) Sample {
	if i == h.n {
		return h.cur
	}
	return h.buf[i]
}

// Errors reports whether attempts ended in error in some sample of h.
func (h *History) Errors() bool {
	for i := range h.Len() {
		if h.At(i).Errors > 0 {
			return true
		}
	}
	return false
}

// Reset empties the history.
func (h *History) Reset() { *h = History{} }
