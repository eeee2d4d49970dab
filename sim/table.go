package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Row is one setting of a run: everything the command line, `--set`, the
// page's query parameters, snapshots, the property tests and the docs know
// of it. The table of rows (Rows) is the one place a setting is declared;
// Config.Set, the names lists, Change's parsing, formatting and applying,
// the single-field range checks, the "this flag does nothing" rule (for
// flags and --set alike), a snapshot's configuration map (Wire) and the
// property tests' draws (small) all read it. Checks across several fields
// are hand-written in one place (Config.crossCheck).
//
// A new setting is a field of Config and one row: its name, help, range,
// example, wire key and place (the next free one), small values, its help
// group (group: TestEveryRowHasAGroup refuses a row without), and, if
// it refines another, needs (help) with a fixture (tests); a changeable
// one also takes the next Setting number. The tests then hold it to all of
// that: on the wire (snapshot's TestEveryConfigFieldOnTheWire), an effect
// on a run (TestEveryRowTakesEffect), a change that acts
// (TestEveryChangeTakesEffect), a page control (scene's
// TestEveryChangeableRowHasAControl).
//
// A scalar row holds its value as an int64 in its own unit (a Rate, a
// Factor, a Decimal, a Policy number, 0/1 for true/false, a plain count);
// a list row (block, weights, speeds, seed) reads and writes text only.
type Row struct {
	// Name is the flag's name without dashes; --set, the page's query
	// parameters and the docs spell the setting so.
	Name string
	// Help is the one-line meaning, for --help, `lbsim settings` and the
	// docs.
	Help string
	// Unit is what a value counts ("cycles", "arrivals a cycle"), or "".
	Unit string
	// Range is the values allowed, in words ("1..100000").
	Range string
	// Example is a valid value other than the default, as written.
	Example string
	// Changeable says whether --set (and the page's controls) may change
	// the setting during a run; Change is then its Setting number, which
	// snapshots store (append-only, see Setting).
	Changeable bool
	Change     Setting
	// FaultKind says --fault takes the setting's change too, as
	// NAME:VALUE@CYCLE (the client side and detection: a timeout or a
	// retry policy that changes mid-run is what a fault drill tries).
	FaultKind bool
	// Needs is help text: the flag arguments, exactly as the command line
	// takes them, that turn on what the setting refines (["--retries",
	// "1"]); empty when it is always read. The tests turn the setting on
	// with its fixture instead, which may hold more (a start value a
	// change needs).
	Needs []string
	// fixture is the settings (name, value; "fault" for a --fault) a test
	// gives so that the setting is read and its example value acts.
	fixture [][2]string
	// forms are the value's shapes (Forms), for a row like
	// concurrency-limit's or load-info's.
	forms []string
	// smallLo … smallHi are the values the property tests draw for a
	// scalar setting, at the start and in changes, valid or not: small
	// enough to show in their short runs (hasSmall).
	smallLo, smallHi int64
	hasSmall         bool
	// File says the value is a file's path that the command line reads
	// (service-file): Config.Set does not take it.
	File bool
	// Wire is how a snapshot stores the setting (WireValue, SetWire).
	Wire Wire
	// Group is the part of a run the setting shapes, under which help
	// lists it (group); every row declares one.
	Group Group

	def string // the default as written ("" when it depends on others)

	// Scalar rows.
	parse         func(s string) (int64, error) // text → value (syntax only)
	format        func(v int64) string          // value → text, as parse reads it
	load          func(c *Config) int64
	store         func(c *Config, v int64)
	lo, hi        int64           // a value given must lie in lo … hi
	zeroDefault   bool            // 0 in a Config stands for the default (a value given must still be ≥ lo)
	storedPlusOne bool            // the Config holds the value plus one (plusOne)
	allowed       string          // the range, as an error's "must …" says it
	syntax        string          // what a value looks like, as an error says it
	detail        bool            // a syntax error also gives the parser's own words (decimals)
	narrow        bool            // the field is an int: a snapshot's value must fit an int32
	choice        func() []string // a choice row's names, by number

	// List rows' byte forms in a snapshot (WireBytes).
	wireEnc func(c *Config) []byte
	wireDec func(c *Config, b []byte) error

	// List rows.
	setText func(c *Config, s string) error
	getText func(c *Config) string
	check   func(c *Config) error

	// reads reports whether a run with these settings (one state of a run:
	// the start or after a batch of changes) reads the setting; readWhy
	// says what would. nil: always read.
	reads   func(c *Config) bool
	readWhy func(c *Config) string
	// readsChanges, when set, also counts a run as reading the setting
	// when its changes hold one it names (fail-time: a fail fault).
	readsChanges func(cs []Change) bool
}

// Default returns the setting's default as written, or "" when it follows
// other settings (max-servers) or is drawn (seed).
func (r *Row) Default() string { return r.def }

// Get returns the setting's value in c as written on the command line, a
// value its own flag accepts: where 0 in a Config stands for the default,
// the default ("" for one that follows others and was not given:
// mean-service).
func (r *Row) Get(c *Config) string {
	if r.getText != nil {
		return r.getText(c)
	}
	if r.load == nil {
		return ""
	}
	if v := r.load(c); !r.zeroDefault || v != 0 {
		return r.format(v)
	}
	return r.def
}

// IsBool reports whether the setting is true or false (a switch flag).
func (r *Row) IsBool() bool { return r.syntax == syntaxBool }

// Choices returns the names a choice row's value is one of (policy,
// queues, discipline, autoscaler, …), in their order, or nil for a row
// of another kind.
func (r *Row) Choices() []string {
	if r.choice == nil {
		return nil
	}
	return r.choice()
}

// Forms returns the shapes a value of a row that is neither a plain
// number nor a plain choice takes, for completion: whole values ("off",
// "aimd") and prefixes a number follows ("fixed:"); nil for other rows.
func (r *Row) Forms() []string { return r.forms }

// Whole reports whether the setting is a plain whole number.
func (r *Row) Whole() bool { return r.syntax == syntaxWhole }

