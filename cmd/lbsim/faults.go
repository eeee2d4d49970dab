package main

import (
	"fmt"

	"github.com/lbsim/lbsim/sim"
)

// faultList collects --fault values as changes.
type faultList struct{ changes *[]sim.Change }

func (v faultList) String() string { return "" }

func (v faultList) Set(s string) error {
	c, err := sim.ParseFault(s)
	if err != nil {
		return err
	}
	*v.changes = append(*v.changes, c)
	return nil
}

// checkFaults refuses explicit faults that cannot happen: an up before a
// down of the same server is caught by reading them in order; a server that
// does not exist (or is already down) at the fault's cycle is caught by a
// trial run up to the last fault, since ids depend on autoscaling.
func checkFaults(o *runOptions, scheduled []sim.Change) error {
	last := int64(0)
	down := map[sim.ServerRef]bool{}
	for _, c := range scheduled {
		if !c.IsFault() {
			continue
		}
		ref := sim.ServerRef(c.Value)
		switch {
		case c.Setting == sim.SetUp && !down[ref]:
			return fmt.Errorf("--fault up:%v@%d: server %v is brought up before any down: write down:%v@CYCLE first", ref, c.Cycle, ref, ref)
		case c.Setting == sim.SetDown && down[ref] && o.cfg.MTBF == 0:
			return fmt.Errorf("--fault down:%v@%d: server %v is already down: bring it up first", ref, c.Cycle, ref)
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
