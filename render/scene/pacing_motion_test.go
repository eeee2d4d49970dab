package scene

import "testing"

// TestReducedMotion: with reduced motion a run at an animated speed
// steps as always and no request flies, also after a restart and a
// lesson opened; without it, requests fly.
func TestReducedMotion(t *testing.T) {
	for _, reduce := range []bool{false, true} {
		s, err := New(Options{Config: testConfig(), Speed: 5, PauseAt: -1, Lesson: func(string) (Options, error) {
			return Options{Config: testConfig(), Speed: 5, PauseAt: -1}, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		s.SetReducedMotion(reduce)
		flew := 0
		now := clock()
		run := func() {
			for range 120 {
				s.Update(now)
				flew += len(s.anim.flights)
			}
		}
		run()
		s.Apply(Restart)
		run()
		s.OpenLesson("any")
		run()
		if s.m.Cycle() == 0 {
			t.Fatalf("reduce=%v: the run did not step", reduce)
		}
		if got := s.State().ReducedMotion; got != reduce {
			t.Errorf("reduce=%v: State().ReducedMotion %v after a restart and a lesson", reduce, got)
		}
		if (flew > 0) == reduce {
			t.Errorf("reduce=%v: %d flights seen", reduce, flew)
		}
	}
}