// Bounds returns the lowest and highest value a scalar setting may be
// given, in its own unit, and false for a list setting.
func (r *Row) Bounds() (lo, hi int64, ok bool) { return r.lo, r.hi, r.load != nil }

// Load returns a scalar setting's value in c in its own unit, and false
// for a list setting.
func (r *Row) Load(c *Config) (int64, bool) {
	if r.load == nil {
		return 0, false
	}
	return r.load(c), true
}

// Check checks the setting's value in c on its own (its range, or a list
// setting's items), as Validate checks it: a *FieldError says what is
// allowed. Checks across settings are Validate's.
func (r *Row) Check(c *Config) error { return r.checkConfig(c) }

// checkValue is the setting's one range check, for a flag, a --set, a
// query parameter and a snapshot alike: v must lie in lo … hi (or be 0,
// standing for the default, in a Config when inConfig).
func (r *Row) checkValue(v int64, inConfig bool) error {
	if (v >= r.lo && v <= r.hi) || (inConfig && r.zeroDefault && v == 0) {
		return nil
	}
	return &FieldError{Field: r.Name, Value: r.format(v), Allowed: r.allowed}
}

// checkConfig checks the setting's value in c on its own.
func (r *Row) checkConfig(c *Config) error {
	if r.check != nil {
		if err := r.check(c); err != nil {
			return err
		}
	}
	if r.load == nil {
		return nil
	}
	return r.checkValue(r.load(c), true)
}

// What a value looks like, for errors.
const (
	syntaxWhole = "want a whole number"
	syntaxBool  = "want true or false"
)

// whole makes a row of a whole-number field of type T.
func whole[T ~int | ~int64](name, help, unit string, field func(*Config) *T, lo, hi int64, allowed string) Row {
	var zero T
	_, narrow := any(zero).(int)
	return Row{Name: name, Help: help, Unit: unit, lo: lo, hi: hi, allowed: allowed, syntax: syntaxWhole, narrow: narrow,
		Range:  rangeText(lo, hi),
		parse:  func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) },
		format: func(v int64) string { return strconv.FormatInt(v, 10) },
		load:   func(c *Config) int64 { return int64(*field(c)) },
		store:  func(c *Config, v int64) { *field(c) = T(clampInt64[T](v)) },
	}
}

// clampInt64 keeps v within an int32 for an int field (the values are
// checked before they are stored; a clamp keeps an unchecked one invalid
// rather than wrapped).
func clampInt64[T ~int | ~int64](v int64) int64 {
	var zero T
	if _, isInt := any(zero).(int); isInt {
		return int64(clampInt(v))
	}
	return v
}

// fixed makes a row of a fixed-point field (Rate, Factor, Decimal).
func fixed[T interface {
	~int64
	String() string
}](name, help, unit string, field func(*Config) *T, parse func(string) (T, error), lo, hi T, allowed, syntax string) Row {
	return Row{Name: name, Help: help, Unit: unit, lo: int64(lo), hi: int64(hi), allowed: allowed, syntax: syntax, detail: true,
		Range:  lo.String() + ".." + hi.String(),
		parse:  func(s string) (int64, error) { v, err := parse(s); return int64(v), err },
		format: func(v int64) string { return T(v).String() },
		load:   func(c *Config) int64 { return int64(*field(c)) },
		store:  func(c *Config, v int64) { *field(c) = T(v) },
	}
}

// boolean makes a row of a true/false field.
func boolean(name, help string, field func(*Config) *bool) Row {
	return Row{Name: name, Help: help, lo: 0, hi: 1, allowed: "must be 0 (false) or 1 (true)", syntax: syntaxBool,
		Range: "true, false",
		parse: func(s string) (int64, error) {
			b, err := strconv.ParseBool(s)
			if b {
				return 1, err
			}
			return 0, err
		},
		format: func(v int64) string { return strconv.FormatBool(v != 0) },
		load: func(c *Config) int64 {
			if *field(c) {
				return 1
			}
			return 0
		},
		store: func(c *Config, v int64) { *field(c) = v != 0 },
	}
}

// choice makes a row of a field that names one of a list (policy, queues,
// service).
func choice[T ~uint8](name, help string, field func(*Config) *T, names func() []string, parse func(string) (T, error)) Row {
	n := int64(len(names()))
	return Row{Name: name, Help: help, lo: 0, hi: n - 1, Range: strings.Join(names(), ", "), choice: names,
		allowed: "must be one of " + strings.Join(names(), ", "), syntax: "want one of " + strings.Join(names(), ", "),
		parse: func(s string) (int64, error) { v, err := parse(s); return int64(v), err },
		format: func(v int64) string {
			if v >= 0 && v < n {
				return names()[v]
			}
			return fmt.Sprintf("%s(%d)", name, v)
		},
		load:  func(c *Config) int64 { return int64(*field(c)) },
		store: func(c *Config, v int64) { *field(c) = T(min(uint64(v), 255)) }, // a negative v becomes 255: invalid
	}
}

// rangeText writes lo … hi with the large bounds readable.
func rangeText(lo, hi int64) string { return readableInt(lo) + ".." + readableInt(hi) }

// readableInt writes powers of ten from 10⁶ on as 10ⁿ, others plainly.
func readableInt(v int64) string {
	sup := []string{"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"}
	if v >= 1_000_000 {
		n, x := 0, v
		for x%10 == 0 {
			x /= 10
			n++
		}
		if x == 1 {
			return "10" + sup[n%10]
		}
	}
	return strconv.FormatInt(v, 10)
}

// changeable marks a row as one --set may change, with its Setting number.
func (r Row) changeable(s Setting) Row { r.Changeable, r.Change = true, s; return r }

// defaults sets the default as written.
func (r Row) defaults(s string) Row { r.def = s; return r }

// example sets a valid value other than the default.
func (r Row) example(s string) Row { r.Example = s; return r }

// zero marks 0 in a Config as standing for the default.
func (r Row) zero() Row { r.zeroDefault = true; return r }

