//go:build !js

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lbsim/lbsim/render/lesson"
)

// TestBrowserWords opens a lesson that asks a question and reads the
// page's text for a screen reader (the live region, role=status and a
// role=log, both aria-live) with chromedp: it names the lesson and asks
// the question with its answers while the run waits at cycle 0; the key
// 2 answers from the keyboard; at the key moment the log says which
// answer held, that it was the learner's and why, and the status gives
// the cycle and each lane's figures in words. It takes
// page-quiz-question.png and page-quiz-verdict.png. Y then opens the
// change to try: the address says lesson=fast-failing&try=1, and the words
// name it.
func TestBrowserWords(t *testing.T) {
	p := newPage(t)
	l, err := lesson.Find("fast-failing")
	if err != nil {
		t.Fatal(err)
	}
	q := l.Quiz()
	p.open("lesson=fast-failing&speed=max")
	text := func(id string) string {
		t.Helper()
		s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById("`+id+`").textContent`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	live, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`["words-status", "words-log"].map(id => {
		const e = document.getElementById(id);
		return e.getAttribute("role") + ":" + e.getAttribute("aria-live");
	}).join(" ")`))
	if err != nil || live != "status:polite log:polite" {
		t.Fatalf("the live regions: %q, %v", live, err)
	}
	p.waitFor(fmt.Sprintf(`document.getElementById("words-log").textContent.includes(%q)`, q.Question), 60*time.Second)
	if log := text("words-log"); !strings.Contains(log, "Opened: Lesson: "+l.Title) || !strings.Contains(log, "2: "+q.Answers[1]) {
		t.Errorf("the log does not name the lesson and the answers: %q", log)
	}
	p.waitFor(`document.getElementById("words-status").textContent.includes("question")`, 30*time.Second)
	if s := p.state(); s.Cycle != 0 || !s.Paused {
		t.Fatalf("asking: cycle %d, paused %v", s.Cycle, s.Paused)
	}
	p.screenshot("page-quiz-question.png")
	p.press("2", "Digit2", 50)
	want := fmt.Sprintf("Held: %d, %s. Your answer, right.", q.Right+1, q.Answers[q.Right])
	p.waitFor(fmt.Sprintf(`document.getElementById("words-log").textContent.includes(%q)`, want), 240*time.Second)
	if log := text("words-log"); !strings.Contains(log, "Why: "+q.Why) || !strings.Contains(log, "Your answer: 2") {
		t.Errorf("the log does not say the answer and why: %q", log)
	}
	at := fmt.Sprintf("Paused at cycle %s", commas(l.KeyMoment()))
	p.waitFor(fmt.Sprintf(`document.getElementById("words-status").textContent.includes(%q)`, at), 30*time.Second)
	if st := text("words-status"); !strings.Contains(st, "least-connections: errors ") || !strings.Contains(st, "round-robin: errors ") {
		t.Errorf("the status does not give each lane's figures: %q", st)
	}
	p.screenshot("page-quiz-verdict.png")
	// Y opens the change to try: its link in the address, said in words.
	p.press("y", "KeyY", 89)
	p.waitFor(`location.search.includes("lesson=fast-failing&try=1") && document.getElementById("words-log").textContent.includes("now try: ")`, 60*time.Second)
	if st := text("words-status"); !strings.Contains(st, q.TryText) {
		t.Errorf("the status does not name the change tried: %q", st)
	}
}

// commas writes n with thousands separators, as the page does.
func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
