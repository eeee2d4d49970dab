package scene_test

import (
	"testing"
	"github.com/lbsim/lbsim/render/scene"
)

func TestZZShot(t *testing.T) {
	for _, n := range []string{"herding", "fast-failing"} {
		s := openAt(t, "lesson", n, true, keyMoments[n])
		s.Apply(scene.FocusNextLane)
		s.Apply(scene.StepArrival)
		for _, sz := range [][2]int{{1280, 720}, {1920, 1080}} {
			if err := scene.WritePNG(s.Draw(sz[0], sz[1]), n+"_step_"+map[int]string{1280: "720", 1920: "1080"}[sz[0]]); err != nil {
				t.Fatal(err)
			}
		}
	}
}