// ranged replaces the range in words.
func (r Row) ranged(s string) Row { r.Range = s; return r }

// needs says what the setting refines: read reports whether a run state
// reads it, args are the flag arguments that would turn it on, why says
// so in a message.
func (r Row) needs(args []string, read func(*Config) bool, why func(*Config) string) Row {
	r.Needs, r.reads, r.readWhy = args, read, why
	r.fixture = nil
	for i := 0; i+1 < len(args); i += 2 {
		r.fixture = append(r.fixture, [2]string{strings.TrimPrefix(args[i], "--"), args[i+1]})
	}
	return r
}

// testWith replaces the fixture: name, value pairs.
func (r Row) testWith(pairs ...string) Row {
	r.fixture = nil
	for i := 0; i+1 < len(pairs); i += 2 {
		r.fixture = append(r.fixture, [2]string{pairs[i], pairs[i+1]})
	}
	return r
}

// withNeeds says, in help only, what the setting needs besides (mtbf and
// mttr each need the other: Validate refuses one alone); the tests give
// the same.
func (r Row) withNeeds(args ...string) Row {
	r.Needs = args
	return r.testWith(flagPairs(args)...)
}

// flagPairs turns flag arguments (--name value …) into name, value pairs.
func flagPairs(args []string) []string {
	out := slices.Clone(args)
	for i := 0; i < len(out); i += 2 {
		out[i] = strings.TrimPrefix(out[i], "--")
	}
	return out
}

// small sets the values the property tests draw for the setting.
func (r Row) small(lo, hi int64) Row {
	r.smallLo, r.smallHi, r.hasSmall = lo, hi, true
	return r
}

// faultKind marks a row whose change --fault takes too.
func (r Row) faultKind() Row { r.FaultKind = true; return r }

// needsOn is needs for a setting that refines another one being above 0.
func (r Row) needsOn(other string, on func(*Config) bool) Row {
	return r.needs([]string{"--" + other, "1"}, on, func(*Config) string {
		return fmt.Sprintf("applies only with --%s above 0 (or a change that sets it): give --%s too, or drop --%s", other, other, r.Name)
	})
}

// meanShapes are the shapes whose times follow mean-service.
var meanShapes = []Service{Geometric, Constant, Lognormal, Pareto}

// needsShape is needs for a service shape's parameter.
func (r Row) needsShape(shapes ...Service) Row {
	args := []string{"--service", shapes[0].String()}
	if slices.Contains(meanShapes, shapes[0]) && r.Name != "mean-service" {
		args = append(args, "--mean-service", "20") // the shape's own need
	}
	return r.needs(args,
		func(c *Config) bool { return slices.Contains(shapes, c.Service) },
		func(c *Config) string {
			return fmt.Sprintf("applies to --service %s, and the service is %v", joinShapes(shapes), c.Service)
		})
}

// needsPolicy is needs for a setting that policies read (PolicyInfo.Params).
func (r Row) needsPolicy() Row {
	name := r.Name
	reads := func(p Policy, q QueueMode) bool { return p.Reads(name, q) }
	var first []string
	for p := range numPolicies {
		for _, q := range []QueueMode{PerServer, Pooled} {
			if first == nil && reads(p, q) {
				first = []string{"--policy", p.String()}
				if q == PerServer {
					first = append(first, "--queues", "per-server")
				}
			}
		}
	}
	return r.needs(first, func(c *Config) bool { return reads(c.Policy, c.Queues) }, func(c *Config) string {
		names := PoliciesReading(reads)
		which, choose := "policies "+strings.Join(names, ", "), "choose one of those (or a change that switches to one)"
		if len(names) == 1 {
			which, choose = "policy "+names[0], "choose it (or a change that switches to it)"
		}
		return fmt.Sprintf("applies to %s, and the policy is %v with %v queues: %s, or drop --%s", which, c.Policy, c.Queues, choose, name)
	})
}

// Rows returns the table of settings, in the order help and the docs list
// them. The rows are shared: do not change them.
func Rows() []Row { return settingRows }

// RowNamed returns the row of the setting called name, or nil.
func RowNamed(name string) *Row {
	if i, ok := rowIndex[name]; ok {
		return &settingRows[i]
	}
	return nil
}

// ChangeRow returns the row that a change of setting s changes, or nil
// for a change that is an action (a fault, block, unblock).
func ChangeRow(s Setting) *Row {
	if s < numSettings && changeRows[s] >= 0 {
		return &settingRows[changeRows[s]]
	}
	return nil
}

var (
	rowIndex   = map[string]int{}
	changeRows [numSettings]int
)

func init() {
	for s := range changeRows {
		changeRows[s] = -1
	}
	for i, r := range settingRows {
		if _, dup := rowIndex[r.Name]; dup {
			panic("sim: setting " + r.Name + " has two rows")
		}
		rowIndex[r.Name] = i
		if r.Changeable {
			changeRows[r.Change] = i
		}
	}
	for s := range numSettings {
		if (changeRows[s] >= 0) == (actionOf(s) != nil) {
			panic(fmt.Sprintf("sim: setting number %d must belong to exactly one row or action", s))
		}
	}
}

