package scene

import (
	"math/rand/v2"

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
)

type flight struct {
	kind   flightKind
	bal    int
	typ    sim.Type
	slot   int // queue index at the end of the cycle (arrive)
	server int // server id (dispatch, complete)
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
}

func newAnimator() animator {
	return animator{rng: rand.New(rand.NewPCG(0x636f736d, 0x65746963))} // "cosmetic"
}

func (a *animator) reset() {
	a.flights, a.appear, a.ghosts = a.flights[:0], a.appear[:0], a.ghosts[:0]
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
	// Arrivals this cycle per balancer, to find each one's queue slot.
	// (Per-server: only the lobby's, the others fly to their server.)
	var arrivals [2]int
	for _, e := range evs {
		if e.Kind == sim.Arrive && e.Balancer < 2 && e.Server == 0 {
			arrivals[e.Balancer]++
		}
	}
	var seen [2]int
	for _, e := range evs {
		bi := min(e.Balancer, 1)
		b := base + bi
		switch e.Kind {
		case sim.Arrive:
			if e.Server != 0 { // routed at arrival: straight to its server's queue
				a.add(flight{kind: flyDispatch, bal: b, typ: e.Request.Type, server: e.Server, start: now, dur: dur})
				continue
			}
			seen[bi]++
			slot := bals[e.Balancer].CentralLen() - (arrivals[bi] - seen[bi]) - 1
			d := dur
			if slot < 0 {
				d = max(dur/2, 3) // dispatched in the same cycle: half the way to the queue
			}
			a.add(flight{kind: flyArrive, bal: b, typ: e.Request.Type, slot: max(slot, 0), start: now, dur: d})
		case sim.Reject:
			a.add(flight{kind: flyReject, bal: b, typ: e.Request.Type, start: now, dur: max(dur*3/2, 30)})
		case sim.Discard:
			a.add(flight{kind: flyDiscard, bal: b, typ: e.Request.Type, slot: bals[e.Balancer].CentralLen(), start: now, dur: max(dur*3/2, 30)})
		case sim.Dispatch:
			if bals[e.Balancer].PerServer() {
				continue // from the server's own queue into service: no flight
			}
			f := flight{kind: flyDispatch, bal: b, typ: e.Request.Type, server: e.Server, start: now, dur: dur}
			if e.Request.Arrival == e.Cycle && e.Cycle > 0 {
				h := max(dur/2, 3)
				f.start, f.dur = now+h, max(dur-h, 3)
			}
			a.add(f)
		case sim.Complete:
			a.add(flight{kind: flyComplete, bal: b, typ: e.Request.Type, server: e.Server, start: now, dur: dur})
		case sim.ScaleUp:
			a.appear = append(a.appear, serverAnim{bal: b, id: e.Server, start: now})
		case sim.ScaleDown, sim.Leave:
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
