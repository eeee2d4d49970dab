package scene

import (
	"slices"
	"testing"
)

// TestHUDCountsRequeued: a fixed pool whose server goes down shows, in
// the HUD, how many requests came back from it (in place of the scale
// events it never has).
func TestHUDCountsRequeued(t *testing.T) {
	cfg := configWith(t, "min-servers", "10", "max-servers", "10", "wave", "false", "rate", "0.4")
	s := running(t, cfg, mustChanges(t, "100:down=3")...)
	s.step(150, false)
	n := s.m.Totals().Requeued
	f := s.Draw(BaseW, BaseH)
	want := "requeued " + Commas(n)
	if n == 0 || !slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == want && f.Layout.HUD.Contains(textBox(x)) }) {
		t.Errorf("%d requeued: the HUD does not show %q", n, want)
	}
	if slices.ContainsFunc(f.Layers[SceneLayer].Texts, func(x Text) bool { return x.S == "scale ↑0 ↓0" }) {
		t.Error("a fixed pool's HUD counts scale events")
	}
}
