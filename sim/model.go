package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/lbsim/lbsim/detmath"
)

// ModelVersion identifies the clock and the random stream. It is bumped
// only when a run with the same configuration and changes would come out
// differently, so snapshots and share links of ordinary releases keep
// working.
//
// Version 2: routing draws (the random and p2c policies) come from a
// generator of their own, so the request stream no longer depends on the
// policy; per-server queues, speeds and the new policies.
//
// Version 3: the lognormal, Pareto, bimodal and empirical service shapes,
// and a geometric draw of mean 1 takes its random value like any other; a
// down server keeps its slot (live, in the cost and against the most
// servers, not active), so faults no longer let scaling grow the pool past
// its bound.
const ModelVersion = 3

// streamConst is the PCG stream constant of every run; the seed is the other
// half of the generator's state.
const streamConst = 0x6c6273696d2d3031 // "lbsim-01"

// faultStream is the stream constant of the random faults' generator.
const faultStream = 0x6c6273696d2d6674 // "lbsim-ft"

// routeStream is the stream constant of the routing generator (the random
// and p2c policies).
const routeStream = 0x6c6273696d2d7274 // "lbsim-rt"

// Model is one simulation: its configuration, random generator, firewall and
// balancers (one central queue, or two behind a P/S switch), advanced one
// cycle at a time by Step. A Model is not safe for concurrent use.
type Model struct {
	cfg Config
	// loadInfo is the load information the run started with, which the
	// summary reports (a change may set a periodic board's period).
	loadInfo LoadInfo
	pcg      *rand.PCG
	rng      *rand.Rand
	// fpcg and frng draw random faults only, so that turning them on
	// leaves the request stream unchanged.
	fpcg *rand.PCG
	frng *rand.Rand
	// rpcg draws routing choices only (routeDraw), so the request stream
	// depends on the seed and the arrival settings alone.
	rpcg *rand.PCG
	// ypcg and yrng draw the retries' jitter only (client.go).
	ypcg *rand.PCG
	yrng *rand.Rand
	// tpcg and trng draw the throttle's only, made while it is on
	// (throttle.go).
	tpcg *rand.PCG
	trng *rand.Rand
	fw   Firewall
	arr  arrivals
	// geoLog is ln(1 − 1/MeanService), the geometric draw's denominator.
	geoLog float64
	svc    sampler // the other shapes' draws
	// streamCut: a request is of type S when 32 random bits fall below it
	// (StreamShare percent of 2^32).
	streamCut uint64
	// nextScale is the next cycle at which scaling is evaluated: the next
	// multiple of the cooldown.
	nextScale int64
	// arrBound is arrivalBound(&cfg), kept for quietSpan (changes set it
	// anew).
	arrBound int64

	// fan is fan-out's state (fanout.go), nil with one part a request.
	fan *fanState

	tracePos int
	cycle    int64
	lastID   int64

	bal []*Balancer

	// Peaks over the end-of-cycle totals of all balancers (a switch's
	// top level; equal to the balancer's own with one balancer).
	peakQueue   int64
	serversMin  int
	serversPeak int

	pending  []Change // scheduled changes, by cycle
	applied  []Change // changes that took effect, in order
	faultErr error    // the first explicit fault that could not apply
	// faultNamed are the servers explicit faults name, replacedNamed
	// those of them replaced (faultskip.go): their later faults are
	// skipped without a faultErr.
	faultNamed, replacedNamed map[ServerRef]bool

	events       []Event
	recordEvents bool

	admitted [maxSaturated]int32 // runSaturated's running count of admissions
	win      *window             // runWindow's scratch space

	maxQueued int   // bound on queued requests (WithMaxQueued)
	plain     bool  // RunTo steps every cycle (WithPlain)
	stopped   error // why the run stopped early (Err)
}

// Option adjusts how a Model records what happens; options never change
// the outcome of a run (WithMaxQueued may only stop it early).
type Option func(*Model)

// WithEvents makes the model keep each cycle's events for Events.
func WithEvents() Option { return func(m *Model) { m.recordEvents = true } }

