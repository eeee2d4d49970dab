package sim

import (
	"fmt"
	"math/bits"
	"slices"
)

// tester is what the helpers need of *testing.T, *testing.B and *rapid.T.
type tester interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Addresses used by trace rows in tests: open is never blocked by the
// test configs, blocked lies in 10.0.0.0/8.
const (
	openAddr    uint32 = 0xC0000207 // 192.0.2.7
	blockedAddr uint32 = 0x0A000001 // 10.0.0.1
	dstAddr     uint32 = 0xC6336401 // 198.51.100.1
)

// row is a trace row from an open address.
func row(cycle int64, time uint32) TraceRow {
	return TraceRow{Cycle: cycle, Src: openAddr, Dst: dstAddr, Time: time}
}

// blockedRow is a trace row from a blocked address (with blocked10).
func blockedRow(cycle int64, time uint32) TraceRow {
	return TraceRow{Cycle: cycle, Src: blockedAddr, Dst: dstAddr, Time: time}
}

func blocked10() []Range { return []Range{{First: 0x0A000000, Last: 0x0AFFFFFF}} }

// traceConfig is a small trace-mode config in which scaling never acts
// (U is huge, D is 0) unless the test changes it.
func traceConfig(servers int, cycles int64, rows ...TraceRow) Config {
	return Config{
		Servers:     servers,
		Cycles:      cycles,
		TaskMin:     1,
		TaskMax:     10,
		Seed:        1,
		WavePeriod:  1,
		ScaleUp:     MaxFactor,
		ScaleDown:   0,
		Cooldown:    1,
		MinServers:  1,
		MaxServers:  servers,
		Policy:      FirstIdle,
		Blocked:     nil,
		Trace:       append([]TraceRow{}, rows...),
		StreamShare: 0,
	}
}

// harness steps a Model, checking the invariants after every cycle and,
// when the model records events, replaying them into a shadow model that
// checks each against the rules of the clock.
type harness struct {
	t      tester
	m      *Model
	sh     *shadow
	log    []string // formatted events of every cycle so far
	peakQ  int
	minS   int
	peakS  int
	sumGen int64
	// sumOver sums the timeline's shed, limited and throttled.
	sumOver [3]int64
	sumRej  int64
	sumDis  int64
	sumCmp  int64
	sumDsp  int64
	sumLiv  int64
	sumBsy  int64
	// faulted is set once a server has failed: the shadow model stops.
	faulted bool
	// uncapped is set once a queue may hold more than the queue cap: a
	// request was requeued or waited in the lobby (neither is discarded
	// when it joins a queue), or the cap was lowered or set from 0.
	uncapped bool
	cap      int // the queue cap at the end of the last cycle
	ups      int64
	downs    int64
}

