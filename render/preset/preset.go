// Package preset reads the starting configuration of the page and the
// desktop window: the settings named like `lbsim run` flags (seed, servers,
// rate, …) plus the view's own speed and pause-at.
//
// The page passes its query parameters and the window its command-line
// flags, so a link and a command line mean the same run, and the same run as
// `lbsim run` with those flags: max-servers defaults to
// sim.DefaultMaxServers(servers) and a missing seed is replaced by a random
// one, as the CLI does.
//
// Read never fails: a bad parameter is reported in Preset.Problems, with its
// name and what it allows, and the view starts anyway — without that
// parameter, or with the defaults when the settings do not fit together.
package preset

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/lanes"
	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/render/scene"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// Param is one name=value pair, a query parameter or a flag.
type Param struct{ Name, Value string }

// Preset is a starting configuration for the view.
type Preset struct {
	Config    sim.Config
	SeedGiven bool  // the seed came from the parameters, not chosen at random
	Speed     int64 // cycles per second, or scene.MaxSpeed for fast-forward
	PauseAt   int64 // pause when the cycle reaches it; -1 for never
	// Changes are the set= and fault= parameters, as --set and --fault
	// give them: settings changed, or servers failing, at given cycles.
	Changes []sim.Change
	// Present and Theory open the view in presentation mode and with the
	// theory panel (present=1, theory=1), so a teacher's link opens ready
	// to project.
	Present, Theory bool
	// Lesson is the lesson named by lesson=NAME (see package lesson), or
	// "": its preset is applied first, and its caption shown.
	Lesson string
	// Quiz is the lesson's question, asked before the run (nil: the
	// lesson asks none, quiz=0 turned it off, or try=1 opened its "now
	// try" run, whose settings are the lesson's then the quiz's Try and
	// whose caption says what to look for).
	Quiz *lesson.Quiz
	// Try is set by try=1: the lesson's "now try" run.
	Try bool
	// Title is the lesson's or the ready-made comparison's title, or "".
	Title string
	// Measure is the lesson's figure, shown per lane in large type.
	Measure lesson.Measure
	// Caption is the lesson's caption, or the lines of Note, shown over
	// the scene.
	Caption []string
	// Note is a teacher's own caption (caption=TEXT: at most
	// snapshot.MaxCaption printable characters), shown like a lesson's
	// and carried by the run's snapshots and share links.
	Note string
	// Lanes are the compare view's lanes (compare=VARIANT;VARIANT…, see
	// lanes.ParseVariants), each the run of the other parameters plus its
	// variant's settings and the set= and fault= changes, exactly as
	// `lbsim compare` runs it; nil for a single run. Config and Changes
	// are then the first lane's.
	Lanes []snapshot.LaneSpec
	// Problems are readable messages about the parameters that were
	// ignored; empty when every parameter was used.
	Problems []string
}

// DefaultSpeed is the speed the view starts at without a speed parameter,
// in cycles per second: fast enough that the default wave (20,000 cycles)
// passes in about half a minute; − slows it down to follow each request.
const DefaultSpeed = 600

// ViewNames lists the parameters of the view itself, beside the settings of
// sim.ConfigNames.
func ViewNames() []string {
	return []string{"speed", "pause-at", "set", "fault", "present", "theory", "lesson", "compare", "comparison", "caption", "quiz", "try"}
}

// ViewOnlyNames lists the parameters that change only how the run is
// shown, never the run: a share link may drop them.
func ViewOnlyNames() []string { return []string{"speed", "pause-at", "present", "theory", "quiz"} }

// ViewSwitches lists the view's parameters that are on or off (read by
// parseOnOff).
func ViewSwitches() []string { return []string{"present", "theory", "quiz", "try"} }

// IsOnOff reports whether s is one of the spellings parseOnOff reads, an
// empty s aside.
func IsOnOff(s string) bool {
	_, err := parseOnOff(s)
	return err == nil && strings.TrimSpace(s) != ""
}

// parseOnOff reads a switch parameter: 1, true, on or yes; 0, false, off or no.
func parseOnOff(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "on", "yes", "":
		return true, nil
	case "0", "false", "off", "no":
		return false, nil
	}
	return false, errors.New("want 1 or 0 (true or false)")
}

// Read builds a preset from the parameters; seed supplies the random seed
// used when none is given (RandomSeed in production, a constant in tests).
func Read(params []Param, seed func() uint64) Preset {
	r := reader{p: Preset{Config: sim.DefaultConfig(), Speed: DefaultSpeed, PauseAt: -1}, seen: map[string]bool{}}
	// A lesson's settings come first, then a ready-made comparison's; the
	// other parameters apply after them.
	params = r.p.prepend(params, "lesson")
	params = r.p.prepend(params, "comparison")
	for _, q := range params {
		name := strings.TrimLeft(q.Name, "-")
		if r.read(name, q.Value) {
			r.seen[name] = true
		}
	}
	return r.finish(seed)
}

