package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBrowserStepMode follows routing decisions in the page: the herding
// lesson paused, its local-counts lane focused (N), A steps to the next decision — paused, a later cycle,
// state().step naming the balancer, the request and the server and what
// it read (beliefs beside the truth) — and the arrival button to the one
// after; Space (the button's focus let go) leaves step mode. It takes page-step-mode.png.
func TestBrowserStepMode(t *testing.T) {
	p := newPage(t)
	p.open("lesson=herding&quiz=0&speed=max&pause-at=3000")
	p.waitFor("window.lbsim.state().paused && window.lbsim.state().cycle == 3000", 120*time.Second)
	p.press("n", "KeyN", 78) // the lane of local counts
	p.waitFor("window.lbsim.state().lane == 1", 30*time.Second)
	p.press("a", "KeyA", 65)
	p.waitFor("window.lbsim.state().step.startsWith('step (A) 1 of ')", 30*time.Second)
	first := stateAs[struct {
		Step   string `json:"step"`
		Cycle  int64  `json:"cycle"`
		Paused bool   `json:"paused"`
	}](p)
	if !first.Paused || first.Cycle <= 3000 || !strings.Contains(first.Step, "(local counts)") || !strings.Contains(first.Step, "id:belief/truth") {
		t.Fatalf("after A: paused %v at cycle %d, step %q", first.Paused, first.Cycle, first.Step)
	}
	p.screenshot("page-step-mode.png")
	r := p.rect("arrival")
	p.click(r.X+r.W/2, r.Y+r.H/2)
	p.waitFor("window.lbsim.state().step != '' && window.lbsim.state().step != "+jsString(first.Step), 30*time.Second)
	p.press("Escape", "Escape", 27) // the clicked button lets go of the focus (Space would press it)
	p.waitFor("window.lbsim.state().focus == ''", 30*time.Second)
	p.press(" ", "Space", 32)
	p.waitFor(fmt.Sprintf("window.lbsim.state().step == '' && window.lbsim.state().cycle > %d", first.Cycle+100), 30*time.Second) // it runs on (at max speed, maybe to its end)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
