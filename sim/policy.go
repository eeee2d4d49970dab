package sim

import (
	"fmt"
	"strings"
)

// Policy chooses which idle active server gets the oldest queued request.
type Policy uint8

// The dispatch policies of the central queue.
const (
	// FirstIdle gives the request to the idle active server with the lowest id.
	FirstIdle Policy = iota
	// RoundRobin gives it to the idle active server that comes next by id,
	// wrapping, after the last server that was given a request, even if that
	// server has since left; the first request goes to the lowest id.
	RoundRobin
	// Random picks uniformly among the idle active servers, with the run's
	// seeded generator.
	Random
	// SWRR is nginx's smooth weighted round-robin over the idle active
	// servers only (package swrr); Config.Weights gives the weights.
	SWRR
	numPolicies
)

var policyNames = [numPolicies]string{"first-idle", "round-robin", "random", "swrr"}

// String returns the policy's name as the --policy flag spells it.
func (p Policy) String() string {
	if p < numPolicies {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// PolicyNames lists the accepted policy names.
func PolicyNames() []string { return policyNames[:] }

// ParsePolicy reads a policy name.
func ParsePolicy(s string) (Policy, error) {
	for i, n := range policyNames {
		if s == n {
			return Policy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown policy %q: allowed %s", quoted(s), strings.Join(policyNames[:], ", "))
}
