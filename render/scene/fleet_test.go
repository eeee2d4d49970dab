package scene

import (
	"fmt"
	"strings"
	"testing"
)

// TestTheoryPanelFleet: with a fleet reading stale or partial loads the
// theory panel says no closed form applies to a load-reading policy, and
// keeps the models that still hold: random routing's c × M/M/1 for any
// number of balancers, p2c's supermarket model with exact loads.
func TestTheoryPanelFleet(t *testing.T) {
	lines := func(kvs ...string) []string {
		t.Helper()
		cfg := testConfig()
		base := []string{"wave", "false", "service", "geometric", "mean-service", "20", "scale-up", "100000",
			"scale-down", "0", "rate", "0.4", "block", "none", "min-servers", "10", "max-servers", "10", "queues", "per-server"}
		kvs = append(base, kvs...)
		for i := 0; i < len(kvs); i += 2 {
			if err := cfg.Set(kvs[i], kvs[i+1]); err != nil {
				t.Fatal(kvs[i:i+2], err)
			}
		}
		s, err := New(Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		return s.TheoryLines()
	}
	noForm := func(ls []string) bool { return len(ls) == 2 && strings.HasPrefix(ls[1], "no closed form: ") }
	for _, c := range []struct {
		kvs  []string
		want string // "none": no closed form; else a text of the first line
	}{
		{[]string{"policy", "least-connections", "balancers", "20", "load-info", "local"}, "none"},
		{[]string{"policy", "p2c", "balancers", "20", "load-info", "local"}, "none"},
		{[]string{"policy", "p2c", "balancers", "1", "load-info", "periodic:100"}, "none"},
		{[]string{"policy", "least-connections", "balancers", "4", "load-info", "periodic:50"}, "none"},
		{[]string{"policy", "random", "balancers", "20"}, "c × M/M/1"},
		{[]string{"policy", "p2c", "balancers", "20"}, "supermarket"},
		{[]string{"policy", "p2c", "balancers", "20", "choices", "1", "load-info", "local"}, "c × M/M/1"},
		{[]string{"policy", "least-connections", "balancers", "1", "load-info", "local"}, "bounds"}, // one balancer: local is exact
	} {
		ls := lines(c.kvs...)
		switch {
		case c.want == "none":
			if !noForm(ls) || !strings.Contains(ls[1], "stale loads") {
				t.Errorf("%v: want no closed form, got %q", c.kvs, ls)
			}
		case c.want == "bounds":
			if len(ls) < 2 || ls[1] != "\tbounds\tmeasured" {
				t.Errorf("%v: want the bounds of one balancer, got %q", c.kvs, ls)
			}
		case noForm(ls) || !strings.Contains(ls[0], c.want):
			t.Errorf("%v: want %s, got %q", c.kvs, c.want, ls)
		}
	}
}

// fleetSession is a paused per-server run of ten servers behind k
// balancers reading info, stepped to cycle at and drawn at w×h.
func fleetSession(t *testing.T, k int, info string, at int64, w, h int) *Session {
	t.Helper()
	kvs := []string{"wave", "false", "service", "geometric", "mean-service", "20", "rate", "0.4", "block", "none",
		"min-servers", "10", "max-servers", "10", "initial-per-server", "0", "queues", "per-server", "policy", "least-connections",
		"balancers", fmt.Sprint(k)}
	if info != "" {
		kvs = append(kvs, "load-info", info)
	}
	return drawnAt(t, Options{Config: configWith(t, kvs...), Speed: 600, PauseAt: at}, w, h)
}

// click presses and releases the pointer at the centre of r.
func click(s *Session, r Rect) {
	c := r.Center()
	s.HandleInput(Input{X: c.X, Y: c.Y, Pressed: true, Down: true})
	s.HandleInput(Input{X: c.X, Y: c.Y, Released: true})
}

// frameTexts returns the scene's texts of a frame.
func frameTexts(f *Frame) []string {
	var out []string
	for _, x := range f.Layers[SceneLayer].Texts {
		out = append(out, x.S)
	}
	return out
}

// TestFleetGates: one balancer draws no gate and V says there is no
// fleet; 20 draw eight, "1" to "7" and "+13", in a column between the
// firewall and the servers, and a request flies from its balancer's gate
// (balancers 8 to 20 from "+13").
func TestFleetGates(t *testing.T) {
	one := fleetSession(t, 1, "", 200, BaseW, BaseH)
	if st := one.State(); len(st.Gates) != 0 {
		t.Errorf("one balancer: gates %v", st.Gates)
	}
	one.HandleInput(Input{Keys: []Key{RuneKey('v')}})
	if st := one.State(); len(st.Gates) != 0 || !strings.Contains(st.Message, "no fleet") {
		t.Errorf("one balancer, V: gates %v, message %q", st.Gates, st.Message)
	}
	for _, size := range [][2]int{{BaseW, BaseH}, {1920, 1080}, {1024, 768}} {
		s := fleetSession(t, 20, "local", 200, size[0], size[1])
		st := s.State()
		if len(st.Gates) != MaxGates {
			t.Fatalf("%v: %d gates, want %d", size, len(st.Gates), MaxGates)
		}
		l := s.layout(size[0], size[1])
		pool := st.Servers[0].R
		for i, g := range st.Gates {
			if want := fmt.Sprint(i + 1); i == 7 {
				want = "+13"
				if g.Value != want {
					t.Errorf("%v: the last gate reads %q, want %q", size, g.Value, want)
				}
			} else if g.Value != want || g.ID != "gate:"+want {
				t.Errorf("%v: gate %d is %s %q", size, i, g.ID, g.Value)
			}
			if g.R.X < l.Gate.X+l.Gate.W || g.R.X+g.R.W > pool.X || g.R.W < 8 || g.R.H < 8 {
				t.Errorf("%v: gate %v not between the firewall (right edge %v) and the servers (from %v)", size, g.R, l.Gate.X+l.Gate.W, pool.X)
			}
			for j, o := range st.Gates[:i] {
				if g.R.Overlaps(o.R) {
					t.Errorf("%v: gates %d and %d overlap", size, i, j)
				}
			}
		}
		for _, v := range st.Servers {
			for _, g := range st.Gates {
				if g.R.Overlaps(v.R) {
					t.Errorf("%v: gate %s over server %s", size, g.ID, v.ID)
				}
			}
		}
		lane, _ := s.laneGeom(l, 0, s.shown()[0])
		for _, c := range []struct{ member, gate int }{{0, 0}, {6, 6}, {7, 7}, {19, 7}} {
			fl := flight{kind: flyDispatch, member: c.member}
			if got, want := s.gateFrom(&fl, lane, Point{}, l.T), st.Gates[c.gate].R.Center(); got != want {
				t.Errorf("%v: balancer %d flies from %v, want gate %d's centre %v", size, c.member+1, got, c.gate+1, want)
			}
		}
		for _, o := range overlaps(s.Draw(size[0], size[1])) {
			t.Errorf("%v: %s", size, o)
		}
	}
	// Four balancers: four gates, numbered, the last not "+N".
	if st := fleetSession(t, 4, "local", 10, BaseW, BaseH).State(); len(st.Gates) != 4 || st.Gates[3].Value != "4" {
		t.Errorf("four balancers: gates %v", st.Gates)
	}
}

// TestFleetAnimation: in a fleet every request routed at arrival flies
// with its attempt's balancer, and some from the "+N" gate.
func TestFleetAnimation(t *testing.T) {
	s := fleetSession(t, 20, "local", 50, BaseW, BaseH)
	s.setSpeed(20) // slow enough for requests to fly
	s.Apply(TogglePause)
	now := clock()
	members := map[int]bool{}
	for range 200 {
		s.Update(now)
		for _, fl := range s.anim.flights {
			if fl.kind == flyDispatch {
				members[fl.member] = true
			}
		}
	}
	beyond := 0 // balancers 8 to 20, flying from "+13"
	for m := range members {
		if GateOf(m, 20) == MaxGates-1 {
			beyond++
		}
	}
	if len(members) < 10 || beyond < 3 {
		t.Errorf("balancers of the flights: %v", members)
	}
}

// TestFleetBeliefs: a click on a gate shows on every server what its
// balancer believes the load to be beside the truth, the key names the
// balancer; a click again, or Esc, hides them; V walks the gates; with a
// periodic board the key gives its age.
func TestFleetBeliefs(t *testing.T) {
	s := fleetSession(t, 20, "local", 300, BaseW, BaseH)
	st := s.State()
	click(s, st.Gates[2].R)
	st = s.State()
	if st.Gates[2].Value != "3,selected" {
		t.Fatalf("after a click on gate 3: %v", st.Gates)
	}
	f := s.Draw(BaseW, BaseH)
	texts := strings.Join(frameTexts(f), "\n")
	b := s.shown()[0].b
	n := 0
	for v := range b.Servers() {
		think, ok := b.Belief(2, v.ID)
		if !ok {
			t.Fatalf("no belief of balancer 3 about server %d", v.ID)
		}
		if !strings.Contains(texts, "thinks "+Commas(think)) {
			t.Errorf("server %d: no %q in the frame", v.ID, "thinks "+Commas(think))
		}
		if strings.Contains(texts, "load "+Commas(load(v))+" · ") || strings.Contains(texts, Commas(load(v))+" · ") {
			n++
		}
	}
	if n == 0 || !strings.Contains(texts, "balancer 3 of 20") {
		t.Errorf("the truth beside the beliefs, and the key: %q", texts)
	}
	for _, o := range overlaps(f) {
		t.Error(o)
	}
	click(s, st.Gates[2].R)
	if st = s.State(); strings.Contains(strings.Join(frameTexts(s.Draw(BaseW, BaseH)), "\n"), "thinks") || st.Gates[2].Value != "3" {
		t.Errorf("a second click: %v", st.Gates)
	}
	s.HandleInput(Input{Keys: []Key{RuneKey('v'), RuneKey('v')}})
	if st = s.State(); st.Gates[1].Value != "2,selected" {
		t.Errorf("V twice: %v", st.Gates)
	}
	s.HandleInput(Input{Keys: []Key{KeyEscape}})
	if st = s.State(); st.Gates[1].Value != "2" || len(s.caption) != len(s.opts.Caption) {
		t.Errorf("Esc: %v", st.Gates)
	}

	p := fleetSession(t, 4, "periodic:100", 250, BaseW, BaseH)
	p.HandleInput(Input{Keys: []Key{RuneKey('v')}})
	at, ok := p.shown()[0].b.BoardAt()
	texts = strings.Join(frameTexts(p.Draw(BaseW, BaseH)), "\n")
	if want := fmt.Sprintf("board %d cycles old", p.m.Cycle()-at); !ok || !strings.Contains(texts, want) {
		t.Errorf("periodic board refreshed at %d (%v): no %q in %q", at, ok, want, texts)
	}
}