// New validates cfg, builds the model and runs cycle 0: it creates servers
// 1..S0 in each balancer, admits the initial requests through the firewall
// and dispatches.
func New(cfg Config, opts ...Option) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg.Clone(), loadInfo: cfg.LoadInfo, maxQueued: DefaultMaxQueued}
	for _, o := range opts {
		o(m)
	}
	m.pcg = rand.NewPCG(cfg.Seed, streamConst)
	m.rng = rand.New(m.pcg)
	m.fpcg = rand.NewPCG(cfg.Seed, faultStream)
	m.frng = rand.New(m.fpcg)
	m.rpcg = rand.NewPCG(cfg.Seed, routeStream)
	m.ypcg = rand.NewPCG(cfg.Seed, retryStream)
	m.yrng = rand.New(m.ypcg)
	m.fw = NewFirewall(cfg.Blocked)
	m.streamCut = shareCut(cfg.StreamShare)
	m.nextScale = cfg.Cooldown
	m.arrBound = arrivalBound(&m.cfg)
	if cfg.MeanService > 1 {
		m.geoLog = detmath.Log(1 - 1/float64(cfg.MeanService))
	}
	m.svc = newSampler(&cfg)
	m.fan = newFanState(&cfg)
	m.arr.invalidate()
	names := []string{""}
	if cfg.Switch {
		names = []string{"P", "S"}
	}
	span := int64(cfg.TaskMax)
	if cfg.Service.usesMean() {
		span = int64(cfg.MeanService) * 4
	}
	for _, r := range cfg.Trace {
		span = max(span, int64(r.Time))
	}
	for i, name := range names {
		b := &Balancer{m: m, index: i, name: name, perServer: cfg.Queues == PerServer, intAt: -1}
		b.wheel.fit(span)
		if b.perServer {
			b.tally = tally{routed: []int64{0}, most: []int64{0}, picks: [][]int64{nil}}
		}
		b.useRouter(0)
		if cfg.RetryBudget > 0 {
			b.keepBudgetWindow(false) // budgetwindow.go
		}
		b.watch()
		b.newLimit()
		b.limited, b.sampling = !b.perServer && b.lim != nil, b.lim != nil && b.lim.aimd
		for range cfg.Servers {
			b.addServer(0)
		}
		m.bal = append(m.bal, b)
	}

	if m.throttleOn() {
		m.startThrottle()
	}
	if cfg.Trace != nil {
		for m.tracePos < len(cfg.Trace) && cfg.Trace[m.tracePos].Cycle == 0 {
			m.admitRow(0, cfg.Trace[m.tracePos])
			m.tracePos++
		}
	} else {
		for range cfg.Servers * cfg.InitialPerServer {
			m.lastID++
			m.admit(m.makeRequest(m.lastID, 0), 0)
		}
	}
	for _, b := range m.bal {
		b.tot.InitialQueue = int64(b.queueLen())
		if m.fan != nil {
			b.tot.InitialQueue = b.tot.Admitted // the queues hold parts
		}
		b.dispatchAll(0)
		b.tot.ServersMin = b.live
		b.fleetEndOfCycle(0, true)
	}
	m.serversMin = len(m.bal) * cfg.Servers
	m.record()
	if cfg.Autoscaler == TargetTracking {
		m.targetSample()
	}
	m.checkQueued(0)
	return m, nil
}

