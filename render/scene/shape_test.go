package scene

import (
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestShapeControls picks each shape with a parameter through the
// controls (the shape's choice, then its parameter's, by keyboard), and
// checks the restarted run: the shape and parameter are set in every lane
// of the compare view (the lanes share the request stream), the parameter
// shows its symbol, and the run is `lbsim run` with the same settings.
func TestShapeControls(t *testing.T) {
	for _, tc := range []struct {
		shape sim.Service
		text  string // the parameter's value after one →
		set   [2]string
	}{
		{sim.Lognormal, "cv 2", [2]string{"service-cv", "2"}},
		{sim.Pareto, "α 2", [2]string{"service-shape", "2"}},
		{sim.Bimodal, "p 0.05", [2]string{"long-share", "0.05"}},
	} {
		s, err := New(compareOptions(t, "rr:policy=round-robin;lc:policy=least-connections"))
		if err != nil {
			t.Fatal(err)
		}
		s.Draw(BaseW, BaseH)
		ws := s.controls()
		pick := func(id string) {
			s.focus = slices.IndexFunc(ws, func(w widget) bool { return w.id == id })
			s.HandleInput(Input{Keys: []Key{KeyRight}})
		}
		if v := s.valueText(slices.IndexFunc(ws, func(w widget) bool { return w.id == WShapeParam }), shapeParamWidget); v != "none" {
			t.Errorf("uniform: the parameter shows %q", v)
		}
		for n := 0; s.focused().Config().Service != tc.shape; n++ {
			if n > len(sim.ServiceNames()) {
				t.Fatalf("→ on the shape never reaches %v: at %v, message %q", tc.shape, s.focused().Config().Service, s.message)
			}
			if s.focused().Config().Service == sim.Empirical {
				t.Fatal("the selector offers empirical without its values")
			}
			pick(WService)
		}
		pick(WShapeParam)
		if v := s.valueText(s.focus, shapeParamWidget); v != tc.text {
			t.Errorf("%v: the parameter shows %q, want %q", tc.shape, v, tc.text)
		}
		want := s.start[0].Config
		if err := want.Set(tc.set[0], tc.set[1]); err != nil {
			t.Fatal(err)
		}
		for i, l := range s.start {
			if l.Config.Service != tc.shape || l.Config.Shape().String() != want.Shape().String() {
				t.Errorf("%v: lane %d has %s, want %s", tc.shape, i, l.Config.Shape(), want.Shape())
			}
		}
		s.step(500, true)
		st := s.State()
		if got, cli := laneJSON(st.Lanes[1]), laneSummaryAt(t, s.start[1], 500); got != cli {
			t.Errorf("%v: lane 1 at cycle 500\n page %s\n  CLI %s", tc.shape, got, cli)
		}
		if st.Lanes[0].Summary.Generated != st.Lanes[1].Summary.Generated {
			t.Errorf("%v: the lanes generated %d and %d requests", tc.shape, st.Lanes[0].Summary.Generated, st.Lanes[1].Summary.Generated)
		}
	}
}

// TestLongRequestIsLonger draws servers serving lognormal requests of cv
// 10: a request of at least 8 times the mean is drawn at least twice as
// long as a box of a request, one near the mean as one box.
func TestLongRequestIsLonger(t *testing.T) {
	cfg := testConfig()
	for _, kv := range [][2]string{{"service", "lognormal"}, {"service-cv", "10"}, {"mean-service", "20"}, {"servers", "4"},
		{"min-servers", "4"}, {"max-servers", "4"}, {"wave", "false"}, {"rate", "0.1"}} {
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Options{Config: cfg, Speed: 600, PauseAt: 0})
	if err != nil {
		t.Fatal(err)
	}
	tallest := func(f *Frame, box Rect, col func(Quad) bool) float32 {
		var h float32
		for _, q := range f.Layers[SceneLayer].Quads {
			if col(q) && box.Contains(Rect{q.P[0].X, q.P[0].Y, 0, 0}) {
				h = max(h, q.P[2].Y-q.P[0].Y)
			}
		}
		return h
	}
	long, short := false, false
	for c := 0; c < 20_000 && !(long && short); c++ {
		s.step(1, true)
		f := s.Draw(BaseW, BaseH)
		l := f.Layout
		_, g := s.laneGeom(l, 0, s.shown()[0])
		i := 0
		for v := range s.m.Balancers()[0].Servers() {
			box := g.BoxAt(i)
			i++
			if v.State != sim.Busy {
				continue
			}
			d := box.W * 0.2
			h := tallest(f, box, func(q Quad) bool { return q.C == RequestColor(v.Request.Type) })
			switch {
			case v.Request.Time >= 8*20:
				long = true
				if h < 1.5*d {
					t.Fatalf("cycle %d: server %d serves a request of %d cycles (mean 20), drawn %.1f px tall, a box is %.1f", s.m.Cycle(), v.ID, v.Request.Time, h, d)
				}
			case v.Request.Time <= 20 && v.Request.Type != sim.Streaming:
				short = true
				if h > 1.1*d {
					t.Fatalf("cycle %d: server %d serves a request of %d cycles, drawn %.1f px tall, a box is %.1f", s.m.Cycle(), v.ID, v.Request.Time, h, d)
				}
			}
		}
	}
	if !long || !short {
		t.Fatalf("in 20,000 cycles: a long request %v, a short one %v", long, short)
	}
}
