package scene

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// stepConfig is a fixed pool of six at ρ ≈ 0.8 under policy p in queue
// mode q, balancers balancers reading info.
func stepConfig(t *testing.T, p sim.Policy, q sim.QueueMode, balancers int, info string) sim.Config {
	cfg := configWith(t, "servers", "6", "min-servers", "6", "max-servers", "6", "wave", "false", "rate", "0.25",
		"initial-per-server", "0", "block", "none")
	cfg.Policy, cfg.Queues = p, q
	if balancers > 1 {
		cfg.Balancers = balancers
		li, err := sim.ParseLoadInfo(info)
		if err != nil {
			t.Fatal(err)
		}
		cfg.LoadInfo = li
	}
	return cfg
}

// TestStepModeEveryPolicy: under every policy, in each queue mode it
// runs in, each press of A pauses and shows the next routing decision:
// the attempt routed and the server the model routed it to (its event),
// ringed on the picture, and a label naming the policy and the server; a
// cycle that routes several attempts shows them one press each before
// the run moves on.
func TestStepModeEveryPolicy(t *testing.T) {
	for p := range sim.Policy(len(sim.PolicyNames())) {
		for _, q := range []sim.QueueMode{sim.PerServer, sim.Pooled} {
			if p.Allowed(q) != "" {
				continue
			}
			name := fmt.Sprintf("%v %v", p, q)
			s := running(t, stepConfig(t, p, q, 1, ""))
			s.step(50, false)
			within := 0
			for range 40 {
				before, at := s.m.Cycle(), s.steps.at
				s.Apply(StepArrival)
				d, ok := s.steps.shown()
				if !ok || !s.paused {
					t.Fatalf("%s: no decision shown (paused %v, %q)", name, s.paused, s.steps.none)
				}
				if s.m.Cycle() == before {
					within++
					if s.steps.at != at+1 {
						t.Fatalf("%s: the same cycle, decision %d after %d", name, s.steps.at, at)
					}
				}
				routed := routedEvents(s.m, d.bal, q == sim.PerServer)
				if e := routed[s.steps.at]; e.Server != d.server || e.Request.ID != d.req.ID {
					t.Fatalf("%s: decision %+v, the model routed #%d to %d", name, d, e.Request.ID, e.Server)
				}
				if !strings.Contains(d.text, p.String()) || !strings.Contains(d.text, fmt.Sprintf("to server %d.", d.server)) {
					t.Errorf("%s: label %q names neither the policy nor server %d", name, d.text, d.server)
				}
				f := s.Draw(BaseW, BaseH)
				if !slices.ContainsFunc(f.Layers[TopLayer].Texts, func(x Text) bool { return strings.HasPrefix(x.S, "step (A) ") }) {
					t.Fatalf("%s: the decision is not in the message strip", name)
				}
				box := s.State().Servers[d.server-1].R
				if !slices.ContainsFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool {
					return q.C == MeasureCol && box.Inset(-8).Contains(Rect{q.P[0].X, q.P[0].Y, 0, 0})
				}) {
					t.Errorf("%s: server %d (%v) is not ringed", name, d.server, box)
				}
				for _, o := range overlaps(f) {
					t.Errorf("%s: %s", name, o)
				}
			}
			if within == 0 {
				t.Errorf("%s: no cycle routed two attempts in 40 presses", name)
			}
			s.Apply(TogglePause)
			if _, ok := s.steps.shown(); ok {
				t.Errorf("%s: the label stays after Space", name)
			}
		}
	}
}