// Step advances the model by one cycle t = Cycle()+1, in the order of the
// package documentation: scheduled changes, a work, b arrivals, c scaling
// (when t is a multiple of the cooldown), d dispatch, e record. With two
// balancers each step runs for P, then for S. Step returns false, doing
// nothing, once Done.
func (m *Model) Step() bool {
	if m.Done() {
		return false
	}
	t := m.cycle + 1
	m.cycle = t
	m.events = m.events[:0]
	for _, b := range m.bal {
		b.last = CycleStats{Cycle: t}
		b.catchUp(t - 1) // the cycles skipped before this one
	}
	if len(m.pending) > 0 && m.pending[0].Cycle == t {
		m.applyPending(t)
	}
	if m.cfg.MTBF > 0 {
		m.randomFaults(t)
	}
	watching := m.watching()
	if watching {
		m.startWatch(t)
	}
	for _, b := range m.bal {
		if b.wheel.has(t) {
			b.work(t)
		}
	}
	if watching {
		for _, b := range m.bal {
			if b.cl != nil && t >= b.cl.dueFloor {
				b.timeouts(t) // a′
			}
		}
	}
	for _, b := range m.bal {
		if b.lobby.n > 0 {
			b.drainLobby(t) // the start of step b
		}
	}
	if watching {
		for _, b := range m.bal {
			if b.cl != nil && len(b.cl.retries) > 0 {
				b.retriesArrive(t)
			}
		}
	}
	if f := m.fan; f != nil && f.hedge != nil {
		m.hedgesDue(t) // after retries, before arrivals
	}
	if m.cfg.Trace != nil || m.arr.due(t) {
		m.arrive(t)
	}
	if watching {
		m.detect(t)
	}
	for _, b := range m.bal {
		if f := b.fleet; f != nil && f.v.boardLoad != nil {
			f.refreshDue(t) // step c: the board, before scaling
		}
	}
	if m.cfg.Autoscaler == TargetTracking {
		m.targetStep(t)
	} else if t == m.nextScale {
		for _, b := range m.bal {
			b.scale()
		}
		m.nextScale += m.cfg.Cooldown
	}
	for _, b := range m.bal {
		b.dispatchAll(t)
		b.fleetEndOfCycle(t, false)
	}
	m.record()
	if m.cfg.Autoscaler == TargetTracking {
		m.targetSample()
	}
	m.checkQueued(t)
	return true
}

// arrive is step b: this cycle's requests pass the firewall.
func (m *Model) arrive(t int64) {
	if tr := m.cfg.Trace; tr != nil {
		for m.tracePos < len(tr) && tr[m.tracePos].Cycle == t {
			m.admitRow(t, tr[m.tracePos])
			m.tracePos++
		}
		return
	}
	for n := m.arr.count(&m.cfg, t, m.pcg); n > 0; n-- {
		m.lastID++
		m.admit(m.makeRequest(m.lastID, t), t)
	}
}

func (m *Model) admitRow(t int64, row TraceRow) {
	m.lastID++
	m.admit(pack(Request{ID: m.lastID, Arrival: t, Src: row.Src, Dst: row.Dst, Time: row.Time, Type: row.Type}), t)
}

// admit hands a new request arriving at cycle t to the balancer of its
// type.
func (m *Model) admit(r packed, t int64) {
	b := m.bal[0]
	if len(m.bal) == 2 && r.streaming() {
		b = m.bal[1]
	}
	if m.fan != nil {
		m.drawParts(r) // right after the request is generated, rejected or not
		b.fanAdmit(r, t)
		return
	}
	b.admit(r, t)
}

// notePeaks takes the queue's peak over the current levels, without
// recording a cycle (see skipAhead).
func (m *Model) notePeaks() {
	q := 0
	for _, b := range m.bal {
		b.tot.PeakQueue = max(b.tot.PeakQueue, int64(b.queueLen()))
		q += b.queueLen()
	}
	if len(m.bal) > 1 {
		m.peakQueue = max(m.peakQueue, int64(q))
	}
}

// record is step e for every balancer, then the totals over all of them.
func (m *Model) record() {
	if len(m.bal) == 1 {
		m.bal[0].record() // the model's peaks are the balancer's (Totals)
		return
	}
	var q, live int
	for _, b := range m.bal {
		b.record()
		q += b.queueLen()
		live += b.live
	}
	m.peakQueue = max(m.peakQueue, int64(q))
	m.serversMin = min(m.serversMin, live)
	m.serversPeak = max(m.serversPeak, live)
}

// Schedule queues changes to take effect at the start of their cycles,
// which must lie after the current cycle and not after the last one. Changes
// of one cycle apply in the order given. The whole future of settings is
// validated first; on error nothing is scheduled.
func (m *Model) Schedule(changes ...Change) error {
	merged, err := m.merged(changes)
	if err != nil {
		return err
	}
	m.pending = merged
	m.nameFaulted(changes)
	if m.cycle == 0 && givesBudget(&Config{}, changes) {
		for _, b := range m.bal {
			b.keepBudgetWindow(true) // budgetwindow.go
		}
	}
	return nil
}

// CanSchedule reports, as an error, whether Schedule would accept changes,
// without scheduling them.
func (m *Model) CanSchedule(changes ...Change) error {
	_, err := m.merged(changes)
	return err
}