// The settings table. Policy parameters sit with their policy
// (policyRows); every other setting is here.
var settingRows = slices.Concat([]Row{
	whole("servers", "servers at the start, S0", "servers", func(c *Config) *int { return &c.Servers }, 1, MaxServersLimit,
		fmt.Sprintf("must be a whole number from 1 to %d", MaxServersLimit)).defaults("20").example("10").wire("sv", 1).small(1, 6).group(GroupRun),
	whole("cycles", "cycles to run, N", "cycles", func(c *Config) *int64 { return &c.Cycles }, 1, MaxCycles,
		fmt.Sprintf("must be a whole number from 1 to %d", MaxCycles)).defaults("100000").example("5000").wire("n", 2).small(1, 60).group(GroupRun),
	whole("task-min", "shortest processing time (uniform and bimodal service)", "cycles", func(c *Config) *int { return &c.TaskMin }, 1, MaxTaskTime,
		fmt.Sprintf("must be a whole number of cycles from 1 to %d", MaxTaskTime)).defaults("10").example("20").changeable(SetTaskMin).wire("t0", 3).small(0, 24).
		needs([]string{"--service", "uniform"}, readsTaskRange, taskRangeWhy("task-min")).group(GroupRun),
	whole("task-max", "longest processing time (uniform and bimodal service; ≥ task-min)", "cycles", func(c *Config) *int { return &c.TaskMax }, 1, MaxTaskTime,
		fmt.Sprintf("must be a whole number of cycles from 1 to %d", MaxTaskTime)).defaults("80").example("120").changeable(SetTaskMax).wire("t1", 4).small(0, 24).
		needs([]string{"--service", "uniform"}, readsTaskRange, taskRangeWhy("task-max")).group(GroupRun),
	Row{Name: "seed", Help: "random seed (default: a random one, printed)", Range: "0..18446744073709551615", Example: "42",
		setText: func(c *Config, s string) error {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return &FieldError{Field: "seed", Value: strconv.Quote(s), Allowed: "want a whole number from 0 to 18446744073709551615"}
			}
			c.Seed = n
			return nil
		},
		getText: func(c *Config) string { return strconv.FormatUint(c.Seed, 10) }}.seedWire("seed", 5).group(GroupRun),
	whole("initial-per-server", "initial queue per server (servers × it ≤ 10⁷)", "requests", func(c *Config) *int { return &c.InitialPerServer }, 0, MaxInitialRequests,
		fmt.Sprintf("must be ≥ 0 with servers × initial-per-server ≤ %d", MaxInitialRequests)).defaults("100").example("0").wire("ips", 6).small(0, 4).group(GroupRun),
	fixed("rate", "mean arrivals per cycle (Poisson)", "arrivals a cycle", func(c *Config) *Rate { return &c.Rate }, ParseRate, 0, MaxRate,
		"must be from 0 to "+MaxRate.String()+" arrivals per cycle", "want arrivals per cycle like 0.45").defaults("0.45").example("0.9").changeable(SetRate).wire("r", 7).small(-1, 3*RateScale).group(GroupRun),
	boolean("wave", "let the arrival rate follow a slow wave around --rate", func(c *Config) *bool { return &c.Wave }).defaults("true").example("false").changeable(SetWave).wire("w", 8).small(0, 1).group(GroupRun),
	whole("wave-amplitude", "the wave's half-height in percent of --rate", "%", func(c *Config) *int { return &c.WaveAmplitude }, 0, 100,
		"must be a percentage from 0 to 100").defaults("60").example("30").wire("wa", 9).small(0, 100).needsWave().group(GroupRun),
	whole("wave-period", "the wave's period", "cycles", func(c *Config) *int64 { return &c.WavePeriod }, 1, MaxCycles,
		fmt.Sprintf("must be a whole number of cycles from 1 to %d", MaxCycles)).defaults("20000").example("3000").wire("wp", 10).small(1, 300).needsWave().group(GroupRun),
	whole("stream-share", "percent of generated requests of type S (streaming)", "%", func(c *Config) *int { return &c.StreamShare }, 0, 100,
		"must be a percentage from 0 to 100").defaults("20").example("35").wire("ss", 11).small(0, 100).
		testWith("switch", "true").group(GroupRun), // the types show in the hash where the switch routes by them
	Row{Name: "block", Help: "blocked source ranges (CIDR, a-b range or address), comma-separated; none blocks nothing",
		Range: "IPv4 ranges, or none", Example: "10.0.0.0/8,192.0.2.1",
		def:     "0.0.0.0/8, 10.0.0.0/8, 127.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 240.0.0.0/4",
		setText: setBlock, getText: getBlock}.wireBytes("b", 12, 8*MaxBlocked, appendRanges, readRanges).group(GroupRun),
	fixed("scale-up", "U: add a server when queue > U × active servers", "requests a server", func(c *Config) *Factor { return &c.ScaleUp }, ParseFactor, 0, MaxFactor,
		"must be from 0 to "+MaxFactor.String(), "want requests per active server like 80").defaults("80").example("40").changeable(SetScaleUp).wire("u", 13).small(0, 6000).needsQueueRule().
		withNeeds("--autoscaler", "queue", "--scale-down", "1").group(GroupRun), // the example lies below the default D (50)
	fixed("scale-down", "D: remove one when queue < D × active servers (D < U)", "requests a server", func(c *Config) *Factor { return &c.ScaleDown }, ParseFactor, 0, MaxFactor,
		"must be ≥ 0 and below scale-up", "want requests per active server like 80").defaults("50").example("1").changeable(SetScaleDown).wire("d", 14).small(0, 6000).needsQueueRule().group(GroupRun),
	whole("cooldown", "K: evaluate scaling every K cycles", "cycles", func(c *Config) *int64 { return &c.Cooldown }, 1, MaxCycles,
		fmt.Sprintf("must be a whole number of cycles from 1 to %d", MaxCycles)).defaults("10").example("50").changeable(SetCooldown).wire("k", 15).small(0, 6).needsQueueRule().group(GroupRun),
	whole("min-servers", "fewest active servers", "servers", func(c *Config) *int { return &c.MinServers }, 1, MaxServersLimit,
		fmt.Sprintf("must be a whole number from 1 to %d", MaxServersLimit)).defaults("1").example("12").changeable(SetMinServers).wire("mn", 16).small(0, 8).testWith("servers", "16").group(GroupRun),
	whole("max-servers", "most live servers (default 5 × servers, at least 100)", "servers", func(c *Config) *int { return &c.MaxServers }, 1, MaxServersLimit,
		fmt.Sprintf("must be a whole number from 1 to %d", MaxServersLimit)).example("12").changeable(SetMaxServers).wire("mx", 17).small(0, 12).group(GroupRun),
	whole("queue-cap", "queue capacity (each queue's, per-server); 0 = unbounded", "requests", func(c *Config) *int { return &c.QueueCap }, 0, MaxQueueCap,
		fmt.Sprintf("must be 0 (unbounded) or up to %d", MaxQueueCap)).defaults("0").example("10").changeable(SetQueueCap).wire("qc", 18).small(-1, 12).group(GroupQueues),
	choice("queues", "where requests wait: pooled (one central queue) or per-server (routed at arrival)", func(c *Config) *QueueMode { return &c.Queues }, QueueModeNames, ParseQueueMode).
		defaults("pooled").example("per-server").wire("q", 28).small(0, 1).group(GroupQueues),
	choice("policy", "how a server is chosen (first-idle pooled, round-robin per-server by default)", func(c *Config) *Policy { return &c.Policy }, PolicyNames, ParsePolicy).
		example("p2c").changeable(SetPolicy).wire("pol", 19).small(-1, int64(numPolicies)).group(GroupQueues),
	choice("discipline", "which queued attempt a queue hands out next: fifo the oldest, lifo the newest, adaptive-lifo the newest while the queue is standing", func(c *Config) *Discipline { return &c.Discipline }, DisciplineNames, ParseDiscipline).
		defaults("fifo").example("lifo").changeable(SetDiscipline).wire("dis", 52).small(0, int64(numDisciplines)-1).group(GroupQueues),
	whole("codel-interval", "N: a queue is standing when it has not been empty at the end of any of the last N cycles (adaptive-lifo)", "cycles", func(c *Config) *int64 { return &c.CodelInterval }, 1, MaxCodelInterval,
		fmt.Sprintf("must be a whole number of cycles from 1 to %d", MaxCodelInterval)).zero().defaults(strconv.Itoa(DefaultCodelInterval)).example("20").wire("ci", 53).small(0, 12).
		needs([]string{"--discipline", "adaptive-lifo"}, func(c *Config) bool { return c.Discipline == AdaptiveLifo || c.CodelTarget > 0 }, func(*Config) string {
			return "applies only to --discipline adaptive-lifo or --codel-target (or a change that turns one on), or drop --codel-interval"
		}).group(GroupQueues),
	whole("codel-target", "M: a queue about to hand out an attempt first sheds those that waited in it over M cycles while standing, over codel-interval otherwise (0 = off)", "cycles", func(c *Config) *int64 { return &c.CodelTarget }, 0, MaxCodelInterval,
		fmt.Sprintf("must be 0 (off) or a whole number of cycles from 1 to %d, at most codel-interval", MaxCodelInterval)).defaults("0").example("5").changeable(SetCodelTarget).wire("ct", 65).small(0, 12).group(GroupQueues),
	whole("balancers", "a fleet: K balancers share the pool, each request handed to one at random (per-server queues)", "balancers", func(c *Config) *int { return &c.Balancers }, 1, MaxBalancers,
		fmt.Sprintf("must be a whole number from 1 to %d", MaxBalancers)).zero().defaults("1").example("20").wire("bal", 50).small(0, 4).group(GroupFleet),
	loadInfoRow.group(GroupFleet),
	Row{Name: "speeds", Help: "server speeds V1,V2,… for servers 1, 2, …; others 1 (a request of time T takes ⌈T/V⌉ cycles)",
		Range: "0.01..100 each, two decimals", Example: "2,1,0.5", setText: setSpeeds, getText: getSpeeds, check: checkSpeeds}.wireBytes("spd", 32, 1_000_000, appendSpeeds, readSpeeds).group(GroupQueues),
	boolean("switch", "P/S switch: P requests to one balancer, S requests to another", func(c *Config) *bool { return &c.Switch }).defaults("false").example("true").wire("sw", 20).small(0, 1).group(GroupFleet),
	whole("mtbf", "random faults: mean cycles between failures of each server (0 = none)", "cycles", func(c *Config) *int64 { return &c.MTBF }, 0, MaxCycles,
		fmt.Sprintf("must be 0 (no random faults) or a mean time between failures from 1 to %d cycles", MaxCycles)).defaults("0").example("5000").wire("mtbf", 24).small(0, 40).withNeeds("--mttr", "500").
		testWith("mttr", "500", "mtbf", "20000").group(GroupFaults), // a run needs both: the test compares two mtbfs
	whole("mttr", "random faults: mean cycles to repair (uniform in 1 … 2·mttr−1)", "cycles", func(c *Config) *int64 { return &c.MTTR }, 0, MaxCycles,
		fmt.Sprintf("must be a mean repair time from 1 to %d cycles when mtbf is set", MaxCycles)).defaults("0").example("500").wire("mttr", 25).small(0, 8).withNeeds("--mtbf", "5000").
		testWith("mtbf", "5000", "mttr", "100").group(GroupFaults),
	whole("fail-time", "cycles after its dispatch an attempt on a failing server (a fail fault) ends in error", "cycles", func(c *Config) *int64 { return &c.FailTime }, 1, MaxTaskTime,
		fmt.Sprintf("must be a whole number of cycles from 1 to %d", MaxTaskTime)).zero().defaults("1").example("20").changeable(SetFailTime).wire("ft", 31).small(0, 12).
		needs([]string{"--fault", "fail:1@1"}, func(*Config) bool { return false }, func(*Config) string {
			return "applies only to a failing server: give a fail fault (--fault fail:ID@CYCLE or --set CYCLE:fail=ID), or drop --fail-time"
		}).readsFail().group(GroupFaults),
	choice("service", "processing-time distribution (shape)", func(c *Config) *Service { return &c.Service }, ServiceNames, ParseService).
		defaults("uniform").example("geometric").wire("svc", 26).small(0, int64(numServices)-1).testWith("mean-service", "20").group(GroupShapes),
	whole("mean-service", "mean processing time (geometric, lognormal, pareto), or the fixed one (constant)", "cycles", func(c *Config) *int { return &c.MeanService }, 1, MaxTaskTime/20,
		fmt.Sprintf("must be a whole number of cycles from 1 to %d", MaxTaskTime/20)).zero().example("100").wire("ms", 27).small(0, 12).
		needsShape(meanShapes...).testWith("service", "geometric", "mean-service", "20").group(GroupShapes),
	fixed("service-cv", "lognormal: coefficient of variation", "", func(c *Config) *Decimal { return &c.ServiceCV }, ParseDecimal, 1, MaxServiceCV,
		cvAllowed, "want a decimal like 1.5").zero().ranged("above 0, at most 10").defaults(DefaultServiceCV.String()).example("3").wire("cv", 33).small(0, 3*DecimalScale).needsShape(Lognormal).group(GroupShapes),
	fixed("service-shape", "pareto: shape α; the tail is heavier as α nears 1", "", func(c *Config) *Decimal { return &c.ServiceShape }, ParseDecimal, DecimalScale+1, MaxServiceShape,
		alphaAllowed, "want a decimal like 1.5").zero().ranged("above 1, at most 100").defaults(DefaultServiceShape.String()).example("2.5").wire("al", 34).small(DecimalScale, 4*DecimalScale).needsShape(Pareto).group(GroupShapes),
	whole("service-max", "lognormal and pareto: the longest time a request may take (0: 1000 × mean-service, at most 10⁶)", "cycles", func(c *Config) *int { return &c.ServiceMax }, 0, MaxTaskTime,
		fmt.Sprintf("must be 0 (1000 × mean-service) or a whole number of cycles from mean-service to %d", MaxTaskTime)).defaults("0").example("5000").wire("sm", 36).small(0, 60).needsShape(Lognormal, Pareto).
		testWith("service", "lognormal", "mean-service", "100", "service-cv", "10", "servers", "100", "max-servers", "200", "cycles", "12000").group(GroupShapes), // a tail that reaches the cut, and ends in the run
	fixed("long-share", "bimodal: the share of requests that take task-max", "", func(c *Config) *Decimal { return &c.LongShare }, ParseDecimal, 0, MaxLongShare,
		"the share of long requests must be from 0 to 1", "want a decimal like 1.5").defaults(DefaultLongShare.String()).example("0.1").wire("ls", 35).small(0, DecimalScale).needsShape(Bimodal).group(GroupShapes),
	Row{Name: "service-file", Help: "empirical: a file of service times, one whole number of cycles a line", File: true,
		Range: fmt.Sprintf("1..%d lines of 1..%d", MaxServiceValues, MaxTaskTime), Example: "times.txt", check: checkServiceValues}.wireBytes("sva", 37, 65536, appendValues, readValues).needsShape(Empirical).group(GroupShapes),

	whole("timeout", "cycles after its arrival an unfinished attempt is abandoned by its client (0 = never)", "cycles", func(c *Config) *int64 { return &c.Timeout }, 0, MaxCycles,
		fmt.Sprintf("must be 0 (no timeout) or a whole number of cycles up to %d", MaxCycles)).defaults("0").example("400").changeable(SetTimeout).faultKind().wire("to", 38).small(0, 30).group(GroupClient),
	whole("retries", "retries of a request whose attempt ended in error, timed out or was discarded", "retries", func(c *Config) *int { return &c.Retries }, 0, MaxRetries,
		fmt.Sprintf("must be a whole number from 0 to %d", MaxRetries)).defaults("0").example("2").changeable(SetRetries).faultKind().wire("rt", 39).small(0, 3).group(GroupClient),
	whole("backoff", "B: retry k arrives B·2^(k−1) cycles after the attempt ended (B·2^(retries−1) ≤ 2⁴⁰)", "cycles", func(c *Config) *int64 { return &c.Backoff }, 0, MaxBackoff,
		"must be ≥ 0 with backoff × 2^(retries−1) ≤ 2^40").ranged("0..2⁴⁰ ÷ 2^(retries−1)").defaults("0").example("5").changeable(SetBackoff).faultKind().wire("bo", 40).small(0, 5).
		needsOn("retries", retriesOn).group(GroupClient),
	boolean("jitter", "draw each retry's wait uniformly from 0 to B·2^(k−1) (its own random stream)", func(c *Config) *bool { return &c.Jitter }).
		defaults("false").example("true").changeable(SetJitter).faultKind().wire("jit", 41).small(0, 1).needsOn("retries", retriesOn).
		testWith("retries", "1", "backoff", "5").group(GroupClient),
	fixed("retry-budget", "F: grant a retry only while retries in the last 1000 cycles are fewer than F × first attempts admitted in them (0 = no budget)", "", func(c *Config) *Decimal { return &c.RetryBudget }, ParseDecimal, 0, DecimalScale,
		"must be 0 (no budget) or a share above 0 and at most 1, like 0.1", "want 0 (none) or a share above 0 and at most 1, like 0.1").
		ranged("0 (none), or above 0 and at most 1").defaults("0").example("0.05").changeable(SetRetryBudget).faultKind().wire("rb", 42).small(0, DecimalScale).needsOn("retries", retriesOn).group(GroupClient),
	fixed("throttle", "K: each client rejects its own attempt with probability (requests − K × accepts) ÷ (requests + 1) over the last 1000 cycles (0 = off)", "", func(c *Config) *Hundredths { return &c.Throttle }, ParseHundredths, 0, MaxThrottle,
		fmt.Sprintf("must be 0 (off) or from %v to %v, with at most two decimals", MinThrottle, MaxThrottle), "want 0 (off) or a number from 1 to 10 like 2 or 1.5").
		ranged(throttleRange).defaults("0").example("1.5").wire("th", 71).small(0, int64(MaxThrottle)).group(GroupClient),
	whole("health-interval", "probe every live server every I cycles (0 = the balancer knows at once)", "cycles", func(c *Config) *int64 { return &c.HealthInterval }, 0, MaxCycles,
		fmt.Sprintf("must be 0 (no health checks) or a whole number of cycles up to %d", MaxCycles)).defaults("0").example("10").changeable(SetHealthInterval).faultKind().wire("hi", 43).small(0, 10).group(GroupClient),
	whole("health-fall", "failed probes in a row that eject a server", "probes", func(c *Config) *int { return &c.HealthFall }, 1, MaxHealthCount,
		fmt.Sprintf("must be a whole number of failed probes from 1 to %d", MaxHealthCount)).zero().defaults(strconv.Itoa(DefaultHealthFall)).example("1").changeable(SetHealthFall).faultKind().wire("hf", 44).small(0, 4).wireDefault(DefaultHealthFall).
		needsOn("health-interval", healthChecksOn).group(GroupClient),
	whole("health-rise", "passed probes in a row that restore an ejected server", "probes", func(c *Config) *int { return &c.HealthRise }, 1, MaxHealthCount,
		fmt.Sprintf("must be a whole number of passed probes from 1 to %d", MaxHealthCount)).zero().defaults(strconv.Itoa(DefaultHealthRise)).example("5").changeable(SetHealthRise).faultKind().wire("hr", 45).small(0, 4).wireDefault(DefaultHealthRise).
		needsOn("health-interval", healthChecksOn).group(GroupClient),
	whole("eject-after", "eject a server after this many errors in a row (0 = never)", "errors", func(c *Config) *int { return &c.EjectAfter }, 0, MaxEjectAfter,
		fmt.Sprintf("must be 0 (no ejection) or a whole number of errors up to %d", MaxEjectAfter)).defaults("0").example("3").changeable(SetEjectAfter).faultKind().wire("ea", 46).small(0, 3).group(GroupClient),
	whole("eject-for", "cycles an ejection lasts, doubled for each further ejection before a completion", "cycles", func(c *Config) *int64 { return &c.EjectFor }, 1, MaxCycles,
		fmt.Sprintf("must be a whole number of cycles from 1 to %d", MaxCycles)).zero().defaults(strconv.Itoa(DefaultEjectFor)).example("200").changeable(SetEjectFor).faultKind().wire("ef", 47).small(0, 20).wireDefault(DefaultEjectFor).
		needsOn("eject-after", ejectionOn).group(GroupClient),
	whole("fanout", "K: every request asks K servers at once (its parts) and completes when the last part does (per-server queues)", "parts", func(c *Config) *int { return &c.Fanout }, 1, MaxFanout,
		fmt.Sprintf("must be a whole number from 1 to %d", MaxFanout)).zero().defaults("1").example("3").wire("fo", 61).small(0, 4).testWith("queues", "per-server").group(GroupClient),
	whole("hedge-after", "D: a part not completed D cycles after it was first sent gets a hedge, a new attempt on another server; the first to complete wins (0 = off; per-server queues)", "cycles", func(c *Config) *int64 { return &c.HedgeAfter }, 0, MaxCycles,
		fmt.Sprintf("must be 0 (off) or a whole number of cycles up to %d", MaxCycles)).defaults("0").example("300").changeable(SetHedgeAfter).wire("ha", 62).small(0, 20).testWith("queues", "per-server").group(GroupClient),
	whole("hedge-max", "H: the hedges a part may get, at D, 2D … H·D after it was first sent", "hedges", func(c *Config) *int { return &c.HedgeMax }, 1, MaxHedges,
		fmt.Sprintf("must be a whole number from 1 to %d", MaxHedges)).zero().defaults("1").example("2").wire("hm", 63).small(0, MaxHedges).
		needsHedging().testWith("queues", "per-server", "hedge-after", "10").group(GroupClient),
	fixed("hedge-budget", "F: send a hedge only while hedges in the last 1000 cycles are fewer than F × parts first sent in them (0 = no budget)", "", func(c *Config) *Decimal { return &c.HedgeBudget }, ParseDecimal, 0, DecimalScale,
		"must be 0 (no budget) or a share above 0 and at most 1, like 0.05", "want 0 (none) or a share above 0 and at most 1, like 0.05").
		ranged("0 (none), or above 0 and at most 1").defaults("0").example("0.05").wire("hb", 64).small(0, DecimalScale).
		needsHedging().testWith("queues", "per-server", "hedge-after", "10").group(GroupClient),
	whole("provision-delay", "cycles a server added by scaling warms before it takes work", "cycles", func(c *Config) *int64 { return &c.ProvisionDelay }, 0, MaxCycles,
		fmt.Sprintf("must be a whole number of cycles from 0 to %d", MaxCycles)).defaults("0").example("100").changeable(SetProvisionDelay).faultKind().wire("pd", 48).small(0, 10).group(GroupClient),
	fixed("server-cost", "C: the price of one server for one cycle; the summary's cost is server-cycles × C", "a server-cycle", func(c *Config) *Decimal { return &c.ServerCost }, ParseDecimal, 0, MaxServerCost,
		"must be from 0 to 1000000, with at most 6 decimals", "want a price like 0.05").defaults("0").example("0.05").wire("sco", 54).small(0, 3*DecimalScale).group(GroupRun),
	whole("replace-after", "a server down or ejected this many cycles leaves the pool (0 = never)", "cycles", func(c *Config) *int64 { return &c.ReplaceAfter }, 0, MaxCycles,
		fmt.Sprintf("must be 0 (never) or a whole number of cycles up to %d", MaxCycles)).defaults("0").example("300").changeable(SetReplaceAfter).faultKind().wire("ra", 49).small(0, 40).group(GroupClient),
}, limitRows(), autoscalerRows(), policyRows())

