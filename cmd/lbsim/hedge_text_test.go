package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestRunHedgeSummaryText: a hedged run's text summary counts its hedges
// (sent, won, denied) and balances its attempts in parts, with K = 1 as
// with fan-out: an attempts line without the hedges would not hold.
func TestRunHedgeSummaryText(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"one part", nil},
		{"fan-out 3", []string{"--fanout", "3"}},
		{"budget", []string{"--fanout", "2", "--hedge-budget", "0.05"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--queues", "per-server", "--hedge-after", "50", "--cycles", "3000", "--seed", "1"}, tc.args...)
			stdout, stderr, code := runCLI(t, "", args...)
			if code != 0 {
				t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
			}
			for _, want := range []string{"Fan-out and hedging", "hedges sent", "hedges won", "hedges denied", "attempts cancelled"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("%v: the summary has no %q", args, want)
				}
			}
			sent := regexp.MustCompile(`hedges sent +(\d+)`).FindStringSubmatch(stdout)
			if sent == nil || sent[1] == "0" {
				t.Errorf("%v: no hedge sent (%v): the run does not exercise hedging", args, sent)
			}
			line := regexp.MustCompile(`attempts: parts \+ retries \+ hedges .*`).FindString(stdout)
			if !strings.HasSuffix(line, "holds") {
				t.Errorf("%v: the attempts line in parts is missing or does not hold: %q", args, line)
			}
		})
	}
}
