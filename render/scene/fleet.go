package scene

import (
	"fmt"

	"github.com/lbsim/lbsim/sim"
)

// A fleet of balancers on screen: with Balancer.FleetSize() K > 1 each
// lane draws up to maxGates gates between the firewall and its servers
// (the last one "+N" when K is larger), each request flies from the gate
// of its balancer (Request.Member), and a selected gate shows on every
// server box what that balancer believes its load to be beside the truth.

// staleTheory returns why no queueing model applies to cfg's routing when
// its balancers read stale or partial loads (a periodic board, or local
// counts in a fleet) with a policy that reads load, or "" when the
// information is exact (or does not matter, as for random routing and
// p2c drawing one candidate): the models of one balancer still hold then.
func staleTheory(cfg sim.Config) string {
	if cfg.Queues != sim.PerServer || !cfg.Policy.Info().ReadsLoad || cfg.Policy.TheoryFor(cfg.Choices) == sim.TheorySplit {
		return ""
	}
	k := max(cfg.Balancers, 1)
	var what string
	switch t, periodic := cfg.LoadInfo.Periodic(); {
	case periodic:
		what = fmt.Sprintf("a board refreshed every %s cycles", Commas(t))
	case cfg.LoadInfo == sim.LoadLocal && k > 1:
		what = "local counts (each balancer its own requests only)"
	default:
		return ""
	}
	return fmt.Sprintf("no closed form: %d balancers reading %s pick from stale loads, and %v's models (for exact loads) do not hold; "+
		"random routing keeps c × M/M/1, p2c with exact loads the supermarket model", k, what, cfg.Policy)
}
