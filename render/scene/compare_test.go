package scene

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/lbsim/lbsim/lanes"
	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// compareOptions opens the compare view of variants over three servers of
// speeds 2, 1, 1 with their own queues.
func compareOptions(t *testing.T, variants string) Options {
	t.Helper()
	base := testConfig()
	given := map[string]bool{"seed": true}
	for _, kv := range [][2]string{{"servers", "3"}, {"queues", "per-server"}, {"speeds", "2,1,1"}, {"rate", "0.2"}, {"wave", "false"}, {"cycles", "3000"}} {
		if err := base.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
		given[kv[0]] = true
	}
	vs, err := lanes.ParseVariants(variants)
	if err != nil {
		t.Fatal(err)
	}
	var specs []snapshot.LaneSpec
	for _, v := range vs {
		cfg, err := v.Apply(base, func(n string) bool { return given[n] })
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, snapshot.LaneSpec{Label: v.Label, Config: cfg})
	}
	return Options{Config: specs[0].Config, Lanes: specs, Speed: 600, PauseAt: -1}
}

// laneSummaryAt is `lbsim run` of a lane's settings and changes to cycle.
func laneSummaryAt(t *testing.T, sp snapshot.LaneSpec, cycle int64) string {
	t.Helper()
	cfg := sp.Config.Clone()
	cfg.Cycles = cycle
	m, err := sim.New(cfg)
	if err == nil {
		err = m.Schedule(sp.Changes...)
	}
	if err != nil {
		t.Fatal(err)
	}
	m.Run()
	b, _ := json.Marshal(m.Summary())
	return string(b)
}

func laneJSON(l LaneState) string {
	b, _ := json.Marshal(l.Summary)
	return string(b)
}

// TestCompareLanesAreRuns: each lane of the compare view is the run of
// its settings (the CLI's summary), the lanes see the same requests, and
// an arrival setting changes every lane while a balancer setting changes
// only the focused lane.
func TestCompareLanesAreRuns(t *testing.T) {
	opts := compareOptions(t, "rr:policy=round-robin;p2c:policy=p2c;lc:policy=least-connections")
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.step(400, true)
	st := s.State()
	if len(st.Lanes) != 3 || st.Lanes[0].Label != "rr" || st.Lanes[2].Label != "lc" {
		t.Fatalf("lanes %+v", st.Lanes)
	}
	for i, l := range st.Lanes {
		if got, want := laneJSON(l), laneSummaryAt(t, opts.Lanes[i], 400); got != want {
			t.Errorf("lane %s at 400:\n got %s\nwant %s", l.Label, got, want)
		}
		if l.Summary.Generated != st.Lanes[0].Summary.Generated {
			t.Errorf("lane %s generated %d, lane rr %d: not the same requests", l.Label, l.Summary.Generated, st.Lanes[0].Summary.Generated)
		}
	}
	s.Apply(FocusNextLane) // p2c
	for _, tc := range []struct {
		name, value string
		want        []bool // pending on each lane
	}{
		{"rate", "0.25", []bool{true, true, true}},
		{"task-max", "30", []bool{true, true, true}},
		{"scale-up", "90", []bool{false, true, false}},
		{"cooldown", "7", []bool{false, true, false}},
		{"down", "2", []bool{false, true, false}},
		{"block", "10.0.0.0/8", []bool{true, true, true}}, // one firewall
	} {
		if err := s.Set(tc.name, tc.value); err != nil {
			t.Fatalf("%s=%s: %v", tc.name, tc.value, err)
		}
		for i, l := range s.set.Lanes {
			got := false
			for _, c := range l.Model.Pending() {
				got = got || c.Setting.String() == tc.name
			}
			if got != tc.want[i] {
				t.Errorf("%s=%s: pending on lane %s %v, want %v", tc.name, tc.value, l.Label, got, tc.want[i])
			}
		}
	}
	// The slider of a setting shows the focused lane's value.
	if err := s.Set("cooldown", "9"); err != nil { // replaces the pending 7 on lane p2c only
		t.Fatal(err)
	}
	if v := widgetByID(WCooldown).get(s); v != 9 {
		t.Errorf("cooldown shows %d on the focused lane, want 9", v)
	}
	s.step(100, false)
	for i, l := range s.State().Lanes {
		sp := opts.Lanes[i]
		sp.Changes = s.set.Lanes[i].Model.Changes()
		if got, want := laneJSON(l), laneSummaryAt(t, sp, 500); got != want {
			t.Errorf("lane %s at 500 after the changes:\n got %s\nwant %s", l.Label, got, want)
		}
	}
}

