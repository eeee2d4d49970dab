package scene

import (
	"math"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/internal/snaptest"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// TestLoadHugeNegativeDecimalNoPanic: a file or link whose retry budget or
// cv is −2⁶³ is refused with a message naming the setting, and the run on
// screen goes on; before, the page's loader panicked formatting the value.
func TestLoadHugeNegativeDecimalNoPanic(t *testing.T) {
	s := mustNew(t, Options{Config: testConfig(), Speed: MaxSpeed, PauseAt: -1})
	good, err := snapshot.Encode(mustRecord(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]map[string]int64{
		"retry-budget": {"rt": 1, "rb": math.MinInt64},
		"service-cv":   {"svc": int64(sim.Lognormal), "ms": 20, "cv": math.MinInt64},
	} {
		bad, err := snaptest.Apply(good, snaptest.Edit{Config: edit})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Load(bad); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: Load: %v, want an error naming it", name, err)
		}
		if err := s.LoadLink(snapshot.Fragment(bad)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: LoadLink: %v, want an error naming it", name, err)
		}
	}
	s.Draw(1280, 720)
	if st := s.State(); st.Done {
		t.Errorf("the run on screen stopped: %+v", st)
	}
}
