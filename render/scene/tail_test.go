package scene

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
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
			"scale-down", "0", "block", "none", "queues", "per-server", "policy", "least-connections", "initial-per-server", "0"}
		cfg := configWith(t, append(base, kvs...)...)
		s, err := New(Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		for range 20_000 {
			s.m.Step()
		}
		if in.On() {
			return s.tailLines(s.m.Config(), in)
		}
		return s.TheoryLines() // the run's own fan-out
	}
	has := func(ls []string, prefix string) bool {
		return slices.ContainsFunc(ls, func(l string) bool { return strings.HasPrefix(l, prefix) })
	}
	low := lines(mmc.TailInput{}, "servers", "200", "min-servers", "200", "max-servers", "200", "rate", "0.005", "fanout", "20")
	if low[0] != "tail at scale: fan-out 20" || !has(low, "request p99 (cycles)\t756\t") || !has(low, "a part's p99 (cycles)\t459\t") || !has(low, "requests within it\t0.819\t") ||
		!has(low, "attempts per request\t20.0\t20.0") || !has(low, "measured: cycles 0–20,000") || !has(low, "request p50 (cycles)\t337\t3") {
		t.Errorf("fan-out 20 at low load: %q", low)
	}
	hedged := lines(mmc.TailInput{Fanout: 20, HedgeAfter: 299}, "servers", "200", "min-servers", "200", "max-servers", "200", "rate", "0.001")
	if hedged[0] != "tail at scale: fan-out 20, hedged after 299" || !has(hedged, "attempts per request\t21.0\t") || !has(hedged, "no queueing, hedged after 299") {
		t.Errorf("hedged: %q", hedged)
	}
	random := lines(mmc.TailInput{}, "policy", "random", "servers", "200", "min-servers", "200", "max-servers", "200", "rate", "0.001", "fanout", "5")
	if len(random) != 3 || !strings.HasPrefix(random[1], "no closed form: random routing") || !strings.HasPrefix(random[2], "measured: ") {
		t.Errorf("random routing: %q", random)
	}
	fork := lines(mmc.TailInput{}, "servers", "4", "min-servers", "4", "max-servers", "4", "rate", "0.005", "fanout", "4")
	if !has(fork, "avg response (fork-join)\t379\t") || !has(fork, "fork-join, Nelson–Tantawi") || !has(fork, "no closed form: at ρ = 0.5") || has(fork, "request p99") {
		t.Errorf("fork-join of 4 at ρ = 0.5: %q", fork)
	}
}

// TestTheoryPanelTailFits draws a fan-out run with the theory panel at
// three screen sizes in both modes: no two text boxes overlap.
func TestTheoryPanelTailFits(t *testing.T) {
	cfg := configWith(t, "wave", "false", "service", "geometric", "mean-service", "100", "block", "none", "queues", "per-server",
		"policy", "least-connections", "initial-per-server", "0", "servers", "40", "min-servers", "40", "max-servers", "40",
		"rate", "0.002", "fanout", "20")
	hedged := cfg
	hedged.HedgeAfter, hedged.Rate = 250, sim.Rate(1500) // one row more, a hedged part's p99, at a load under 0.1
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}, {1024, 768}} {
		for _, present := range []bool{false, true} {
			cfg := cfg
			if present {
				cfg = hedged
			}
			s, err := New(Options{Config: cfg, Speed: 600, PauseAt: 3_000, Present: present})
			if err != nil {
				t.Fatal(err)
			}
			s.theory = true
			now := clock()
			for s.m.Cycle() < 3_000 {
				s.Update(now)
			}
			f := s.Draw(size[0], size[1])
			name := fmt.Sprintf("tail theory %dx%d present=%v hedged=%v", size[0], size[1], present, cfg.HedgeAfter > 0)
			for _, o := range overlaps(f) {
				t.Errorf("%s: %s", name, o)
			}
			if !slices.ContainsFunc(f.Layers[OverlayLayer].Texts, func(x Text) bool { return x.S == "request p99 (cycles)" }) {
				t.Errorf("%s: the panel's request p99 row is not drawn", name)
			}
			if hedgedRow := slices.ContainsFunc(f.Layers[OverlayLayer].Texts, func(x Text) bool { return x.S == "a hedged part's p99" }); hedgedRow != (cfg.HedgeAfter > 0) {
				t.Errorf("%s: the panel's hedged part row drawn: %v", name, hedgedRow)
			}
			if err := WritePNG(f, strings.ReplaceAll(name, " ", "-")); err != nil {
				t.Fatal(err)
			}
		}
	}
}
