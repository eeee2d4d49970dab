package sim

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"iter"
	"math/rand/v2"
	"slices"
)

// streamConst is the PCG stream constant of every run; the seed is the other
// half of the generator's state.
const streamConst = 0x6c6273696d2d3031 // "lbsim-01"

// Model is one balancer's simulation: its configuration, random generator,
// firewall, FIFO queue and server pool, advanced one cycle at a time by Step.
// A Model is not safe for concurrent use.
type Model struct {
	cfg Config
	pcg *rand.PCG
	rng *rand.Rand
	fw  Firewall
	arr arrivals

	tracePos int

	cycle  int64
	lastID int64
	queue  fifo

	srv       []server // index id-1; removed servers stay as gone
	firstLive int      // no server below index firstLive is live
	idle      idset    // idle active servers
	active    idset    // live servers that are not retiring
	live      int
	busy      int
	retiring  int
	wheel     wheel
	rrLast    int // last server given a request under RoundRobin

	tot  Totals
	last CycleStats

	pending []Change // scheduled changes, by cycle
	applied []Change // changes that took effect, in order

	events       []Event
	recordEvents bool
}

type server struct {
	req      Request
	start    int64 // cycle the request was dispatched
	done     int64 // cycle the request completes
	busy     bool
	retiring bool
	gone     bool
}

// Option adjusts how a Model records what happens; options never change
// the outcome of a run.
type Option func(*Model)

// WithEvents makes the model keep each cycle's events for Events.
func WithEvents() Option { return func(m *Model) { m.recordEvents = true } }

// New validates cfg, builds the model and runs cycle 0: it creates servers
// 1..S0, admits the initial requests through the firewall and dispatches.
func New(cfg Config, opts ...Option) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg.Clone()}
	for _, o := range opts {
		o(m)
	}
	m.pcg = rand.NewPCG(cfg.Seed, streamConst)
	m.rng = rand.New(m.pcg)
	m.fw = NewFirewall(cfg.Blocked)
	m.arr.invalidate()
	span := int64(cfg.TaskMax)
	for _, r := range cfg.Trace {
		span = max(span, int64(r.Time))
	}
	m.wheel.fit(span)

	for range cfg.Servers {
		m.addServer()
	}
	if cfg.Trace != nil {
		for m.tracePos < len(cfg.Trace) && cfg.Trace[m.tracePos].Cycle == 0 {
			m.admitRow(0, cfg.Trace[m.tracePos])
			m.tracePos++
		}
	} else {
		for range cfg.Servers * cfg.InitialPerServer {
			m.lastID++
			m.admit(makeRequest(&m.cfg, m.rng, m.lastID, 0))
		}
	}
	m.tot.InitialQueue = int64(m.queue.Len())
	m.dispatch(0)
	m.tot.ServersMin = m.live
	m.record()
	return m, nil
}

// Step advances the model by one cycle t = Cycle()+1, in the order of the
// package documentation: scheduled changes, a work, b arrivals, c scaling
// (when t is a multiple of the cooldown), d dispatch, e record. It returns
// false, doing nothing, once Cycle() has reached the configured Cycles.
func (m *Model) Step() bool {
	if m.cycle >= m.cfg.Cycles {
		return false
	}
	t := m.cycle + 1
	m.cycle = t
	m.last = CycleStats{Cycle: t}
	m.events = m.events[:0]
	if len(m.pending) > 0 && m.pending[0].Cycle == t {
		m.applyPending(t)
	}
	m.work(t)
	m.arrive(t)
	if t%m.cfg.Cooldown == 0 {
		m.scale(t)
	}
	m.dispatch(t)
	m.record()
	return true
}

// Run steps the model to the configured last cycle.
func (m *Model) Run() {
	for m.Step() {
	}
}

func (m *Model) emit(kind EventKind, server int, wait int64, r Request) {
	m.events = append(m.events, Event{Cycle: m.cycle, Kind: kind, Server: server, Wait: wait, Request: r})
}

// work is step a: every request whose completion cycle is t completes.
func (m *Model) work(t int64) {
	for _, id32 := range m.wheel.take(t) {
		id := int(id32)
		s := &m.srv[id-1]
		if !s.busy || s.done != t {
			continue // stale entry
		}
		s.busy = false
		m.busy--
		m.tot.Completed++
		m.last.Completed++
		if m.recordEvents {
			m.emit(Complete, id, 0, s.req)
		}
		if s.retiring {
			s.retiring, s.gone = false, true
			m.retiring--
			m.live--
			if m.recordEvents {
				m.emit(Leave, id, 0, Request{})
			}
			continue
		}
		m.idle.add(id)
	}
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
	for n := m.arr.count(&m.cfg, t, m.rng); n > 0; n-- {
		m.lastID++
		m.admit(makeRequest(&m.cfg, m.rng, m.lastID, t))
	}
}

