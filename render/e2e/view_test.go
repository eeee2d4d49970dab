//go:build !js

package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserProjected opens lessons as a teacher projects them
// (present=1): speeds and the retry storm at 1280×720 and 1920×1080,
// server-fails at 1280×720 (at its pause: the re-queue), fast-failing
// (its state words and each lane's errors) at 1920×1080, each lesson
// that pauses at its pause, with the browser asking for
// reduced motion: the page says so in state().reducedMotion (no request
// flies; the run goes on) and stops saying so when the browser stops
// asking. It takes page-present-LESSON-WxH.png of each, and one of the
// retry storm as a deuteranope sees it (Chromium's own simulation),
// page-present-retry-storm-deuteranopia.png, to look at. Then
// ?embed=1: no control bar, the canvas unfocused until clicked, then Space
// runs (page-embedded-erlang.png).
func TestBrowserProjected(t *testing.T) {
	p := newPage(t)
	media := func(value string) {
		t.Helper()
		if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: value}}}); err != nil {
			t.Fatal(err)
		}
	}
	media("reduce")
	for _, size := range [][2]int64{{1280, 720}, {1920, 1080}} {
		if _, err := chromedp.Call(p.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: size[0], Height: size[1], DeviceScaleFactor: 1}); err != nil {
			t.Fatal(err)
		}
		for _, l := range []struct {
			name string
			at   int64
			w    int64 // at this width only (0: both)
		}{{"server-fails", 301, 1280}, {"fast-failing", 10_000, 1920}, {"speeds", 6_000, 0}, {"retry-storm", 50_000, 0}} {
			if l.w != 0 && l.w != size[0] {
				continue
			}
			p.open(fmt.Sprintf("lesson=%s&quiz=0&present=1&speed=max&pause-at=%d", l.name, l.at))
			p.waitFor(fmt.Sprintf("window.lbsim.state().paused && window.lbsim.state().cycle == %d", l.at), 120*time.Second)
			p.waitFor("window.lbsim.state().reducedMotion === true", 30*time.Second)
			p.waitFrames(3)
			p.screenshot(fmt.Sprintf("page-present-%s-%dx%d.png", l.name, size[0], size[1]))
		}
	}
	// The retry storm (the last page opened, 1920×1080) as a deuteranope
	// sees it.
	if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedVisionDeficiency, emulation.SetEmulatedVisionDeficiencyParams{
		Type: emulation.SetEmulatedVisionDeficiencyTypeDeuteranopia}); err != nil {
		t.Fatal(err)
	}
	p.waitFrames(3)
	p.screenshot("page-present-retry-storm-deuteranopia.png")
	// The browser stops asking: requests fly again.
	media("no-preference")
	p.waitFor("window.lbsim.state().reducedMotion === false", 30*time.Second)

	// Embedded in slides: no control bar, the canvas not focused until
	// clicked, then the keys work.
	if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedVisionDeficiency, emulation.SetEmulatedVisionDeficiencyParams{
		Type: emulation.SetEmulatedVisionDeficiencyTypeNone}); err != nil {
		t.Fatal(err)
	}
	p.open("lesson=erlang&present=1&embed=1&speed=max&pause-at=300")
	p.waitFor("window.lbsim.state().paused && window.lbsim.state().cycle == 300", 120*time.Second)
	p.waitFor("window.lbsim.state().embedded === true && window.lbsim.state().controls.length == 0", 30*time.Second)
	if focused, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.activeElement === document.querySelector("canvas")`)); err != nil || focused {
		t.Errorf("embedded: the canvas has the focus on load (%v, %v)", focused, err)
	}
	p.screenshot("page-embedded-erlang.png")
	p.click(960, 30) // on the HUD: no control, no server
	p.waitFor(`document.activeElement === document.querySelector("canvas")`, 30*time.Second)
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().cycle > 300", 30*time.Second) // it runs (at max speed maybe to its end)
}
