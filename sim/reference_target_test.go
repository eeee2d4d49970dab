package sim_test

import (
	"cmp"
	"slices"
	"testing"

	"math/big"
	"pgregory.net/rapid"

	"github.com/lbsim/lbsim/sim"
)

// The reference's target tracking, written from the contract alone: every
// cycle's metric is kept by cycle, every evaluation's raw proposal is
// kept for good, and the arithmetic is done in big integers.
//
// At step e of every cycle (cycle 0 included) each balancer notes
// v = ⌊10⁶·num ÷ den⌋ of its metric. At step c of every cycle t ≥ 1 that
// is a multiple of P, with S = live servers neither retiring, ejected nor
// known down: m₆ = ⌊Σ v(t−P … t−1, those ≥ 0) ÷ P⌋; the proposal is S
// when |⌊10⁶·m₆ ÷ X₆⌋ − 10⁶| ≤ tol₆, else ⌈S·m₆ ÷ X₆⌉; up: desired =
// min(proposal, S + max(4, S)); down: min(S, the highest proposal of the
// evaluations in t−W+1 … t, this one included; W = 0: this one);
// clamped to [min, max]. Growth adds min(desired − S, max − live)
// servers; removal takes warming servers (highest id first), then the
// queue rule's choice, one at a time.

// refTarget is one balancer's target-tracking record.
type refTarget struct {
	samples   []int64 // v by cycle, from cycle 0
	proposals []refProposal
}

// refProposal is an evaluation's raw proposal and its cycle.
type refProposal struct{ cycle, proposal int64 }

// refTargetValues returns P, X₆, tol₆ and W as the configuration now
// says (the stored tolerance and window are their value plus one, 0
// meaning the default).
func refTargetValues(cfg *sim.Config) (p, x6, tol6, w int64) {
	p, x6, tol6, w = cfg.ScalePeriod, int64(cfg.ScaleTarget), int64(sim.DefaultScaleTolerance), int64(sim.DefaultScaleDownWindow)
	if p == 0 {
		p = sim.DefaultScalePeriod
	}
	if x6 == 0 {
		x6 = int64(sim.DefaultScaleUtil)
	}
	if cfg.ScaleTolerance > 0 {
		tol6 = int64(cfg.ScaleTolerance) - 1
	}
	if cfg.ScaleDownWindow > 0 {
		w = cfg.ScaleDownWindow - 1
	}
	return p, x6, tol6, w
}

// targetSample is step e's note of the metric.
func (b *refBalancer) targetSample() {
	active := int64(b.count((*refServer).active))
	busy := int64(b.count(func(s *refServer) bool { return s.active() && s.busy }))
	var num, den int64
	switch b.m.cfg.ScaleMetric {
	case sim.MetricUtilization:
		num, den = busy, active
	case sim.MetricInflight:
		num, den = int64(b.queued())+busy, max(1, active)
	case sim.MetricQueue:
		num, den = int64(b.queued()), max(1, active)
	}
	v := int64(0)
	if den > 0 {
		v = num * sim.DecimalScale / den
	}
	b.tt.samples = append(b.tt.samples, v)
}

// targetEvaluate is step c's evaluation at t, a multiple of P.
func (b *refBalancer) targetEvaluate(t int64) {
	cfg := &b.m.cfg
	p, x6, tol6, w := refTargetValues(cfg)
	S := int64(b.count(func(s *refServer) bool {
		return s.live() && !s.retiring && !s.ejected && !(s.down && s.known)
	}))
	sum := big.NewInt(0)
	for c := max(0, t-p); c < t; c++ {
		sum.Add(sum, big.NewInt(b.tt.samples[c]))
	}
	m6 := new(big.Int).Quo(sum, big.NewInt(p))

	ratio := new(big.Int).Quo(new(big.Int).Mul(m6, big.NewInt(sim.DecimalScale)), big.NewInt(x6))
	off := new(big.Int).Abs(new(big.Int).Sub(ratio, big.NewInt(sim.DecimalScale)))
	proposal := S
	if off.Cmp(big.NewInt(tol6)) > 0 {
		num := new(big.Int).Mul(big.NewInt(S), m6)
		q, r := new(big.Int).QuoRem(num, big.NewInt(x6), new(big.Int))
		if r.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		if q.IsInt64() {
			proposal = q.Int64()
		} else {
			proposal = 1 << 62
		}
	}
	b.tt.proposals = append(b.tt.proposals, refProposal{t, proposal})

	desired := S
	switch {
	case proposal > S:
		desired = min(proposal, S+max(4, S))
	case proposal < S:
		from := t - w + 1
		if w == 0 {
			from = t
		}
		highest := int64(0)
		for _, e := range b.tt.proposals {
			if e.cycle >= from {
				highest = max(highest, e.proposal)
			}
		}
		desired = min(S, highest)
	}
	desired = max(int64(cfg.MinServers), min(desired, int64(cfg.MaxServers)))

	switch {
	case desired > S:
		n := min(desired-S, int64(cfg.MaxServers-b.live()))
		for range n {
			id := b.addServer(true)
			b.tot.ScaleUps++
			b.m.emit(b, sim.ScaleUp, id, 0, sim.Request{})
		}
		b.last.Scale = int(max(n, 0))
	case desired < S:
		for range S - desired {
			b.removeOne()
		}
		b.last.Scale = -int(S - desired)
	}
}

