package scene

import (
	"strings"
	"testing"

	"github.com/lbsim/lbsim/internal/snaptest"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// TestQueueBoundStopsWithAMessage: a run (or a link) that queues more than
// the page's bound stops with the message naming the cycle, and the page
// stays usable: it draws, restarts and takes links.
func TestQueueBoundStopsWithAMessage(t *testing.T) {
	cfg := testConfig()
	cfg.Cycles, cfg.Rate, cfg.Wave = sim.MaxCycles, 3*sim.RateScale, false
	s, err := New(Options{Config: cfg, Speed: MaxSpeed, PauseAt: -1, MaxQueued: 3000})
	if err != nil {
		t.Fatal(err)
	}
	now := clock()
	for range 200 {
		s.Draw(1280, 720)
		s.FrameDrawn()
		s.Update(now)
		if s.State().Done {
			break
		}
	}
	st := s.State()
	if !st.Done || !st.Paused || !strings.Contains(st.Error, "stopped at cycle") || !strings.Contains(st.Message, "over the limit of 3,000") {
		t.Fatalf("state after the bound: done %v paused %v error %q message %q", st.Done, st.Paused, st.Error, st.Message)
	}
	s.Draw(1280, 720)
	s.Apply(Restart)
	if st := s.State(); st.Cycle != 0 || st.Done {
		t.Errorf("restart after the stop: %+v", st)
	}

	// A link that floods the queue stops the same way; one whose fault
	// names no server is refused and the run on screen goes on.
	good, err := snapshot.Encode(mustRecord(t))
	if err != nil {
		t.Fatal(err)
	}
	flood, _ := snaptest.Apply(good, snaptest.Edit{Config: map[string]int64{"n": sim.MaxCycles, "r": 3 * sim.RateScale, "w": 0}, Every: sim.MaxCycles})
	if err := s.LoadLink(snapshot.Fragment(flood)); err != nil {
		t.Fatalf("the flooding link was refused at once: %v", err)
	}
	for range 200 {
		s.FrameDrawn()
		s.Update(now)
	}
	if st := s.State(); !st.Done || !strings.Contains(st.Error, "stopped at cycle") {
		t.Errorf("flooding link: done %v error %q", st.Done, st.Error)
	}
	bad, _ := snaptest.Apply(good, snaptest.Edit{Changes: []sim.Change{{Cycle: 5, Setting: sim.SetDown, Value: -1<<32 | 1}}})
	if err := s.LoadLink(snapshot.Fragment(bad)); err == nil || !strings.Contains(s.State().Error, "names no server") {
		t.Errorf("out-of-range fault: %v; state error %q", err, s.State().Error)
	}
}

func mustRecord(t *testing.T) snapshot.Snapshot {
	t.Helper()
	cfg := testConfig()
	cfg.Cycles = 300
	snap, err := snapshot.Record(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}
