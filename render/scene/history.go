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
// the bucket's end. How each field merges when two buckets become one is
// its row of sampleFields (a test fails for a field without one).
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
	// Target tracking's figures (a lane of the queue rule has none: 0):
	// the metric's sum over the bucket's cycles in millionths (its mean per
	// cycle, PerCycle, is what the chart draws), the target, and the raw
	// proposal of the last evaluation (Scaling).
	Metric6  int64
	Target   float32
	Proposal int
}

// Agg is how a chart's series sums up the cycles of a bucket, and so how
// two buckets' values merge into one.
type Agg uint8

// The aggregations.
const (
	AggLast   Agg = iota // the value at the bucket's end (a threshold, a limit, the waits so far)
	AggSum               // the sum over the bucket's cycles (scale events, errors)
	AggMax               // the bucket's peak: a bar is the largest of its cycles' values
	AggMean              // the mean per cycle over the bucket's cycles (a rate)
	AggAtPeak            // the value at the cycle of the bucket's peak pool (a stack's parts, which add up to it)
)

// sampleField is one field of a Sample and how it merges: the row of the
// field named name (a Go field of Sample, checked by a test).
type sampleField struct {
	name string
	agg  Agg
	// ref returns the field of a sample: an *int, *int64, *float32, or,
	// for AggAtPeak and a sample's waits, any other pointer (copied whole).
	ref func(*Sample) any
}

// sampleFields are the rows of Sample's fields: merge walks them, so a
// new chart's field is one more row (and a field without one fails
// TestEverySampleFieldMerges). First and Last, the bucket's span, merge
// by their own rule.
var sampleFields = []sampleField{
	{"Queue", AggMax, func(s *Sample) any { return &s.Queue }},
	{"Servers", AggMax, func(s *Sample) any { return &s.Servers }},
	{"Ups", AggSum, func(s *Sample) any { return &s.Ups }},
	{"Downs", AggSum, func(s *Sample) any { return &s.Downs }},
	{"Errors", AggSum, func(s *Sample) any { return &s.Errors }},
	{"UpLine", AggLast, func(s *Sample) any { return &s.UpLine }},
	{"DownLine", AggLast, func(s *Sample) any { return &s.DownLine }},
	{"MinServers", AggLast, func(s *Sample) any { return &s.MinServers }},
	{"MaxServers", AggLast, func(s *Sample) any { return &s.MaxServers }},
	{"Completed", AggSum, func(s *Sample) any { return &s.Completed }},
	{"Admitted", AggSum, func(s *Sample) any { return &s.Admitted }},
	{"Retries", AggSum, func(s *Sample) any { return &s.Retries }},
	{"States", AggAtPeak, func(s *Sample) any { return &s.States }},
	// The waits so far: the later bucket's, when it read them.
	{"Waits", AggLast, func(s *Sample) any { return &s.Waits }},
	{"Metric6", AggMean, func(s *Sample) any { return &s.Metric6 }},
	{"Target", AggLast, func(s *Sample) any { return &s.Target }},
	{"Proposal", AggLast, func(s *Sample) any { return &s.Proposal }},
}

// Scaling is what target tracking read and proposed in a cycle (zero
// under the queue rule): the metric in millionths, the target, the last
// evaluation's raw proposal.
type Scaling struct {
	Metric6  int64
	Target   float32
	Proposal int
}

// ScalingOf reads model m's target tracking now (its first balancer's;
// zero under the queue rule).
func ScalingOf(m *sim.Model) Scaling {
	v, ok := m.Balancers()[0].Target()
	if !ok {
		return Scaling{}
	}
	return Scaling{Metric6: v.Metric6, Target: float32(v.Target6) / sim.DecimalScale, Proposal: int(v.Proposal)}
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

// merge returns the sample covering a and then b: each field merged as
// its row of sampleFields says (a sum stored whole, so that a mean per
// cycle is the sum over the merged span's cycles).
func merge(a, b Sample) Sample {
	out := b
	out.First = a.First
	if !b.haveWaits {
		out.Waits, out.haveWaits = a.Waits, a.haveWaits // the later read
	}
	for _, f := range sampleFields {
		mergeField(f.agg, f.ref(&out), f.ref(&a), a.Servers > b.Servers)
	}
	return out
}

// mergeField merges field dst (b's, then the merge's) with a's as agg
// says; aPeak: a's pool is the larger (AggAtPeak takes a's then).
func mergeField(agg Agg, dst, a any, aPeak bool) {
	switch agg {
	case AggLast:
		return // b's, the later
	case AggAtPeak:
		if aPeak {
			copyField(dst, a)
		}
		return
	}
	switch d := dst.(type) {
	case *int:
		*d = combine(agg, *d, *a.(*int))
	case *int64:
		*d = combine(agg, *d, *a.(*int64))
	case *float32:
		*d = combine(agg, *d, *a.(*float32))
	default:
		panic("scene: a Sample field that sums or peaks must be a number")
	}
}

// copyField copies the field a points to over the one dst points to.
func copyField(dst, a any) {
	switch d := dst.(type) {
	case *States:
		*d = *a.(*States)
	case *Waits:
		*d = *a.(*Waits)
	default:
		panic("scene: an AggAtPeak field of a type copyField does not know")
	}
}

// combine merges b's value with a's: their sum (AggSum, and AggMean,
// whose field holds a sum) or their peak (AggMax).
func combine[T int | int64 | float32](agg Agg, b, a T) T {
	if agg == AggMax {
		return max(a, b)
	}
	return a + b
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
// during it, its servers' states and target tracking's figures.
func (h *History) Add(c sim.CycleStats, cfg *sim.Config, st States, sc Scaling) {
	h.add(c, cfg, st, sc, Waits{}, false)
}

// AddWaits is Add, with the waits' percentiles so far at the cycle's end.
func (h *History) AddWaits(c sim.CycleStats, cfg *sim.Config, st States, sc Scaling, w Waits) {
	h.add(c, cfg, st, sc, w, true)
}

func (h *History) add(c sim.CycleStats, cfg *sim.Config, st States, sc Scaling, w Waits, haveWaits bool) {
	active := float32(c.Servers - c.Retiring)
	smp := Sample{First: c.Cycle, Last: c.Cycle, Queue: c.Queue, Servers: c.Servers, Errors: c.Errors, States: st,
		UpLine: float32(cfg.ScaleUp.Float()) * active, DownLine: float32(cfg.ScaleDown.Float()) * active,
		MinServers: cfg.MinServers, MaxServers: cfg.MaxServers,
		Completed: int64(c.Completed), Retries: int64(c.Retries), Waits: w, haveWaits: haveWaits,
		Metric6: sc.Metric6, Target: sc.Target, Proposal: sc.Proposal}
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
