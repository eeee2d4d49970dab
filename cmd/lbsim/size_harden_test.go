package main

import (
	"strings"
	"testing"

	"github.com/lbsim/lbsim/queueing"
	"github.com/lbsim/lbsim/sim/mmc"
)

// TestSizeTheoryReadsTheRunsRealSettings: size prints Erlang C only beside
// a run that is M/M/c for all of its cycles: not when a --set changes a
// setting mid-run, a --fault takes a server down or makes it fail, hang or
// slow, or clients time out (and retry). Before, size read only the
// configuration's flags and printed "Erlang C needs …" beside such runs
// (answer 43 against "Erlang C needs 13" with timeouts and retries).
func TestSizeTheoryReadsTheRunsRealSettings(t *testing.T) {
	run := []string{"--rate", "0.1", "--service", "geometric", "--mean-service", "20", "--wave=false", "--block", "none",
		"--cycles", "3000", "--initial-per-server", "0"}
	base := append([]string{"--seed", "1", "--replications", "2", "--slo", "avg_wait<=2"}, run...)
	if s, _ := sizeJSON(t, exitOK, base...); s.Variants[0].Theory == nil {
		t.Fatalf("the M/M/c run has no theory beside it")
	}
	for _, tc := range []struct {
		name string
		args []string
		why  string
	}{
		{"a rate changed by --set", []string{"--set", "1000:rate=0.15"}, "settings change during the run (rate)"},
		{"a pool bound changed by --set", []string{"--set", "1000:queue-cap=5"}, "settings change during the run (queue-cap)"},
		{"a gray fail fault", []string{"--fault", "fail:1@500"}, "fault injection"},
		{"a slow fault", []string{"--fault", "slow:1x3@500"}, "fault injection"},
		{"a down fault", []string{"--fault", "down:1@500", "--fault", "up:1@900"}, "fault injection"},
		{"timeouts with retries", []string{"--timeout", "30", "--retries", "2"}, "clients give up after 30 cycles"},
		{"a timeout set mid-run", []string{"--set", "1000:timeout=30"}, "settings change during the run (timeout)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := sizeJSON(t, exitOK, append(append([]string{}, base...), tc.args...)...)
			if th := s.Variants[0].Theory; th != nil {
				t.Errorf("Erlang C printed beside it: %+v", th)
			}
			ro, err := (&cli{}).parseRun(poolArgs(append(append([]string{}, run...), tc.args...), 8, 1))
			if err != nil {
				t.Fatal(err)
			}
			if th := theoryFor(ro.cfg, ro.changes, 8, []objective{{Key: "avg_wait", Value: 2}}); th != nil {
				t.Errorf("theoryFor: %+v, want none", th)
			}
			fit := queueing.CheckFit(mmc.FitInput(ro.cfg, ro.changes...))
			if why := strings.Join(fit.Reasons, "; "); !strings.Contains(why, tc.why) {
				t.Errorf("the fit's reasons %q do not say %q", why, tc.why)
			}
		})
	}
}

// TestSizeRefusesPoolBoundChanges: a --set of min-servers or max-servers,
// given or in a variant, is refused before any run as the flags are.
// Before, `size --set 10:min-servers=1` let the "fixed" pool scale down
// and answered 464 where the fixed pool needs 33.
func TestSizeRefusesPoolBoundChanges(t *testing.T) {
	for _, args := range [][]string{
		{"--set", "10:min-servers=1"},
		{"--set", "10:max-servers=50"},
		{"--variant", "a:set=10:min-servers=1"},
		{"--variant", "plain:policy=random", "--variant", "b:set=10:max-servers=40"},
	} {
		runs := 0
		var stdout, stderr strings.Builder
		c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, noColor: true,
			runBound: func(int, int) { runs++ }}
		all := append([]string{"size", "--slo", "avg_wait<=5", "--max", "100", "--cycles", "200", "--replications", "2", "--seed", "1"}, args...)
		code := c.main(all)
		if code != exitUsage || runs != 0 || !strings.Contains(stderr.String(), "size chooses the pool itself") {
			t.Errorf("%v: exit %d after %d runs, stderr %q; want exit 2 before any run, saying size chooses the pool", args, code, runs, stderr.String())
		}
	}
}