func (m *Model) admitRow(t int64, row TraceRow) {
	m.lastID++
	m.admit(Request{ID: m.lastID, Arrival: t, Src: row.Src, Dst: row.Dst, Time: row.Time, Type: row.Type})
}

// admit passes one new request through the firewall and the queue's
// capacity.
func (m *Model) admit(r Request) {
	m.tot.Generated++
	m.last.Generated++
	kind := Arrive
	switch {
	case m.fw.Blocks(r.Src):
		m.tot.Rejected++
		m.last.Rejected++
		kind = Reject
	case m.cfg.QueueCap > 0 && m.queue.Len() >= m.cfg.QueueCap:
		m.tot.Discarded++
		m.last.Discarded++
		kind = Discard
	default:
		m.tot.Admitted++
		m.queue.pushBack(r)
	}
	if m.recordEvents {
		m.emit(kind, 0, 0, r)
	}
}

// scale is step c: at most one scale-up or scale-down.
func (m *Model) scale(t int64) {
	q := int64(m.queue.Len())
	s := int64(m.active.n)
	if q*FactorScale > int64(m.cfg.ScaleUp)*s {
		if m.live < m.cfg.MaxServers {
			id := m.addServer()
			m.tot.ScaleUps++
			m.last.Scale = 1
			if m.recordEvents {
				m.emit(ScaleUp, id, 0, Request{})
			}
		}
		return
	}
	if q*FactorScale >= int64(m.cfg.ScaleDown)*s || s <= int64(m.cfg.MinServers) {
		return
	}
	m.tot.ScaleDowns++
	m.last.Scale = -1
	if id := m.idle.last(); id != 0 {
		m.idle.remove(id)
		m.active.remove(id)
		m.srv[id-1].gone = true
		m.live--
		if m.recordEvents {
			m.emit(ScaleDown, id, 0, Request{})
		}
		return
	}
	id := m.active.last()
	m.active.remove(id)
	m.srv[id-1].retiring = true
	m.retiring++
	if m.recordEvents {
		m.emit(Retire, id, 0, m.srv[id-1].req)
	}
}

func (m *Model) addServer() int {
	m.srv = append(m.srv, server{})
	id := len(m.srv)
	m.live++
	m.active.add(id)
	m.idle.add(id)
	return id
}

// dispatch is step d: the oldest requests go to idle active servers.
func (m *Model) dispatch(t int64) {
	for m.queue.Len() > 0 && m.idle.n > 0 {
		id := m.pick()
		r := m.queue.popFront()
		s := &m.srv[id-1]
		s.req, s.start, s.done, s.busy = r, t, t+int64(r.Time), true
		m.idle.remove(id)
		m.busy++
		m.wheel.add(s.done, id)
		wait := t - r.Arrival
		m.tot.Dispatched++
		m.tot.TotalWait += wait
		m.last.Dispatched++
		if m.recordEvents {
			m.emit(Dispatch, id, wait, r)
		}
	}
}

// pick chooses an idle active server by the dispatch policy; there is one.
func (m *Model) pick() int {
	switch m.cfg.Policy {
	case RoundRobin:
		id := m.idle.next(m.rrLast + 1)
		if id == 0 {
			id = m.idle.first()
		}
		m.rrLast = id
		return id
	case Random:
		return m.idle.nth(m.rng.IntN(m.idle.n))
	}
	return m.idle.first()
}

// record is step e: the levels at the end of the cycle.
func (m *Model) record() {
	q := m.queue.Len()
	m.last.Queue, m.last.Servers, m.last.Busy, m.last.Retiring = q, m.live, m.busy, m.retiring
	m.tot.PeakQueue = max(m.tot.PeakQueue, int64(q))
	m.tot.ServersMin = min(m.tot.ServersMin, m.live)
	m.tot.ServersPeak = max(m.tot.ServersPeak, m.live)
}

