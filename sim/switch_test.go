package sim

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestSwitchBalancerEqualsPlainRunOfItsType checks the switch against its
// definition: each balancer behaves exactly like a central-queue run fed
// only the trace rows of its type.
func TestSwitchBalancerEqualsPlainRunOfItsType(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 60 {
		var rows, pRows, sRows []TraceRow
		cycles := int64(50 + r.IntN(400))
		for c := int64(0); c <= cycles+5; c++ {
			for range r.IntN(4) {
				row := TraceRow{Cycle: c, Src: r.Uint32(), Dst: r.Uint32(), Time: uint32(1 + r.IntN(30)), Type: Type(r.IntN(2))}
				rows = append(rows, row)
				if row.Type == Processing {
					pRows = append(pRows, row)
				} else {
					sRows = append(sRows, row)
				}
			}
		}
		cfg := DefaultConfig()
		cfg.Seed, cfg.Cycles = uint64(trial), cycles
		cfg.Servers, cfg.MinServers, cfg.MaxServers = 1+r.IntN(4), 1, 8
		cfg.ScaleUp, cfg.ScaleDown, cfg.Cooldown = Factor(1+r.IntN(5))*FactorScale, 0, int64(1+r.IntN(7))
		cfg.QueueCap = r.IntN(3) * 5
		cfg.Policy = Policy(r.IntN(2)) // first-idle or round-robin: no shared random draws
		cfg.Blocked = []Range{{First: 0, Last: 1 << 29}}
		sw := cfg
		sw.Switch, sw.Trace = true, rows
		m, err := New(sw)
		if err != nil {
			t.Fatal(err)
		}
		for m.Step() {
			for _, b := range m.Balancers() {
				if s := b.Summary(); !s.Consistent {
					t.Fatalf("trial %d cycle %d: balancer %s inconsistent", trial, m.Cycle(), b.Name())
				}
			}
			if s := m.Summary(); !s.Consistent {
				t.Fatalf("trial %d cycle %d: total inconsistent", trial, m.Cycle())
			}
		}
		for i, own := range [][]TraceRow{pRows, sRows} {
			plain := cfg
			plain.Trace = append([]TraceRow{}, own...)
			for j := range plain.Trace {
				plain.Trace[j].Type = Processing
			}
			pm, err := New(plain)
			if err != nil {
				t.Fatal(err)
			}
			pm.Run()
			got, want := m.Balancers()[i].Summary(), pm.Summary()
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d: balancer %s\n got %+v\nwant %+v", trial, m.Balancers()[i].Name(), got, want)
			}
		}
		total := m.Summary()
		p, s := m.Balancers()[0].Summary(), m.Balancers()[1].Summary()
		if total.Generated != p.Generated+s.Generated || total.TotalWait != p.TotalWait+s.TotalWait ||
			total.PeakQueue > p.PeakQueue+s.PeakQueue || total.PeakQueue < max(p.PeakQueue, s.PeakQueue) {
			t.Fatalf("trial %d: totals %+v do not add up from P %+v and S %+v", trial, total, p, s)
		}
	}
}