// merged returns the pending changes with changes added, in cycle order,
// after checking the whole future of settings.
func (m *Model) merged(changes []Change) ([]Change, error) {
	for _, c := range changes {
		if c.Cycle <= m.cycle || c.Cycle > m.cfg.Cycles {
			return nil, fmt.Errorf("change %v: its cycle must be from %d to %d", c, m.cycle+1, m.cfg.Cycles)
		}
	}
	merged, err := checkSchedule(m.cfg, append(slices.Clone(m.pending), changes...))
	if err == nil {
		err = budgetLate(&m.cfg, m.fan == nil || m.fan.hedge == nil, changes)
	}
	if err == nil {
		err = m.retryBudgetLate(changes)
	}
	return merged, err
}

func (m *Model) applyPending(t int64) {
	j := 0
	for j < len(m.pending) && m.pending[j].Cycle == t {
		j++
	}
	batch := m.pending[:j]
	old := m.cfg
	cfg, err := applyChanges(m.cfg, batch)
	if err != nil {
		panic("sim: a scheduled change was validated but no longer applies: " + err.Error())
	}
	m.cfg = cfg
	if cfg.HedgeAfter > 0 && (m.fan == nil || m.fan.hedge == nil) {
		m.startHedging() // a change turns hedging on (hedgeset.go)
	}
	m.arrBound = arrivalBound(&m.cfg)
	m.applied = append(m.applied, batch...)
	m.pending = m.pending[j:]
	if cfg.Rate != old.Rate || cfg.Wave != old.Wave {
		// The arrival mean may change: the generator decides afresh from
		// here. Any other change leaves the request stream as it was.
		m.arr.invalidate()
	}
	// Scaling happens at the multiples of the (maybe new) cooldown, this
	// cycle included.
	m.nextScale = (t + m.cfg.Cooldown - 1) / m.cfg.Cooldown * m.cfg.Cooldown
	for _, b := range m.bal {
		b.refitWheel(int64(m.cfg.TaskMax))
		if m.cfg.Policy != old.Policy {
			b.useRouter(t)
		}
		b.watch()
		if old.HealthInterval > 0 && cfg.HealthInterval == 0 {
			b.downKnown()
		}
		if old.HealthInterval == 0 && cfg.HealthInterval > 0 {
			b.keepKnown()
		}
	}
	for _, c := range batch {
		if c.IsFault() {
			m.fault(c, t)
		}
		if c.Setting == SetBlock || c.Setting == SetUnblock {
			m.fw = NewFirewall(m.cfg.Blocked)
		}
	}
}

// fault makes an explicit fault happen at cycle t. One that cannot (the
// server is not live, or already down, or not down for an up) is skipped,
// counted, and remembered for FaultError.
func (m *Model) fault(c Change, t int64) {
	ref := c.faultRef()
	b := m.bal[ref.Balancer()]
	id := b.slotOf(ref.ID()) // 0 if the server has left or never was
	gray, factor := Healthy, Speed(0)
	var why string
	switch c.Setting {
	case SetDown, SetUp:
		why = b.faultCheck(id, c.Setting == SetUp)
	default:
		switch c.Setting {
		case SetSlow:
			gray = Slow
			_, factor = ValueSlow(c.Value)
			if factor == SpeedScale {
				gray, factor = Healthy, 0 // a factor of 1 restores healthy
			}
		case SetFail:
			gray = Failing
		case SetHang:
			gray = Hanging
		}
		why = b.grayCheck(id, gray, factor)
	}
	if why != "" {
		b.tot.FaultsSkipped++
		if m.faultErr == nil && !m.expectedSkip(b, c, ref, id) {
			m.faultErr = fmt.Errorf("--fault %s:%s@%d: server %v %s at cycle %d", c.Setting, c.ValueString(), t, ref, why, t)
		}
		return
	}
	switch c.Setting {
	case SetUp:
		b.bringUp(id, t)
	case SetDown:
		b.takeDown(id, t)
	default:
		b.setGray(id, gray, factor)
		if m.recordEvents {
			b.emit(GrayFault, id, 0, Request{})
		}
	}
}

