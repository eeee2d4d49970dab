package scene

import (
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/lbsim/lbsim/assets"
)

// TestTextWidthCoversTheFont measures strings the view draws with the real
// Go fonts: TextWidth must never be narrower (a layout checked with it
// does not overlap on screen) and at most a third wider.
func TestTextWidthCoversTheFont(t *testing.T) {
	strs := append(HelpLines(), "generated 1,234,567", "live 650 · active 650 · busy 650", "scale ↑72 ↓82",
		"queue (requests)", "U·S scale-up line", "D·S scale-down line", "192.168/16", "WWWWWWWW", "mmmmmm",
		"|| paused · 600 cycles/s", "► 3,000 cycles/s · achieved 2,508", "policy", "least-connections", "0123456789")
	for _, bold := range []bool{false, true} {
		src := assets.GoRegular
		if bold {
			src = assets.GoBold
		}
		fnt, err := opentype.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		const size = 20
		face, err := opentype.NewFace(fnt, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range strs {
			real := float32(font.MeasureString(face, s)) / float32(fixed.I(1))
			est := TextWidth(s, size, bold)
			if est < real || est > real*1.34+size {
				t.Errorf("bold %v %q: estimate %.1f, real %.1f", bold, s, est, real)
			}
		}
	}
}