// retriesOn, healthChecksOn and ejectionOn report whether the setting that
// others refine is on.
func retriesOn(c *Config) bool      { return c.Retries > 0 }
func healthChecksOn(c *Config) bool { return c.HealthInterval > 0 }
func ejectionOn(c *Config) bool     { return c.EjectAfter > 0 }
func hedgingOn(c *Config) bool      { return c.HedgeAfter > 0 }

// needsHedging is needs for a parameter of hedging (which runs on
// per-server queues).
func (r Row) needsHedging() Row {
	return r.needs([]string{"--hedge-after", "1", "--queues", "per-server"}, hedgingOn, func(*Config) string {
		return fmt.Sprintf("applies only with --hedge-after above 0: give --hedge-after too, or drop --%s", r.Name)
	})
}

// needsWave is needs for a parameter of the arrival wave.
func (r Row) needsWave() Row {
	return r.needs([]string{"--wave"}, func(c *Config) bool { return c.Wave }, func(*Config) string {
		return fmt.Sprintf("applies only with --wave (the default; or a change that turns it on), and the run has --wave=false: drop --%s", r.Name)
	}).testWith("wave", "true")
}

// readsFail counts a run as reading the row when its changes hold a fail
// fault.
func (r Row) readsFail() Row {
	r.readsChanges = func(cs []Change) bool {
		return slices.ContainsFunc(cs, func(c Change) bool { return c.Setting == SetFail })
	}
	return r
}

