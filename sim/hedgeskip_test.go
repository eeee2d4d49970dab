package sim

import (
	"cmp"
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
	var dues []hedgeDue
	for i := range h.lanes {
		l := &h.lanes[i]
		for k := range l.n {
			dues = append(dues, *l.at(k))
		}
	}
	slices.SortStableFunc(dues, func(x, y hedgeDue) int { return cmp.Compare(x.cycle(), y.cycle()) })
	var s strings.Builder
	fmt.Fprintf(&s, "seq %d, %d cycles\n", h.seq, h.dueCycles())
	for _, d := range dues {
		fmt.Fprintf(&s, "%d: %v\n", d.cycle(), d)
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
		stepped, jumped := twins(t, cfg, changes)
		runs++
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

// TestDueLanesMatchAMap holds hedging's lanes of dues (add, take, next,
// dueCycles) to a plain map of the dues by cycle, each cycle's sorted as
// step b takes them, over cycles that pass one by one: each cycle takes its
// dues (the same, in the same order), then puts on new ones as hedging
// does (the next hedge of some taken, at the delay they carry; first
// hedges at the delay in force, which changes now and then; with two
// balancers, interleaved) and a few at any later cycle and delay, out of
// order. next and the count of cycles due must agree after every cycle.
func TestDueLanesMatchAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := newHedgeState(&Config{Seed: 1})
		want := map[int64][]hedgeDue{}
		bals := int32(rapid.IntRange(1, 2).Draw(t, "balancers"))
		d := int32(rapid.IntRange(1, 30).Draw(t, "D"))
		id := int64(0)
		add := func(x hedgeDue) {
			h.add(x)
			want[x.cycle()] = append(want[x.cycle()], x)
		}
		for u := int64(0); u < 300; u++ {
			got := slices.Clone(h.take(u))
			w := want[u]
			delete(want, u)
			slices.SortFunc(w, func(x, y hedgeDue) int {
				return cmp.Or(cmp.Compare(x.b, y.b), cmp.Compare(x.s0, y.s0), cmp.Compare(x.id, y.id), cmp.Compare(x.j, y.j))
			})
			if !slices.Equal(got, w) {
				t.Fatalf("at %d: took %v, want %v", u, got, w)
			}
			for _, x := range got {
				if x.h < 4 && rapid.IntRange(0, 3).Draw(t, "again") > 0 {
					x.h++
					add(x)
				}
			}
			if rapid.IntRange(0, 40).Draw(t, "change") == 0 {
				d = int32(rapid.IntRange(1, 30).Draw(t, "newD"))
			}
			for range rapid.IntRange(0, 3).Draw(t, "arrivals") {
				id++
				b := int32(rapid.IntRange(0, int(bals)-1).Draw(t, "b"))
				for j := range int32(rapid.IntRange(1, 3).Draw(t, "parts")) {
					add(hedgeDue{s0: u, id: id, d: d, j: j, h: 1, b: b})
				}
			}
			if rapid.IntRange(0, 20).Draw(t, "odd") == 0 { // out of order, any delay
				id++
				x := hedgeDue{id: id, d: int32(rapid.IntRange(1, 30).Draw(t, "oddD")), h: int32(rapid.IntRange(1, 4).Draw(t, "oddH"))}
				x.s0 = u + rapid.Int64Range(1, 100).Draw(t, "oddAt") - int64(x.h)*int64(x.d)
				add(x)
			}
			next := int64(never)
			for c := range want {
				next = min(next, c)
			}
			if got := h.next(u); got != next {
				t.Fatalf("after %d: next %d, want %d", u, got, next)
			}
			if got := h.dueCycles(); got != len(want) {
				t.Fatalf("after %d: %d cycles due, want %d", u, got, len(want))
			}
		}
	})
}
