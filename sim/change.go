package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Setting names a configuration value that may change during a run, as a
// slider or a --set flag changes it.
type Setting uint8

// The settings a Change may alter. Their names are the run flags' names.
// A Setting's number is stored in snapshots and share links: the list is
// append-only. Never reorder or remove one; add new ones at the end.
const (
	SetRate Setting = iota
	SetWave
	SetScaleUp
	SetScaleDown
	SetCooldown
	SetTaskMin
	SetTaskMax
	SetPolicy
	SetMinServers
	SetMaxServers
	SetQueueCap
	SetDown // a server fails: Value is a ServerRef
	SetUp   // a failed server comes back: Value is a ServerRef
	// SetBlock adds a range to the firewall's block list, SetUnblock
	// removes one that is in it: Value is RangeValue(range).
	SetBlock
	SetUnblock
	// The gray failures: a server turns slow (Value is SlowValue), fails
	// every attempt after Config.FailTime, hangs, or heals (Value is a
	// ServerRef). A server has one gray state; each replaces the last.
	SetSlow
	SetFail
	SetHang
	SetHeal
	// The client side and detection: each applies to the attempts that
	// arrive, and the cycles that follow, from its change on. Value is a
	// count of cycles, retries, probes or errors; 0/1 for jitter; a
	// Decimal share for retry-budget.
	SetTimeout
	SetRetries
	SetBackoff
	SetJitter
	SetRetryBudget
	SetHealthInterval
	SetHealthFall
	SetHealthRise
	SetEjectAfter
	SetEjectFor
	SetProvisionDelay
	SetReplaceAfter
	// A failing server's time to an error (Config.FailTime) and p2c's
	// choices (Config.Choices).
	SetFailTime
	SetChoices
	// A periodic board's refresh period (Config.LoadInfo, periodic only).
	SetLoadInfo
	// A queue's discipline (Config.Discipline), from step d of its cycle.
	SetDiscipline
	// Target tracking's target, tolerance and stabilisation window, read
	// from the next evaluation on.
	SetScaleTarget
	SetScaleTolerance
	SetScaleDownWindow
	// Shedding's target (Config.CodelTarget), from step d of its cycle.
	SetCodelTarget
	// Hedging's delay (Config.HedgeAfter), for the parts first sent from
	// its cycle on (0 turns hedging off for them).
	SetHedgeAfter
	numSettings
)

// An action is a change that is no setting's new value: a fault, or a
// range added to or removed from the block list. Each has its Setting
// number (append-only, as the rows' are).
type action struct {
	name   string
	fault  bool // takes a server down or up or changes its gray state
	parse  func(s string) (int64, error)
	format func(v int64) string
}

// actions are the changes that are not rows of the settings table.
var actions = map[Setting]action{
	SetDown:    serverAction("down"),
	SetUp:      serverAction("up"),
	SetFail:    serverAction("fail"),
	SetHang:    serverAction("hang"),
	SetHeal:    serverAction("heal"),
	SetSlow:    {name: "slow", fault: true, parse: parseSlow, format: formatSlow},
	SetBlock:   rangeAction("block"),
	SetUnblock: rangeAction("unblock"),
}

func serverAction(name string) action {
	return action{name: name, fault: true,
		parse:  func(s string) (int64, error) { r, err := ParseServerRef(s); return int64(r), err },
		format: func(v int64) string { return ServerRef(v).String() }}
}

func rangeAction(name string) action {
	return action{name: name,
		parse:  func(s string) (int64, error) { r, err := ParseRange(s); return RangeValue(r), err },
		format: func(v int64) string { return ValueRange(v).String() }}
}

func formatSlow(v int64) string {
	ref, f := ValueSlow(v)
	return ref.String() + "x" + f.String()
}

// actionOf returns the action of setting number s, or nil.
func actionOf(s Setting) *action {
	if a, ok := actions[s]; ok {
		return &a
	}
	return nil
}

