package scene

import (
	"math/rand/v2"
	"slices"

	"github.com/lbsim/lbsim/sim"
)

// The animations are cosmetic: they are derived from the model's events,
// timed in ticks, jittered by the animator's own generator, and never read
// by the model.

type flightKind uint8

const (
	flyArrive   flightKind = iota // from the left edge through the gate to a queue slot
	flyReject                     // to the gate, bouncing back red and fading
	flyDiscard                    // to the queue's tail, bouncing back orange
	flyDispatch                   // from the queue's front to a server box
	flyComplete                   // from a server box off to the right
	flyBack                       // an attempt that ended in error or timed out: from its server (or the queue) back to the gate, where it is retried or given up
	flyRetry                      // a retry: from the gate to a queue slot (or its server's queue)
	flyGiveUp                     // a request given up: from the gate off to the left, fading
	flyCancel                     // an attempt cancelled (fan-out): fades, crossed, at its server or its queue
	flyShed                       // an attempt shed by its queue: it drops out of the queue, fading
	flyRefuse                     // an attempt refused by a server's (or the pool's) concurrency limit: it bounces off the server back to the gate
	flyThrottle                   // an attempt its own client throttled: it stops dead at a bar just past the gate and fades there
)

type flight struct {
	kind   flightKind
	bal    int
	typ    sim.Type
	retry  bool // drawn in the retry colour: the attempt is a retry (flyBack: it will be retried)
	timed  bool // flyBack: it timed out (grey), else it ended in error (red)
	slot   int  // queue index at the end of the cycle (arrive)
	server int  // server id (dispatch, complete)
	member int  // dispatch: the attempt's balancer in a fleet (Request.Member)
	// group is the request a part of a fan-out belongs to (its id; 0
	// without fan-out): a request's parts fly as one group, in its tint,
	// tethered to one point at the gate.
	group  int64
	queued bool // flyCancel: it was cancelled queued (at its server's queue), not in service
	hedge  bool // flyDispatch: a hedge of a part, from the gate to its server, in HedgeCol with a bar across
	start  int64
	dur    int64
	jit    float32 // −1..1, cosmetic vertical jitter
}

// progress returns the flight's progress at tick now in [0, 1], and
// whether it is in the air.
func (f *flight) progress(now int64) (float32, bool) {
	if now < f.start || now >= f.start+f.dur {
		return 0, false
	}
	return float32(now-f.start) / float32(f.dur), true
}

type serverAnim struct {
	bal, id int
	index   int // grid position when it left (ghosts)
	start   int64
	kind    sim.EventKind // flashes: Eject, Restore or Ready
}

// MaxFlights bounds the requests in flight at once.
const MaxFlights = 800

// ServerAnimTicks is how long a new server grows in and a leaving one
// fades out.
const ServerAnimTicks = 30

// animator holds what is moving on screen.
type animator struct {
	rng     *rand.Rand // cosmetic only: never the model's generator
	flights []flight
	appear  []serverAnim
	ghosts  []serverAnim
	flashes []serverAnim // a ring around a server ejected, restored or ready
	// partAt holds the attempts of each part of a fan-out or a hedged
	// request that wait in a server's queue, so that an attempt cancelled
	// queued fades at its own queue (the cancel event names no server for a
	// queued one).
	partAt map[partKey][]partNote
}

// partNote is one queued attempt of a part: its server, its identity as
// the events give it (retry or not, its time), and its rank in the order
// the model cancels a part's attempts (its attempt slot's order): the
// first attempt and the hedges in the order they were sent, each hedge
// taking a slot never used before; a retry keeps the slot of the attempt
// it retries, which ended as its part's last live attempt, so it ranks
// below every attempt of its part live when it is sent.
type partNote struct {
	server int
	rank   int32
	retry  bool
	time   uint32
}

// is reports whether note n is of attempt r (by what its events carry).
func (n partNote) is(r sim.Request) bool { return n.retry == r.Retry && n.time == r.Time }

// partKey names one part of a request with fan-out on a shown balancer.
type partKey struct {
	bal  int
	id   int64
	part uint8
}