// readsTaskRange: the uniform and bimodal shapes read task-min and
// task-max.
func readsTaskRange(c *Config) bool { return c.Service == Uniform || c.Service == Bimodal }

func taskRangeWhy(name string) func(*Config) string {
	return func(c *Config) string {
		return fmt.Sprintf("applies to --service uniform or bimodal, and the service is %v: drop --%s (--mean-service sets the times of %v)", c.Service, name, c.Service)
	}
}

// policyRows gathers the parameters every policy owns (PolicyInfo.Params),
// each once, in policy order.
func policyRows() []Row {
	var out []Row
	seen := map[string]bool{}
	for _, p := range policies {
		for _, pr := range p.Params {
			if !seen[pr.Row.Name] {
				seen[pr.Row.Name] = true
				out = append(out, pr.Row.needsPolicy().group(GroupQueues))
			}
		}
	}
	return out
}

// setBlock reads "block": a comma-separated list of ranges, "none" (or
// nothing) for none; it replaces the list.
func setBlock(c *Config, value string) error {
	rs, err := ParseBlock(value)
	if err != nil {
		return err
	}
	c.Blocked = rs
	return nil
}

func getBlock(c *Config) string {
	if len(c.Blocked) == 0 {
		return "none"
	}
	s := make([]string, len(c.Blocked))
	for i, r := range c.Blocked {
		s[i] = r.String()
	}
	return strings.Join(s, ",")
}