// SlowValue packs a slow fault into a Change's Value: the server in the low
// 33 bits (as ServerRef), the factor in hundredths above them.
func SlowValue(ref ServerRef, factor Speed) int64 { return int64(factor)<<40 | int64(ref) }

// ValueSlow unpacks SlowValue.
func ValueSlow(v int64) (ServerRef, Speed) { return ServerRef(v & (1<<40 - 1)), Speed(v >> 40) }

// faultRef returns the server a fault names (its whole Value but for slow).
func (c Change) faultRef() ServerRef {
	if c.Setting == SetSlow {
		ref, _ := ValueSlow(c.Value)
		return ref
	}
	return ServerRef(c.Value)
}

// RangeValue packs a range into a Change's Value: First in the high 32
// bits, Last in the low 32.
func RangeValue(r Range) int64 { return int64(uint64(r.First)<<32 | uint64(r.Last)) }

// ValueRange unpacks RangeValue.
func ValueRange(v int64) Range { return Range{First: uint32(uint64(v) >> 32), Last: uint32(uint64(v))} }

// ServerRef names a server in a Change's Value: the balancer's index (0, or
// 1 for S in a switch) in the high 32 bits and the server id in the low 32.
type ServerRef int64

// MakeServerRef returns the reference to server id of balancer index bal.
func MakeServerRef(bal, id int) ServerRef { return ServerRef(int64(bal)<<32 | int64(uint32(id))) }

// Balancer returns the balancer index.
func (r ServerRef) Balancer() int { return int(r >> 32) }

// ID returns the server id.
func (r ServerRef) ID() int { return int(uint32(r)) }

// String writes "3", or "S:3" for balancer 1 and "P:3" never (balancer 0
// has no prefix, as in the central queue).
func (r ServerRef) String() string {
	if r.Balancer() == 1 {
		return "S:" + strconv.Itoa(r.ID())
	}
	return strconv.Itoa(r.ID())
}

// maxServerID is the largest server id a ServerRef may name.
const maxServerID = 1<<31 - 1

// valid reports whether r names balancer 0 (or 1 in a switch) and a server
// id from 1 to maxServerID, as ParseServerRef makes it: a value decoded
// from a snapshot may be anything.
func (r ServerRef) valid(inSwitch bool) bool {
	bal := int64(r) >> 32
	id := int64(r) & 0xffff_ffff
	return (bal == 0 || (bal == 1 && inSwitch)) && id >= 1 && id <= maxServerID
}

// ParseServerRef reads "3", "P:3" or "S:3".
func ParseServerRef(s string) (ServerRef, error) {
	bal := 0
	if p, rest, ok := strings.Cut(s, ":"); ok {
		switch p {
		case "P", "p":
		case "S", "s":
			bal = 1
		default:
			return 0, fmt.Errorf("server %q: the balancer before ':' must be P or S", quoted(s))
		}
		s = rest
	}
	id, err := strconv.Atoi(s)
	if err != nil || id < 1 || id > maxServerID {
		return 0, fmt.Errorf("server %q: want a server id ≥ 1, like 3 or S:3 in a switch", quoted(s))
	}
	return MakeServerRef(bal, id), nil
}

// IsFault reports whether c takes a server down or up, or changes its gray
// state, rather than changing a setting.
func (c Change) IsFault() bool {
	a := actionOf(c.Setting)
	return a != nil && a.fault
}

// String returns the setting's flag name.
func (s Setting) String() string {
	if r := ChangeRow(s); r != nil {
		return r.Name
	}
	if a := actionOf(s); a != nil {
		return a.name
	}
	return fmt.Sprintf("Setting(%d)", uint8(s))
}

// SettingNames lists the names a Change accepts, in their numbering order:
// the changeable rows of the settings table and the actions.
func SettingNames() []string {
	names := make([]string, numSettings)
	for s := range numSettings {
		names[s] = s.String()
	}
	return names
}

