// Package lanes runs several balancers side by side on the same requests:
// a Set holds one sim.Model per lane, built from a base configuration and
// each lane's variant, and steps them in lockstep. Because the request
// stream depends only on the seed and the arrival settings, lanes that
// differ only in balancer settings see the same requests, so a change of an
// arrival setting goes to every lane and a change of a balancer setting to
// one. It is the model behind the page's compare view; `lbsim compare`
// reads variants with the same ParseVariant.
package lanes

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// Variant is one lane's label and its settings, as `lbsim run` flag names
// without dashes and their values, in the order given.
type Variant struct {
	Label string
	Sets  [][2]string
}

// ParseVariant reads LABEL:NAME=VALUE[,NAME=VALUE…] or the bare list, which
// is then its own label. A piece without '=' continues the value before
// it, so a value may hold commas (speeds=2,1,1). allowed says which names
// a variant may set.
func ParseVariant(s string, allowed func(string) bool) (Variant, error) {
	v := Variant{Label: s}
	list := s
	if colon, eq := strings.Index(s, ":"), strings.Index(s, "="); colon >= 0 && (eq < 0 || colon < eq) {
		v.Label, list = strings.TrimSpace(s[:colon]), s[colon+1:]
	}
	if v.Label == "" {
		return v, fmt.Errorf("%q: the label before ':' is empty", s)
	}
	for _, piece := range strings.Split(list, ",") {
		name, value, ok := strings.Cut(piece, "=")
		if !ok {
			if len(v.Sets) == 0 {
				return v, fmt.Errorf("%q: %q is not NAME=VALUE; want LABEL:NAME=VALUE[,NAME=VALUE…], like p2c:policy=p2c,choices=3", s, piece)
			}
			v.Sets[len(v.Sets)-1][1] += "," + piece // a value with commas: speeds=2,1,1
			continue
		}
		name = strings.TrimSpace(name)
		if !allowed(name) {
			return v, fmt.Errorf("%q: %q is not a setting a variant can change; use a 'lbsim run' flag name without dashes, like policy, queues, speeds or rate", s, name)
		}
		v.Sets = append(v.Sets, [2]string{name, strings.TrimSpace(value)})
	}
	if len(v.Sets) == 0 {
		return v, fmt.Errorf("%q: no NAME=VALUE setting", s)
	}
	return v, nil
}

// ParseVariants reads the page's compare parameter: variants separated by
// ';', two to snapshot.MaxLanes of them, labels unique, names that
// sim.Config.Set takes (but the seed, which all lanes share).
func ParseVariants(s string) ([]Variant, error) {
	allowed := func(name string) bool {
		for _, n := range sim.ConfigNames() {
			if n == name {
				return name != "seed" && name != "cycles"
			}
		}
		return false
	}
	var vs []Variant
	for _, part := range strings.Split(s, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		v, err := ParseVariant(part, allowed)
		if err != nil {
			return nil, err
		}
		for _, w := range vs {
			if w.Label == v.Label {
				return nil, fmt.Errorf("%q: the label %q is taken by another lane", part, v.Label)
			}
		}
		vs = append(vs, v)
	}
	if len(vs) < 2 || len(vs) > snapshot.MaxLanes {
		return nil, fmt.Errorf("compare=%q: want 2 to %d lanes separated by ';', like policy=round-robin;policy=p2c", s, snapshot.MaxLanes)
	}
	return vs, nil
}

// Apply returns base with the variant's settings, as the page's query
// parameters set them (sim.Config.Set), and the defaults that depend on
// them filled in for the names neither set.
func (v Variant) Apply(base sim.Config, given func(string) bool) (sim.Config, error) {
	cfg := base.Clone()
	set := map[string]bool{}
	for _, kv := range v.Sets {
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			return sim.Config{}, fmt.Errorf("lane %q: %w", v.Label, err)
		}
		set[kv[0]] = true
	}
	cfg.FillDefaults(func(name string) bool { return given(name) || set[name] })
	if err := cfg.Validate(); err != nil {
		return sim.Config{}, fmt.Errorf("lane %q: %w", v.Label, err)
	}
	return cfg, nil
}

// Lane is one balancer of a Set.
type Lane struct {
	Label string
	Model *sim.Model
	rec   *snapshot.Recorder
}

// Set is two to snapshot.MaxLanes lanes stepped together.
type Set struct {
	Lanes []*Lane
}

// New builds the lanes, each with its configuration and changes.
func New(specs []snapshot.LaneSpec, opts ...sim.Option) (*Set, error) {
	if len(specs) < 1 || len(specs) > snapshot.MaxLanes {
		return nil, fmt.Errorf("lanes: 1 to %d lanes, not %d", snapshot.MaxLanes, len(specs))
	}
	cycles := specs[0].Config.Cycles
	s := &Set{}
	for _, sp := range specs {
		if sp.Config.Cycles != cycles {
			return nil, errors.New("lanes: every lane must run the same number of cycles")
		}
		m, err := sim.New(sp.Config, opts...)
		if err != nil {
			return nil, fmt.Errorf("lane %q: %w", sp.Label, err)
		}
		if err := m.Schedule(sp.Changes...); err != nil {
			return nil, fmt.Errorf("lane %q: %w", sp.Label, err)
		}
		l := &Lane{Label: sp.Label, Model: m, rec: snapshot.NewRecorder(sp.Config)}
		l.rec.Observe(m)
		s.Lanes = append(s.Lanes, l)
	}
	return s, nil
}

// Step advances every lane by one cycle; it reports false once the run
// has reached its last cycle.
func (s *Set) Step() bool {
	stepped := false
	for _, l := range s.Lanes {
		if l.Model.Step() {
			l.rec.Observe(l.Model)
			stepped = true
		}
	}
	return stepped
}

// Cycle returns the lanes' cycle.
func (s *Set) Cycle() int64 { return s.Lanes[0].Model.Cycle() }

// Arrival reports whether a setting belongs to the arrivals (the request
// stream) rather than to a balancer: such a change goes to every lane.
func Arrival(setting sim.Setting) bool {
	switch setting {
	case sim.SetRate, sim.SetWave, sim.SetTaskMin, sim.SetTaskMax:
		return true
	}
	return false
}

// Schedule queues change c: an arrival setting's for every lane, a
// balancer setting's (or a fault's) for lane i only. On error no lane has
// it.
func (s *Set) Schedule(c sim.Change, i int) error {
	if i < 0 || i >= len(s.Lanes) {
		return fmt.Errorf("lanes: no lane %d", i+1)
	}
	targets := []*Lane{s.Lanes[i]}
	if Arrival(c.Setting) {
		targets = s.Lanes
	}
	for _, l := range targets { // check every lane first: all or none
		if err := l.Model.CanSchedule(c); err != nil {
			return fmt.Errorf("lane %q: %w", l.Label, err)
		}
	}
	for _, l := range targets {
		l.Model.Schedule(c) // cannot fail: just checked
	}
	return nil
}

// Comparison returns the run as a comparison snapshot; every lane must
// have reached its last cycle.
func (s *Set) Comparison() (snapshot.Comparison, error) {
	var c snapshot.Comparison
	for _, l := range s.Lanes {
		snap, err := l.rec.Snapshot(l.Model)
		if err != nil {
			return snapshot.Comparison{}, fmt.Errorf("lane %q: %w", l.Label, err)
		}
		c.Lanes = append(c.Lanes, snapshot.Lane{Label: l.Label, Snapshot: snap})
	}
	return c, nil
}
