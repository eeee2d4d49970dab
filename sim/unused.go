package sim

import (
	"fmt"
	"slices"
	"strings"
)

// UnusedError reports a setting that was given but that the rest of the
// configuration makes do nothing.
type UnusedError struct {
	Field string // the setting's flag name, without dashes
	Why   string // why it does nothing, and what would use it
}

// Error names the setting and says why it does nothing.
func (e *UnusedError) Error() string { return e.Field + ": " + e.Why }

// CheckUnused reports the first setting named in given that cfg, with the
// changes scheduled, would ignore: a shape parameter the service shape does
// not read, weights or choices without a policy that reads them in the queue mode
// (the policy table says which do). The command line refuses such a
// setting and the page warns, rather than accept it silently.
func CheckUnused(cfg *Config, given map[string]bool, changes []Change) error {
	for _, sp := range shapeParams {
		if given[sp.name] && !slices.Contains(sp.shapes, cfg.Service) {
			return &UnusedError{sp.name, fmt.Sprintf("applies to --service %s, and the service is %v", joinShapes(sp.shapes), cfg.Service)}
		}
	}
	for _, u := range []struct {
		field string
		reads func(Policy, QueueMode) bool
	}{{"weights", Policy.ReadsWeights}, {"choices", Policy.ReadsChoices}} {
		if given[u.field] && !readByAny(cfg, changes, u.reads) {
			return &UnusedError{u.field, fmt.Sprintf("apply to policy %s, and the policy is %v with %v queues: choose one of those (or a change that switches to one), or drop --%s",
				strings.Join(PoliciesReading(u.reads), ", "), cfg.Policy, cfg.Queues, u.field)}
		}
	}
	for _, d := range clientNeeds {
		if !given[d.name] || d.on(cfg) {
			continue
		}
		if slices.ContainsFunc(changes, func(c Change) bool { return c.Setting == d.setting && c.Value > 0 }) {
			continue
		}
		return &UnusedError{d.name, fmt.Sprintf("applies only with --%s above 0 (or a change that sets it): give --%s too, or drop --%s", d.setting, d.setting, d.name)}
	}
	return nil
}

// clientNeeds lists, for each setting of the client side and detection
// that only refines another, the setting it needs on.
var clientNeeds = []struct {
	name    string
	setting Setting
	on      func(*Config) bool
}{
	{"backoff", SetRetries, func(c *Config) bool { return c.Retries > 0 }},
	{"jitter", SetRetries, func(c *Config) bool { return c.Retries > 0 }},
	{"retry-budget", SetRetries, func(c *Config) bool { return c.Retries > 0 }},
	{"health-fall", SetHealthInterval, func(c *Config) bool { return c.HealthInterval > 0 }},
	{"health-rise", SetHealthInterval, func(c *Config) bool { return c.HealthInterval > 0 }},
	{"eject-for", SetEjectAfter, func(c *Config) bool { return c.EjectAfter > 0 }},
}

// readByAny reports whether the policy of cfg, or one that changes switch
// to, reads a setting in cfg's queue mode.
func readByAny(cfg *Config, changes []Change, reads func(Policy, QueueMode) bool) bool {
	if reads(cfg.Policy, cfg.Queues) {
		return true
	}
	for _, c := range changes {
		if c.Setting == SetPolicy && reads(Policy(c.Value), cfg.Queues) {
			return true
		}
	}
	return false
}

// shapeParams lists, for each shape parameter, the shapes that read it.
var shapeParams = []struct {
	name   string
	shapes []Service
}{
	{"mean-service", []Service{Geometric, Constant, Lognormal, Pareto}},
	{"service-cv", []Service{Lognormal}},
	{"service-shape", []Service{Pareto}},
	{"service-max", []Service{Lognormal, Pareto}},
	{"long-share", []Service{Bimodal}},
	{"service-file", []Service{Empirical}},
}

// joinShapes writes shapes as "a, b or c".
func joinShapes(shapes []Service) string {
	names := make([]string, len(shapes))
	for i, s := range shapes {
		names[i] = s.String()
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
