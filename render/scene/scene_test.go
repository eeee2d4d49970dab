package scene

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

func TestGridFits1To500ServersAt720p(t *testing.T) {
	l := NewLayout(1280, 720, 1)
	area := l.Lanes[0].Pool
	for n := 1; n <= 500; n++ {
		g := NewGrid(area, n, l.Unit)
		if g.Cols*g.Rows < n {
			t.Fatalf("n=%d: grid %dx%d holds fewer boxes", n, g.Cols, g.Rows)
		}
		if g.Box < 8 {
			t.Fatalf("n=%d: box %.1f px is too small to see", n, g.Box)
		}
		if g.Box > MaxCellUnits*l.Unit {
			t.Fatalf("n=%d: box %.1f px larger than the cap", n, g.Box)
		}
		prev := Rect{}
		for i := range n {
			r := g.BoxAt(i)
			if !area.Contains(r) {
				t.Fatalf("n=%d: box %d %+v outside the pool %+v", n, i, r, area)
			}
			if i > 0 && r.Overlaps(prev) {
				t.Fatalf("n=%d: boxes %d and %d overlap", n, i-1, i)
			}
			prev = r
		}
	}
}

func TestLayoutPartsDoNotOverlap(t *testing.T) {
	for _, sz := range [][2]int{{1280, 720}, {2560, 1440}, {1920, 1080}, {800, 600}, {1280, 1024}} {
		for _, nb := range []int{1, 2} {
			l := NewLayout(sz[0], sz[1], nb)
			screen := Rect{0, 0, l.W, l.H}
			parts := []Rect{l.HUD, l.Gate, l.Charts[0], l.Charts[1], l.Footer}
			for _, ln := range l.Lanes {
				parts = append(parts, ln.Queue, ln.Pool)
			}
			for i, a := range parts {
				if !screen.Contains(a) || a.W <= 0 || a.H <= 0 {
					t.Errorf("%v/%d: part %d %+v not on screen", sz, nb, i, a)
				}
				for j := i + 1; j < len(parts); j++ {
					if a.Overlaps(parts[j]) {
						t.Errorf("%v/%d: parts %d %+v and %d %+v overlap", sz, nb, i, a, j, parts[j])
					}
				}
			}
			// Left to right: gate, queue, pool.
			for _, ln := range l.Lanes {
				if !(l.Gate.X+l.Gate.W <= ln.Queue.X && ln.Queue.X+ln.Queue.W <= ln.Pool.X) {
					t.Errorf("%v/%d: gate, queue and pool are not left to right", sz, nb)
				}
			}
		}
	}
}

func TestQueueCompression(t *testing.T) {
	l := NewLayout(1280, 720, 1)
	area := l.Lanes[0].Queue
	full := NewQueue(area, 0, l.Unit)
	capacity := full.Rows * full.Cols
	if capacity < 300 {
		t.Fatalf("queue shows only %d slots at 720p", capacity)
	}
	for _, n := range []int{0, 1, 7, capacity, capacity + 1, 2000, 100_000} {
		q := NewQueue(area, n, l.Unit)
		if q.Shown+q.Hidden != n {
			t.Errorf("n=%d: shown %d + hidden %d", n, q.Shown, q.Hidden)
		}
		if (n > capacity) != (q.Hidden > 0) {
			t.Errorf("n=%d: hidden %d with %d slots", n, q.Hidden, capacity)
		}
		if q.Hidden > 0 && (!area.Contains(q.Block) || q.Block.W < 60*l.Unit) {
			t.Errorf("n=%d: compressed block %+v", n, q.Block)
		}
		for i := range q.Shown {
			r := q.SlotAt(i)
			if !area.Contains(r) {
				t.Fatalf("n=%d: slot %d %+v outside %+v", n, i, r, area)
			}
			if q.Hidden > 0 && r.Overlaps(q.Block) {
				t.Fatalf("n=%d: slot %d overlaps the block", n, i)
			}
		}
		if n > 1 && q.SlotAt(0).X < q.SlotAt(q.Shown-1).X {
			t.Errorf("n=%d: the front is not at the right", n)
		}
	}
}

func TestColoursByState(t *testing.T) {
	seen := map[[4]uint8]sim.ServerState{}
	shapes := map[Shape]bool{}
	for _, st := range []sim.ServerState{sim.Idle, sim.Busy, sim.Retiring} {
		c, sh := ServerLook(st)
		k := [4]uint8{c.R, c.G, c.B, c.A}
		if prev, ok := seen[k]; ok {
			t.Errorf("%v and %v share colour %v", prev, st, c)
		}
		seen[k] = st
		shapes[sh] = true
	}
	if len(shapes) != 3 {
		t.Errorf("states share shapes: %v", shapes)
	}
	if RequestColor(sim.Processing) == RequestColor(sim.Streaming) {
		t.Error("P and S requests have the same colour")
	}
	if c, _ := ServerLook(sim.Busy); c != BusyColor {
		t.Errorf("busy colour %v", c)
	}
}