func newHarness(t tester, cfg Config, opts ...Option) *harness {
	t.Helper()
	m, err := New(cfg, append(opts, WithEvents())...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h := &harness{t: t, m: m, sh: newShadow(cfg), cap: cfg.QueueCap}
	last := m.Last()
	h.peakQ, h.minS, h.peakS = last.Queue, last.Servers, last.Servers
	h.after()
	return h
}

// step runs one cycle and checks it; it reports whether a cycle ran.
func (h *harness) step() bool {
	h.t.Helper()
	if !h.m.Step() {
		return false
	}
	h.after()
	return true
}

// stepTo steps until Cycle() == c.
func (h *harness) stepTo(c int64) {
	h.t.Helper()
	for h.m.Cycle() < c {
		if !h.step() {
			h.t.Fatalf("stepTo(%d): the run stopped at cycle %d", c, h.m.Cycle())
		}
	}
}

func (h *harness) run() {
	h.t.Helper()
	for h.step() {
	}
}

func (h *harness) after() {
	t := h.t
	t.Helper()
	m := h.m
	checkInvariants(t, m)
	last := m.Last()
	h.peakQ = max(h.peakQ, last.Queue)
	h.minS = min(h.minS, last.Servers)
	h.peakS = max(h.peakS, last.Servers)
	h.sumGen += int64(last.Generated)
	h.sumOver[0] += int64(last.Shed)
	h.sumOver[1] += int64(last.Limited)
	h.sumOver[2] += int64(last.Throttled)
	h.sumRej += int64(last.Rejected)
	h.sumDis += int64(last.Discarded)
	h.sumCmp += int64(last.Completed)
	h.sumDsp += int64(last.Dispatched)
	h.sumLiv += int64(last.Servers)
	h.sumBsy += int64(last.Busy)
	h.ups += int64(max(last.Scale, 0)) // servers added − removed (target tracking moves several)
	h.downs += int64(max(-last.Scale, 0))
	tot := m.Totals()
	if got, want := tot.PeakQueue, int64(h.peakQ); got != want {
		t.Fatalf("cycle %d: PeakQueue = %d, want %d (largest end-of-cycle queue)", m.Cycle(), got, want)
	}
	if tot.ServersMin != h.minS || tot.ServersPeak != h.peakS {
		t.Fatalf("cycle %d: ServersMin, ServersPeak = %d, %d, want %d, %d", m.Cycle(), tot.ServersMin, tot.ServersPeak, h.minS, h.peakS)
	}
	sums := [...][2]int64{
		{tot.Generated, h.sumGen}, {tot.Rejected, h.sumRej}, {tot.Discarded, h.sumDis},
		{tot.Completed, h.sumCmp}, {tot.Dispatched, h.sumDsp}, {tot.ScaleUps, h.ups}, {tot.ScaleDowns, h.downs},
		{tot.ServerCycles, h.sumLiv}, {tot.BusyCycles, h.sumBsy},
		{tot.Shed, h.sumOver[0]}, {tot.Limited, h.sumOver[1]}, {tot.Throttled, h.sumOver[2]},
	}
	for i, s := range sums {
		if s[0] != s[1] {
			t.Fatalf("cycle %d: total #%d (generated, rejected, discarded, completed, dispatched, ups, downs, server-cycles, busy server-cycles, shed, limited, throttled) = %d, want the timeline's sum %d", m.Cycle(), i, s[0], s[1])
		}
	}
	h.checkCap()
	if m.recordEvents {
		for _, e := range m.Events() {
			h.log = append(h.log, formatEvent(e))
		}
		for _, e := range m.Events() {
			if e.Kind == Down || e.Kind == Up || e.Kind == Requeue || e.Kind >= GrayFault && e.Kind != Shed && e.Kind != GiveUp {
				h.faulted = true // the shadow model knows no faults, and nothing of the client side (a limit's refusal it reads: case Error)
			}
		}
		if m.bal[0].watching && m.Config().Timeout+int64(m.Config().ProvisionDelay) > 0 {
			h.faulted = true // timeouts and warm-ups act on their own
		}
		if m.cfg.Queues == Pooled && !h.faulted {
			h.sh.cycle(t, m)
		}
	}
}

// checkCap checks that no queue holds more than the queue cap: the
// summary's server_queue_max and the lobby (per-server) and the central
// queue (pooled), as long as nothing could have pushed a queue past the cap (uncapped).
func (h *harness) checkCap() {
	h.t.Helper()
	m := h.m
	c := m.cfg.QueueCap
	if c == 0 || h.cap == 0 || c < h.cap || m.Totals().Requeued > 0 {
		h.uncapped = true
	}
	h.cap = c
	if h.uncapped {
		return
	}
	for _, b := range m.Balancers() {
		if n := b.lobby.Len(); n > c {
			h.t.Fatalf("cycle %d: balancer %q: the lobby holds %d, beyond the queue cap %d", m.Cycle(), b.name, n, c)
		}
		if b.lobby.Len() > 0 {
			h.uncapped = true // its requests join server queues uncapped
			return
		}
	}
	if n := m.Summary().ServerQueueMax; n > int64(c) {
		h.t.Fatalf("cycle %d: server_queue_max %d, beyond the queue cap %d", m.Cycle(), n, c)
	}
	for _, b := range m.Balancers() {
		if n := b.Summary().ServerQueueMax; n > int64(c) {
			h.t.Fatalf("cycle %d: balancer %q: server_queue_max %d, beyond the queue cap %d", m.Cycle(), b.name, n, c)
		}
		if !b.perServer && b.queue.Len() > c {
			h.t.Fatalf("cycle %d: balancer %q: %d queued, beyond the queue cap %d", m.Cycle(), b.name, b.queue.Len(), c)
		}
	}
}

// formatEvent writes an event compactly for exact comparisons:
// "3 dispatch #2 s1 w3", "5 complete #2 s1", "10 scale-up s3".
func formatEvent(e Event) string {
	switch e.Kind {
	case Arrive, Reject, Discard:
		return fmt.Sprintf("%d %s #%d", e.Cycle, e.Kind, e.Request.ID)
	case Dispatch:
		return fmt.Sprintf("%d dispatch #%d s%d w%d", e.Cycle, e.Request.ID, e.Server, e.Wait)
	case Complete:
		return fmt.Sprintf("%d complete #%d s%d", e.Cycle, e.Request.ID, e.Server)
	}
	return fmt.Sprintf("%d %s s%d", e.Cycle, e.Kind, e.Server)
}

// checkInvariants checks, white-box, everything that must hold at the end
// of every cycle (the accounting lines and the model's own bookkeeping).
func checkInvariants(t tester, m *Model) {
	t.Helper()
	c := m.Cycle()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("cycle %d: "+format, append([]any{c}, args...)...)
	}
	mt := m.Totals()
	if mt.Generated != m.lastID {
		fail("generated %d, but the last request id is %d", mt.Generated, m.lastID)
	}
	for _, b := range m.bal {
		if f := b.fleet; f != nil && f.v.count != nil {
			// Local counts: each server's load is what the balancers
			// count of it, added up.
			for s := 1; s <= len(b.srv); s++ {
				var sum int64
				for k := range f.k {
					sum += int64(f.v.count[k][s-1])
				}
				if want := b.load(s); !b.srv[s-1].gone && sum != want {
					fail("server %d: the balancers' local counts add up to %d, its load is %d", b.idOf(s), sum, want)
				}
			}
		}
		checkViewIndex(fail, b, c)
	}
	ml := m.Last()
	if mt.PeakQueue < int64(ml.Queue) || mt.ServersMin > ml.Servers || mt.ServersPeak < ml.Servers {
		fail("model peaks queue %d servers %d..%d inconsistent with Last() %+v", mt.PeakQueue, mt.ServersMin, mt.ServersPeak, ml)
	}
	if s := m.Summary(); !s.Consistent || s.Cycles != c || s.FinalQueue != int64(ml.Queue) {
		fail("model Summary() = %+v inconsistent", s)
	}
	for _, b := range m.Balancers() {
		checkBalancer(fail, m, b, c)
	}
}

