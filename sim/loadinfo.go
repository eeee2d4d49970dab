package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// LoadInfo is what each balancer of a fleet reads as a server's load
// (--load-info): LoadExact, LoadLocal, or a period T > 0 (periodic:T).
type LoadInfo int64

// The kinds of load information that are not a period.
const (
	// LoadExact: every balancer reads every server's true load.
	LoadExact LoadInfo = 0
	// LoadLocal: a balancer reads the attempts it routed to a server
	// that the server still holds.
	LoadLocal LoadInfo = -1
)

// Periodic reports whether the information is a board refreshed every
// Period cycles, and that period.
func (l LoadInfo) Periodic() (period int64, ok bool) { return int64(l), l > 0 }

// String writes the value as --load-info takes it.
func (l LoadInfo) String() string {
	switch {
	case l == LoadExact:
		return "exact"
	case l == LoadLocal:
		return "local"
	case l > 0:
		return "periodic:" + strconv.FormatInt(int64(l), 10)
	}
	return fmt.Sprintf("LoadInfo(%d)", int64(l))
}

// ParseLoadInfo reads exact, local or periodic:T (syntax only: T's range
// is the settings table's check).
func ParseLoadInfo(s string) (LoadInfo, error) {
	s = strings.TrimSpace(s) // spaces around a value or a piece of it are ignored
	switch s {
	case "exact":
		return LoadExact, nil
	case "local":
		return LoadLocal, nil
	}
	t, ok := strings.CutPrefix(s, "periodic:")
	if !ok {
		return 0, fmt.Errorf("%q is no load information", quoted(s))
	}
	t = strings.TrimSpace(t)
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("periodic:%s: the period must be a whole number of cycles from 1 to %d", quoted(t), MaxLoadPeriod)
	}
	return LoadInfo(v), nil
}

// loadInfoRow is --load-info's row of the settings table: a scalar whose
// value is the LoadInfo (local −1, exact 0, a period above). A change may
// set only a periodic board's period (applyChanges refuses the rest).
var loadInfoRow = Row{Name: "load-info", Unit: "",
	Help:  "what each balancer of a fleet knows of a server's load: exact, local (its own requests there) or periodic:T (a board refreshed every T cycles, plus its own picks since)",
	Range: "exact, local, periodic:1..10⁶", Example: "periodic:50", def: "exact",
	lo: int64(LoadLocal), hi: MaxLoadPeriod,
	allowed: fmt.Sprintf("must be exact, local or periodic:T with T a whole number of cycles from 1 to %d", MaxLoadPeriod),
	syntax:  "want exact, local or periodic:T (T cycles, like periodic:100)",
	detail:  true,
	parse:   func(s string) (int64, error) { v, err := ParseLoadInfo(s); return int64(v), err },
	format:  func(v int64) string { return LoadInfo(v).String() },
	load:    func(c *Config) int64 { return int64(c.LoadInfo) },
	store:   func(c *Config, v int64) { c.LoadInfo = LoadInfo(v) },
	forms:   []string{"exact", "local", "periodic:"},
}.changeable(SetLoadInfo).wire("li", 51).small(-2, 30).needs([]string{"--queues", "per-server", "--policy", "least-connections"},
	readsLoadInfo,
	func(c *Config) string {
		return fmt.Sprintf("applies to a policy that reads load (%s) with per-server queues, and the policy is %v with %v queues: choose one (or a change that switches to one), or drop --load-info",
			strings.Join(PoliciesReading(func(p Policy, q QueueMode) bool { return q == PerServer && p.Info().ReadsLoad }), ", "), c.Policy, c.Queues)
	}).testWith("queues", "per-server", "policy", "least-connections", "load-info", "periodic:100") // a change sets only a board's period

// readsLoadInfo reports whether a run state reads its load information:
// exact is always read; the others only by a policy that reads load.
func readsLoadInfo(c *Config) bool {
	return c.LoadInfo == LoadExact || (c.Queues == PerServer && c.Policy.Info().ReadsLoad)
}