func TestPacerIsExact(t *testing.T) {
	for _, sp := range Ladder() {
		if sp == MaxSpeed {
			continue
		}
		p := Pacer{Speed: sp}
		var total int64
		for range 3 * TPS {
			total += p.Tick()
		}
		if total != 3*sp {
			t.Errorf("speed %d: %d cycles in 3 s", sp, total)
		}
	}
	p := Pacer{Speed: 1}
	for i := range TPS - 1 {
		if p.Tick() != 0 {
			t.Fatalf("1 cycle/s stepped at tick %d", i)
		}
		if f := p.Frac(); f <= 0 || f >= 1 {
			t.Fatalf("frac %v", f)
		}
	}
	if p.Tick() != 1 || p.Frac() != 0 {
		t.Fatal("1 cycle/s did not step at the 60th tick")
	}
}

func TestSpeedLadder(t *testing.T) {
	s := int64(1)
	steps := 0
	for s != MaxSpeed {
		n := SpeedUp(s)
		if n != MaxSpeed && n <= s {
			t.Fatalf("SpeedUp(%d) = %d", s, n)
		}
		s = n
		steps++
	}
	if SpeedUp(MaxSpeed) != MaxSpeed || SlowDown(1) != 1 {
		t.Error("the ladder does not stop at its ends")
	}
	for range steps {
		s = SlowDown(s)
	}
	if s != 1 {
		t.Errorf("down the ladder ends at %d", s)
	}
	if SlowDown(7) != 5 || SpeedUp(7) != 10 {
		t.Errorf("off-ladder speed 7: down %d up %d", SlowDown(7), SpeedUp(7))
	}
	if max := Ladder()[len(Ladder())-2]; max/TPS < 1000 {
		t.Errorf("the fastest fixed speed is only %d cycles per frame", max/TPS)
	}
}

func TestBudgetSyntheticClock(t *testing.T) {
	b := NewBudget()
	now := time.Duration(0)
	first := b.Start(now)
	if first < b.Min || first > b.Max {
		t.Fatalf("first budget %v", first)
	}
	// A frame whose drawing takes 10 ms of jittery wall time: stepping
	// gets about 4× that, within bounds.
	for i := range 50 {
		now += b.cur
		b.End(now)
		now += 10*time.Millisecond + time.Duration(i%3)*time.Millisecond
		got := b.Start(now)
		if got < 35*time.Millisecond || got > 50*time.Millisecond {
			t.Fatalf("frame %d: budget %v", i, got)
		}
	}
	now += b.cur
	b.End(now)
	now += time.Second // a very slow frame
	if got := b.Start(now); got != b.Max {
		t.Errorf("slow frame: budget %v, want the cap %v", got, b.Max)
	}
}

func testConfig() sim.Config {
	c := sim.DefaultConfig()
	c.Seed = 42
	c.Servers = 10
	c.MaxServers = sim.DefaultMaxServers(10)
	return c
}