// checkBalancer checks one balancer's books, sets, wheel and views.
func checkBalancer(fail func(string, ...any), m *Model, b *Balancer, c int64) {
	tot := b.Totals()
	q := int64(b.queueLen())
	if b.perServer {
		checkPerServer(fail, m, b, c)
	}
	if tot.Generated != tot.Rejected+tot.Discarded+tot.Admitted {
		fail("generated %d != rejected %d + discarded %d + admitted %d", tot.Generated, tot.Rejected, tot.Discarded, tot.Admitted)
	}
	if m.fan != nil {
		// The queues and servers hold parts (and hedges): the requests in
		// flight are counted apart.
		if n := tot.Admitted - tot.Completed - tot.Failed - tot.TimedOut - tot.GaveUpBudget; n != tot.InFlightRequests || n < 0 {
			fail("admitted %d − completed %d − failed %d − timed out %d − gave up %d = %d, but %d requests in flight",
				tot.Admitted, tot.Completed, tot.Failed, tot.TimedOut, tot.GaveUpBudget, n, tot.InFlightRequests)
		}
		if tot.ExtraParts != tot.Admitted*int64(tot.Fanout-1) {
			fail("parts beyond the first %d for %d admitted, fan-out %d", tot.ExtraParts, tot.Admitted, tot.Fanout)
		}
	} else if waiting := tot.Admitted - tot.Completed - tot.Failed - tot.TimedOut - tot.GaveUpBudget - q - (int64(b.busy) - tot.Abandoned); waiting != tot.Waiting || waiting < 0 {
		fail("admitted %d − completed %d − failed %d − timed out %d − gave up %d − queued %d − in service %d = %d, but %d wait to retry",
			tot.Admitted, tot.Completed, tot.Failed, tot.TimedOut, tot.GaveUpBudget, q, int64(b.busy)-tot.Abandoned, waiting, tot.Waiting)
	}
	// Every attempt sent (parts, retries, hedges) is completed, cancelled,
	// in error, timed out, queued or in service.
	parts, done := tot.Admitted+tot.ExtraParts, tot.Completed+tot.PartsDone
	if l, r := parts+tot.Retries+tot.Hedges-tot.RetriesDiscarded, done+tot.Cancelled+tot.Errors+tot.TimedOutQueued+tot.TimedOutInService+q+int64(b.busy)-tot.Abandoned; l != r {
		fail("attempts: parts %d + retries %d + hedges %d − discarded %d = %d, but completed %d + cancelled %d + errors %d + timed out %d + %d + queued %d + in service %d = %d",
			parts, tot.Retries, tot.Hedges, tot.RetriesDiscarded, l, done, tot.Cancelled, tot.Errors, tot.TimedOutQueued, tot.TimedOutInService, q, int64(b.busy)-tot.Abandoned, r)
	}
	if n := len(b.requeuedAt); int64(n) > q {
		fail("%d requests noted as requeued or retried, but %d queued: the note of a request that left the queue stays", n, q)
	}
	// With hedging an attempt may err alone, another of its part live;
	// with fan-out a part noted at arrival (throttled or refused) errs
	// after an earlier one has ended its request.
	if parts := m.fan != nil; b.cl == nil && !tot.ClientActed() && (tot.Failed > tot.Errors || !parts && tot.Failed != tot.Errors) {
		fail("failed %d != errors %d with no retries", tot.Failed, tot.Errors)
	}
	checkLimit(fail, b)
	// Shed, limited and throttled attempts end in error without a dispatch.
	served := tot.Errors - tot.Shed - tot.Limited - tot.Throttled
	switch {
	case b.cl != nil || tot.ClientActed():
		// Refusals, timeouts and abandoned work break the dispatch books
		// below; the attempts' line above keeps them.
	case b.perServer:
		// Requeued counts queued requests routed again too, never
		// dispatched; cancelled counts queued parts too (fan-out).
		if d := tot.Dispatched - tot.Completed - tot.PartsDone - served - int64(b.busy); d < 0 || d > tot.Requeued+tot.Cancelled {
			fail("dispatched %d − completed %d − errors in service %d − in service %d = %d, want 0..requeued %d + cancelled %d", tot.Dispatched, tot.Completed+tot.PartsDone, served, b.busy, d, tot.Requeued, tot.Cancelled)
		}
	case tot.Dispatched != tot.Completed+served+int64(b.busy)+tot.Requeued:
		fail("dispatched %d != completed %d + errors in service %d + in service %d + requeued %d", tot.Dispatched, tot.Completed, served, b.busy, tot.Requeued)
	}

	var live, busy, retiring, idle, active, down, grayBusy, grayServers, upFree int
	for i := range b.srv {
		id := i + 1
		s := &b.srv[i]
		if b.endsOf(id) != completes {
			grayBusy++
		}
		if b.grayOf(id).gray != Healthy && !s.gone {
			grayServers++
		}
		_, ejected := b.ejected[id]
		_, warming := b.warming[id]
		unseen := s.down && !s.gone && b.healthOn() && b.active.has(id) // a down candidate: health checks have not found it out
		refused := slices.Contains(b.refused, id)
		if unseen {
			down++
			live++
			active++
			if s.busy || s.retiring || ejected || warming {
				fail("down server %d still a candidate: busy %v retiring %v ejected %v warming %v", id, s.busy, s.retiring, ejected, warming)
			}
			if !b.perServer && b.idle.has(id) == refused {
				fail("down candidate %d: in idle set %v, refused this cycle %v", id, b.idle.has(id), refused)
			}
			if !b.perServer && !refused {
				idle++
			}
			continue
		}
		if s.gone || s.down {
			if s.busy || s.retiring || b.idle.has(id) || b.active.has(id) || (s.gone && s.down) {
				fail("gone or down server %d: busy %v retiring %v in idle set %v in active set %v", id, s.busy, s.retiring, b.idle.has(id), b.active.has(id))
			}
			if s.down {
				down++ // it keeps its slot: live, not active
				live++
			}
			continue
		}
		if i < b.firstLive {
			fail("server %d is live but below firstLive %d", id, b.firstLive)
		}
		live++
		if s.busy && b.endsOf(id) == hangs {
			busy++
			if s.done != hangDone {
				fail("server %d hangs but is done at %d", id, s.done)
			}
		} else if s.busy {
			busy++
			if start := b.started(id); s.done <= c || start > c || s.req.time() < 1 {
				fail("server %d: request %v dispatched at %d completes at %d (now %d)", id, s.req.unpack(), start, s.done, c)
			}
			if !slices.Contains(b.wheel.buckets[s.done&b.wheel.mask], int32(id)) {
				fail("server %d completes at %d but is not in that wheel bucket", id, s.done)
			}
			if s.done-c >= int64(len(b.wheel.buckets)) {
				fail("server %d completes at %d, beyond the wheel (size %d)", id, s.done, len(b.wheel.buckets))
			}
		}
		if s.retiring {
			retiring++
			if !s.busy && !b.perServer {
				fail("server %d is retiring but not busy", id)
			}
		}
		wantActive := !s.retiring && !ejected && !warming
		if wantActive && !b.active.has(id) && b.perServer && b.holds(id) {
			wantActive = false // back from an ejection, finishing what it held before it rejoins
		}
		wantIdle := !s.busy && wantActive && !b.perServer && !refused // per-server keeps free and ready instead
		if b.idle.has(id) != wantIdle {
			fail("server %d: in idle set = %v, want %v (busy %v, retiring %v)", id, b.idle.has(id), wantIdle, s.busy, s.retiring)
		}
		if b.active.has(id) != wantActive {
			fail("server %d: in active set = %v, want %v", id, b.active.has(id), wantActive)
		}
		if wantIdle {
			idle++
		}
		if !s.busy && !warming {
			upFree++ // idle: live, not busy, down or warming
		}
		if wantActive {
			active++
		}
	}
	// No bit beyond the servers slice.
	for _, set := range []*idset{&b.idle, &b.active.idset} {
		for id := len(b.srv) + 1; id <= len(set.w)*64; id++ {
			if set.has(id) {
				fail("id %d is in a set but no such server exists", id)
			}
		}
	}
	// The active set's counts per word agree with its words.
	if f := b.active.fen; f != nil {
		for wi := range b.active.w {
			sum := int32(0)
			for i := wi + 1; i > 0; i -= i & -i {
				sum += f[i]
			}
			want := 0
			for _, w := range b.active.w[:wi+1] {
				want += bits.OnesCount64(w)
			}
			if int(sum) != want {
				fail("the active set's Fenwick tree counts %d members up to word %d, the words %d", sum, wi, want)
				break
			}
		}
	}
	if live != b.live || busy != b.busy || retiring != b.retiring || idle != b.idle.n || active != b.active.n {
		fail("counted live %d busy %d retiring %d idle %d active %d, model says %d %d %d %d %d",
			live, busy, retiring, idle, active, b.live, b.busy, b.retiring, b.idle.n, b.active.n)
	}
	if grayBusy != len(b.ends) || grayServers != len(b.grays) {
		fail("counted %d gray attempts in service and %d gray servers, the balancer %d and %d", grayBusy, grayServers, len(b.ends), len(b.grays))
	}
	p := b.Pool()
	if p != (Pool{Live: live, Active: active, Busy: busy, Idle: upFree, Retiring: retiring, Down: down, Ejected: len(b.ejected), Warming: len(b.warming)}) {
		fail("Pool() = %+v, want live %d active %d busy %d idle %d retiring %d down %d", p, live, active, busy, upFree, retiring, down)
	}
	if b.last.Scale > 0 && live > b.m.cfg.MaxServers {
		fail("scaled up to %d live servers (down ones included), more than max-servers %d", live, b.m.cfg.MaxServers)
	}
	if p.Idle != upFree {
		fail("idle = %d, but %d servers are up, not busy and not warming", p.Idle, upFree)
	}
	n := 0
	prev := 0
	for v := range b.Servers() {
		n++ // a failed server too: it keeps its slot
		if v.State == Failed {
			continue
		}
		if v.ID <= prev {
			fail("Servers() not in ascending id order: %d after %d", v.ID, prev)
		}
		prev = v.ID
		s := &b.srv[b.slotOf(v.ID)-1]
		want := Idle
		switch {
		case s.retiring:
			want = Retiring
		case s.busy:
			want = Busy
		}
		if s.gone || v.State != want {
			fail("Servers() shows server %d %v, want %v (gone %v)", v.ID, v.State, want, s.gone)
		}
	}
	if n != live {
		fail("Servers() yields %d servers, want %d", n, live)
	}

	// The queue holds admitted requests in generation order (a requeued
	// one goes back to the head, out of order).
	if b.queue.Len() > 0 && tot.Requeued == 0 && tot.Retries == 0 {
		qn := b.queue.Len()
		idx := []int{0, qn - 1}
		if qn <= 256 {
			idx = idx[:0]
			for i := range qn {
				idx = append(idx, i)
			}
		}
		var prevID int64
		for _, i := range idx {
			r := b.QueueAt(i)
			if r.ID <= prevID || r.Arrival > c || r.Time < 1 {
				fail("queue[%d] = %v out of order or in the future", i, r)
			}
			prevID = r.ID
		}
	}
	// Dispatch leaves nothing to do: no queued request while an active server is idle.
	if b.queue.Len() > 0 && b.idle.n > 0 && m.cfg.Policy != SWRR {
		fail("%d requests queued while %d active servers are idle", b.queue.Len(), b.idle.n)
	}

	last := b.Last()
	want := CycleStats{Cycle: c, Queue: b.queueLen(), Servers: live, Busy: busy, Retiring: retiring}
	if last.Cycle != want.Cycle || last.Queue != want.Queue || last.Servers != want.Servers || last.Busy != want.Busy || last.Retiring != want.Retiring {
		fail("Last() levels = %+v, want %+v", last, want)
	}
	if tot.PeakQueue < int64(last.Queue) || tot.ServersMin > last.Servers || tot.ServersPeak < last.Servers {
		fail("peaks queue %d servers %d..%d inconsistent with Last() %+v", tot.PeakQueue, tot.ServersMin, tot.ServersPeak, last)
	}
	if len(m.bal) > 1 {
		return // the event counts below are per model, not per balancer
	}
	if last.Generated != last.Rejected+last.Discarded+countEvents(m, Arrive)+firstThrottled(m) && m.recordEvents && !b.perServer {
		fail("cycle counts %+v disagree with %d arrive events", last, countEvents(m, Arrive))
	}
	if m.recordEvents {
		completes := countEvents(m, Complete)
		if m.fan != nil {
			// A request completes with the last of its parts' completions.
			if last.Completed > completes {
				fail("%d requests completed in the cycle, but %d parts", last.Completed, completes)
			}
			completes = last.Completed
		}
		counts := [...][2]int{
			{last.Rejected, countEvents(m, Reject)}, {last.Discarded, countEvents(m, Discard) - retryDiscards(m)},
			{last.Completed, completes}, {last.Dispatched, countEvents(m, Dispatch)},
			{max(last.Scale, 0), countEvents(m, ScaleUp)}, // servers added − removed: one event each
			{max(-last.Scale, 0), countEvents(m, ScaleDown) + countEvents(m, Retire)},
			{last.Shed, countEvents(m, Shed)}, {last.Throttled, countEvents(m, Throttled)},
		}
		for i, k := range counts {
			if k[0] != k[1] {
				fail("timeline count #%d = %d, but %d such events", i, k[0], k[1])
			}
		}
	}
	if over := tot.Shed + tot.Limited + tot.Throttled; over > tot.Errors {
		fail("shed %d + limited %d + throttled %d exceed the errors %d they are among", tot.Shed, tot.Limited, tot.Throttled, tot.Errors)
	}
	s := b.Summary()
	if !s.Consistent || s.Cycles != c || s.FinalQueue != q || s.InService != int64(busy)-tot.Abandoned || s.ServersIdle != int64(upFree) {
		fail("Summary() = %+v inconsistent with the model", s)
	}
}