// TestStepModeReadsWhatTheModelRead: least-connections takes the least
// load, least-work the least work, the lowest id on a tie; what step mode
// says each balancer read at each decision (worked out from the end of
// the cycle and its later attempts) must make the model's own choice that
// one — with exact counts (the true loads) and for a fleet of six on
// local counts or a periodic board (its beliefs). A reconstruction off by
// one attempt fails.
func TestStepModeReadsWhatTheModelRead(t *testing.T) {
	for _, tc := range []struct {
		pol       sim.Policy
		balancers int
		info      string
	}{{sim.LeastConnections, 1, ""}, {sim.LeastConnections, 6, "exact"}, {sim.LeastConnections, 6, "local"},
		{sim.LeastConnections, 6, "periodic:7"}, {sim.LeastWork, 1, ""}} {
		s := running(t, stepConfig(t, tc.pol, sim.PerServer, tc.balancers, tc.info))
		s.step(200, false)
		checked := 0
		for range 300 {
			s.Apply(StepArrival)
			d, ok := s.steps.shown()
			if !ok {
				t.Fatalf("%d %s: no decision", tc.balancers, tc.info)
			}
			b := s.m.Balancers()[d.bal]
			if at, ok := b.BoardAt(); ok && at == s.m.Cycle() {
				continue // refreshed after the routing: not read back
			}
			routed := routedEvents(s.m, d.bal, true)
			reads := readsAt(s.m, b, routed, s.steps.at)
			best := slices.MinFunc(reads, func(a, b read) int {
				if a.belief != b.belief {
					return int(a.belief - b.belief)
				}
				return a.id - b.id
			})
			if best.id != d.server {
				t.Fatalf("%d %s, cycle %d decision %d: read %v, the least is %d's, the model chose %d (%s)",
					tc.balancers, tc.info, s.m.Cycle(), s.steps.at, reads, best.id, d.server, d.text)
			}
			if tc.info == "local" && !strings.Contains(d.text, "(local counts)") {
				t.Errorf("a fleet's label %q does not say whose beliefs", d.text)
			}
			checked++
		}
		if checked < 100 {
			t.Errorf("%d %s: %d decisions checked", tc.balancers, tc.info, checked)
		}
	}
}

// TestStepModeNamesTheDraw: p2c and peak-EWMA draw their candidates
// inside the model; step mode's label names the servers the model drew
// (its tap), the winner and the one it beat, with what each read. What
// step mode works out each balancer read of every candidate must be what
// the model read of the drawn ones (exact, a fleet's local counts or a
// periodic board), and the winner the least of them by the policy's
// measure, the first drawn on a tie.
func TestStepModeNamesTheDraw(t *testing.T) {
	for _, tc := range []struct {
		pol       sim.Policy
		choices   int
		balancers int
		info      string
	}{{sim.P2C, 0, 1, ""}, {sim.P2C, 3, 1, ""}, {sim.P2C, 0, 6, "local"}, {sim.P2C, 0, 6, "periodic:7"},
		{sim.PeakEWMA, 0, 1, ""}, {sim.PeakEWMA, 0, 6, "local"}} {
		name := fmt.Sprintf("%v d=%d %d %s", tc.pol, tc.choices, tc.balancers, tc.info)
		cfg := stepConfig(t, tc.pol, sim.PerServer, tc.balancers, tc.info)
		cfg.Choices = tc.choices
		s := running(t, cfg)
		s.step(200, false)
		checked := 0
		for range 300 {
			s.Apply(StepArrival)
			d, ok := s.steps.shown()
			if !ok || d.draw == nil {
				t.Fatalf("%s: no decision, or no draw (%+v)", name, d)
			}
			if err := checkDrawLabel(tc.pol, d); err != nil {
				t.Fatalf("%s, cycle %d: %v", name, s.m.Cycle(), err)
			}
			b := s.m.Balancers()[d.bal]
			if at, ok := b.BoardAt(); ok && at == s.m.Cycle() {
				continue // refreshed after the routing: not read back
			}
			reads := readsAt(s.m, b, routedEvents(s.m, d.bal, true), s.steps.at)
			for _, c := range d.draw.Drawn {
				i := slices.IndexFunc(reads, func(r read) bool { return r.id == c.ID })
				if i < 0 || reads[i].belief != c.Load {
					t.Fatalf("%s, cycle %d decision %d: step mode read %v, the model read %d of server %d (%s)",
						name, s.m.Cycle(), s.steps.at, reads, c.Load, c.ID, d.text)
				}
			}
			checked++
		}
		if checked < 100 {
			t.Errorf("%s: %d decisions checked", name, checked)
		}
	}
}

