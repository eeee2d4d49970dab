package mmc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestHedgedPartP99: with hedging the low-load tail names a hedged part's
// p99 (the first of its attempts to complete): with one part a request it
// is the request's p99; hedging after a part's p95 puts it below a single
// attempt's p99 and above D; the later the hedge, the nearer a single
// attempt's; without hedging it is 0 (and left out of the JSON).
func TestHedgedPartP99(t *testing.T) {
	cases := []struct {
		k, d int
		ok   func(lt *LowLoadTail) bool
	}{
		{1, 62, func(lt *LowLoadTail) bool { return lt.HedgedPartP99 == lt.RequestP99 && lt.HedgedPartP99 < lt.PartP99 }},
		{20, 62, func(lt *LowLoadTail) bool { return lt.HedgedPartP99 > 62 && lt.HedgedPartP99 < lt.PartP99 }},
		{20, 85, func(lt *LowLoadTail) bool { return lt.HedgedPartP99 > 85 && lt.HedgedPartP99 <= lt.PartP99 }},
		{20, 0, func(lt *LowLoadTail) bool { return lt.HedgedPartP99 == 0 }},
	}
	prev := 0
	for _, c := range cases {
		cfg := tailConfig(40, 0.005, 20)
		cfg.Policy = sim.RoundRobin
		cfg.Fanout, cfg.HedgeAfter = c.k, int64(c.d)
		tl, err := PredictTail(cfg, TailOf(cfg))
		if err != nil || tl.LowLoad == nil {
			t.Fatalf("K %d, D %d: %v %s", c.k, c.d, err, tl.LowLoadWhy)
		}
		lt := tl.LowLoad
		if !c.ok(lt) {
			t.Errorf("K %d, D %d: a hedged part's p99 %d, a single attempt's %d, the request's %d", c.k, c.d, lt.HedgedPartP99, lt.PartP99, lt.RequestP99)
		}
		if c.k == 20 && c.d > 0 && lt.HedgedPartP99 < prev {
			t.Errorf("D %d: a hedged part's p99 %d, below %d with an earlier hedge", c.d, lt.HedgedPartP99, prev)
		}
		prev = lt.HedgedPartP99
		js, err := json.Marshal(lt)
		if named := strings.Contains(string(js), `"hedged_part_p99":`); err != nil || named != (c.d > 0) {
			t.Errorf("D %d: the JSON names a hedged part's p99: %v (%v)", c.d, named, err)
		}
		t.Logf("K %d, D %d: hedged part p99 %d, one attempt %d, request %d", c.k, c.d, lt.HedgedPartP99, lt.PartP99, lt.RequestP99)
	}
}