// checkPerServer checks a per-server balancer's queues, sets and index.
func checkPerServer(fail func(string, ...any), m *Model, b *Balancer, c int64) {
	n := b.lobby.Len()
	for i := range b.srv {
		id, s, sq := i+1, &b.srv[i], &b.sq[i]
		n += sq.Len()
		pos := int32(0)
		if i < len(b.cands.pos) {
			pos = b.cands.pos[i]
		}
		if p := pos; b.cands.loads && p != 0 && int64(b.cands.load[p-1]) != b.load(id) {
			fail("server %d: load %d under p2c, queue %d busy %v", id, b.cands.load[p-1], sq.Len(), s.busy)
		}
		if (s.gone || s.down) && sq.Len() > 0 {
			fail("server %d is gone or down with %d queued", id, sq.Len())
		}
		if !s.gone && !s.down && !s.busy && sq.Len() > 0 {
			fail("server %d is idle with %d queued after dispatch", id, sq.Len())
		}
		if s.retiring && !s.busy {
			fail("server %d is retiring, idle, and has not left", id)
		}
		free := b.active.has(id) && !s.busy && sq.Len() == 0
		if b.free.has(id) != free {
			fail("server %d: in the free set = %v, want %v", id, b.free.has(id), free)
		}
		if b.ready.has(id) {
			fail("server %d is ready after dispatch", id)
		}
		if (pos != 0) != b.active.has(id) {
			fail("server %d: candidate %v, active %v", id, pos != 0, b.active.has(id))
		}
	}
	if n != b.queued {
		fail("queued %d, but the queues and the lobby hold %d", b.queued, n)
	}
	if len(b.cands.ids) != b.active.n {
		fail("%d candidates in the dense array, %d active", len(b.cands.ids), b.active.n)
	}
	if rc, ok := b.rt.(routerChecker); ok {
		rc.check(fail, c)
	}
}

