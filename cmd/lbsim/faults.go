package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lbsim/lbsim/sim"
)

// faultList collects --fault values as changes, and in named those that
// name a balancer (P: or S:), which only a switch has.
type faultList struct {
	changes *[]sim.Change
	named   *[]string
}

func (v faultList) String() string { return "" }

func (v faultList) Set(s string) error {
	c, err := sim.ParseFault(s)
	if err != nil {
		return err
	}
	*v.changes = append(*v.changes, c)
	if _, ref, _ := strings.Cut(s, ":"); c.IsFault() && strings.Contains(ref, ":") && v.named != nil {
		alone := withoutBalancer(c)
		*v.named = append(*v.named, fmt.Sprintf("--fault %s names a balancer (P: or S:), which only a run with --switch has: give the server id alone, like %s:%s@%d",
			quoteCut(s), alone.Setting, alone.ValueString(), alone.Cycle))
	}
	return nil
}

// withoutBalancer returns the fault c naming its server of balancer 0.
func withoutBalancer(c sim.Change) sim.Change {
	if c.Setting == sim.SetSlow {
		ref, f := sim.ValueSlow(c.Value)
		c.Value = sim.SlowValue(sim.MakeServerRef(0, ref.ID()), f)
	} else {
		c.Value = int64(sim.MakeServerRef(0, sim.ServerRef(c.Value).ID()))
	}
	return c
}

// checkFaults refuses explicit faults that cannot happen: an up before a
// down of the same server is caught by reading them in order; a server that
// does not exist (or is already down) at the fault's cycle is caught by a
// trial run up to the last fault, since ids depend on autoscaling. A fault
// naming a server --replace-after has taken out, or a down or up that
// random faults (--mtbf) have made moot, is skipped by the run (counted in
// faults_skipped), not refused: the trial run lets it pass (sim's
// faultskip.go), so acceptance does not depend on the seed.
func checkFaults(o *runOptions, scheduled []sim.Change) error {
	last := int64(0)
	down := map[sim.ServerRef]bool{}
	// Random faults and replacement end outages the order cannot see: the
	// trial run judges a down of a server that was down.
	downAgain := o.cfg.MTBF > 0 || o.cfg.ReplaceAfter > 0 || slices.ContainsFunc(scheduled, func(c sim.Change) bool { return c.Setting == sim.SetReplaceAfter })
	for _, c := range scheduled {
		if !c.IsFault() {
			continue
		}
		ref := sim.ServerRef(c.Value)
		// The fault as it was given: --fault down:3@500 or --set 500:down=3.
		given := fmt.Sprintf("--fault %v:%v@%d", c.Setting, ref, c.Cycle)
		if slices.Contains(o.setChanges, c) {
			given = "--set " + c.String()
		}
		switch {
		case c.Setting == sim.SetUp && !down[ref]:
			return fmt.Errorf("%s: server %v is brought up before any down: bring it down first (down:%v@CYCLE)", given, ref, ref)
		case c.Setting == sim.SetDown && down[ref] && !downAgain:
			return fmt.Errorf("%s: server %v is already down: bring it up first", given, ref)
		}
		down[ref] = c.Setting == sim.SetDown
		last = max(last, c.Cycle)
	}
	if last == 0 {
		return nil
	}
	// The trial run stops at the last fault, so it takes only the changes
	// up to there (the whole log was validated by the real model's Schedule).
	cfg := o.cfg
	cfg.Cycles = min(cfg.Cycles, last)
	m, err := sim.New(cfg, sim.WithMaxQueued(o.maxQueued))
	if err != nil {
		return err
	}
	var early []sim.Change
	for _, c := range o.changes {
		if c.Cycle <= cfg.Cycles {
			early = append(early, c)
		}
	}
	if err := m.Schedule(early...); err != nil {
		return err
	}
	for m.FaultError() == nil && m.Step() {
	}
	return m.FaultError() // a trial stopped at the bound is reported by the run
}
