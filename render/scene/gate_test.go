package scene_test

import (
	"slices"
	"testing"
	"time"

	"github.com/lbsim/lbsim/render/preset"
	"github.com/lbsim/lbsim/render/scene"
)

// TestGateLabelsOverFlights runs the firewall lesson at its own speed (20
// cycles a second: rejected requests fly into the gate and bounce off
// it): while requests fly, every text in the gate stands on a plate drawn
// after every request, so no request covers a range's label or count.
func TestGateLabelsOverFlights(t *testing.T) {
	p := preset.Read([]preset.Param{{Name: "lesson", Value: "firewall"}}, func() uint64 { return 1 })
	for _, present := range []bool{false, true} {
		s, err := scene.New(scene.Options{Config: p.Config, Speed: p.Speed, PauseAt: -1, Caption: p.Caption, Present: present, Measure: p.Measure})
		if err != nil {
			t.Fatal(err)
		}
		var clk time.Duration
		now := func() time.Duration { clk += 16 * time.Millisecond; return clk }
		inGate := 0
		for range 600 {
			s.Update(now)
			f := s.Draw(1280, 720)
			gate := f.Layout.Gate
			for _, q := range f.Layers[scene.SceneLayer].Quads {
				if q.C == scene.RejectFlash || q.C == scene.PColor || q.C == scene.SColor {
					if gate.Contains(scene.Rect{X: q.P[0].X, Y: q.P[0].Y}) {
						inGate++
					}
				}
			}
			for li, ly := range f.Layers[:scene.DialogLayer] {
				for _, x := range ly.Texts {
					b := scene.TextBox(x)
					if !gate.Contains(b) {
						continue
					}
					if li != scene.OverlayLayer || !slices.ContainsFunc(f.Layers[scene.OverlayLayer].Quads, func(q scene.Quad) bool {
						return q.C == scene.Background && (scene.Rect{X: q.P[0].X, Y: q.P[0].Y, W: q.P[2].X - q.P[0].X, H: q.P[2].Y - q.P[0].Y}).Inset(-0.5).Contains(b)
					}) {
						t.Fatalf("present=%v cycle %d: the gate's %q (layer %d) is on no plate over the flying requests", present, s.State().Cycle, x.S, li)
					}
				}
			}
		}
		if inGate == 0 {
			t.Errorf("present=%v: no request flew into the gate", present)
		}
	}
}
