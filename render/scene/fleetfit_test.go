package scene_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/scene"
)

// TestHerdingBeliefsFit opens the herding lesson at its key moment, at
// 1280×720 and 1920×1080, in presentation mode and not, clicks gate 1 of
// the lane with local counts and checks the frame as TestLessonsFit does
// (no text over another, no number cut or under ValueUnits); where the
// boxes are labelled, the servers show what the balancer thinks (in the
// focus colour).
func TestHerdingBeliefsFit(t *testing.T) {
	for _, present := range []bool{false, true} {
		s := openAt(t, "lesson", "herding", present, keyMoments["herding"])
		for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
			name := fmt.Sprintf("herding beliefs %dx%d present=%v", size[0], size[1], present)
			s.Draw(size[0], size[1])
			var gate *scene.Control
			for _, g := range s.State().Gates {
				if g.ID == "2/gate:1" {
					gate = &g
				}
			}
			if gate == nil {
				t.Fatalf("%s: no gate 2/gate:1 in %v", name, s.State().Gates)
			}
			c := gate.R.Center()
			if !strings.HasSuffix(gate.Value, ",selected") {
				s.HandleInput(scene.Input{X: c.X, Y: c.Y, Pressed: true, Down: true})
				s.HandleInput(scene.Input{X: c.X, Y: c.Y, Released: true})
			}
			f := s.Draw(size[0], size[1])
			checkFits(t, name, s, f)
			checkBoxes(t, name, f)
			if err := scene.WritePNG(f, strings.ReplaceAll(strings.ReplaceAll(name, " ", "_"), "=", "")); err != nil {
				t.Fatal(err)
			}
			thinks := 0
			for _, x := range f.Layers[scene.SceneLayer].Texts {
				if x.C == scene.FocusCol && strings.ContainsAny(x.S, "0123456789") && !strings.Contains(x.S, "balancer") {
					thinks++
				}
			}
			if st := s.State(); st.Lane != 1 || thinks == 0 && !present {
				t.Errorf("%s: lane %d focused, %d beliefs shown", name, st.Lane, thinks)
			}
		}
	}
}