// randomFaults brings back the servers whose repair is due, then fails a
// Poisson number of active servers (mean active/MTBF), each for a repair
// time drawn uniformly from 1..2·MTTR−1.
func (m *Model) randomFaults(t int64) {
	for _, b := range m.bal {
		b.touched = b.touched != b.repairs.prefetch(b.srv, 0) != b.repairs.prefetch(b.srv, repairBatch)
		for i := 1; ; i++ {
			id, ok := b.repairs.popDue(t)
			if !ok {
				break
			}
			if i%repairBatch == 0 { // the batch after next, while this one is brought back
				b.touched = b.touched != b.repairs.prefetch(b.srv, repairBatch)
			}
			if b.faultCheck(id, true) == "" {
				b.bringUp(id, t)
			} else {
				b.tot.FaultsSkipped++
			}
		}
		n := poissonDraw(float64(b.active.n)/float64(m.cfg.MTBF), m.fpcg)
		for ; n > 0 && b.active.n > 0; n-- {
			id := b.active.nth(m.frng.IntN(b.active.n))
			if b.srv[id-1].down {
				continue // down already, health checks have not found it out
			}
			b.takeDown(id, t)
			b.repairs.push(t+1+m.frng.Int64N(2*m.cfg.MTTR-1), id)
		}
	}
}

// FaultError returns the first explicit fault that could not happen (its
// server was not live, already down, or not down for an up), or nil.
// `lbsim run` checks it in a trial run, so such faults are refused before
// the run.
func (m *Model) FaultError() error { return m.faultErr }

// Cycle returns the last cycle completed: 0 right after New.
func (m *Model) Cycle() int64 { return m.cycle }

// Done reports whether the model steps no further: the configured last
// cycle has been reached, or the run was stopped early (Err).
func (m *Model) Done() bool { return m.cycle >= m.cfg.Cycles || m.stopped != nil }

// Config returns the configuration in effect, changes included. Its slices
// are shared with the model and must not be modified.
func (m *Model) Config() Config { return m.cfg }

// Changes returns the changes that have taken effect so far, in order.
func (m *Model) Changes() []Change { return slices.Clone(m.applied) }

// Pending returns the scheduled changes that have not taken effect yet.
func (m *Model) Pending() []Change { return slices.Clone(m.pending) }

// Balancers returns the model's balancers: one, or P and S in a switch.
func (m *Model) Balancers() []*Balancer { return m.bal }

// Totals returns the counters of all balancers added up; the peaks and
// the server minimum are taken over the end-of-cycle totals.
func (m *Model) Totals() Totals {
	var t Totals
	for _, b := range m.bal {
		t.add(b.totals())
	}
	if len(m.bal) > 1 {
		t.PeakQueue, t.ServersMin, t.ServersPeak = m.peakQueue, m.serversMin, m.serversPeak
	} else {
		b := &m.bal[0].tot
		t.PeakQueue, t.ServersMin, t.ServersPeak = b.PeakQueue, b.ServersMin, b.ServersPeak
	}
	return t
}

// Last returns the timeline row of the last cycle completed, added up over
// the balancers.
func (m *Model) Last() CycleStats {
	if len(m.bal) == 1 {
		return m.bal[0].last
	}
	last := CycleStats{Cycle: m.cycle}
	for _, b := range m.bal {
		last.add(&b.last)
	}
	return last
}

// Events returns the events of the last cycle completed (cycle 0 after
// New), when the model was built WithEvents. The slice is reused by Step.
func (m *Model) Events() []Event { return m.events }

// Pool returns the server counts at the end of the last cycle, added up
// over the balancers.
func (m *Model) Pool() Pool {
	var p Pool
	for _, b := range m.bal {
		bp := b.Pool()
		p.Live += bp.Live
		p.Active += bp.Active
		p.Busy += bp.Busy
		p.Idle += bp.Idle
		p.Retiring += bp.Retiring
		p.Down += bp.Down
		p.Ejected += bp.Ejected
		p.Warming += bp.Warming
	}
	return p
}

// QueueLen returns the number of queued requests in all balancers (every
// server queue and lobby, in per-server mode).
func (m *Model) QueueLen() int {
	n := 0
	for _, b := range m.bal {
		n += b.queueLen()
	}
	return n
}

