package sim

// What the external tests (package sim_test: the reference model and its
// differential tests) use of this package's test helpers.

// BusyLimits bounds GenBusyConfigWithin.
type BusyLimits = busyLimits

// NewBusyLimits returns limits of at most servers servers, cycles cycles,
// initial requests per server and a task range of span.
func NewBusyLimits(servers int, cycles int64, initial, span int) BusyLimits {
	return busyLimits{servers: servers, cycles: cycles, initial: initial, taskSpan: span}
}

// The generators and the checker, under exported names.
var (
	GenBusyConfigWithin = genBusyConfigWithin
	GenBusyChanges      = genBusyChanges
	GenConfig           = genConfig
	RapidDefaults       = rapidDefaults
	CheckInvariants     = func(t Tester, m *Model) { checkInvariants(t, m) }
)

// Tester is what the checker needs of a test.
type Tester = tester

// GenChanges draws changes at cycles after..n, valid or not.
var GenChanges = genChanges

// Every run these tests make compacts its slots at each chance (slots.go),
// so every golden trace, event hash and reference comparison checks that
// compacting leaves a run as it was.
func init() { compactMin = 1 }

// LimitState returns balancer i's limit refusals and its limits: the
// pool's (pooled) or each slot's (per-server), for the hand traces.
func (m *Model) LimitState(i int) (refused int64, limits []int) {
	b := m.bal[i]
	if b.lim == nil {
		return 0, nil
	}
	if !b.perServer {
		return b.tot.Limited, []int{b.limitOf(0)}
	}
	for id := 1; id <= len(b.srv); id++ {
		limits = append(limits, b.limitOf(id))
	}
	return b.tot.Limited, limits
}

// ShapeTime is the time one 64-bit draw u gives under cfg's shape, for
// the shapes other than uniform, constant and geometric (the reference
// draws those itself): the sampler's inverse transforms.
func ShapeTime(cfg *Config, u uint64) uint32 {
	s := newSampler(cfg)
	return s.draw(u, cfg)
}

// FanoutPolicies lists the policies fan-out routes its parts with.
func FanoutPolicies() []Policy {
	var out []Policy
	for p := range numPolicies {
		if fanoutPolicy(p) {
			out = append(out, p)
		}
	}
	return out
}
