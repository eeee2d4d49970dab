package scene_test

import (
	"strings"
	"testing"

	"github.com/lbsim/lbsim/render/scene"
)

// TestQueueBarsOneScale: in a compare lesson whose lanes' longest queues
// differ (round-robin's slow servers queue thousands, least-connections'
// a few), every lane's bars are drawn to one scale, written the same in
// each lane's title.
func TestQueueBarsOneScale(t *testing.T) {
	s := openAt(t, "lesson", "speeds", false, 6_000)
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
		var scales []string
		for _, x := range s.Draw(size[0], size[1]).Layers[scene.SceneLayer].Texts {
			if strings.HasPrefix(x.S, "bar = ") {
				scales = append(scales, x.S)
			}
		}
		if len(scales) != len(s.State().Lanes) {
			t.Fatalf("%v: scales %q, want one per lane (%d)", size, scales, len(s.State().Lanes))
		}
		for _, sc := range scales[1:] {
			if sc != scales[0] {
				t.Errorf("%v: the lanes' bars at scales %q, want one", size, scales)
			}
		}
	}
}
