package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// hedgeDues describes the hedges due (by cycle, in the order kept), the
// send counter and the budget's window, for comparing two models beyond
// Hash.
func hedgeDues(m *Model) string {
	if m.fan == nil || m.fan.hedge == nil {
		return ""
	}
	h := m.fan.hedge
	cycles := make([]int64, 0, len(h.due))
	for c := range h.due {
		cycles = append(cycles, c)
	}
	slices.Sort(cycles)
	var s strings.Builder
	fmt.Fprintf(&s, "seq %d\n", h.seq)
	for _, c := range cycles {
		fmt.Fprintf(&s, "%d: %v\n", c, h.due[c])
	}
	for b, w := range h.win {
		for i, c := range w.stamp {
			if c >= 0 {
				fmt.Fprintf(&s, "window %d of balancer %d: %d parts %d hedges\n", c, b, w.parts[i], w.hedges[i])
			}
		}
	}
	return s.String()
}

// TestHedgeSkipsMatchStepping runs hedged runs (fan-out 1 to 4, up to 4
// hedges a part, a budget or none, a queue cap or none, every policy that
// routes among a set, a fixed or scaling pool, load from 5% to 150%, and
// scheduled rate changes, gray faults and down/up faults) through RunTo,
// which passes their quiet cycles up to the next hedge due (hedgeskip.go)
// and visits only the cycles where something happens (routeCycles),
// to random stops and by Step alone, and compares the hash, the summary,
// the last row, the servers and queues, every request's record of its
// attempts and the hedges due. Most runs must open the gate, and the
// cycle loop about one stop a run, for the property to say anything.
func TestHedgeSkipsMatchStepping(t *testing.T) {
	rapidDefaults(300)
	runs, opened, routed := 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		cfg, changes := genFanRouted(t)
		cfg.Fanout = rapid.IntRange(1, 4).Draw(t, "hedgedFanout")
		cfg.Timeout, cfg.Retries, cfg.Backoff, cfg.Jitter, cfg.HealthInterval = 0, 0, 0, false, 0
		cfg.Balancers, cfg.LoadInfo = 0, LoadExact // a fleet steps every cycle (hedgeSkips)
		cfg.Rate = Rate(max(int64(cfg.Rate)*int64(rapid.IntRange(1, 3).Draw(t, "rateDiv")), 1) / 3)
		cfg.HedgeAfter = rapid.Int64Range(1, 200).Draw(t, "hedgeAfter")
		cfg.HedgeMax = rapid.IntRange(0, MaxHedges).Draw(t, "hedgeMax")
		if rapid.Bool().Draw(t, "budget") {
			cfg.HedgeBudget = Decimal(rapid.Int64Range(1, DecimalScale).Draw(t, "budgetF"))
		}
		for range rapid.IntRange(0, 2).Draw(t, "grays") {
			kind := rapid.SampledFrom([]Setting{SetFail, SetHang, SetSlow, SetHeal}).Draw(t, "gray")
			ref := MakeServerRef(0, rapid.IntRange(1, cfg.Servers).Draw(t, "grayServer"))
			c := Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "grayAt"), Setting: kind, Value: int64(ref)}
			if kind == SetSlow {
				c.Value = SlowValue(ref, 300)
			}
			changes = append(changes, c)
		}
		dropRefusedHedging(&cfg)
		stepped, err := New(cfg)
		if err != nil {
			t.Skip(err)
		}
		if err := stepped.Schedule(changes...); err != nil {
			t.Skip(err)
		}
		runs++
		jumped, _ := New(cfg)
		_ = jumped.Schedule(changes...)
		stops := rapid.SliceOfN(rapid.Int64Range(1, cfg.Cycles), 1, 5).Draw(t, "stops")
		slices.Sort(stops)
		gated := false
		for _, stop := range append(stops, cfg.Cycles) {
			if jumped.fan != nil && jumped.fan.hedge != nil {
				g := jumped.gate()
				gated = gated || g != viaNone
				if g == viaRouted {
					routed++
				}
			}
			stepAndJump(t, stepped, jumped, stop)
			if a, b := fanRecords(jumped), fanRecords(stepped); a != b {
				t.Fatalf("at cycle %d: RunTo and Step leave different attempts:\n%s\n%s", stop, a, b)
			}
			if a, b := hedgeDues(jumped), hedgeDues(stepped); a != b {
				t.Fatalf("at cycle %d: RunTo and Step leave different hedges due:\n%s\n%s", stop, a, b)
			}
		}
		if gated {
			opened++
		}
	})
	t.Logf("%d of %d hedged runs opened the gate, %d stops the cycle loop", opened, runs, routed)
	if 2*opened < runs || routed < runs {
		t.Errorf("too few hedged runs opened the gate: %d of %d, %d stops the cycle loop", opened, runs, routed)
	}
}

// TestHedgeNextIsTheEarliestDue: dues put on in any order through add are
// found earliest first as the cycles pass, and a due put on any other way
// makes next say the next cycle (every cycle is then stepped).
func TestHedgeNextIsTheEarliestDue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := newHedgeState(&Config{Seed: 1})
		cycles := rapid.SliceOfN(rapid.Int64Range(1, 60), 0, 40).Draw(t, "cycles")
		for _, c := range cycles {
			h.add(c, hedgeDue{s0: c})
		}
		for now := int64(0); now <= 61; now++ {
			want := int64(never)
			for c := range h.due {
				want = min(want, c)
			}
			if got := h.next(now); got != want {
				t.Fatalf("at %d: next %d, want %d (dues at %v)", now, got, want, cycles)
			}
			delete(h.due, now+1) // step b of now+1 takes its dues
		}
		h.add(70, hedgeDue{})
		h.due[65] = []hedgeDue{{}} // not through add
		if got := h.next(61); got != 62 {
			t.Fatalf("with a due the heap does not hold, next = %d, want 62", got)
		}
	})
}