// reader is Read's state while it reads the parameters.
type reader struct {
	p       Preset
	seen    map[string]bool
	compare string   // the compare parameter, read at the end
	blocks  []string // repeated block parameters add up, as repeated --block flags do
	tryOn   bool     // try=1 was given
}

// prepend puts the settings of the lesson or ready-made comparison that a
// parameter called name (lesson or comparison) names before params.
func (p *Preset) prepend(params []Param, name string) []Param {
	for _, q := range params {
		if strings.TrimLeft(q.Name, "-") != name {
			continue
		}
		var kvs [][2]string
		if name == "lesson" {
			l, err := lesson.Find(strings.TrimSpace(q.Value))
			if err != nil {
				p.Problems = append(p.Problems, "parameter lesson: "+err.Error())
				return params
			}
			p.Lesson, p.Caption, p.Measure, kvs = l.Name, l.Caption, l.Measure, l.Params()
			p.Title = "Lesson: " + l.Title
			p.Quiz = l.Quiz()
			if p.Quiz != nil && switchOn(params, "try", false) {
				p.Try, p.Caption, kvs = true, p.Quiz.TryCaption(), l.TryParams()
				p.Title += ", now try: " + p.Quiz.TryText
			}
			if p.Try || !switchOn(params, "quiz", true) {
				p.Quiz = nil
			}
		} else {
			c, err := lesson.FindComparison(strings.TrimSpace(q.Value))
			if err != nil {
				p.Problems = append(p.Problems, "parameter comparison: "+err.Error())
				return params
			}
			p.Caption, p.Title, kvs = c.Caption, "Comparison: "+c.Title, c.Params()
		}
		var ps []Param
		for _, kv := range kvs {
			ps = append(ps, Param{Name: kv[0], Value: kv[1]})
		}
		return append(ps, params...)
	}
	return params
}

// switchOn reads the switch parameter name among params (its last
// value), or def when it is missing or not a switch's value.
func switchOn(params []Param, name string, def bool) bool {
	on := def
	for _, q := range params {
		if strings.TrimLeft(q.Name, "-") == name {
			if v, err := parseOnOff(q.Value); err == nil {
				on = v
			}
		}
	}
	return on
}

// read takes one parameter and reports whether it was taken (a problem is
// noted otherwise).
func (r *reader) read(name, value string) bool {
	p, cfg := &r.p, &r.p.Config
	switch name {
	case "speed":
		sp, err := ParseSpeed(value)
		if err != nil {
			p.problem(name, value, err.Error())
			return false
		}
		p.Speed = sp
	case "set", "fault":
		parse := sim.ParseChange
		if name == "fault" {
			parse = sim.ParseFault
		}
		c, err := parse(strings.TrimSpace(value))
		if err != nil {
			p.problem(name, value, err.Error())
			return false
		}
		p.Changes = append(p.Changes, c)
	case "block":
		return r.block(value)
	case "present", "theory", "quiz", "try":
		on, err := parseOnOff(value)
		if err != nil {
			p.problem(name, value, err.Error())
			return false
		}
		switch name {
		case "present":
			p.Present = on
		case "theory":
			p.Theory = on
		case "try":
			r.tryOn = on
		} // quiz and try take effect with the lesson (prepend)
	case "lesson", "comparison": // read first
	case "caption":
		if err := snapshot.CheckCaption(value); err != nil {
			p.problem(name, value, err.Error())
			return false
		}
		p.Note = strings.TrimSpace(value)
		p.Caption = scene.CaptionLines(p.Note)
	case "compare":
		r.compare = value
	case "pause-at":
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n < 0 {
			p.problem(name, value, "want a cycle number ≥ 0")
			return false
		}
		p.PauseAt = n
	default:
		err := cfg.Set(name, value)
		var fe *sim.FieldError
		switch {
		case errors.As(err, &fe):
			p.problem(name, value, fe.Allowed)
			return false
		case err != nil:
			allowed := append(sim.ConfigNames(), ViewNames()...)
			p.Problems = append(p.Problems, fmt.Sprintf("unknown parameter %s: allowed are %s", sim.QuoteInput(name), strings.Join(allowed, ", ")))
			return false
		}
	}
	return true
}

