package sim

import (
	"fmt"
	"testing"
)

// TestDrawsTapReadsThePicks: with the tap on, each pick of p2c and
// peak-EWMA notes, in the order the model routed, the request and the
// server it routed it to (its event; the others are re-queues), distinct candidates drawn (d of them, fewer when there are
// fewer), the winner among them the least by what the policy compares
// (load; peak-EWMA's cost·(load + 1)), the first drawn on a tie. And the
// tap changes nothing: the run's hash is the run's without it.
func TestDrawsTapReadsThePicks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		policy    Policy
		choices   int
		balancers int
		info      LoadInfo
	}{
		{"p2c", P2C, 0, 1, LoadExact},
		{"p2c d=3", P2C, 3, 1, LoadExact},
		{"p2c fleet local", P2C, 0, 4, LoadLocal},
		{"p2c d=3 fleet periodic", P2C, 3, 4, 7},
		{"peak-ewma", PeakEWMA, 0, 1, LoadExact},
		{"peak-ewma fleet local", PeakEWMA, 0, 4, LoadLocal},
		{"peak-ewma fleet periodic", PeakEWMA, 0, 3, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Cycles, cfg.Queues, cfg.Policy, cfg.Choices = 5, 3000, PerServer, tc.policy, tc.choices
			cfg.Balancers, cfg.LoadInfo = tc.balancers, tc.info
			cfg.MTBF, cfg.MTTR = 400, 30 // candidates come and go
			m := mustNewEvents(t, cfg)
			b := m.bal[0]
			picks := 0
			for {
				b.TapDraws(true)
				if !m.Step() {
					break
				}
				var routed []Event
				requeued := map[int64]bool{}
				for _, e := range m.Events() {
					if e.Balancer == 0 && e.Server > 0 && (e.Kind == Arrive || e.Kind == Retry || e.Kind == Discard) {
						routed = append(routed, e)
					}
					if e.Kind == Requeue {
						requeued[e.Request.ID] = true
					}
				}
				draws := b.Draws()
				i := 0
				for _, e := range routed {
					for i < len(draws) && draws[i].Request != e.Request.ID && requeued[draws[i].Request] {
						i++ // a request re-queued off a failed server
					}
					if i == len(draws) {
						t.Fatalf("cycle %d: no draw for #%d routed to %d", m.cycle, e.Request.ID, e.Server)
					}
					if err := checkDraw(draws[i], e, cfg.choices(), len(b.cands.ids), tc.policy); err != nil {
						t.Fatalf("cycle %d: %v: %+v", m.cycle, err, draws[i])
					}
					i++
				}
				for ; i < len(draws); i++ {
					if !requeued[draws[i].Request] {
						t.Fatalf("cycle %d: draw %+v routed no attempt", m.cycle, draws[i])
					}
				}
				picks += len(draws)
			}
			if picks < 500 {
				t.Fatalf("only %d picks checked", picks)
			}
			plain, _ := New(cfg)
			plain.Run()
			if plain.Hash() != m.Hash() {
				t.Fatal("the run with the tap on ends in another state")
			}
		})
	}
}

// checkDraw checks draw d against the attempt routed (e): the pick is
// e's server, the candidates are distinct, as many as drawn, and the
// pick the least by policy p's comparison, the first drawn on a tie.
func checkDraw(d Draw, e Event, choices, cands int, p Policy) error {
	if d.Request != e.Request.ID || d.Picked != e.Server || d.Member != int(e.Request.Member) {
		return fmt.Errorf("#%d picked %d by balancer %d, the event routed #%d to %d by %d", d.Request, d.Picked, d.Member, e.Request.ID, e.Server, e.Request.Member)
	}
	want := min(choices, cands)
	if p == PeakEWMA {
		want = min(2, cands)
	}
	if len(d.Drawn) != want && cands > 0 {
		return fmt.Errorf("%d drawn, want %d of %d candidates now", len(d.Drawn), want, cands)
	}
	score := func(c Drawn) float64 {
		if p == PeakEWMA {
			return c.Cost * float64(c.Load+1)
		}
		return float64(c.Load)
	}
	seen, best := map[int]bool{}, -1
	for i, c := range d.Drawn {
		if seen[c.ID] {
			return fmt.Errorf("server %d drawn twice", c.ID)
		}
		seen[c.ID] = true
		if best < 0 || score(c) < score(d.Drawn[best]) {
			best = i
		}
	}
	if d.Drawn[best].ID != d.Picked {
		return fmt.Errorf("picked %d, the first least drawn is %d", d.Picked, d.Drawn[best].ID)
	}
	return nil
}
