package scene_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/render/scene"
)

// TestGateLabelsFit opens every lesson with a fleet at its key moment, at
// 1280×720 and 1920×1080, presenting and not, with no gate selected and
// with each lane's gate 1 selected (then the servers show the selected
// balancer's beliefs, "load · thinks", in the focus colour): every gate shows its number (or
// "+N") whole inside its box, at ValueUnits or larger, and no other text
// on the screen overlaps it.
func TestGateLabelsFit(t *testing.T) {
	fleets := 0
	for _, l := range lesson.All {
		name := l.Name
		for _, present := range []bool{false, true} {
			s := openAt(t, "lesson", name, present, keyMoments[name])
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				s.Draw(size[0], size[1])
				gs := s.State().Gates
				if len(gs) == 0 {
					continue
				}
				fleets++
				for _, sel := range []bool{false, true} {
					what := fmt.Sprintf("%s %dx%d present=%v selected=%v", name, size[0], size[1], present, sel)
					if sel {
						for _, g := range gs {
							if strings.HasSuffix(g.ID, "gate:1") && !strings.HasSuffix(g.Value, ",selected") {
								c := g.R.Center()
								s.HandleInput(scene.Input{X: c.X, Y: c.Y, Pressed: true, Down: true})
								s.HandleInput(scene.Input{X: c.X, Y: c.Y, Released: true})
								break
							}
						}
					}
					f := s.Draw(size[0], size[1])
					checkGateLabels(t, what, f, s.State().Gates)
					if thinks := beliefsShown(f, s.State().Gates); sel && thinks == 0 {
						t.Errorf("%s: a gate is selected and no server shows what its balancer thinks", what)
					}
				}
				s.HandleInput(scene.Input{Keys: []scene.Key{scene.KeyEscape}})
			}
		}
	}
	if fleets == 0 {
		t.Fatal("no lesson draws a fleet's gates")
	}
}

// checkGateLabels checks that each gate of gs has its label drawn whole
// inside it, at ValueUnits or larger, with no other text over it.
func checkGateLabels(t *testing.T, what string, f *scene.Frame, gs []scene.Control) {
	t.Helper()
	least := scene.ValueUnits * f.Layout.T
	for _, g := range gs {
		label, _, _ := strings.Cut(g.Value, ",")
		var box scene.Rect
		found := false
		for _, x := range f.Layers[scene.SceneLayer].Texts {
			if b := scene.TextBox(x); x.S == label && g.R.Contains(b) && x.Size >= least-0.01 {
				box, found = b, true
			}
		}
		if !found {
			t.Errorf("%s: gate %s %v shows no %q whole inside it at %.1f px or more", what, g.ID, g.R, label, least)
			continue
		}
		for li, ly := range f.Layers {
			for _, x := range ly.Texts {
				if b := scene.TextBox(x); b != box && b.Overlaps(box) {
					t.Errorf("%s: gate %s's %q %v is overlapped by %q %v (layer %d)", what, g.ID, label, box, x.S, b, li)
				}
			}
		}
	}
}

// beliefsShown counts the figures drawn in the focus colour that are no
// gate's label or the beliefs' key: what a selected balancer thinks.
func beliefsShown(f *scene.Frame, gs []scene.Control) int {
	n := 0
	for _, x := range f.Layers[scene.SceneLayer].Texts {
		if x.C != scene.FocusCol || !strings.ContainsAny(x.S, "0123456789") || strings.Contains(x.S, "balancer") {
			continue
		}
		gate := false
		for _, g := range gs {
			gate = gate || g.R.Contains(scene.TextBox(x))
		}
		if !gate {
			n++
		}
	}
	return n
}