// settingNamed returns the Setting called name.
func settingNamed(name string) (Setting, bool) {
	for s := range numSettings {
		if s.String() == name {
			return s, true
		}
	}
	return 0, false
}

// Change is a setting given a new value, taking effect at the start of
// Cycle (before its step a). Value is in the setting's own integer unit:
// Rate units for rate, Factor units for scale-up and scale-down, 0/1 for
// wave, the Policy number for policy, a plain count otherwise.
type Change struct {
	Cycle   int64
	Setting Setting
	Value   int64
}

// String formats c as --set reads it: "500:rate=0.6".
func (c Change) String() string {
	return fmt.Sprintf("%d:%s=%s", c.Cycle, c.Setting, c.ValueString())
}

// ValueString formats the value the way ParseChange reads it.
func (c Change) ValueString() string {
	if r := ChangeRow(c.Setting); r != nil {
		return r.format(c.Value)
	}
	if a := actionOf(c.Setting); a != nil {
		return a.format(c.Value)
	}
	return strconv.FormatInt(c.Value, 10)
}

// ParseChange reads "CYCLE:NAME=VALUE", the argument of --set.
func ParseChange(s string) (Change, error) {
	cs, rest, ok := strings.Cut(s, ":")
	name, value, ok2 := strings.Cut(rest, "=")
	if !ok || !ok2 {
		return Change{}, fmt.Errorf("%q: want CYCLE:NAME=VALUE, like 500:rate=0.6", quoted(s))
	}
	cycle, err := strconv.ParseInt(strings.TrimSpace(cs), 10, 64)
	if err != nil || cycle < 1 {
		return Change{}, fmt.Errorf("%q: the cycle %q must be a whole number ≥ 1", quoted(s), quoted(cs))
	}
	c, err := NewChange(cycle, strings.TrimSpace(name), strings.TrimSpace(value))
	if err != nil {
		return Change{}, fmt.Errorf("%q: %w", quoted(s), err)
	}
	return c, nil
}

// FaultKinds lists the kinds of fault --fault takes, as KIND:SERVER@CYCLE
// (slow as slow:SERVERxFACTOR@CYCLE).
func FaultKinds() []string {
	var kinds []string
	for s := range numSettings {
		if a := actionOf(s); a != nil && a.fault {
			kinds = append(kinds, a.name)
		}
	}
	// Rows marked so (the client side's and detection's) may be given as
	// faults too ("timeout:…@CYCLE" reads as --set CYCLE:timeout=…).
	for s := range numSettings {
		if r := ChangeRow(s); r != nil && r.FaultKind {
			kinds = append(kinds, r.Name)
		}
	}
	return kinds
}

// ParseFault reads a fault as --fault writes it: "down:ID@CYCLE",
// "up:ID@CYCLE", "slow:IDxF@CYCLE" (or ID×F), "fail:ID@CYCLE",
// "hang:ID@CYCLE" or "heal:ID@CYCLE", with the balancer named in a switch
// ("down:S:3@500").
func ParseFault(s string) (Change, error) {
	s = strings.TrimSpace(s) // spaces around a value or a piece of it are ignored, as --set's
	what, cs, ok := "", "", false
	if i := strings.LastIndex(s, "@"); i >= 0 {
		what, cs, ok = s[:i], strings.TrimSpace(s[i+1:]), true
	}
	kind, ref, ok2 := strings.Cut(what, ":")
	kind, ref = strings.TrimSpace(kind), strings.TrimSpace(ref)
	if !ok || !ok2 || !slices.Contains(FaultKinds(), kind) {
		return Change{}, fmt.Errorf("%q: want KIND:ID@CYCLE, KIND one of %s, like down:3@500 or slow:3x4@500 (down:S:3@500 in a switch)", quoted(s), strings.Join(FaultKinds(), ", "))
	}
	cycle, err := strconv.ParseInt(cs, 10, 64)
	if err != nil || cycle < 1 {
		return Change{}, fmt.Errorf("%q: the cycle after @ must be a whole number ≥ 1", quoted(s))
	}
	return NewChange(cycle, kind, ref)
}