// Schedule queues changes to take effect at the start of their cycles,
// which must lie after the current cycle and not after the last one. Changes
// of one cycle apply in the order given. The whole future of settings is
// validated first; on error nothing is scheduled.
func (m *Model) Schedule(changes ...Change) error {
	for _, c := range changes {
		if c.Cycle <= m.cycle || c.Cycle > m.cfg.Cycles {
			return fmt.Errorf("change %v: its cycle must be from %d to %d", c, m.cycle+1, m.cfg.Cycles)
		}
	}
	merged := append(slices.Clone(m.pending), changes...)
	slices.SortStableFunc(merged, func(a, b Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
	cfg := m.cfg
	for i := 0; i < len(merged); {
		j := i
		for j < len(merged) && merged[j].Cycle == merged[i].Cycle {
			j++
		}
		var err error
		if cfg, err = applyChanges(cfg, merged[i:j]); err != nil {
			return err
		}
		i = j
	}
	m.pending = merged
	return nil
}

func (m *Model) applyPending(t int64) {
	j := 0
	for j < len(m.pending) && m.pending[j].Cycle == t {
		j++
	}
	batch := m.pending[:j]
	cfg, err := applyChanges(m.cfg, batch)
	if err != nil {
		panic("sim: a scheduled change was validated but no longer applies: " + err.Error())
	}
	m.cfg = cfg
	m.applied = append(m.applied, batch...)
	m.pending = m.pending[j:]
	m.arr.invalidate()
	if m.wheel.fit(int64(m.cfg.TaskMax)) {
		for i := range m.srv {
			if s := &m.srv[i]; s.busy {
				m.wheel.add(s.done, i+1)
			}
		}
	}
}

// Cycle returns the last cycle completed: 0 right after New.
func (m *Model) Cycle() int64 { return m.cycle }

// Done reports whether the configured last cycle has been reached.
func (m *Model) Done() bool { return m.cycle >= m.cfg.Cycles }

// Config returns the configuration in effect, changes included. Its slices
// are shared with the model and must not be modified.
func (m *Model) Config() Config { return m.cfg }

// Changes returns the changes that have taken effect so far, in order.
func (m *Model) Changes() []Change { return slices.Clone(m.applied) }

// Pending returns the scheduled changes that have not taken effect yet.
func (m *Model) Pending() []Change { return slices.Clone(m.pending) }

// Totals returns the counters accumulated since cycle 0.
func (m *Model) Totals() Totals { return m.tot }

// Last returns the timeline row of the last cycle completed.
func (m *Model) Last() CycleStats { return m.last }

// Events returns the events of the last cycle completed (cycle 0 after
// New), when the model was built WithEvents. The slice is reused by Step.
func (m *Model) Events() []Event { return m.events }

// Pool returns the server counts at the end of the last cycle.
func (m *Model) Pool() Pool {
	return Pool{Live: m.live, Active: m.active.n, Busy: m.busy, Idle: m.live - m.busy, Retiring: m.retiring}
}

// QueueLen returns the number of queued requests.
func (m *Model) QueueLen() int { return m.queue.Len() }

// QueueAt returns the i-th oldest queued request, 0 ≤ i < QueueLen().
func (m *Model) QueueAt(i int) Request { return m.queue.at(i) }

// Servers yields the live servers in ascending id order.
func (m *Model) Servers() iter.Seq[ServerView] {
	return func(yield func(ServerView) bool) {
		for m.firstLive < len(m.srv) && m.srv[m.firstLive].gone {
			m.firstLive++
		}
		for i := m.firstLive; i < len(m.srv); i++ {
			if !m.srv[i].gone && !yield(m.view(i+1)) {
				return
			}
		}
	}
}

// Server returns the view of server id, and whether it is live.
func (m *Model) Server(id int) (ServerView, bool) {
	if id < 1 || id > len(m.srv) || m.srv[id-1].gone {
		return ServerView{}, false
	}
	return m.view(id), true
}

func (m *Model) view(id int) ServerView {
	s := &m.srv[id-1]
	v := ServerView{ID: id}
	switch {
	case s.retiring:
		v.State = Retiring
	case s.busy:
		v.State = Busy
	}
	if s.busy {
		v.Request, v.Start, v.Done = s.req, s.start, s.done
	}
	return v
}

// Hash returns a 64-bit digest of the model's state: cycle, counters, queue
// and pool levels, and the random generator's position. Two runs that agree
// on Hash at a cycle agree, with overwhelming likelihood, on everything.
func (m *Model) Hash() uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(v int64) {
		for i := range b {
			b[i] = byte(uint64(v) >> (8 * i))
		}
		h.Write(b[:])
	}
	t := m.tot
	for _, v := range []int64{m.cycle, m.lastID, t.Generated, t.Rejected, t.Discarded, t.Admitted,
		t.Completed, t.Dispatched, t.TotalWait, t.ScaleUps, t.ScaleDowns, t.Requeued, t.PeakQueue,
		int64(m.queue.Len()), int64(m.live), int64(m.busy), int64(m.retiring), int64(m.active.n), int64(m.rrLast)} {
		put(v)
	}
	if m.queue.Len() > 0 {
		put(m.queue.at(0).ID)
		put(m.queue.at(m.queue.Len() - 1).ID)
	}
	state, _ := m.pcg.MarshalBinary()
	h.Write(state)
	return h.Sum64()
}