// maxPartsNoted bounds partAt: parts routed while the view jumped leave
// no event behind, so the map starts again when it grows past this.
const maxPartsNoted = 1 << 14

func newAnimator() animator {
	return animator{rng: rand.New(rand.NewPCG(0x636f736d, 0x65746963))} // "cosmetic"
}

func (a *animator) reset() {
	a.flights, a.appear, a.ghosts, a.flashes = a.flights[:0], a.appear[:0], a.ghosts[:0], a.flashes[:0]
	clear(a.partAt)
}

// prune drops the animations that have ended by tick now.
func (a *animator) prune(now int64) {
	keep := a.flights[:0]
	for _, f := range a.flights {
		if now < f.start+f.dur {
			keep = append(keep, f)
		}
	}
	a.flights = keep
	a.appear = pruneServer(a.appear, now)
	a.ghosts = pruneServer(a.ghosts, now)
	a.flashes = pruneServer(a.flashes, now)
}

func pruneServer(s []serverAnim, now int64) []serverAnim {
	keep := s[:0]
	for _, v := range s {
		if now < v.start+ServerAnimTicks {
			keep = append(keep, v)
		}
	}
	return keep
}

func (a *animator) add(f flight) {
	if len(a.flights) < MaxFlights {
		f.jit = float32(a.rng.Float64()*2 - 1)
		if n := len(a.flights); f.group != 0 && n > 0 && a.flights[n-1].group == f.group && a.flights[n-1].bal == f.bal {
			f.jit = a.flights[n-1].jit // a request's parts set off from one point
		}
		a.flights = append(a.flights, f)
	}
}