// removeOne takes one server out for target tracking: the warming one
// with the highest id, else as the queue rule removes one.
func (b *refBalancer) removeOne() {
	b.tot.ScaleDowns++
	warming := b.ids(func(s *refServer) bool { return s.live() && s.warming })
	if len(warming) > 0 {
		id := warming[len(warming)-1]
		b.server(id).gone = true
		b.sync()
		b.m.emit(b, sim.ScaleDown, id, 0, sim.Request{})
		return
	}
	b.removeByQueueRule()
}

// TestReferenceMatchesModelTarget runs busy configurations under target
// tracking (every metric, short periods, small targets so that the pool
// moves, faults that take servers out of S and bring them back, warming
// servers, the client side and detection sometimes) with its settings
// changed mid-run, windows widened and narrowed among them, the same way
// as the other differential tests.
func TestReferenceMatchesModelTarget(t *testing.T) {
	sim.RapidDefaults(refCheckCount())
	rapid.Check(t, func(t *rapid.T) {
		cfg := sim.GenBusyConfigWithin(t, sim.NewBusyLimits(8, 1200, 20, 30))
		cfg.Autoscaler = sim.TargetTracking
		cfg.ScaleMetric = sim.ScaleMetric(rapid.IntRange(0, 2).Draw(t, "metric"))
		hi := int64(3 * sim.DecimalScale)
		if cfg.ScaleMetric == sim.MetricUtilization {
			hi = sim.DecimalScale
		}
		cfg.ScaleTarget = sim.Decimal(rapid.Int64Range(int64(sim.MinScaleTarget), hi).Draw(t, "target"))
		cfg.ScalePeriod = rapid.Int64Range(1, 20).Draw(t, "period")
		cfg.ScaleTolerance = sim.Decimal(rapid.Int64Range(0, sim.DecimalScale/4+1).Draw(t, "tolerance")) // plus one
		cfg.ScaleDownWindow = rapid.Int64Range(0, 40).Draw(t, "window")                                  // plus one
		if rapid.Bool().Draw(t, "faults") {
			cfg.MTBF, cfg.MTTR = rapid.Int64Range(1, 200).Draw(t, "mtbf"), rapid.Int64Range(1, 60).Draw(t, "mttr")
		}
		if rapid.Bool().Draw(t, "client") {
			sim.GenClientSettings(t, &cfg)
		}
		var changes []sim.Change
		for range rapid.IntRange(0, 5).Draw(t, "targetChanges") {
			c := sim.Change{Cycle: rapid.Int64Range(1, cfg.Cycles).Draw(t, "at")}
			switch rapid.IntRange(0, 2).Draw(t, "which") {
			case 0:
				c.Setting, c.Value = sim.SetScaleTarget, rapid.Int64Range(int64(sim.MinScaleTarget), hi).Draw(t, "newTarget")
			case 1:
				c.Setting, c.Value = sim.SetScaleTolerance, rapid.Int64Range(1, sim.DecimalScale/2).Draw(t, "newTolerance")
			case 2:
				c.Setting, c.Value = sim.SetScaleDownWindow, rapid.Int64Range(1, 600).Draw(t, "newWindow")
			}
			changes = append(changes, c)
		}
		changes = append(changes, sim.GenBusyChanges(t, cfg)...)
		slices.SortStableFunc(changes, func(a, b sim.Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		diffRun(t, cfg, changes)
	})
}
