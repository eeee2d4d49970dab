package scene

import (
	"slices"

	"github.com/lbsim/lbsim/lanes"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// laneState is the lanes' side of a Session. Every run on screen is a
// lanes.Set: one lane for a single run, two to snapshot.MaxLanes in the
// compare view, all fed by the same requests. The Session's model (s.m) is
// the first lane's: the HUD's top line, the charts, the firewall's counts
// and the theory panel follow it, and a single run is exactly the run it
// was before lanes existed.
type laneState struct {
	set   *lanes.Set
	start []snapshot.LaneSpec // what the set was built from: each lane's label, starting settings and changes
	lane  int                 // the focused lane: a balancer setting or a fault goes there
}

// Comparing reports whether the view shows several lanes.
func (s *Session) Comparing() bool { return len(s.set.Lanes) > 1 }

// focused returns the focused lane's model: the controls show its
// settings.
func (s *Session) focused() *sim.Model { return s.set.Lanes[min(s.lane, len(s.set.Lanes)-1)].Model }

// startSpecs are the lanes the session restarts: the options' compare
// lanes, else the one run of the options' settings.
func (s *Session) startSpecs() []snapshot.LaneSpec {
	if len(s.opts.Lanes) > 0 {
		return cloneSpecs(s.opts.Lanes)
	}
	return []snapshot.LaneSpec{{Label: "run", Config: s.opts.Config.Clone(), Changes: slices.Clone(s.opts.Changes)}}
}

// setStartSpecs makes specs what the session restarts.
func (s *Session) setStartSpecs(specs []snapshot.LaneSpec) {
	if len(specs) > 1 {
		s.opts.Lanes = cloneSpecs(specs)
	} else {
		s.opts.Lanes = nil
	}
	s.opts.Config, s.opts.Changes = specs[0].Config.Clone(), slices.Clone(specs[0].Changes)
}

func cloneSpecs(specs []snapshot.LaneSpec) []snapshot.LaneSpec {
	out := make([]snapshot.LaneSpec, len(specs))
	for i, sp := range specs {
		out[i] = snapshot.LaneSpec{Label: sp.Label, Config: sp.Config.Clone(), Changes: slices.Clone(sp.Changes)}
	}
	return out
}

// runSpecs are the lanes as they run now: their starting settings and
// every change, taken effect or pending.
func (s *Session) runSpecs() []snapshot.LaneSpec {
	specs := cloneSpecs(s.start)
	for i, l := range s.set.Lanes {
		specs[i].Changes = append(l.Model.Changes(), l.Model.Pending()...)
	}
	return specs
}

// targets returns the lanes change c goes to: every lane for a setting of
// the arrivals or of the firewall (the lanes share one request stream and
// one firewall), else the focused lane.
func (s *Session) targets(c sim.Change) []int {
	if lanes.Arrival(c.Setting) || c.Setting == sim.SetBlock || c.Setting == sim.SetUnblock {
		all := make([]int, len(s.set.Lanes))
		for i := range all {
			all[i] = i
		}
		return all
	}
	return []int{min(s.lane, len(s.set.Lanes)-1)}
}

// LaneState is one lane as the browser hook reports it.
type LaneState struct {
	Label   string
	Summary sim.Summary
}

// laneStates returns every lane's label and summary, or nil for a single
// run.
func (s *Session) laneStates() []LaneState {
	if !s.Comparing() {
		return nil
	}
	out := make([]LaneState, len(s.set.Lanes))
	for i, l := range s.set.Lanes {
		out[i] = LaneState{Label: l.Label, Summary: l.Model.Summary()}
	}
	return out
}

// shownBalancer is one balancer drawn in a lane of the layout.
type shownBalancer struct {
	lane, bal int // the lane, and the balancer's index in its model
	b         *sim.Balancer
	m         *sim.Model
}

// shown lists the balancers on screen, top to bottom: each lane's (two
// for a lane that runs a P/S switch).
func (s *Session) shown() []shownBalancer {
	var out []shownBalancer
	for li, l := range s.set.Lanes {
		for bi, b := range l.Model.Balancers() {
			out = append(out, shownBalancer{lane: li, bal: bi, b: b, m: l.Model})
		}
	}
	return out
}

// NextLane moves the focus to the next lane (wrapping): the controls then
// show and change its settings.
func (s *Session) NextLane() {
	s.lane = (s.lane + 1) % len(s.set.Lanes)
}

// toggleCompare opens the compare view from a single run (its settings
// beside the same settings under the next policy the queue mode runs,
// each lane labelled by its policy), or goes back from the compare view
// to a single run of the focused lane's settings. Either keeps the place:
// the new lanes start from the same settings with every change made so
// far (a server taken down, a slider moved), re-simulated to the cycle on
// screen, paused if the run was.
func (s *Session) toggleCompare() {
	at := s.m.Cycle()
	var specs []snapshot.LaneSpec
	if s.replay != nil {
		specs = s.forkSpecs(true)
	} else {
		specs = s.runSpecs()
	}
	if len(specs) > 1 {
		one := specs[min(s.lane, len(specs)-1)]
		one.Label = "run"
		specs = []snapshot.LaneSpec{one}
	} else {
		a := specs[0]
		// The other lane runs the next policy of the one in force now,
		// and keeps every change but those of the policy.
		now := s.m.Config()
		b := snapshot.LaneSpec{Config: a.Config.Clone()}
		b.Config.Policy = sim.Policy(nextPolicy(int64(now.Policy), 1, now.Queues))
		for _, c := range a.Changes {
			if c.Setting != sim.SetPolicy {
				b.Changes = append(b.Changes, c)
			}
		}
		a.Label, b.Label = now.Policy.String(), b.Config.Policy.String()
		specs = []snapshot.LaneSpec{a, b}
	}
	old, lane := s.opts, s.lane
	paused, pauseAt := s.paused, s.pauseAt
	s.setStartSpecs(specs)
	s.lane = 0
	if err := s.build(specs, at); err != nil {
		s.opts, s.lane = old, lane // build changed nothing else: the run goes on
		s.say("compare: "+err.Error(), true)
		return
	}
	s.replay, s.verdict, s.message = nil, "", ""
	s.paused = paused
	if pauseAt <= at {
		pauseAt = -1
	}
	s.pauseAt = pauseAt
}

// laneGeom returns where shown balancer k (sb) draws in l: its lane (for
// per-server queues a narrow lobby and a wider pool, PerServerLane) and
// its server grid (with a queue bar beside each box for per-server
// queues).
func (s *Session) laneGeom(l Layout, k int, sb shownBalancer) (Lane, GridSpec) {
	lane := l.Lanes[k]
	pl := sb.b.Pool()
	if sb.m.Config().Queues == sim.PerServer {
		lane = PerServerLane(lane, l.Unit)
		if sb.b.FleetSize() > 1 {
			lane = FleetLane(lane, l.Unit, l.T, sb.b.FleetSize())
		}
		return lane, NewGridAspect(lane.Pool, pl.Live+pl.Down, l.Unit, QueueBarAspect).widened(MaxBarAspect)
	}
	return lane, NewGrid(lane.Pool, pl.Live+pl.Down, l.Unit)
}