// NewChange makes the change of the named setting to value at cycle.
func NewChange(cycle int64, name, value string) (Change, error) {
	s, ok := settingNamed(name)
	if r := RowNamed(name); !ok && r != nil && !r.File {
		// A setting, but one a run takes only at its start.
		return Change{}, fmt.Errorf("%s is set once, at the start (--%s), and a change cannot set it: the settings a change sets: %s", r.Name, r.Name, strings.Join(SettingNames(), ", "))
	}
	if !ok {
		return Change{}, fmt.Errorf("unknown setting %q: allowed %s", quoted(name), strings.Join(SettingNames(), ", "))
	}
	c := Change{Cycle: cycle, Setting: s}
	var err error
	if r := ChangeRow(s); r != nil {
		c.Value, err = r.parse(value)
		switch {
		case err != nil && r.syntax == syntaxWhole:
			err = fmt.Errorf("%q is not a whole number", quoted(value))
		case err != nil && r.syntax == syntaxBool:
			err = fmt.Errorf("%q: want true or false", quoted(value))
		}
	} else {
		c.Value, err = actionOf(s).parse(value)
	}
	if err != nil {
		return Change{}, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// apply sets the change's value in cfg, without validating.
func (c Change) apply(cfg *Config) {
	if r := ChangeRow(c.Setting); r != nil {
		r.store(cfg, c.Value)
		return
	}
	switch c.Setting {
	case SetBlock:
		cfg.Blocked = append(slices.Clone(cfg.Blocked), ValueRange(c.Value))
	case SetUnblock:
		r := ValueRange(c.Value)
		cfg.Blocked = slices.DeleteFunc(slices.Clone(cfg.Blocked), func(b Range) bool { return b == r })
	}
}

func clampInt(v int64) int { return int(min(max(v, -1<<31), 1<<31-1)) }

// applyChanges applies a batch of changes in order to a copy of cfg and
// validates the result: a batch is accepted or refused as a whole.
func applyChanges(cfg Config, batch []Change) (Config, error) {
	for _, c := range batch {
		if c.Setting >= numSettings {
			return cfg, fmt.Errorf("change at cycle %d: unknown setting number %d", c.Cycle, c.Setting)
		}
		if c.IsFault() {
			if c.Setting == SetSlow {
				if _, f := ValueSlow(c.Value); f < MinSpeed || f > MaxSpeed {
					return cfg, fmt.Errorf("change at cycle %d: slow factor %v: want 0.01 to 100", c.Cycle, f)
				}
			}
			if ref := c.faultRef(); !ref.valid(cfg.Switch) {
				if ref.Balancer() == 1 && ref.valid(true) {
					return cfg, fmt.Errorf("change at cycle %d: %s %s names the switch's S balancer, and the run has no --switch: give the server id alone", c.Cycle, c.Setting, c.ValueString())
				}
				return cfg, fmt.Errorf("change at cycle %d: %s names no server: want a server id from 1 to %d, with S: only in a switch", c.Cycle, c.Setting, maxServerID)
			}
			continue
		}
		if c.Setting == SetBlock || c.Setting == SetUnblock {
			r := ValueRange(c.Value)
			if r.First > r.Last {
				return cfg, fmt.Errorf("change at cycle %d: %s: the range's first address is after its last", c.Cycle, c.Setting)
			}
			if c.Setting == SetUnblock && !slices.Contains(cfg.Blocked, r) {
				return cfg, fmt.Errorf("change %v: %v is not in the block list (%v)", c, r, cfg.Blocked)
			}
		}
		if r := ChangeRow(c.Setting); r != nil {
			if err := r.checkValue(c.Value, false); err != nil {
				return cfg, fmt.Errorf("change at cycle %d: %w", c.Cycle, err)
			}
		}
		if c.Setting == SetLoadInfo && (cfg.LoadInfo <= 0 || c.Value <= 0) {
			return cfg, fmt.Errorf("change at cycle %d: %w", c.Cycle, &FieldError{Field: "load-info", Value: LoadInfo(c.Value).String(),
				Allowed: "a change may set only the period of periodic load information, and the run's is " + cfg.LoadInfo.String() + ": give --load-info periodic:T at the start"})
		}
		c.apply(&cfg)
	}
	if err := cfg.crossCheck(false); err != nil {
		return cfg, fmt.Errorf("change at cycle %d: %w", batch[0].Cycle, blameChange(err, batch, &cfg))
	}
	return cfg, nil
}

// blameChange rewrites a validation error to name what the batch changed:
// the value as given, not as clamped into an int, and max-servers when
// lowering it below min-servers is what the batch did.
func blameChange(err error, batch []Change, cfg *Config) error {
	fe, ok := err.(*FieldError)
	if !ok {
		return err
	}
	changed := func(s Setting) (Change, bool) {
		for i := len(batch) - 1; i >= 0; i-- {
			if batch[i].Setting == s {
				return batch[i], true
			}
		}
		return Change{}, false
	}
	if fe.Field == "min-servers" {
		_, minChanged := changed(SetMinServers)
		if c, ok := changed(SetMaxServers); ok && !minChanged {
			return intErr("max-servers", c.Value, "must be from min-servers (%d) to %d", cfg.MinServers, MaxServersLimit)
		}
	}
	for i := len(batch) - 1; i >= 0; i-- {
		if batch[i].Setting.String() == fe.Field {
			return &FieldError{Field: fe.Field, Value: batch[i].ValueString(), Allowed: fe.Allowed}
		}
	}
	return err
}

// ValidateChanges checks a change log against the configuration it starts
// from, as Model.Schedule would after New: every cycle from 1 to
// cfg.Cycles, every setting known, every value one its flag could give, and
// the settings valid after each cycle's batch; and a setting of cfg that
// only a fault reads (fail-time) is not set without such a fault, as the
// command line refuses its flag. A snapshot's changes pass here before
// they are replayed.
func ValidateChanges(cfg Config, changes []Change) error {
	for _, c := range changes {
		if c.Cycle < 1 || c.Cycle > cfg.Cycles {
			return fmt.Errorf("change %v: its cycle must be from 1 to %d", c, cfg.Cycles)
		}
	}
	if _, err := checkSchedule(cfg, changes); err != nil {
		return err
	}
	if err := checkFaultNeeds(&cfg, changes); err != nil {
		return err
	}
	return budgetLate(&cfg, !hedgingFromStart(&cfg), changes)
}

// checkSchedule validates changes (taken in cycle order, stably) batch by
// batch from cfg and returns them sorted.
func checkSchedule(cfg Config, changes []Change) ([]Change, error) {
	sorted := slices.Clone(changes)
	slices.SortStableFunc(sorted, func(a, b Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].Cycle == sorted[i].Cycle {
			j++
		}
		var err error
		if cfg, err = applyChanges(cfg, sorted[i:j]); err != nil {
			return nil, err
		}
		i = j
	}
	return sorted, nil
}

// parseSlow reads "IDxF" (or "ID×F"): a server and the factor its attempts'
// service is multiplied by, 0.01 to 100 with at most two decimals.
func parseSlow(value string) (int64, error) {
	value = strings.Replace(value, "×", "x", 1)
	i := strings.LastIndex(value, "x")
	if i < 0 {
		return 0, fmt.Errorf("%q: want SERVERxFACTOR, like 3x4 or S:3x2.5", quoted(value))
	}
	ref, err := ParseServerRef(value[:i])
	if err != nil {
		return 0, err
	}
	f, err := ParseSpeed(value[i+1:])
	if err != nil {
		return 0, fmt.Errorf("factor %w (at most two decimals)", err)
	}
	return SlowValue(ref, f), nil
}