// block adds a block parameter's range to the list ("none" alone blocks
// nothing).
func (r *reader) block(value string) bool {
	v := strings.TrimSpace(value)
	if v != "none" {
		r.blocks = append(r.blocks, v)
	}
	if err := r.p.Config.Set("block", strings.Join(r.blocks, ",")); err != nil {
		if v != "none" {
			r.blocks = r.blocks[:len(r.blocks)-1]
		}
		var fe *sim.FieldError
		if errors.As(err, &fe) {
			r.p.problem("block", value, fe.Allowed)
		}
		return false
	}
	return true
}

// finish draws the seed if none was given, fills in the defaults, checks
// the changes and the settings (falling back to the defaults, with a
// problem noted), and builds the compare lanes.
func (r *reader) finish(seed func() uint64) Preset {
	p, cfg := &r.p, &r.p.Config
	p.SeedGiven = r.seen["seed"]
	if !p.SeedGiven {
		cfg.Seed = seed()
	}
	raw := cfg.Clone() // the variants apply to the settings given, before their defaults
	given := func(name string) bool { return r.seen[name] }
	cfg.FillDefaults(given)
	if err := cfg.Validate(); err == nil && len(p.Changes) > 0 {
		// The changes must fit the settings, as the CLI checks --set.
		if m, err := sim.New(*cfg, sim.WithMaxQueued(scene.PageMaxQueued)); err == nil {
			if err := m.Schedule(p.Changes...); err != nil {
				p.Problems = append(p.Problems, fmt.Sprintf("set/fault: %v; running without the changes", err))
				p.Changes = nil
			}
		}
	}
	if r.tryOn && !p.Try {
		p.Problems = append(p.Problems, "parameter try: only a lesson that asks a question has a \"now try\" run; ignored")
	}
	if err := sim.CheckUnused(cfg, r.seen, p.Changes); err != nil {
		p.Problems = append(p.Problems, fmt.Sprintf("parameter %v; ignored", err))
	}
	if err := cfg.Validate(); err != nil {
		msg := err.Error()
		var fe *sim.FieldError
		if errors.As(err, &fe) {
			msg = fmt.Sprintf("%s = %s is not allowed: %s", fe.Field, fe.Value, fe.Allowed)
		}
		p.Problems = append(p.Problems, msg+"; running with the default settings")
		s := cfg.Seed
		p.Config = sim.DefaultConfig()
		p.Config.Seed = s
		p.Config.MaxServers = sim.DefaultMaxServers(p.Config.Servers)
		return *p
	}
	if r.compare != "" {
		lanes, err := compareLanes(r.compare, raw, given, p.Changes)
		if err != nil {
			p.Problems = append(p.Problems, fmt.Sprintf("parameter compare: %v; showing one run", err))
		} else {
			p.Lanes, p.Config = lanes, lanes[0].Config.Clone()
		}
	}
	return *p
}

// compareLanes reads the compare parameter: each variant's settings
// applied to base (the settings given, given reports which), with the
// changes on every lane. Every lane must start and take its changes.
func compareLanes(s string, base sim.Config, given func(string) bool, changes []sim.Change) ([]snapshot.LaneSpec, error) {
	vs, err := lanes.ParseVariants(s)
	if err != nil {
		return nil, err
	}
	specs := make([]snapshot.LaneSpec, len(vs))
	for i, v := range vs {
		cfg, err := v.Apply(base, given)
		if err != nil {
			return nil, err
		}
		specs[i] = snapshot.LaneSpec{Label: v.Label, Config: cfg, Changes: slices.Clone(changes)}
	}
	if _, err := lanes.New(specs, sim.WithMaxQueued(scene.PageMaxQueued)); err != nil {
		return nil, err
	}
	return specs, nil
}

func (p *Preset) problem(name, value, allowed string) {
	p.Problems = append(p.Problems, fmt.Sprintf("parameter %s = %s is not allowed: %s; ignored", name, sim.QuoteInput(value), allowed))
}

// ParseSpeed reads a speed: a whole number of cycles per second from 1 to
// scene.MaxFixedSpeed, or "max" for fast-forward.
func ParseSpeed(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "max" {
		return scene.MaxSpeed, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > scene.MaxFixedSpeed {
		return 0, fmt.Errorf("want cycles per second from 1 to %d, or max", scene.MaxFixedSpeed)
	}
	return n, nil
}

// RandomSeed picks a seed the way `lbsim run` does without --seed: a
// number from 1 to 999999999, easy to read and type. It uses the runtime's
// randomly seeded generator (not crypto/rand, which would add to the size
// of the page), and never the model's.
func RandomSeed() uint64 { return rand.Uint64N(999_999_999) + 1 }
