package scene

import (
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim/mmc"
)

// TestTheoryPanelTail: with fan-out or hedging the theory panel sets the
// low-load response (a request's p99 of 20 geometric parts of mean 100 is
// 756 cycles, a part's 459) and the fork-join mean beside the run, and
// says "no closed form" where neither holds.
func TestTheoryPanelTail(t *testing.T) {
	lines := func(in mmc.TailInput, kvs ...string) []string {
		t.Helper()
		base := []string{"wave", "false", "service", "geometric", "mean-service", "100", "scale-up", "100000",
			"scale-down", "0", "block", "none", "queues", "per-server", "policy", "least-connections"}
		cfg := configWith(t, append(base, kvs...)...)
		s, err := New(Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			s.m.Step()
		}
		return s.tailLines(s.m.Config(), in)
	}
	has := func(ls []string, prefix string) bool {
		return slices.ContainsFunc(ls, func(l string) bool { return strings.HasPrefix(l, prefix) })
	}
	low := lines(mmc.TailInput{Fanout: 20}, "servers", "200", "min-servers", "200", "max-servers", "200", "rate", "0.001")
	if low[0] != "tail at scale: fan-out 20" || !has(low, "request p99 (cycles)\t756\t") || !has(low, "a part's p99; share within it\t459; ") ||
		!has(low, "attempts per request\t20.0\t") || !has(low, "measured: cycles 0–50") {
		t.Errorf("fan-out 20 at low load: %q", low)
	}
	hedged := lines(mmc.TailInput{Fanout: 20, HedgeAfter: 299}, "servers", "200", "min-servers", "200", "max-servers", "200", "rate", "0.001")
	if hedged[0] != "tail at scale: fan-out 20, hedged after 299" || !has(hedged, "attempts per request\t21.0\t") || !has(hedged, "no queueing, hedged after 299") {
		t.Errorf("hedged: %q", hedged)
	}
	random := lines(mmc.TailInput{Fanout: 5}, "policy", "random", "servers", "200", "min-servers", "200", "max-servers", "200", "rate", "0.001")
	if len(random) != 3 || !strings.HasPrefix(random[1], "no closed form: random routing") {
		t.Errorf("random routing: %q", random)
	}
	fork := lines(mmc.TailInput{Fanout: 4}, "servers", "4", "min-servers", "4", "max-servers", "4", "rate", "0.005")
	if !has(fork, "avg response (fork-join)\t") || !has(fork, "fork-join, Nelson–Tantawi") || !has(fork, "no closed form: at ρ = 0.5") || has(fork, "request p99") {
		t.Errorf("fork-join of 4 at ρ = 0.5: %q", fork)
	}
}
