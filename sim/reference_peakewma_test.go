package sim_test

import (
	"github.com/lbsim/lbsim/detmath"
	"github.com/lbsim/lbsim/sim"
)

// peak-ewma's plain version: each server's cost and the cycle it was last
// updated, started at the configured mean when the server is created or
// the policy comes into force; two candidates drawn as p2c draws them, the
// lower cost × (load + 1), the first drawn on a tie.
func init() {
	registerRefPolicy(sim.PeakEWMA, refPolicy{
		Route: func(b *refBalancer, r *refReq, cands []*refServer) *refServer {
			left := append([]*refServer(nil), cands...)
			var best *refServer
			var bestScore float64
			for range min(2, len(cands)) {
				i := b.m.route.IntN(len(left))
				s := left[i]
				left = append(left[:i], left[i+1:]...)
				score := ewmaOf(b, s, r.bal).cost * float64(b.loadSeen(r, s)+1)
				if best == nil || score < bestScore {
					best, bestScore = s, score
				}
			}
			return best
		},
		Added: func(b *refBalancer, s *refServer) { s.state = freshEWMA(b) },
		Entered: func(b *refBalancer) {
			for _, s := range b.servers {
				s.state = freshEWMA(b)
			}
		},
		Completed: func(b *refBalancer, s *refServer, r *refReq) {
			e := ewmaOf(b, s, r.bal)
			t := b.m.cycle
			from := r.routed
			if from < e.since {
				from = r.Arrival // routed before the policy came into force: from its arrival
			}
			resp := float64(t - from)
			if resp > e.cost {
				e.cost = resp
			} else {
				decay := b.m.cfg.EwmaDecay
				if decay == 0 {
					decay = sim.DefaultEwmaDecay
				}
				e.cost += float64((resp - e.cost) * (1 - detmath.ExpNeg(float64(t-e.at)/float64(decay))))
			}
			e.at = t
		},
	})
}

// refEWMA is a server's peak-EWMA cost, the cycle of its last update, and
// the cycle the policy came into force.
type refEWMA struct {
	cost      float64
	at, since int64
}

// ewmaOf returns server s's cost as balancer k of the fleet learnt it:
// each balancer learns from its own attempts.
func ewmaOf(b *refBalancer, s *refServer, k int) *refEWMA {
	if es, ok := s.state.([]*refEWMA); ok {
		return es[k]
	}
	es := freshEWMA(b)
	s.state = es
	return es[k]
}

// freshEWMA returns each balancer's cost of a server, started afresh.
func freshEWMA(b *refBalancer) []*refEWMA {
	es := make([]*refEWMA, b.m.k)
	for k := range es {
		es[k] = &refEWMA{b.m.cfg.NominalMean(), b.m.cycle, b.m.cycle}
	}
	return es
}
