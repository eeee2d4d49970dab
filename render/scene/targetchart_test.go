package scene

import (
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestTargetTrackingChart: with target tracking on, the live servers
// chart keys and draws the proposal (dotted, at the pool the last
// evaluation proposed), the metric and the target on the right axis; the
// history holds the model's own figures; under the queue rule none of the
// three is drawn or keyed. In the compare view of the autoscalers lesson
// only the lane that tracks a target draws a metric line.
func TestTargetTrackingChart(t *testing.T) {
	for _, tracking := range []bool{false, true} {
		cfg := testConfig()
		cfg.Rate, cfg.Cycles = sim.Rate(2*sim.DecimalScale), 3_000
		if tracking {
			cfg.Autoscaler = sim.TargetTracking
		}
		s, err := New(Options{Config: cfg, Speed: 600, PauseAt: 900})
		if err != nil {
			t.Fatal(err)
		}
		now := clock()
		for s.m.Cycle() < 900 {
			s.Update(now)
		}
		for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
			f := s.Draw(size[0], size[1])
			ci := slices.IndexFunc(s.shownCharts(), func(c chartSpec) bool { return c.title == "live servers" })
			r := f.Layout.Charts[ci]
			keyed := func(name string) bool { // whole, or its short form
				short := name[:len(name)-len(" (right axis)")*boolInt(len(name) > 13)]
				return slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return (x.S == name || x.S == short) && r.Contains(TextBox(x)) })
			}
			drawn := func(col any) int {
				n := 0
				for _, q := range f.Layers[SceneLayer].Quads {
					if q.C == col && r.Contains(Rect{X: q.P[0].X, Y: q.P[0].Y}) {
						n++
					}
				}
				return n
			}
			for _, k := range []struct {
				name string
				col  any
			}{{"proposal", ProposalCol}, {"metric (right axis)", MetricCol}, {"target (right axis)", TargetCol}} {
				if got := keyed(k.name) && drawn(k.col) >= 2; got != tracking {
					t.Errorf("%v tracking=%v: %s keyed %v, %d quads of its colour", size, tracking, k.name, keyed(k.name), drawn(k.col))
				}
			}
		}
		if !tracking {
			continue
		}
		h := &s.hists[0]
		last := h.At(h.Len() - 1)
		v, _ := s.m.Balancers()[0].Target()
		if last.Proposal != int(v.Proposal) || last.Target != 0.7 || last.Metric6 <= 0 {
			t.Errorf("the last sample: proposal %d (the model's %d), target %v, metric sum %d", last.Proposal, v.Proposal, last.Target, last.Metric6)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestAutoscalerChoice: the "more" panel's autoscaler choice restarts the
// run with target tracking and back, by click and by key; the bar's U, D
// and K then say they are unused and refuse a change (as the CLI refuses
// the --set), and target tracking's settings in the panel say so under the
// queue rule.
func TestAutoscalerChoice(t *testing.T) {
	s := drawn(t, 50)
	s.Apply(OpenMore)
	s.Draw(BaseW, BaseH)
	value := func(id string) string { return control(t, s, id).Value }
	if value(WAutoscaler) != "queue" || value("scale-target") != "unused: needs autoscaler target" {
		t.Fatalf("queue rule: autoscaler %q, scale-target %q", value(WAutoscaler), value("scale-target"))
	}
	c := control(t, s, WAutoscaler)
	s.HandleInput(Input{X: c.R.X + c.R.W/2, Y: c.R.Y + c.R.H/2, Pressed: true, Down: true})
	s.HandleInput(Input{Released: true})
	s.Draw(BaseW, BaseH)
	if got := s.m.Config().Autoscaler; got != sim.TargetTracking || s.m.Cycle() != 0 || value(WAutoscaler) != "target" || value("scale-target") != "0.7" {
		t.Fatalf("after a click: autoscaler %v at cycle %d, shown %q, scale-target %q", got, s.m.Cycle(), value(WAutoscaler), value("scale-target"))
	}
	s.Apply(CloseDialog)
	s.Draw(BaseW, BaseH)
	for _, id := range []string{WScaleUp, WScaleDown, WCooldown} {
		if value(id) != "unused (target)" {
			t.Errorf("target tracking: %s shows %q", id, value(id))
		}
	}
	// U under target tracking: refused, as `--set scale-up` is.
	s.focus = slices.IndexFunc(s.controls(), func(w widget) bool { return w.id == WScaleUp })
	s.HandleInput(Input{Keys: []Key{KeyRight}})
	if msg := s.State().Message; len(s.m.Pending()) != 0 || !strings.Contains(msg, "scale-up = 81 refused") {
		t.Errorf("→ on U under target tracking: pending %v, message %q", s.m.Pending(), msg)
	}
	s.Apply(OpenMore)
	s.Draw(BaseW, BaseH)
	s.focus = slices.IndexFunc(s.controls(), func(w widget) bool { return w.id == WAutoscaler })
	s.HandleInput(Input{Keys: []Key{KeyLeft}})
	if got := s.m.Config().Autoscaler; got != sim.QueueRule || value(WAutoscaler) != "queue" {
		t.Errorf("← back: autoscaler %v, shown %q", got, value(WAutoscaler))
	}
}
