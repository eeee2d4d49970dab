package scene

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestHostileMoreSlidersPastTheEnds drags every slider of the "more"
// panel far past each end of its track, and presses End then → (Home
// then ←) at each end, under the queue rule and under target tracking:
// each lands on its range's end, or the model refuses it with a message
// (a setting of the other autoscaler always, as the CLI's --set is)
// naming the setting and leaves the value in force as it was; a key
// past an end schedules nothing; what the control shows after a step is
// the value in force, as the row writes it.
func TestHostileMoreSlidersPastTheEnds(t *testing.T) {
	for _, autoscaler := range []string{"queue", "target"} {
		for _, w := range moreWidgets {
			if w.kind != kSlider {
				continue
			}
			for _, end := range []struct {
				name      string
				past      float32 // how far past the track, in track widths
				key, more Key
				want      int64
			}{{"left", -3, KeyHome, KeyLeft, w.min}, {"right", 4, KeyEnd, KeyRight, w.max}} {
				name := fmt.Sprintf("%s %s, dragged past its %s end", autoscaler, w.id, end.name)
				s := p2cFleet(t)
				if autoscaler == "target" {
					if err := s.restartWith(func(c *sim.Config) { c.Autoscaler, c.ScaleTarget = sim.TargetTracking, sim.DefaultScaleUtil }); err != nil {
						t.Fatal(err)
					}
					s.Apply(StepOne)
				}
				s.Apply(OpenMore)
				s.Draw(BaseW, BaseH)
				c := control(t, s, w.id)
				track := sliderTrack(c.R, s.layout(BaseW, BaseH).T)
				before := s.settingValue(w.id, func(cfg sim.Config) int64 { return rowValue(*sim.RowNamed(w.id), cfg) })
				s.HandleInput(Input{X: track.X + track.W/2, Y: track.Y + track.H/2, Pressed: true, Down: true})
				s.HandleInput(Input{X: track.X + track.W*end.past, Y: track.Y - 300, Down: true})
				s.HandleInput(Input{X: track.X + track.W*end.past, Y: track.Y - 300, Released: true})
				msg := s.State().Message
				s.Apply(StepOne)
				s.Draw(BaseW, BaseH)
				cfg := s.m.Config()
				got := rowValue(*sim.RowNamed(w.id), cfg)
				shown := control(t, s, w.id).Value
				t.Logf("%s: in force %d (before %d), shows %q, message %q", name, got, before, shown, msg)
				unused := w.unused != nil && w.unused(cfg) != ""
				switch {
				case unused && (got != before || !strings.Contains(msg, "refused")):
					t.Errorf("%s: unused, yet in force %d (before %d), message %q: want it refused as the CLI refuses the --set", name, got, before, msg)
				case unused:
				case got == end.want && msg == "":
				case got == before && msg != "":
				default:
					t.Errorf("%s: in force %d (before %d, the end %d), message %q", name, got, before, end.want, msg)
				}
				if want := s.valueText(s.indexOf(w.id), w); shown != want || (w.unused == nil && shown != w.format(got)) {
					t.Errorf("%s: shows %q, in force %q", name, shown, w.format(got))
				}
				// End (Home), then one more step that way: nothing more.
				s.focus = s.indexOf(w.id)
				s.HandleInput(Input{Keys: []Key{end.key}})
				s.Apply(StepOne)
				pending := len(s.m.Pending())
				s.HandleInput(Input{Keys: []Key{end.more, end.more}})
				if now := rowValue(*sim.RowNamed(w.id), s.m.Config()); len(s.m.Pending()) != pending && now == end.want {
					t.Errorf("%s: %v at the end scheduled %v", name, end.more, s.m.Pending())
				}
			}
		}
	}
}

// indexOf is the index of control id among the controls on screen.
func (s *Session) indexOf(id string) int {
	for i, w := range s.controls() {
		if w.id == id {
			return i
		}
	}
	return -1
}
