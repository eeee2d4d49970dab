package sim_test

import (
	"cmp"
	"reflect"
	"slices"
	"testing"

	"github.com/lbsim/lbsim/sim"
	"pgregory.net/rapid"
)

// TestPickSiblingMatchesPickPart runs the reference comparisons' fan-out
// runs (any policy that routes parts, a fleet, the client side, hedging,
// shedding, the throttle and limits, scheduled changes) twice, routing
// the parts at admission through pickSibling (the siblings fanAdmit
// noted) and through pickPart (the siblings the request's record holds),
// and compares the hash, the summary and the events.
func TestPickSiblingMatchesPickPart(t *testing.T) {
	sim.RapidDefaults(100)
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenBusyConfigWithin(t, sim.NewBusyLimits(10, 1500, 20, 30))
		if rapid.Bool().Draw(t, "client") {
			sim.GenClientSettings(t, &cfg)
		}
		genFanout(t, &cfg)
		if rapid.IntRange(0, 2).Draw(t, "sitting") == 0 {
			// Their siblings sit out (sittingPicker).
			cfg.Policy = rapid.SampledFrom([]sim.Policy{sim.SWRR, sim.Hash}).Draw(t, "sittingPolicy")
		}
		if rapid.Bool().Draw(t, "hedging") {
			genHedging(t, &cfg)
		}
		genFanOverload(t, &cfg)
		changes := append(sim.GenClientChanges(t, cfg), sim.GenBusyChanges(t, cfg)...)
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		run := func() *sim.Model {
			m, err := sim.New(cfg, sim.WithEvents())
			if err != nil {
				t.Skip(err)
			}
			if err := m.Schedule(changes...); err != nil {
				t.Skip(err)
			}
			m.Run()
			return m
		}
		noted := run()
		off := sim.SiblingsByRecord()
		defer off()
		byRecord := run()
		if a, b := noted.Summary(), byRecord.Summary(); !reflect.DeepEqual(a, b) {
			t.Fatalf("summaries differ:\n%+v\n%+v", a, b)
		}
		if a, b := noted.Events(), byRecord.Events(); !slices.Equal(a, b) {
			i := 0
			for i < min(len(a), len(b)) && a[i] == b[i] {
				i++
			}
			t.Fatalf("events differ from event %d of %d/%d", i, len(a), len(b))
		}
		if a, b := noted.Hash(), byRecord.Hash(); a != b {
			t.Fatalf("hashes differ: %x, %x", a, b)
		}
	})
}
