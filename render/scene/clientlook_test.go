package scene

import (
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestClientSideLooks runs a scaling pool with warm-up, a timeout,
// retries and outlier ejection (server 1 failing from cycle 50), stepping
// with animations, until the view holds an ejected server, a warming one,
// one busy with abandoned work and a retry in the queue; then it checks
// the frame: each server's word in its box in its colour, the abandoned
// server's grey box, the retry's colour in the queue, the legend's keys,
// and that retries, attempts sent back to the gate and given-up requests
// flew.
func TestClientSideLooks(t *testing.T) {
	cfg := testConfig()
	for _, kv := range [][2]string{{"servers", "3"}, {"min-servers", "3"}, {"max-servers", "8"}, {"cooldown", "5"}, {"scale-up", "3"}, {"scale-down", "1"},
		{"wave", "false"}, {"rate", "0.3"}, {"initial-per-server", "0"}, {"provision-delay", "150"}, {"timeout", "60"},
		{"retries", "2"}, {"eject-after", "2"}, {"cycles", "5000"}} {
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	fail, err := sim.ParseChange("50:fail=1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Config: cfg, Speed: 5, PauseAt: -1, Changes: []sim.Change{fail}})
	if err != nil {
		t.Fatal(err)
	}
	flew := map[flightKind]bool{}
	backRetried, backGivenUp := false, false
	var look struct{ ejected, warming, abandoned, retry bool }
	for !(look.ejected && look.warming && look.abandoned && look.retry && flew[flyRetry] && backRetried && backGivenUp && flew[flyGiveUp]) {
		if s.m.Cycle() >= 4_000 {
			t.Fatalf("by cycle %d the view never held every look at once (%+v) after every flight (%v)", s.m.Cycle(), look, flew)
		}
		s.anim.reset()
		s.step(1, true)
		// Each attempt that ended in error or timed out flies back to the
		// gate, in the retry colour exactly when its request is retried
		// (no GiveUp for it in the cycle).
		gaveUp := map[int64]bool{}
		for _, e := range s.m.Events() {
			if e.Kind == sim.GiveUp {
				gaveUp[e.Request.ID] = true
			}
		}
		var ended, retried, backs, backsRetried int
		for _, e := range s.m.Events() {
			if e.Kind == sim.Error || e.Kind == sim.TimedOut {
				ended++
				if !gaveUp[e.Request.ID] {
					retried++
				}
			}
		}
		for _, fl := range s.anim.flights {
			flew[fl.kind] = true
			if fl.kind == flyBack {
				backs++
				if fl.retry {
					backsRetried++
				}
			}
		}
		if backs != ended || backsRetried != retried {
			t.Fatalf("cycle %d: %d attempts ended (%d retried), %d flew back (%d in the retry colour)", s.m.Cycle(), ended, retried, backs, backsRetried)
		}
		backRetried = backRetried || retried > 0
		backGivenUp = backGivenUp || ended > retried
		look.ejected, look.warming, look.abandoned, look.retry = false, false, false, false
		for v := range s.m.Balancers()[0].Servers() {
			look.ejected = look.ejected || v.Ejected
			look.warming = look.warming || v.Warming
			look.abandoned = look.abandoned || v.Abandoned
		}
		for i := range s.m.Balancers()[0].CentralLen() {
			look.retry = look.retry || s.m.Balancers()[0].QueueAt(i).Retry
		}
	}
	s.anim.reset()
	f := s.Draw(BaseW, BaseH)
	l := f.Layout
	lane, g := s.laneGeom(l, 0, s.shown()[0])
	i := 0
	for v := range s.m.Balancers()[0].Servers() {
		box := g.BoxAt(i)
		i++
		if (v.Ejected || v.Warming) && v.State != sim.Failed {
			word, col := "warming", WarmColor
			if v.Ejected {
				word, col = "ejected", EjectColor
			}
			if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool {
				return x.S == word && x.C == col && box.Contains(textBox(x))
			}) {
				t.Errorf("server %d (ejected %v, warming %v) does not show %q in its box", v.ID, v.Ejected, v.Warming, word)
			}
		}
		if v.Abandoned && !slices.Contains(f.Layers[SceneLayer].Quads, Quad{P: [4]Point{{box.X, box.Y}, {box.X + box.W, box.Y}, {box.X + box.W, box.Y + box.H}, {box.X, box.Y + box.H}}, C: Abandoned}) {
			t.Errorf("server %d busy with abandoned work: its box is not grey", v.ID)
		}
		if v.Abandoned && !slices.ContainsFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool {
			return q.C == TextColor && box.Contains(Rect{q.P[0].X, q.P[0].Y, 0, 0})
		}) {
			t.Errorf("server %d busy with abandoned work: no light hollow request on its grey box", v.ID)
		}
	}
	if !slices.ContainsFunc(f.Layers[SceneLayer].Quads, func(q Quad) bool {
		return q.C == RetryColor && lane.Queue.Contains(Rect{q.P[0].X, q.P[0].Y, q.P[2].X - q.P[0].X, q.P[2].Y - q.P[0].Y})
	}) {
		t.Error("a retry waits in the queue, but no request there is drawn in the retry colour")
	}
	for _, k := range []string{"retry", "abandoned", "ejected", "warming"} {
		if !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == k && l.Footer.Contains(textBox(x)) }) {
			t.Errorf("the legend has no %q", k)
		}
	}
	t.Logf("every look at cycle %d", s.m.Cycle())
}
