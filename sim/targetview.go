package sim

import "math/bits"

// TargetView is what target tracking reads and decides, for a view: the
// metric this cycle (as step e samples it) and the target, both in
// millionths, and the raw proposal of the last evaluation (after the
// tolerance rule, before the rate limit, the window and the clamp) with
// its cycle; Proposal is 0 before the first evaluation.
type TargetView struct {
	Metric6, Target6 int64
	Proposal, At     int64
}

// Target returns the balancer's target-tracking view, and false when its
// autoscaler is the queue rule. It reads and changes nothing of the run.
func (b *Balancer) Target() (TargetView, bool) {
	cfg := &b.m.cfg
	if cfg.Autoscaler != TargetTracking {
		return TargetView{}, false
	}
	v := TargetView{Target6: cfg.scaleTarget()}
	if num, den := b.targetMetric(); num > 0 && den > 0 {
		hi, lo := bits.Mul64(uint64(num), DecimalScale)
		q, _ := bits.Div64(hi%uint64(den), lo, uint64(den))
		v.Metric6 = int64(min(q, 1<<62))
	}
	if a := b.target; a != nil && len(a.window) > 0 {
		last := a.window[len(a.window)-1]
		v.Proposal, v.At = last.proposal, last.cycle
	}
	return v, true
}