func setSpeeds(c *Config, value string) error {
	var vs []Speed
	if value != "" {
		for _, f := range strings.Split(value, ",") {
			v, err := ParseSpeed(f)
			if err != nil {
				return &FieldError{Field: "speeds", Value: strconv.Quote(strings.TrimSpace(f)), Allowed: "want speeds from 0.01 to 100 (at most two decimals) separated by commas, like 2,1,0.5"}
			}
			vs = append(vs, v)
		}
	}
	c.Speeds = vs
	return nil
}

func getSpeeds(c *Config) string {
	s := make([]string, len(c.Speeds))
	for i, v := range c.Speeds {
		s[i] = v.String()
	}
	return strings.Join(s, ",")
}

func checkSpeeds(c *Config) error {
	if len(c.Speeds) > MaxServersLimit {
		return intErr("speeds", int64(len(c.Speeds)), "at most %d speeds", MaxServersLimit)
	}
	for i, v := range c.Speeds {
		if v < MinSpeed || v > MaxSpeed {
			return &FieldError{Field: "speeds", Value: v.String(), Allowed: fmt.Sprintf("server %d's speed must be from 0.01 to 100, with at most two decimals", i+1)}
		}
	}
	return nil
}

// ConfigNames lists the names Config.Set accepts, in the table's order.
func ConfigNames() []string {
	var names []string
	for _, r := range settingRows {
		if !r.File {
			names = append(names, r.Name)
		}
	}
	return names
}

