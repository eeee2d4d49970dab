package sim

import "fmt"

// UnusedError reports a setting that was given but that the rest of the
// configuration makes do nothing.
type UnusedError struct {
	Field string // the setting's flag name, without dashes
	Why   string // why it does nothing, and what would use it
}

// Error names the setting and says why it does nothing.
func (e *UnusedError) Error() string { return e.Field + ": " + e.Why }

// CheckUnused reports the first setting named in given that cfg, with the
// changes scheduled, would ignore: mean-service with uniform service times,
// weights without a policy that reads them. The command line refuses such
// a setting and the page warns, rather than accept it silently.
func CheckUnused(cfg *Config, given map[string]bool, changes []Change) error {
	if given["mean-service"] && cfg.Service == Uniform {
		return &UnusedError{"mean-service", "applies to service geometric or constant; uniform service times run from task-min to task-max"}
	}
	if given["weights"] && !cfg.Policy.weighted() {
		for _, c := range changes {
			if c.Setting == SetPolicy && Policy(c.Value).weighted() {
				return nil
			}
		}
		return &UnusedError{"weights", fmt.Sprintf("apply to policy swrr, and the policy is %v: choose swrr (or a change that switches to it), or drop the weights", cfg.Policy)}
	}
	return nil
}

// weighted reports whether the policy reads Config.Weights.
func (p Policy) weighted() bool { return p == SWRR }