// TestCompareSaveLoadReplay: the compare view saves one comparison
// snapshot, and loading it (or its link) replays every lane to the same
// summaries and says it reproduced.
func TestCompareSaveLoadReplay(t *testing.T) {
	s, err := New(compareOptions(t, "policy=round-robin;policy=p2c"))
	if err != nil {
		t.Fatal(err)
	}
	s.step(300, false)
	if err := s.Set("rate", "0.3"); err != nil {
		t.Fatal(err)
	}
	s.step(300, false)
	want := s.State().Lanes
	data, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.Decode(data); err != snapshot.ErrComparison {
		t.Fatalf("a compare view saves a comparison; Decode says %v", err)
	}
	for _, how := range []string{"file", "link"} {
		r, err := New(Options{Config: testConfig(), Speed: MaxSpeed, PauseAt: -1})
		if err != nil {
			t.Fatal(err)
		}
		if how == "file" {
			err = r.Load(data)
		} else {
			err = r.LoadLink(snapshot.Link("http://x/", data))
		}
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		r.step(1_000, false)
		got := r.State()
		if len(got.Lanes) != 2 || !got.Replaying || !got.Done {
			t.Fatalf("%s: lanes %d replaying %v done %v", how, len(got.Lanes), got.Replaying, got.Done)
		}
		for i := range want {
			if got.Lanes[i].Label != want[i].Label || laneJSON(got.Lanes[i]) != laneJSON(want[i]) {
				t.Errorf("%s: lane %d replayed %s %s, want %s %s", how, i, got.Lanes[i].Label, laneJSON(got.Lanes[i]), want[i].Label, laneJSON(want[i]))
			}
		}
		if got.Message != "replay ended: reproduced exactly (same final state hash)" {
			t.Errorf("%s: %q", how, got.Message)
		}
		// Taking control forks both lanes at the cycle shown.
		r.SeekCycle(200)
		r.Apply(FocusNextLane)
		if err := r.Set("cooldown", "5"); err != nil {
			t.Fatal(err)
		}
		if st := r.State(); st.Replaying || len(st.Lanes) != 2 || st.Cycle != 200 {
			t.Errorf("%s: after the fork replaying %v, %d lanes, cycle %d", how, st.Replaying, len(st.Lanes), st.Cycle)
		}
	}
}