// configWith returns testConfig with the settings kvs (name, value,
// name, value, …) set, in order.
func configWith(t *testing.T, kvs ...string) sim.Config {
	t.Helper()
	cfg := testConfig()
	for i := 0; i+1 < len(kvs); i += 2 {
		if err := cfg.Set(kvs[i], kvs[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

// mustChanges parses each change (CYCLE:SETTING=VALUE), failing the test
// on an error.
func mustChanges(t *testing.T, specs ...string) []sim.Change {
	t.Helper()
	var chs []sim.Change
	for _, c := range specs {
		ch, err := sim.ParseChange(c)
		if err != nil {
			t.Fatal(err)
		}
		chs = append(chs, ch)
	}
	return chs
}

// recorded returns the encoded snapshot of cfg run with changes, failing
// the test when recording or encoding does.
func recorded(t *testing.T, cfg sim.Config, changes []sim.Change) []byte {
	t.Helper()
	snap, err := snapshot.Record(cfg, changes)
	if err != nil {
		t.Fatal(err)
	}
	data, err := snapshot.Encode(snap)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// mustNew returns the session of opts, failing the test when New does.
func mustNew(t *testing.T, opts Options) *Session {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// running returns a running session of cfg at speed 600 with the changes
// chs.
func running(t *testing.T, cfg sim.Config, chs ...sim.Change) *Session {
	t.Helper()
	return mustNew(t, Options{Config: cfg, Speed: 600, PauseAt: -1, Changes: chs})
}

func clock() func() time.Duration {
	var t time.Duration
	return func() time.Duration { t += time.Millisecond; return t }
}

func summaryAt(t *testing.T, cfg sim.Config, cycle int64) string {
	t.Helper()
	cfg.Cycles = cycle
	m, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Run()
	b, _ := json.Marshal(m.Summary())
	return string(b)
}

func TestPauseStepAndPauseAt(t *testing.T) {
	now := clock()
	s, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: 123})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		s.Update(now)
		if s.m.Cycle() > 123 {
			t.Fatalf("passed pause-at: cycle %d", s.m.Cycle())
		}
	}
	st := s.State()
	if st.Cycle != 123 || !st.Paused {
		t.Fatalf("pause-at 123: cycle %d paused %v", st.Cycle, st.Paused)
	}
	for range 10 {
		s.Update(now)
	}
	if s.m.Cycle() != 123 {
		t.Fatal("a paused session advanced")
	}
	s.Apply(StepOne)
	if s.m.Cycle() != 124 || !s.Paused() {
		t.Fatalf("→ went to %d", s.m.Cycle())
	}
	b, _ := json.Marshal(s.State().Summary)
	if got, want := string(b), summaryAt(t, testConfig(), 124); got != want {
		t.Errorf("summary at 124:\n got %s\nwant %s", got, want)
	}
	s.Apply(TogglePause)
	s.Update(now)
	if s.m.Cycle() != 134 {
		t.Errorf("600 cycles/s stepped to %d in one tick, want 134", s.m.Cycle())
	}
	s.Apply(Restart)
	if s.m.Cycle() != 0 || s.hists[0].Len() > 1 {
		t.Error("restart did not go back to cycle 0")
	}
}

func TestPauseAtZero(t *testing.T) {
	s, _ := New(Options{Config: testConfig(), Speed: 5, PauseAt: 0})
	s.Update(clock())
	if st := s.State(); st.Cycle != 0 || !st.Paused {
		t.Errorf("pause-at 0: %+v", st)
	}
}

func TestFastForwardStopsAtTheEnd(t *testing.T) {
	cfg := testConfig()
	cfg.Cycles = 5000
	s, _ := New(Options{Config: cfg, Speed: MaxSpeed, PauseAt: -1})
	now := clock()
	for range 100 {
		s.Draw(1280, 720)
		s.FrameDrawn()
		s.Update(now)
	}
	if st := s.State(); !st.Done || st.Cycle != 5000 || !st.Paused {
		t.Errorf("fast-forward: %+v", st)
	}
	if s.State().Frames != 100 {
		t.Errorf("frames %d", s.State().Frames)
	}
}

// TestFlightInterpolation follows one dispatched request from the queue's
// front to its server box over one cycle at 1 cycle/s.
func TestFlightInterpolation(t *testing.T) {
	cfg := testConfig()
	s, _ := New(Options{Config: cfg, Speed: 1, PauseAt: -1})
	now := clock()
	var fl *flight
	for tick := 0; tick < 60*60 && fl == nil; tick++ {
		s.Update(now)
		for i := range s.anim.flights {
			if s.anim.flights[i].kind == flyDispatch && s.anim.flights[i].start == s.tick {
				fl = &s.anim.flights[i]
				break
			}
		}
	}
	if fl == nil {
		t.Fatal("no dispatch in an hour of cycles")
	}
	if fl.dur != TPS {
		t.Errorf("a flight lasts %d ticks at 1 cycle/s, want %d", fl.dur, TPS)
	}
	f0 := *fl
	box := func() Point {
		l := NewLayout(1280, 720, 1)
		i := 0
		for v := range s.m.Balancers()[0].Servers() {
			if v.ID == f0.server {
				break
			}
			i++
		}
		return NewGrid(l.Lanes[0].Pool, s.m.Pool().Live, l.Unit).BoxAt(i).Center()
	}()
	// The flight's marker is the quad nearest the path; follow its centre.
	var xs []float32
	for range TPS {
		fr := s.Draw(1280, 720)
		if _, ok := f0.progress(s.tick); !ok {
			break
		}
		tt, _ := f0.progress(s.tick)
		q := NewQueue(fr.Layout.Lanes[0].Queue, s.m.Balancers()[0].QueueLen(), fr.Layout.Unit)
		want := lerp(q.SlotAt(0).Center(), box, smooth(tt))
		hit := false
		for _, qd := range fr.Layers[SceneLayer].Quads {
			c := Point{(qd.P[0].X + qd.P[2].X) / 2, (qd.P[0].Y + qd.P[2].Y) / 2}
			if abs(c.X-want.X) < 0.5 && abs(c.Y-want.Y) < 0.5 {
				hit = true
			}
		}
		if !hit {
			t.Fatalf("tick %d: no request drawn at %v", s.tick, want)
		}
		xs = append(xs, want.X)
		s.Update(now)
	}
	if len(xs) < TPS-1 {
		t.Fatalf("flight visible for %d ticks", len(xs))
	}
	for i := 1; i < len(xs); i++ {
		if xs[i] < xs[i-1] {
			t.Fatalf("the flight goes backwards at tick %d", i)
		}
	}
	if d := box.X - xs[len(xs)-1]; d < 0 || d > 5 {
		t.Errorf("the flight ends at x=%v, %v short of its box", xs[len(xs)-1], d)
	}
}

func abs(x float32) float32 { return max(x, -x) }

func TestDrawBigScene(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Seed = 1
	cfg.Servers = 500
	cfg.MaxServers = 500
	cfg.InitialPerServer = 200 // 100,000 queued
	cfg.Blocked = nil
	cfg.TaskMin, cfg.TaskMax = 1000, 2000
	s, err := New(Options{Config: cfg, Speed: 5, PauseAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	fr := s.Draw(1280, 720)
	found := false
	for _, tx := range fr.Layers[SceneLayer].Texts {
		if tx.S == "queue "+Commas(int64(s.m.QueueLen())) {
			found = true
		}
	}
	if !found || s.m.QueueLen() < 99_000 {
		t.Errorf("queue %d not labelled", s.m.QueueLen())
	}
	if n := len(fr.Layers[SceneLayer].Quads); n > 20_000 || n < 500 {
		t.Errorf("%d quads for 500 servers", n)
	}
}

func BenchmarkDraw500Servers100kQueue(b *testing.B) {
	cfg := sim.DefaultConfig()
	cfg.Seed = 1
	cfg.Servers = 500
	cfg.MaxServers = 500
	cfg.InitialPerServer = 200
	s, _ := New(Options{Config: cfg, Speed: 30, PauseAt: -1})
	now := clock()
	for b.Loop() {
		s.Update(now)
		s.Draw(1280, 720)
		s.FrameDrawn()
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567", 100000: "100,000"} {
		if got := Commas(n); got != want {
			t.Errorf("Commas(%d) = %q", n, got)
		}
	}
}

func TestSessionSchedulesItsChanges(t *testing.T) {
	now := clock()
	change, err := sim.ParseChange("50:rate=0.9")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Config: testConfig(), Speed: 600, PauseAt: 60, Changes: []sim.Change{change}})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		s.Update(now)
	}
	if got := s.Model().Config().Rate; s.Model().Cycle() != 60 || got != 900_000 {
		t.Fatalf("cycle %d, rate %v: want the change in effect at cycle 60", s.Model().Cycle(), got)
	}
	want, _ := sim.New(testConfig())
	want.Schedule(change)
	want.RunTo(60)
	if s.Model().Hash() != want.Hash() {
		t.Error("the session's run differs from the model run with the same change")
	}
	s.Apply(Restart)
	if len(s.Model().Pending()) != 1 {
		t.Error("a restart lost the scheduled change")
	}
}

// TestPerServerGridReads lays out per-server pools of 3 and of 500
// servers at three sizes: every box and its queue bar lie in the pool, the
// bar at least as wide as the box, boxes of 3 servers large enough to
// label (their speed readable from afar), of 500 still visible.
func TestPerServerGridReads(t *testing.T) {
	for _, size := range [][2]int{{1024, 768}, {1280, 720}, {1920, 1080}} {
		for _, n := range []int{3, 500} {
			l := NewLayout(size[0], size[1], 1)
			lane := PerServerLane(l.Lanes[0], l.Unit)
			g := NewGridAspect(lane.Pool, n, l.Unit, QueueBarAspect)
			want := float32(4)
			if n == 3 {
				want = 60 * l.Unit
			}
			if g.Box < want {
				t.Errorf("%v, %d servers: boxes of %.1f px, want %.1f at least", size, n, g.Box, want)
			}
			for i := range n {
				b, bar := g.BoxAt(i), g.BarAt(i)
				if !lane.Pool.Contains(b) || !lane.Pool.Contains(bar) || bar.W < b.W || b.Overlaps(bar) {
					t.Fatalf("%v, %d servers: box %d %v and its bar %v: want both in the pool %v, the bar beside the box and as wide", size, n, i, b, bar, lane.Pool)
				}
			}
		}
	}
}
