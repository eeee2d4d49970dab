//go:build !js

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// clientRun is the client-side run of TestBrowserClientSide: timeouts,
// retries with backoff and health checks, a failing server from cycle 100
// and server 3 down from 150 to 300.
const clientRun = "seed=7&servers=6&min-servers=6&max-servers=6&wave=false&rate=0.12&initial-per-server=0" +
	"&timeout=80&retries=2&backoff=3&health-interval=10&eject-after=5&fault=fail:2@100&fault=down:3@150&fault=up:3@300"

// queryArgs turns a query string into `lbsim run` flags, without its
// faults: state().changes lists them, and checkCtl passes them as --set.
func queryArgs(q string) []string {
	var args []string
	for _, kv := range strings.Split(q, "&") {
		if k, v, _ := strings.Cut(kv, "="); k != "fault" {
			args = append(args, "--"+k+"="+v)
		}
	}
	return args
}

// TestBrowserClientSide: a run with timeouts, retries and health checks
// in the page's address, paused at cycle 400, is `lbsim run` with the same
// flags (summary, attempts, retries, timeouts and all); then the clients
// panel's timeout slider, the health panel's interval slider and the
// "more" panel's wave choice, moved with real keys, each make one change
// at the next cycle, which `lbsim run --set` reproduces.
func TestBrowserClientSide(t *testing.T) {
	p := newPage(t)
	p.open(clientRun + "&speed=600&pause-at=400")
	p.waitFor("window.lbsim.state().paused && window.lbsim.state().cycle == 400", 120*time.Second)
	s := p.ctl()
	if len(s.Problems) != 0 {
		t.Fatalf("problems: %v", s.Problems)
	}
	if s.Config["timeout"] != float64(80) || s.Config["retries"] != float64(2) || s.Config["health-interval"] != float64(10) {
		t.Errorf("config from the address: timeout %v retries %v health-interval %v", s.Config["timeout"], s.Config["retries"], s.Config["health-interval"])
	}
	p.checkCtl(s, queryArgs(clientRun)...)
	sum := decodeJSON(t, s.Summary)
	for _, k := range []string{"retries", "timed_out_queued", "timed_out_in_service", "errors", "ejections"} {
		if n, _ := sum[k].(float64); n < 1 {
			t.Errorf("the run exercises %s: %v", k, sum[k])
		}
	}
	if v := p.server("2").Value; !strings.Contains(v, ",failing,ejected") {
		t.Errorf("server 2, failing from cycle 100 and ejected after 5 errors, reads %q", v)
	}
	p.screenshot("page-client-side.png")

	// The clients panel: its button, then → on its first slider (timeout,
	// focused), Esc closes it, → steps one cycle.
	for _, tc := range []struct{ button, slider, want string }{
		{"clients", "timeout", "401:timeout=90"},
		{"health", "health-interval", "402:health-interval=15"},
		{"more", "wave", "403:wave=true"}, // a control made from the settings table's row
	} {
		b := p.rect(tc.button)
		p.click(b.X+b.W/2, b.Y+b.H/2)
		p.waitFor(fmt.Sprintf("window.lbsim.state().focus == %q", tc.slider), 30*time.Second)
		before := p.rect(tc.slider).Value
		p.press("ArrowRight", "ArrowRight", 39)
		p.waitFor(fmt.Sprintf("window.lbsim.state().controls.find(c => c.id == %q).value != %q", tc.slider, before), 30*time.Second)
		p.press("Escape", "Escape", 27)
		p.waitFor(fmt.Sprintf("!window.lbsim.state().controls.some(c => c.id == %q)", tc.slider), 30*time.Second)
		c := p.ctl().Cycle
		p.press("ArrowRight", "ArrowRight", 39)
		p.waitFor(fmt.Sprintf("window.lbsim.state().cycle == %d", c+1), 30*time.Second)
		s = p.ctl()
		if got := s.Changes[len(s.Changes)-1]; got != tc.want {
			t.Errorf("%s panel: changes %v, want the last %s", tc.button, s.Changes, tc.want)
		}
		p.checkCtl(s, queryArgs(clientRun)...)
	}
	p.screenshot("page-client-panels.png")
}