// TestCompareToggle: C opens the compare view beside the next policy of the
// queue mode, and again goes back to one run; both times in place: at the
// cycle shown, paused if it was, with the changes made so far (a server
// taken down) in every lane.
func TestCompareToggle(t *testing.T) {
	cfg := testConfig()
	if err := cfg.Set("queues", "per-server"); err != nil {
		t.Fatal(err)
	}
	cfg.Policy = sim.RoundRobin
	s, err := New(Options{Config: cfg, Speed: 600, PauseAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	s.step(30, false)
	if err := s.Set("down", "2"); err != nil {
		t.Fatal(err)
	}
	s.step(20, false)
	s.Apply(TogglePause)
	hash := s.m.Hash()
	s.HandleInput(Input{Keys: []Key{RuneKey('c')}})
	st := s.State()
	want := sim.Policy(nextPolicy(int64(sim.RoundRobin), 1, sim.PerServer)).String()
	if len(st.Lanes) != 2 || st.Lanes[0].Label != "round-robin" || st.Lanes[1].Label != want {
		t.Fatalf("after C: lanes %+v; want round-robin and %s", st.Lanes, want)
	}
	if st.Cycle != 50 || !st.Paused || st.Hash != hash {
		t.Errorf("after C: cycle %d paused %v hash %x; want the paused run's place, cycle 50, hash %x", st.Cycle, st.Paused, st.Hash, hash)
	}
	for i, l := range s.set.Lanes {
		if ch := l.Model.Changes(); len(ch) != 1 || ch[0].Cycle != 31 || !ch[0].IsFault() {
			t.Errorf("lane %d's changes %v: want the server taken down at cycle 31", i, ch)
		}
	}
	now := clock()
	for range 30 {
		s.Update(now)
	}
	if c := s.State().Cycle; c != 50 {
		t.Errorf("the paused compare view ran on to cycle %d", c)
	}
	s.HandleInput(Input{Keys: []Key{RuneKey('n')}})
	if s.State().Lane != 1 {
		t.Errorf("N focuses lane %d, want 1", s.State().Lane)
	}
	s.HandleInput(Input{Keys: []Key{RuneKey('c')}})
	if st := s.State(); len(st.Lanes) != 0 || st.Config.Policy.String() != want || st.Cycle != 50 || !st.Paused || len(st.Changes) != 1 {
		t.Errorf("after C again: %d lanes, policy %s, cycle %d, paused %v, changes %v; want one run of the focused lane's %s, paused at 50 with its change",
			len(st.Lanes), st.Config.Policy, st.Cycle, st.Paused, st.Changes, want)
	}
}

// BenchmarkFrameLanes measures the scene's work per frame (Update and
// building the frame) of one lane and of two lanes at the same speed:
// ten servers with their own queues at 600 cycles per second.
func BenchmarkFrameLanes(b *testing.B) {
	cfg := testConfig()
	if err := cfg.Set("queues", "per-server"); err != nil {
		b.Fatal(err)
	}
	cfg.Policy, cfg.Cycles = sim.RoundRobin, 1_000_000_000
	p2c := cfg.Clone()
	p2c.Policy = sim.P2C
	for _, tc := range []struct {
		name  string
		lanes []snapshot.LaneSpec
	}{
		{"one", nil},
		{"two", []snapshot.LaneSpec{{Label: "rr", Config: cfg}, {Label: "p2c", Config: p2c}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := New(Options{Config: cfg, Lanes: tc.lanes, Speed: 600, PauseAt: -1})
			if err != nil {
				b.Fatal(err)
			}
			now := clock()
			for b.Loop() {
				s.Update(now)
				s.Draw(1280, 720)
				s.FrameDrawn()
			}
		})
	}
}

// FuzzLoad feeds any bytes to Load and LoadLink: a snapshot of one run or
// of a comparison replays, anything else is refused with an error, never a
// panic, and the run on screen goes on.
func FuzzLoad(f *testing.F) {
	c, err := snapshot.RecordComparison([]snapshot.LaneSpec{
		{Label: "a", Config: smallConfig()}, {Label: "b", Config: smallConfig()}})
	if err != nil {
		f.Fatal(err)
	}
	data, err := snapshot.EncodeComparison(c)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	one, err := snapshot.Encode(c.Lanes[0].Snapshot)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(one)
	f.Add([]byte("not a snapshot"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := New(Options{Config: smallConfig(), Speed: 600, PauseAt: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, load := range []func() error{
			func() error { return s.Load(data) },
			func() error { return s.LoadLink(snapshot.Link("http://x/", data)) },
		} {
			if err := load(); err != nil {
				if s.State().Error == "" {
					t.Errorf("refused (%v) without an error for the hook", err)
				}
				continue
			}
			if !s.State().Replaying {
				t.Error("loaded, not replaying")
			}
			s.step(3, true)
			s.Draw(640, 360)
		}
	})
}

// smallConfig is a short run for the fuzzer.
func smallConfig() sim.Config {
	c := testConfig()
	c.Cycles = 200
	return c
}

// TestMenuOpensComparisons: the lessons menu lists the ready-made
// comparisons, and choosing one opens its compare view.
func TestMenuOpensComparisons(t *testing.T) {
	asked := ""
	s, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: -1,
		Comparison: func(name string) (Options, error) {
			asked = name
			return compareOptions(t, "rr:policy=round-robin;p2c:policy=p2c"), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	s.Draw(1280, 720)
	s.Apply(OpenLessons)
	tab := control(t, s, WTopicPrefix+lesson.TopicComparisons.String())
	s.HandleInput(Input{X: tab.R.X + 2, Y: tab.R.Y + 2, Pressed: true, Down: true})
	s.HandleInput(Input{Released: true})
	s.Draw(1280, 720)
	var ids []string
	for _, c := range s.State().Controls {
		ids = append(ids, c.ID)
	}
	for _, c := range lesson.Comparisons {
		i := slices.Index(ids, WComparisonPrefix+c.Name)
		if i < 0 {
			t.Fatalf("the menu %v has no entry for comparison %s", ids, c.Name)
		}
		if c.Name != lesson.Comparisons[0].Name {
			continue
		}
		r := s.State().Controls[i].R
		s.HandleInput(Input{X: r.X + r.W/2, Y: r.Y + r.H/2, Pressed: true, Down: true})
	}
	if st := s.State(); asked != lesson.Comparisons[0].Name || len(st.Lanes) != 2 || s.dialog != dialogNone {
		t.Errorf("clicked %s: asked %q, %d lanes, dialog %d", lesson.Comparisons[0].Name, asked, len(st.Lanes), s.dialog)
	}
}
