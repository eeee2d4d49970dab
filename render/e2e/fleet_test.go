//go:build !js

package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserFleet opens the herding lesson at 1280×720 paused at cycle
// 6,000: every lane draws its twenty balancers as eight gates (the last
// "+13"); a click on the first gate of the lane with local counts
// selects it (its beliefs on the servers, page-herding.png, the README's
// picture), Esc deselects it. Then a scenario file loaded on the page
// reloads it with the file's fleet.
func TestBrowserFleet(t *testing.T) {
	p := newPage(t)
	if _, err := chromedp.Call(p.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 1280, Height: 720, DeviceScaleFactor: 1}); err != nil {
		t.Fatal(err)
	}
	p.open("lesson=herding&quiz=0&speed=max&pause-at=6000")
	p.waitFor("window.lbsim.state().paused && window.lbsim.state().cycle == 6000", 120*time.Second)
	p.waitFor(`(g => g.length == 24 && g.filter(x => x.value == "+13").length == 3 && g.some(x => x.id == "2/gate:1" && x.value == "1"))(window.lbsim.state().gates)`, 30*time.Second)
	g := p.find("2/gate:1", stateAs[struct {
		Gates []ctlRect `json:"gates"`
	}](p).Gates)
	p.click(g.X+g.W/2, g.Y+g.H/2)
	p.waitFor(`window.lbsim.state().gates.some(x => x.id == "2/gate:1" && x.value == "1,selected") && window.lbsim.state().lane == 1`, 30*time.Second)
	p.waitFrames(3)
	p.screenshot("page-herding.png")
	p.press("Escape", "Escape", 27)
	p.waitFor(`!window.lbsim.state().gates.some(x => x.value.endsWith(",selected"))`, 30*time.Second)

	// A scenario file loaded on the page (as a file picked or dropped
	// hands it to loadConfig) becomes the query: the page reloads with a
	// fleet of three under join-idle-queue, seed 9.
	scenario := "queues = \"per-server\"\npolicy = \"jiq\"\nbalancers = 3\nservers = 6\nseed = 9\n"
	if msg, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`window.lbsim.loadConfig("fleet.toml", `+"`"+scenario+"`"+`)`)); err != nil || msg != "" {
		t.Fatalf("loadConfig: %q, %v", msg, err)
	}
	loaded := `window.lbsim && location.search.includes("balancers=3") && String(window.lbsim.state().seed) == "9" && ` +
		`window.lbsim.state().config.policy == "jiq" && window.lbsim.state().gates.length == 3`
	for deadline := time.Now().Add(120 * time.Second); ; { // the page reloads: poll across it
		ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](loaded))
		if err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scenario did not load: %s is %v (%v); state %+v", loaded, ok, err, p.state())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