// spawn turns one cycle's events of m into animations starting at tick
// now, each flight lasting about one cycle on screen (tpc ticks). base is
// the layout lane of m's first balancer (the compare view draws several
// models, one under the other).
func (a *animator) spawn(m *sim.Model, base int, now, tpc int64) {
	evs := m.Events()
	bals := m.Balancers()
	dur := max(tpc, 6)
	// Arrivals and retries joining each balancer's queue this cycle, to
	// find each one's slot. (Per-server: only the lobby's, the others fly
	// to their server.)
	// An attempt refused by a concurrency limit as it was routed joins
	// nothing.
	refused := limitRefusals(m, evs)
	var joins [2]int
	for _, e := range evs {
		if (e.Kind == sim.Arrive || e.Kind == sim.Retry) && e.Balancer < 2 && e.Server == 0 && !refused[refusalOf(e)] {
			joins[e.Balancer]++
		}
	}
	// Requests given up this cycle: an attempt of theirs that ended is not
	// retried.
	var gaveUp map[int64]bool
	for _, e := range evs {
		if e.Kind == sim.GiveUp {
			if gaveUp == nil {
				gaveUp = map[int64]bool{}
			}
			gaveUp[e.Request.ID] = true
		}
	}
	var seen [2]int
	fan := partsOn(m)
	for _, e := range evs {
		bi := min(e.Balancer, 1)
		b := base + bi
		if fan {
			a.notePart(e, b, bals[e.Balancer])
		}
		switch e.Kind {
		case sim.Arrive, sim.Retry:
			retry := e.Kind == sim.Retry
			if refused[refusalOf(e)] {
				// Refused by the limit as it was routed: the refusal's
				// bounce (below) is its whole flight.
				continue
			}
			if e.Server != 0 { // routed at arrival: straight to its server's queue
				f := flight{kind: flyDispatch, bal: b, typ: e.Request.Type, retry: retry, server: e.Server, member: int(e.Request.Member), start: now, dur: dur}
				if fan {
					f.group = e.Request.ID
				}
				a.add(f)
				continue
			}
			seen[bi]++
			slot := bals[e.Balancer].CentralLen() - (joins[bi] - seen[bi]) - 1
			d := dur
			if slot < 0 {
				d = max(dur/2, 3) // dispatched in the same cycle: half the way to the queue
			}
			k := flyArrive
			if retry {
				k = flyRetry
			}
			a.add(flight{kind: k, bal: b, typ: e.Request.Type, retry: retry, slot: max(slot, 0), start: now, dur: d})
		case sim.Reject:
			a.add(flight{kind: flyReject, bal: b, typ: e.Request.Type, start: now, dur: max(dur*3/2, 30)})
		case sim.Discard:
			a.add(flight{kind: flyDiscard, bal: b, typ: e.Request.Type, slot: bals[e.Balancer].CentralLen(), start: now, dur: max(dur*3/2, 30)})
		case sim.Dispatch:
			if bals[e.Balancer].PerServer() {
				continue // from the server's own queue into service: no flight
			}
			f := flight{kind: flyDispatch, bal: b, typ: e.Request.Type, retry: e.Request.Retry, server: e.Server, start: now, dur: dur}
			if e.Request.Arrival == e.Cycle && e.Cycle > 0 {
				h := max(dur/2, 3)
				f.start, f.dur = now+h, max(dur-h, 3)
			}
			a.add(f)
		case sim.Complete:
			a.add(flight{kind: flyComplete, bal: b, typ: e.Request.Type, server: e.Server, start: now, dur: dur})
		case sim.Error, sim.TimedOut:
			if e.Kind == sim.Error && refused[refusalOf(e)] {
				a.add(flight{kind: flyRefuse, bal: b, typ: e.Request.Type, retry: !gaveUp[e.Request.ID], server: e.Server, start: now, dur: max(dur*3/2, 30)})
				continue
			}
			// Back to the gate: in the retry colour when its client
			// retries it, else red (error) or grey (timed out).
			a.add(flight{kind: flyBack, bal: b, typ: e.Request.Type, retry: !gaveUp[e.Request.ID], timed: e.Kind == sim.TimedOut,
				server: e.Server, start: now, dur: dur})
		case sim.Cancel:
			a.cancelled(e, b, now, dur)
		case sim.Hedge:
			// From the gate to its server, joined to its part's group;
			// refused by the server's limit, the refusal's bounce (at its
			// Error) is its whole flight.
			if refused[refusalOf(e)] {
				continue
			}
			a.add(flight{kind: flyDispatch, hedge: true, bal: b, typ: e.Request.Type, server: e.Server, member: int(e.Request.Member),
				group: e.Request.ID, start: now, dur: dur})
		case sim.Shed:
			a.add(flight{kind: flyShed, bal: b, typ: e.Request.Type, retry: e.Request.Retry, server: e.Server, start: now, dur: max(dur*3/2, 30)})
		case sim.Throttled:
			a.add(flight{kind: flyThrottle, bal: b, typ: e.Request.Type, retry: e.Request.Retry, start: now, dur: max(dur*3/2, 30)})
		case sim.GiveUp:
			a.add(flight{kind: flyGiveUp, bal: b, typ: e.Request.Type, start: now, dur: max(dur*3/2, 30)})
		case sim.Eject, sim.Restore, sim.Ready:
			a.flashes = append(a.flashes, serverAnim{bal: b, id: e.Server, start: now, kind: e.Kind})
		case sim.ScaleUp:
			a.appear = append(a.appear, serverAnim{bal: b, id: e.Server, start: now})
		case sim.ScaleDown, sim.Leave, sim.Replace:
			idx := 0
			for v := range bals[e.Balancer].Servers() {
				if v.ID > e.Server {
					break
				}
				idx++
			}
			a.ghosts = append(a.ghosts, serverAnim{bal: b, id: e.Server, index: idx, start: now})
		}
	}
}

// growth returns the scale (0..1] of server id of balancer b as it appears.
func (a *animator) growth(b, id int, now int64) float32 {
	for _, v := range a.appear {
		if v.bal == b && v.id == id {
			return max(smooth(float32(now-v.start)/ServerAnimTicks), 0.15)
		}
	}
	return 1
}

// flash returns the kind and age (0..1) of the newest flash of server id
// of balancer b, and whether it has one.
func (a *animator) flash(b, id int, now int64) (sim.EventKind, float32, bool) {
	for i := len(a.flashes) - 1; i >= 0; i-- {
		if v := a.flashes[i]; v.bal == b && v.id == id && now >= v.start {
			return v.kind, float32(now-v.start) / ServerAnimTicks, true
		}
	}
	return 0, 0, false
}