// routerChecker is a router whose test file can check its state against
// the balancer's after every cycle.
type routerChecker interface {
	check(fail func(string, ...any), c int64)
}

// speedOf returns server id's speed under cfg.
func speedOf(cfg Config, id int) Speed {
	if id <= len(cfg.Speeds) {
		return cfg.Speeds[id-1]
	}
	return SpeedScale
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func countEvents(m *Model, k EventKind) int {
	n := 0
	for _, e := range m.Events() {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// shadow is a reference model rebuilt from the event stream alone. It
// checks that every event is allowed by the clock (package doc): phases in
// order, FIFO dispatch to idle active servers chosen by the policy, exact
// completion cycles, the scaling decision, retiring servers leaving after
// their request.
type shadow struct {
	servers map[int]*shadowServer
	maxID   int
	nextReq int64
	queue   []Request
	rrLast  int
	emptyAt int64 // the last cycle at whose end the queue was empty
	// toShed are the attempts step d of this cycle sheds, in order
	// (computed at its first event); shedNow says they are.
	toShed  []Request
	shedNow bool
}

type shadowServer struct {
	busy     bool
	retiring bool
	req      Request
	start    int64
}

func newShadow(cfg Config) *shadow {
	s := &shadow{servers: map[int]*shadowServer{}, emptyAt: -1}
	for id := 1; id <= cfg.Servers; id++ {
		s.servers[id] = &shadowServer{}
	}
	s.maxID = cfg.Servers
	return s
}

// takes returns the place in the queue of the attempt step d of cycle t
// hands out (−1: none is queued): the oldest, or the newest under lifo,
// and under adaptive-lifo while the queue was non-empty at the end of each
// of the last N cycles.
func (s *shadow) takes(cfg Config, t int64) int {
	n := cfg.CodelInterval
	if n == 0 {
		n = DefaultCodelInterval
	}
	switch {
	case len(s.queue) == 0:
		return -1
	case cfg.Discipline == Lifo, cfg.Discipline == AdaptiveLifo && s.emptyAt < t-n:
		return len(s.queue) - 1
	}
	return 0
}

// sheds returns the attempts step d of cycle t sheds, in queue order,
// with an idle active server: with no faults and no client side every
// queued attempt joined the queue at its arrival.
func (s *shadow) sheds(cfg Config, t int64) []Request {
	if cfg.CodelTarget == 0 || len(s.ids(idleActive)) == 0 {
		return nil
	}
	n := cfg.CodelInterval
	if n == 0 {
		n = DefaultCodelInterval
	}
	limit := n
	if s.emptyAt < t-n {
		limit = cfg.CodelTarget
	}
	var out []Request
	for _, r := range s.queue {
		if t-r.Arrival > limit {
			out = append(out, r)
		}
	}
	return out
}

func phase(k EventKind) int {
	switch k {
	case Complete, Leave:
		return 1
	case Arrive, Reject, Discard:
		return 2
	case Error, GiveUp:
		return -1 // the limit's refusal at arrival, or a shed attempt's request ending at dispatch: where its cause is
	case ScaleUp, ScaleDown, Retire:
		return 3
	}
	return 4 // Dispatch
}

func (s *shadow) ids(pred func(*shadowServer) bool) []int {
	var ids []int
	for id, v := range s.servers {
		if pred(v) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func idleActive(v *shadowServer) bool { return !v.busy && !v.retiring }
func active(v *shadowServer) bool     { return !v.retiring }

// expectScale returns the scaling action step c must take, as formatEvent
// would write it, or "".
func (s *shadow) expectScale(cfg Config, t int64) string {
	if t == 0 || t%cfg.Cooldown != 0 {
		return ""
	}
	q := int64(len(s.queue))
	act := s.ids(active)
	S := int64(len(act))
	L := len(s.servers)
	if q*FactorScale > int64(cfg.ScaleUp)*S {
		if L < cfg.MaxServers {
			return fmt.Sprintf("%d scale-up s%d", t, s.maxID+1)
		}
		return ""
	}
	if q*FactorScale < int64(cfg.ScaleDown)*S && S > int64(cfg.MinServers) {
		if idle := s.ids(idleActive); len(idle) > 0 {
			return fmt.Sprintf("%d scale-down s%d", t, idle[len(idle)-1])
		}
		return fmt.Sprintf("%d retire s%d", t, act[len(act)-1])
	}
	return ""
}

// cycle replays the events of the model's last cycle.
func (s *shadow) cycle(t tester, m *Model) {
	t.Helper()
	c := m.Cycle()
	cfg := m.Config()
	fail := func(e Event, format string, args ...any) {
		t.Helper()
		t.Fatalf("cycle %d, event %q: "+format, append([]any{c, formatEvent(e)}, args...)...)
	}
	ph := 0
	wantScale, gotScale := "", ""
	scaled := false
	doScale := func() {
		if !scaled {
			scaled = true
			wantScale = s.expectScale(cfg, c)
		}
	}
	for _, e := range m.Events() {
		if e.Cycle != c {
			fail(e, "event of cycle %d", e.Cycle)
		}
		p := phase(e.Kind)
		if p < 0 {
			p = max(ph, 1)
		}
		if p < ph {
			fail(e, "phase %d after phase %d: the clock is work, arrivals, scaling, dispatch", p, ph)
		}
		if p >= 3 {
			doScale()
		}
		if p == 4 && !s.shedNow {
			s.shedNow, s.toShed = true, s.sheds(cfg, c)
		}
		ph = p
		switch e.Kind {
		case Arrive, Reject, Discard:
			s.nextReq++
			if e.Request.ID != s.nextReq || e.Request.Arrival != c {
				fail(e, "want request #%d arriving at %d", s.nextReq, c)
			}
			if e.Kind == Arrive {
				s.queue = append(s.queue, e.Request)
			}
			if e.Kind == Discard && (cfg.QueueCap == 0 || len(s.queue) < cfg.QueueCap) {
				fail(e, "discarded with %d queued, capacity %d", len(s.queue), cfg.QueueCap)
			}
			if e.Kind == Arrive && cfg.QueueCap > 0 && len(s.queue) > cfg.QueueCap {
				fail(e, "admitted beyond capacity %d", cfg.QueueCap)
			}
		case Error:
			// The pool's concurrency limit refuses the attempt that just
			// arrived (no gray failures are drawn here).
			if cfg.ConcurrencyLimit == 0 || e.Server != 0 || len(s.queue) == 0 || s.queue[len(s.queue)-1] != e.Request {
				fail(e, "an error that is not the limit's refusal of the attempt arriving (concurrency-limit %d)", cfg.ConcurrencyLimit)
			}
			s.queue = s.queue[:len(s.queue)-1]
			if l := cfg.ConcurrencyLimit; l != LimitAIMD && len(s.queue)+len(s.ids(func(v *shadowServer) bool { return v.busy })) < l {
				fail(e, "refused by a limit of %d with %d queued and in service", l, len(s.queue)+len(s.ids(func(v *shadowServer) bool { return v.busy })))
			}
		case Shed:
			if len(s.toShed) == 0 || s.toShed[0] != e.Request {
				fail(e, "shed, but the queue sheds %v (limit by codel-target %d, interval %d)", s.toShed, cfg.CodelTarget, cfg.CodelInterval)
			}
			s.toShed = s.toShed[1:]
			s.queue = slices.DeleteFunc(s.queue, func(r Request) bool { return r == e.Request })
		case GiveUp:
			// A shed attempt's request ends (no retries).
		case Dispatch:
			if len(s.toShed) > 0 {
				fail(e, "dispatch before the queue shed %v", s.toShed)
			}
			at := s.takes(cfg, c)
			if at < 0 || s.queue[at] != e.Request {
				fail(e, "not the queued request %v takes (place %d of %d)", cfg.Discipline, at, len(s.queue))
			}
			idle := s.ids(idleActive)
			if !slices.Contains(idle, e.Server) {
				fail(e, "server %d is not an idle active server (idle: %v)", e.Server, idle)
			}
			var want int
			switch cfg.Policy {
			case FirstIdle, LeastConnections:
				want = idle[0]
			case LeastWork:
				want = idle[0]
				for _, id := range idle {
					if speedOf(cfg, id) > speedOf(cfg, want) {
						want = id
					}
				}
			case RoundRobin:
				want = idle[0]
				for _, id := range idle {
					if id > s.rrLast {
						want = id
						break
					}
				}
			case Random, SWRR, P2C:
				want = e.Server // any idle active server (swrr is checked in swrr_policy_test.go)
			}
			s.rrLast = e.Server // round-robin goes on from the last server given a request, whatever the policy then
			if e.Server != want {
				fail(e, "policy %v wants server %d (idle %v)", cfg.Policy, want, idle)
			}
			if e.Wait != c-e.Request.Arrival {
				fail(e, "wait %d, want %d", e.Wait, c-e.Request.Arrival)
			}
			s.queue = slices.Delete(s.queue, at, at+1)
			v := s.servers[e.Server]
			v.busy, v.req, v.start = true, e.Request, c
		case Complete:
			v := s.servers[e.Server]
			if v == nil || !v.busy || v.req != e.Request {
				fail(e, "the server does not serve that request")
			}
			if svc := int64(speedOf(cfg, e.Server).Cycles(v.req.Time)); v.start+svc != c {
				fail(e, "dispatched at %d with time %d at speed %v, so it must complete at %d", v.start, v.req.Time, speedOf(cfg, e.Server), v.start+svc)
			}
			v.busy = false
		case Leave:
			v := s.servers[e.Server]
			if v == nil || !v.retiring || v.busy {
				fail(e, "only a retiring server that just completed leaves")
			}
			delete(s.servers, e.Server)
		case ScaleUp, ScaleDown, Retire:
			if gotScale != "" && cfg.Autoscaler == QueueRule {
				fail(e, "second scaling action in one cycle (first %q)", gotScale)
			}
			gotScale = formatEvent(e)
			switch e.Kind {
			case ScaleUp:
				s.maxID++
				s.servers[s.maxID] = &shadowServer{}
			case ScaleDown:
				delete(s.servers, e.Server)
			case Retire:
				s.servers[e.Server].retiring = true
			}
		default:
			fail(e, "unknown kind")
		}
	}
	doScale()
	if !s.shedNow {
		s.toShed = s.sheds(cfg, c) // no event of step d: nothing may be due
	}
	if len(s.toShed) > 0 {
		t.Fatalf("cycle %d: step d did not shed %v", c, s.toShed)
	}
	s.shedNow = false
	if len(s.queue) == 0 {
		s.emptyAt = c
	}
	// The queue rule's one action is checked here; target tracking's
	// moves by the hand traces and against stepping.
	if cfg.Autoscaler == QueueRule && gotScale != wantScale {
		t.Fatalf("cycle %d: scaling did %q, want %q (queue %d, config U %v D %v K %d min %d max %d)",
			c, gotScale, wantScale, len(s.queue), cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown, cfg.MinServers, cfg.MaxServers)
	}
	// Retiring servers that completed without leaving, or leaving without completing, are caught above;
	// a completed retiring server must have left.
	for id, v := range s.servers {
		if v.retiring && !v.busy {
			t.Fatalf("cycle %d: retiring server %d completed but did not leave", c, id)
		}
	}
	if len(s.queue) > 0 && len(s.ids(idleActive)) > 0 && cfg.Policy != SWRR {
		t.Fatalf("cycle %d: dispatch stopped with %d queued and idle servers %v", c, len(s.queue), s.ids(idleActive))
	}
	busy := len(s.ids(func(v *shadowServer) bool { return v.busy }))
	if p := m.Pool(); len(s.servers) != p.Live || busy != p.Busy || len(s.queue) != m.QueueLen() {
		t.Fatalf("cycle %d: events give live %d busy %d queue %d, the model %d %d %d", c, len(s.servers), busy, len(s.queue), p.Live, p.Busy, m.QueueLen())
	}
}

// checkBuckets checks a bucketed index against its leaves: each server
// taking part is in the bucket of its load and no other, and no bucket
// below lo holds one.
func checkBuckets(ix *ltree, fail func(string, ...any)) {
	leaves := len(ix.node) / 2
	members := 0
	for k := range ix.bucket {
		members += ix.bucket[k].n
		if k < ix.lo && ix.bucket[k].n > 0 {
			fail("bucket %d holds servers, below the lowest %d", k, ix.lo)
		}
	}
	in := 0
	for id := 1; id <= leaves; id++ {
		leaf := ix.node[leaves+id-1]
		if leaf == noNode {
			continue
		}
		in++
		if k := int(leaf >> 32); k >= len(ix.bucket) || !ix.bucket[k].has(id) || ix.key[id-1] != int64(k) {
			fail("server %d: leaf %x, key %d, not in its bucket", id, leaf, ix.key[id-1])
		}
	}
	if members != in || ix.members != in {
		fail("buckets hold %d servers (counted %d), the leaves %d", members, ix.members, in)
	}
}

// retryDiscards counts the last cycle's Discard events of retries.
func retryDiscards(m *Model) int {
	n := 0
	for _, e := range m.events {
		if e.Kind == Discard && e.Request.Retry {
			n++
		}
	}
	return n
}

// checkViewIndex checks, for each balancer of a fleet whose router in
// force picks the least by an index of the view, that the index picks what
// a scan of every candidate by the view picks (at cycle c, whose
// completions are done).
func checkViewIndex(fail func(string, ...any), b *Balancer, c int64) {
	f := b.fleet
	if f == nil || f.v.ix == nil || b.rt == nil {
		return
	}
	ix := f.v.ix
	for k := range f.k {
		want, wantKey, wantW := 0, int64(0), int64(1)
		for s := b.active.first(); s != 0; s = b.active.next(s + 1) {
			key, w := f.v.load(k, s), int64(b.weightOf(s))
			if ix.work {
				key, w = f.v.work(k, s, c), 1
			}
			if w == 0 {
				continue
			}
			if want == 0 || key*wantW < wantKey*w {
				want, wantKey, wantW = s, key, w
			}
		}
		if got := ix.least(k, c); got != want {
			fail("balancer %d: the view's index picks server slot %d, a scan of the view slot %d", k, got, want)
		}
	}
}