// Summary reports the run as of the last cycle completed. In a switch, the
// balancers' own summaries are under P and S.
func (m *Model) Summary() Summary {
	if len(m.bal) == 1 {
		return m.bal[0].Summary()
	}
	s := m.Totals().summary(m.cfg.Seed, m.cycle, m.Pool(), int64(m.QueueLen()))
	var waits, resps latency
	for _, b := range m.bal {
		waits.merge(&b.waits)
		resps.merge(&b.resps)
		s.ServerQueueMax = max(s.ServerQueueMax, b.serverQueueMax())
		s.Lobby += int64(b.lobby.Len())
	}
	s.setTail(tail(&waits, &resps))
	p, q := m.bal[0].Summary(), m.bal[1].Summary()
	s.P, s.S = &p, &q
	s.setFleet(m.cfg.Balancers, m.loadInfo, append(m.bal[0].Fleet(), m.bal[1].Fleet()...))
	s.SetCost(m.cfg.ServerCost)
	s.setLimits(m.limits())
	return s
}

// Hash returns a 64-bit digest of the model's state: cycle, counters, queue
// and pool levels, and the random generator's position. Two runs that agree
// on Hash at a cycle agree, with overwhelming likelihood, on everything.
func (m *Model) Hash() uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(v int64) {
		for i := range buf {
			buf[i] = byte(uint64(v) >> (8 * i))
		}
		h.Write(buf[:])
	}
	put(m.cycle)
	put(m.lastID)
	for _, b := range m.bal {
		t := b.tot
		for _, v := range []int64{t.Generated, t.Rejected, t.Discarded, t.Admitted, t.Completed,
			t.Dispatched, t.TotalWait, t.ScaleUps, t.ScaleDowns, t.Requeued, t.Downs, t.Ups, t.PeakQueue,
			int64(b.queueLen()), int64(b.live), int64(b.busy), int64(b.retiring), int64(b.active.n), b.routerDigest(),
			t.TotalResponse, int64(b.lobby.Len())} {
			put(v)
		}
		if n := b.queue.Len(); n > 0 {
			put(b.queue.at(0).id)
			put(b.queue.at(n - 1).id)
		}
		if m.cfg.Discipline != Fifo || m.shedding() {
			b.historyDigest(put) // only while in force: older hashes stay
		}
		if m.shedding() {
			t := b.tot
			for _, v := range []int64{t.Shed, t.Errors, t.Failed} {
				put(v)
			}
		}
		if b.lim != nil {
			b.lim.digest(b, put) // only while on: older hashes stay
		}
		if b.cl != nil && b.cl.on || b.det != nil {
			// The client side and detection (not hashed before they
			// existed, so older snapshots keep their hashes).
			t := b.totals()
			for _, v := range []int64{t.Retries, t.RetriesDiscarded, t.Failed, t.TimedOut, t.GaveUpBudget,
				t.TimedOutQueued, t.TimedOutInService, t.WastedCycles, t.Replaced, t.Ejections, t.Abandoned, t.Waiting, t.Errors} {
				put(v)
			}
		}
	}
	for _, b := range m.bal {
		if b.fleet != nil {
			b.fleet.digest(put) // only while a fleet is on: older hashes stay
		}
		if m.cfg.Autoscaler == TargetTracking {
			b.digestTarget(put) // only while target tracking is on
		}
		if b.th != nil {
			b.digestThrottle(put) // only while the throttle is on
		}
		if m.fan != nil {
			b.fanDigest(put) // only while fan-out is on
		}
	}
	state, _ := m.pcg.MarshalBinary()
	h.Write(state)
	state, _ = m.fpcg.MarshalBinary()
	h.Write(state)
	state, _ = m.rpcg.MarshalBinary()
	h.Write(state)
	if c := m.bal[0].cl; c != nil && c.on {
		state, _ = m.ypcg.MarshalBinary()
		h.Write(state)
	}
	if m.tpcg != nil {
		state, _ = m.tpcg.MarshalBinary()
		h.Write(state)
	}
	if m.fan != nil {
		state, _ = m.fan.pcg.MarshalBinary()
		h.Write(state)
	}
	if m.fan != nil && m.fan.hedge != nil {
		state, _ = m.fan.hedge.pcg.MarshalBinary()
		h.Write(state)
	}
	return h.Sum64()
}

// shareCut returns ⌈pct · 2^32 / 100⌉, the threshold below which 32 random
// bits have probability pct percent (to within 2^-32; exactly 2^32 for 100).
func shareCut(pct int) uint64 {
	return (uint64(pct)<<32 + 99) / 100
}
