//go:build !js

package e2e

import (
	"testing"
	"time"
)

// TestBrowserQuizAndMenuKeys drives the question and the lessons menu with
// real keys and a click in Chromium: Space, play elsewhere, neither
// answers nor runs (a message says how to answer); ↓ walks the answers to
// reveal and round to the first; 2 answers and the run goes; the lessons
// button opens the menu on its first topic, → → shows "routing", ↓ walks
// to herding and Enter opens it, its own question asked at cycle 0.
func TestBrowserQuizAndMenuKeys(t *testing.T) {
	p := newPage(t)
	p.open("lesson=autoscalers&speed=max")
	p.waitFor("window.lbsim.state().focus == 'quiz:1'", 60*time.Second)
	p.press(" ", "Space", 32)
	p.waitFor("window.lbsim.state().message.startsWith('Space does not answer')", 30*time.Second)
	if s := p.state(); s.Cycle != 0 || !s.Paused {
		t.Fatalf("Space on the question: cycle %d, paused %v", s.Cycle, s.Paused)
	}
	for _, want := range []string{"quiz:2", "quiz:3", "quiz-reveal", "quiz:1"} {
		p.press("ArrowDown", "ArrowDown", 40)
		p.waitFor("window.lbsim.state().focus == "+jsString(want), 30*time.Second)
	}
	p.press("2", "Digit2", 50)
	p.waitFor("window.lbsim.state().cycle > 0 && window.lbsim.state().focus == ''", 60*time.Second)
	r := p.rect("lessons")
	p.click(r.X+r.W/2, r.Y+r.H/2)
	p.waitFor("window.lbsim.state().focus == 'lesson:scaling-band'", 30*time.Second)
	p.press("ArrowRight", "ArrowRight", 39)
	p.press("ArrowRight", "ArrowRight", 39)
	p.waitFor("window.lbsim.state().focus == 'topic:routing'", 30*time.Second)
	for range 8 {
		if stateAs[struct {
			Focus string `json:"focus"`
		}](p).Focus == "lesson:herding" {
			break
		}
		p.press("ArrowDown", "ArrowDown", 40)
		p.waitFrames(2)
	}
	p.waitFor("window.lbsim.state().focus == 'lesson:herding'", 30*time.Second)
	p.press("Enter", "Enter", 13)
	p.waitFor("window.lbsim.state().lanes.length == 3 && window.lbsim.state().focus == 'quiz:1' && window.lbsim.state().cycle == 0", 60*time.Second)
}
