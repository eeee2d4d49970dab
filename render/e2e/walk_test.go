package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserLessonWalk walks the three lessons whose pictures were
// mended (herding, server-fails, firewall) as a teacher projects them:
// present=1 at 1280×720 and 1920×1080, then at 1920×1080 through
// Chromium's deuteranopia simulation, each at its key moment (server-fails
// at its own pause). It takes walk-LESSON-WxH.png and
// walk-LESSON-deuteranopia.png (docs/walk/), and checks each page paused
// where asked.
func TestBrowserLessonWalk(t *testing.T) {
	p := newPage(t)
	walk := []struct {
		name string
		at   int64
	}{{"herding", 6_000}, {"server-fails", 301}, {"firewall", 2_000}}
	shoot := func(w, h int64, vision emulation.SetEmulatedVisionDeficiencyType, suffix string) {
		t.Helper()
		if _, err := chromedp.Call(p.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: w, Height: h, DeviceScaleFactor: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedVisionDeficiency, emulation.SetEmulatedVisionDeficiencyParams{Type: vision}); err != nil {
			t.Fatal(err)
		}
		for _, l := range walk {
			p.open(fmt.Sprintf("lesson=%s&quiz=0&present=1&speed=max&pause-at=%d", l.name, l.at))
			p.waitFor(fmt.Sprintf("window.lbsim.state().paused && window.lbsim.state().cycle == %d", l.at), 120*time.Second)
			p.waitFrames(3)
			p.screenshot(fmt.Sprintf("walk-%s-%s.png", l.name, suffix))
		}
	}
	shoot(1280, 720, emulation.SetEmulatedVisionDeficiencyTypeNone, "1280x720")
	shoot(1920, 1080, emulation.SetEmulatedVisionDeficiencyTypeNone, "1920x1080")
	shoot(1920, 1080, emulation.SetEmulatedVisionDeficiencyTypeDeuteranopia, "deuteranopia")
}
