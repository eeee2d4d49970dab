//go:build !js

package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// painted reads state().frames and state().painted.
func (p *page) painted() (frames, painted int64) {
	p.t.Helper()
	raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]byte](`(() => { const s = window.lbsim.state(); return {f: s.frames, p: s.painted} })()`))
	if err != nil {
		p.t.Fatalf("state(): %v", err)
	}
	var v struct{ F, P int64 }
	if err := json.Unmarshal(raw, &v); err != nil {
		p.t.Fatalf("state(): %v: %s", err, raw)
	}
	return v.F, v.P
}

// TestBrowserPaintsOnlyChanges: a paused page goes on drawing frames but
// paints none once its picture has settled (no battery spent on the same
// picture); running again, it paints.
func TestBrowserPaintsOnlyChanges(t *testing.T) {
	p := newPage(t)
	p.open("seed=3&servers=10&speed=600&pause-at=200")
	p.waitFor("window.lbsim.state().paused", 120*time.Second)
	p.waitFrames(30) // the last flights land
	f0, p0 := p.painted()
	p.waitFrames(20)
	f1, p1 := p.painted()
	if f1-f0 < 20 || p1-p0 > 1 {
		t.Errorf("paused: %d frames drawn, %d painted; want the frames and at most one painting", f1-f0, p1-p0)
	}
	p.press(" ", "Space", 32)
	p.waitFrames(10)
	f2, p2 := p.painted()
	t.Logf("paused: %d frames drawn, %d painted; running: %d drawn, %d painted", f1-f0, p1-p0, f2-f1, p2-p1)
	if p2-p1 < 5 {
		t.Errorf("running again: %d frames drawn, %d painted; want it painting", f2-f1, p2-p1)
	}
}
