package lanes

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

func TestParseVariant(t *testing.T) {
	all := func(string) bool { return true }
	for _, c := range []struct {
		in    string
		label string
		sets  [][2]string
	}{
		{"policy=p2c", "policy=p2c", [][2]string{{"policy", "p2c"}}},
		{"fast:speeds=2,1,1,policy=least-work", "fast", [][2]string{{"speeds", "2,1,1"}, {"policy", "least-work"}}},
		{"a b: policy = p2c , choices=3", "a b", [][2]string{{"policy", "p2c"}, {"choices", "3"}}},
		{"set=500:rate=0.9", "set=500:rate=0.9", [][2]string{{"set", "500:rate=0.9"}}},
	} {
		v, err := ParseVariant(c.in, all)
		if err != nil || v.Label != c.label || !slices.Equal(v.Sets, c.sets) {
			t.Errorf("ParseVariant(%q) = %+v, %v; want %q %v", c.in, v, err, c.label, c.sets)
		}
	}
	for _, bad := range []string{"x:", ":a=b", "a", "x:,", "x:=3"} {
		if v, err := ParseVariant(bad, func(n string) bool { return n != "" }); err == nil {
			t.Errorf("ParseVariant(%q) = %+v, accepted", bad, v)
		}
	}
}

func TestParseVariants(t *testing.T) {
	vs, err := ParseVariants("policy=round-robin;p2c:policy=p2c,choices=3")
	if err != nil || len(vs) != 2 || vs[1].Label != "p2c" {
		t.Fatalf("ParseVariants = %+v, %v", vs, err)
	}
	for _, c := range []struct{ in, want string }{
		{"policy=p2c", "want 2 to 4 lanes"},
		{"a:policy=p2c;a:policy=random", "taken"},
		{"seed=3;policy=p2c", `"seed" is not a setting`},
		{"rate=1;rate=2;rate=3;rate=4;rate=0.5", "want 2 to 4 lanes"},
		{"colour=blue;policy=p2c", `"colour" is not a setting`},
	} {
		if _, err := ParseVariants(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseVariants(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzParseVariant(f *testing.F) {
	for _, s := range []string{"policy=p2c", "fast:speeds=2,1,1,policy=least-work", "x:", ":a=b", "a=b,c", ",,,", "set=1:rate=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVariant(s, func(string) bool { return true })
		if err != nil {
			return
		}
		if v.Label == "" || len(v.Sets) == 0 {
			t.Fatalf("ParseVariant(%q) = %+v: accepted without a label or a setting", s, v)
		}
		for _, kv := range v.Sets {
			if strings.Contains(kv[0], "=") {
				t.Fatalf("ParseVariant(%q): name %q holds '='", s, kv[0])
			}
		}
		if _, err := ParseVariants(s + ";" + s); err == nil {
			t.Fatalf("ParseVariants accepted one label twice: %q", s)
		}
	})
}

// twoLanes builds round-robin and least-connections over speeds 2, 1, 1.
func twoLanes(t *testing.T) (*Set, []snapshot.LaneSpec) {
	t.Helper()
	base := sim.DefaultConfig()
	base.Seed, base.Cycles, base.Queues, base.Speeds = 8, 2000, sim.PerServer, []sim.Speed{200, 100, 100}
	vs, err := ParseVariants("rr:policy=round-robin;lc:policy=least-connections")
	if err != nil {
		t.Fatal(err)
	}
	var specs []snapshot.LaneSpec
	for _, v := range vs {
		cfg, err := v.Apply(base, func(string) bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, snapshot.LaneSpec{Label: v.Label, Config: cfg})
	}
	s, err := New(specs)
	if err != nil {
		t.Fatal(err)
	}
	return s, specs
}

// TestLanesStepTogether: an arrival change goes to every lane, a balancer
// change to its lane; each lane is exactly the run of its configuration
// and changes, and the lanes see the same requests.
func TestLanesStepTogether(t *testing.T) {
	s, specs := twoLanes(t)
	for s.Cycle() < 500 {
		s.Step()
	}
	rate := sim.Change{Cycle: 600, Setting: sim.SetRate, Value: 800_000}
	up := sim.Change{Cycle: 700, Setting: sim.SetScaleUp, Value: 60_000}
	if err := s.Schedule(rate, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Schedule(up, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Schedule(sim.Change{Cycle: 800, Setting: sim.SetScaleDown, Value: 90_000}, 0); err == nil {
		t.Error("a scale-down above scale-up was accepted")
	}
	for s.Step() {
	}
	want := [][]sim.Change{{rate}, {rate, up}}
	for i, l := range s.Lanes {
		m, err := sim.New(specs[i].Config)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Schedule(want[i]...); err != nil {
			t.Fatal(err)
		}
		m.Run()
		if got := l.Model.Summary(); !reflect.DeepEqual(got, m.Summary()) {
			t.Errorf("lane %s: %+v\nthe run of its config and changes: %+v", l.Label, got, m.Summary())
		}
		if !slices.Equal(l.Model.Changes(), want[i]) {
			t.Errorf("lane %s took changes %v, want %v", l.Label, l.Model.Changes(), want[i])
		}
	}
	a, b := s.Lanes[0].Model.Summary(), s.Lanes[1].Model.Summary()
	if a.Generated != b.Generated || a.Rejected != b.Rejected {
		t.Errorf("generated %d/%d rejected %d/%d: the lanes saw different requests", a.Generated, b.Generated, a.Rejected, b.Rejected)
	}
	c, err := s.Comparison()
	if err != nil {
		t.Fatal(err)
	}
	data, err := snapshot.EncodeComparison(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := snapshot.DecodeComparison(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.VerifyComparison(back); err != nil {
		t.Errorf("the recorded comparison does not replay: %v", err)
	}
}

func TestScheduleRefusesABadLane(t *testing.T) {
	s, _ := twoLanes(t)
	if err := s.Schedule(sim.Change{Cycle: 5, Setting: sim.SetRate, Value: 1}, 7); err == nil {
		t.Error("lane 8 of 2 was accepted")
	}
	if err := s.Schedule(sim.Change{Cycle: 5, Setting: sim.SetTaskMin, Value: 500}, 0); err == nil {
		t.Error("task-min above task-max was accepted")
	}
	for _, l := range s.Lanes {
		if len(l.Model.Pending()) != 0 {
			t.Errorf("lane %s holds %v after refusals", l.Label, l.Model.Pending())
		}
	}
}