// Set gives the setting called name (a `lbsim run` flag name without
// dashes) the value written as on the command line: syntax is checked
// here, ranges by Validate. The web page reads its query parameters with
// it, so a link and a command line mean the same run. "block" takes a
// comma-separated list of ranges ("none" for none) and replaces the list.
// Errors name the setting and what it allows.
func (c *Config) Set(name, value string) error {
	value = strings.TrimSpace(value)
	r := RowNamed(name)
	if r == nil || r.File {
		return fmt.Errorf("unknown setting %q: allowed %s", quoted(name), strings.Join(ConfigNames(), ", "))
	}
	if r.setText != nil {
		return r.setText(c, value)
	}
	v, err := r.parse(value)
	if err != nil {
		allowed := r.syntax
		if r.detail {
			allowed = err.Error() + "; " + r.syntax
		}
		return &FieldError{Field: name, Value: strconv.Quote(value), Allowed: allowed}
	}
	if r.zeroDefault && v < r.lo {
		// 0 stands for the default in a Config, never as a value given.
		return &FieldError{Field: name, Value: value, Allowed: r.allowed}
	}
	r.store(c, v)
	return nil
}

// Unread reports the settings that a run with configuration cfg and the
// changes scheduled would not read at any cycle, each with why: a shape
// parameter its shapes never take, a policy parameter no policy in force
// reads, a setting that refines one that is never on.
func Unread(cfg *Config, changes []Change) map[string]string {
	states := configStates(cfg, changes)
	out := map[string]string{}
	for i := range settingRows {
		r := &settingRows[i]
		if r.reads == nil || (r.readsChanges != nil && r.readsChanges(changes)) {
			continue
		}
		if !slices.ContainsFunc(states, r.reads) {
			out[r.Name] = r.readWhy(cfg)
		}
	}
	return out
}

// configStates returns the settings a run of cfg passes through: cfg, then
// the settings after each scheduled change that is no fault, in cycle order.
func configStates(cfg *Config, changes []Change) []*Config {
	states := []*Config{cfg}
	if len(changes) > 0 {
		sorted := slices.Clone(changes)
		slices.SortStableFunc(sorted, func(a, b Change) int { return cmp.Compare(a.Cycle, b.Cycle) })
		cur := cfg.Clone()
		for _, c := range sorted {
			if !c.IsFault() && c.Setting < numSettings {
				c.apply(&cur)
				s := cur.Clone()
				states = append(states, &s)
			}
		}
	}
	return states
}
