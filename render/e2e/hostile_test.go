//go:build !js

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lbsim/lbsim/internal/snaptest"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// TestBrowserHostileLinks opens share links from a stranger: one whose run
// would queue requests beyond the page's bound, then (by a hash change, on
// the same page) one whose fault names no server. Each shows its message
// and the page keeps drawing and answering.
func TestBrowserHostileLinks(t *testing.T) {
	p := newPage(t)
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Cycles = 5, 1000
	snap, err := snapshot.Record(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	good, err := snapshot.Encode(snap)
	if err != nil {
		t.Fatal(err)
	}
	flood, err := snaptest.Apply(good, snaptest.Edit{Config: map[string]int64{"n": sim.MaxCycles, "r": int64(sim.MaxRate), "w": 0}, Every: sim.MaxCycles})
	if err != nil {
		t.Fatal(err)
	}
	fault, err := snaptest.Apply(good, snaptest.Edit{Changes: []sim.Change{{Cycle: 100, Setting: sim.SetDown, Value: -1<<32 | 2}}})
	if err != nil {
		t.Fatal(err)
	}

	p.open("speed=max" + snapshot.Fragment(flood))
	p.waitFor("window.lbsim.state().done", 120*time.Second)
	s := p.ctl()
	if !strings.Contains(s.Error, "stopped at cycle") || !strings.Contains(s.Message, "stopped at cycle") || !s.Paused {
		t.Errorf("flooding link: error %q message %q paused %v", s.Error, s.Message, s.Paused)
	}
	t.Logf("flooding link: %s", s.Error)
	p.waitFrames(3) // still drawing
	p.screenshot("page-queue-bound.png")

	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](fmt.Sprintf("location.hash = %q", snapshot.Fragment(fault)))); err != nil {
		t.Fatal(err)
	}
	p.waitFor("window.lbsim.state().error.includes('names no server')", 60*time.Second)
	shown, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("message")).display + "|" + document.getElementById("message-text").textContent`))
	if !strings.HasPrefix(shown, "block|") || !strings.Contains(shown, "names no server") {
		t.Errorf("out-of-range fault: the page shows %q", shown)
	}
	// Still usable: it draws, and a good link replays to its end.
	p.waitFrames(3)
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](fmt.Sprintf("location.hash = %q", snapshot.Fragment(good)))); err != nil {
		t.Fatal(err)
	}
	p.waitFor("window.lbsim.state().replaying && window.lbsim.state().done && window.lbsim.state().cycle == 1000 && window.lbsim.state().error == ''", 120*time.Second)
	if s := p.ctl(); !strings.Contains(s.Message, "reproduced exactly") {
		t.Errorf("a good link after the hostile ones ends with %q", s.Message)
	}
}

// TestBrowserSaysWhenStopped: when the Go program ends (quit(), as a crash
// ends it) or traps (an uncaught WebAssembly.RuntimeError, as out of
// memory gives), the page says so over the canvas instead of leaving the
// last frame as if paused.
func TestBrowserSaysWhenStopped(t *testing.T) {
	p := newPage(t)
	for _, tc := range []struct {
		how  string
		js   string
		want string
	}{
		{"exit", `window.lbsim.quit()`, "the program ended"},
		{"trap", `setTimeout(() => { throw new WebAssembly.RuntimeError("unreachable executed") }, 0)`, "the program failed"},
	} {
		p.open("seed=3&speed=60")
		if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](tc.js+`; 0`)); err != nil {
			t.Fatalf("%s: %v", tc.how, err)
		}
		p.waitFor(`!!window.lbsimStoppedWhy && getComputedStyle(document.getElementById("stopped")).display == "block"`, 30*time.Second)
		text, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("stopped").textContent`))
		if err != nil || !strings.Contains(text, "lbsim has stopped") || !strings.Contains(text, tc.want) || !strings.Contains(text, "Reload") {
			t.Errorf("%s: the page says %q (%v); want that lbsim has stopped, %q, and to reload", tc.how, text, err, tc.want)
		}
	}
}