// checkDrawLabel checks decision d's draw and its label: the pick is the
// server routed to, the least drawn by pol's measure (the first on a
// tie), and the label names every server drawn with what it read.
func checkDrawLabel(pol sim.Policy, d decision) error {
	dr := d.draw
	value := func(c sim.Drawn) float64 { return float64(c.Load) }
	if pol == sim.PeakEWMA {
		value = func(c sim.Drawn) float64 { return c.Cost * float64(c.Load+1) }
	}
	best := 0
	for i, c := range dr.Drawn {
		if value(c) < value(dr.Drawn[best]) {
			best = i
		}
	}
	if dr.Picked != d.server || dr.Drawn[best].ID != d.server {
		return fmt.Errorf("routed to %d, picked %d, the least drawn %d", d.server, dr.Picked, dr.Drawn[best].ID)
	}
	ids := make([]string, len(dr.Drawn))
	for i, c := range dr.Drawn {
		ids[i] = fmt.Sprint(c.ID)
		want := fmt.Sprintf("%d has %d", c.ID, c.Load)
		if strings.Contains(d.text, "(local counts)") || strings.Contains(d.text, "(periodic") {
			want = fmt.Sprintf("%d believed %d", c.ID, c.Load)
		}
		if pol == sim.PeakEWMA {
			want = fmt.Sprintf("%d costs %.4g × (%d + 1)", c.ID, c.Cost, c.Load)
		}
		if !strings.Contains(d.text, want) {
			return fmt.Errorf("label %q does not say %q", d.text, want)
		}
	}
	if want := fmt.Sprintf("%s drew %s;", pol, andList(ids)); !strings.Contains(d.text, want) {
		return fmt.Errorf("label %q does not say %q", d.text, want)
	}
	return nil
}

// TestStepModeKeyAndButton: A and the arrival button both step to a
// decision, and help lists the key.
func TestStepModeKeyAndButton(t *testing.T) {
	s := running(t, stepConfig(t, sim.P2C, sim.PerServer, 1, ""))
	s.HandleInput(Input{Keys: []Key{RuneKey('a')}})
	if _, ok := s.steps.shown(); !ok || !strings.HasPrefix(s.State().Step, "step (A) 1 of ") {
		t.Fatalf("A shows no decision (state's step %q)", s.State().Step)
	}
	s.Apply(TogglePause)
	s.Draw(BaseW, BaseH)
	var btn Rect
	for _, c := range s.State().Controls {
		if c.ID == WArrival {
			btn = c.R
		}
	}
	if btn.W == 0 {
		t.Fatal("no arrival button")
	}
	c := btn.Center()
	s.HandleInput(Input{X: c.X, Y: c.Y, Down: true, Pressed: true})
	s.HandleInput(Input{X: c.X, Y: c.Y, Released: true})
	if _, ok := s.steps.shown(); !ok || !s.paused {
		t.Fatal("the arrival button shows no decision")
	}
	if !slices.ContainsFunc(bindings, func(b binding) bool { return b.in == StepArrival && b.label == "A" }) {
		t.Error("help does not list A")
	}
}

// TestStepModeInAReplayAndAtTheEnd: A in a replay steps it like →, to a
// decision; at the end of a run it says no request was routed, and never
// panics.
func TestStepModeInAReplayAndAtTheEnd(t *testing.T) {
	cfg := stepConfig(t, sim.LeastConnections, sim.PerServer, 1, "")
	cfg.Cycles = 400
	s := running(t, cfg)
	s.step(100, false)
	data, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r := running(t, cfg)
	if err := r.Load(data); err != nil {
		t.Fatal(err)
	}
	r.Apply(StepArrival)
	if _, ok := r.steps.shown(); !ok || !r.State().Replaying {
		t.Errorf("in a replay: decision shown %v, replaying %v", ok, r.State().Replaying)
	}
	s.step(400, false)
	s.Apply(StepArrival)
	if _, ok := s.steps.shown(); ok || !strings.HasPrefix(s.State().Step, "step: no request routed") {
		t.Errorf("at the end: %q", s.State().Step)
	}
}