// notePart keeps partAt up to date with event e of balancer b (fan-out
// or hedging on; bal is the model's balancer): an attempt routed to a
// server's queue is noted there until it leaves it.
func (a *animator) notePart(e sim.Event, b int, bal *sim.Balancer) {
	k := partKey{b, e.Request.ID, e.Request.Part}
	switch e.Kind {
	case sim.Arrive, sim.Retry, sim.Hedge:
		if e.Server == 0 {
			return
		}
		if a.partAt == nil || len(a.partAt) >= maxPartsNoted {
			a.partAt = make(map[partKey][]partNote)
		}
		at := a.partAt[k]
		n := partNote{server: e.Server, retry: e.Request.Retry, time: e.Request.Time}
		for i, o := range at {
			switch {
			case e.Kind == sim.Retry && (i == 0 || o.rank <= n.rank):
				n.rank = o.rank - 1 // below every live attempt of its part
			case e.Kind != sim.Retry && (i == 0 || o.rank >= n.rank):
				n.rank = o.rank + 1 // a slot never used before
			}
		}
		a.partAt[k] = append(at, n)
	case sim.Dispatch, sim.Complete, sim.Error, sim.TimedOut, sim.Discard, sim.Shed:
		a.leftQueue(k, e.Server, e.Request)
	case sim.Requeue:
		a.leftQueue(k, e.Server, e.Request)
		a.requeued(k, e.Request, bal)
	}
}

// requeued notes attempt r of part k, taken back from a failed server and
// routed again with no event naming its new queue, at the queue where bal
// holds it at the end of the cycle (none: it went into service, or left).
func (a *animator) requeued(k partKey, r sim.Request, bal *sim.Balancer) {
	at := a.partAt[k]
	for v := range bal.Servers() {
		if slices.ContainsFunc(at, func(n partNote) bool { return n.server == v.ID && n.is(r) }) {
			continue // noted there already
		}
		for i := range v.Queued {
			if q := bal.ServerQueueAt(v.ID, i); q.ID == r.ID && q.Part == r.Part && q.Retry == r.Retry && q.Time == r.Time {
				if a.partAt == nil || len(a.partAt) >= maxPartsNoted {
					a.partAt = make(map[partKey][]partNote)
				}
				// Its rank is its slot's, unknown here: it is told apart
				// from its part's other attempts by its time.
				a.partAt[k] = append(a.partAt[k], partNote{server: v.ID, retry: r.Retry, time: r.Time})
				return
			}
		}
	}
}

// leftQueue forgets the noted attempt r of part k at server id's queue
// (id 0: of the noted attempts that are r, the one the model cancels
// first, of the lowest rank) and returns that server (0: none noted; an
// attempt re-queued off a failed server is routed again with no event
// naming its new queue, so it is not noted).
func (a *animator) leftQueue(k partKey, id int, r sim.Request) int {
	at := a.partAt[k]
	i := -1
	for j, n := range at {
		if id != 0 && n.server != id || id == 0 && !n.is(r) {
			continue // another server's, or (queued) another attempt
		}
		better := i < 0 || n.is(r) && !at[i].is(r) || n.is(r) == at[i].is(r) && n.rank < at[i].rank
		if better {
			i = j
		}
	}
	if i < 0 {
		return 0
	}
	id = at[i].server
	if at = slices.Delete(at, i, i+1); len(at) == 0 {
		delete(a.partAt, k)
	} else {
		a.partAt[k] = at
	}
	return id
}

// cancelled adds the flight of attempt e cancelled on balancer b: in
// service, at the server that stopped it; queued, at the queue it was
// noted in (none when the view jumped over its routing).
func (a *animator) cancelled(e sim.Event, b int, now, dur int64) {
	k := partKey{b, e.Request.ID, e.Request.Part}
	f := flight{kind: flyCancel, bal: b, typ: e.Request.Type, server: e.Server, group: e.Request.ID, start: now, dur: max(dur*3/2, 30)}
	if e.Server == 0 {
		f.server, f.queued = a.leftQueue(k, 0, e.Request), true
	}
	if f.server != 0 {
		a.add(f)
	}
}
