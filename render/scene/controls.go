package scene

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/lanes"
	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
)

// Key is a key as the scene sees it: a named key, or a letter or digit
// (RuneKey). Package render maps the platform's keys to these, so all
// keyboard handling is tested without a GPU.
type Key uint16

// The named keys.
const (
	KeyNone Key = iota
	KeyTab
	KeyEnter
	KeyEscape
	KeyBackspace
	KeyDelete
	KeyLeft
	KeyRight
	KeyUp
	KeyDown
	KeyPageUp
	KeyPageDown
	KeyHome
	KeyEnd
	KeySpace
	KeyPlus
	KeyMinus
	runeBase Key = 0x100
)

// RuneKey returns the Key of a letter (lower case) or digit.
func RuneKey(r rune) Key { return runeBase + Key(r) }

// Rune returns the letter or digit of k, or 0 for a named key.
func (k Key) Rune() rune {
	if k < runeBase {
		return 0
	}
	return rune(k - runeBase)
}

// Input is what the viewer did during one tick: the pointer (in screen
// pixels), the primary button, and the keys pressed since the last tick.
type Input struct {
	X, Y     float32
	Down     bool // the button is held
	Pressed  bool // the button went down this tick
	Released bool // the button went up this tick
	Keys     []Key
	Shift    bool
}

// widgetKind is what a control is.
type widgetKind uint8

const (
	kSlider widgetKind = iota // a value between min and max in steps; drag or ←/→
	kChoice                   // one of a few names; click or ←/→ for the next
	kField                    // the seed: digits, Backspace, Enter
	kButton                   // click, Enter or Space
)

// Widget ids, also the names the browser hook reports rectangles under. A
// control of a model setting has the setting's `--set` name.
const (
	WRate      = "rate"
	WScaleUp   = "scale-up"
	WScaleDown = "scale-down"
	WCooldown  = "cooldown"
	WTaskMin   = "task-min"
	WTaskMax   = "task-max"
	WSpeed     = "speed"
	WPolicy    = "policy"
	WQueues    = "queues"
	WSeed      = "seed"
	WDice      = "dice"
	WPlay      = "play"
	WStep      = "step"
	WArrival   = "arrival"
	WRestart   = "restart"
	WSave      = "save"
	WLoad      = "load"
	WShare     = "share"
	WTheory    = "theory"
	WPresent   = "present"
	WHelp      = "help"
	WLessons   = "lessons"
	WCompare   = "compare"
	WScrub     = "scrub" // only during a replay
)

// widget is one control, carrying everything it does: its kind, id and
// label, a slider's range in its own integer unit, how to read its value
// (get), give it a new one (set) and write one for the screen (format), a
// choice's names, and a button's intent. Adding a control is one entry in
// widgets (and its width in rowTwoWidths when it sits in the second row).
type widget struct {
	id             string
	kind           widgetKind
	label          string
	short          string // a slider's label where the full one does not fit ("U"): never cut
	min, max, step int64
	width          float32 // width in design pixels in the second row and the dialog
	row            int     // where it sits: rowSliders, rowButtons, rowBanner or rowDialog (a width in the first row is fixed)

	get     func(s *Session) int64                      // the value shown (sliders and choices)
	set     func(s *Session, v int64)                   // carry out a new value
	format  func(v int64) string                        // the value as shown; for a setting, as sim.NewChange reads it
	choices func() []string                             // a choice's names; the value is the index
	next    func(s *Session, cur int64, step int) int64 // a choice's value step places after cur (−1: before); nil: the next name, wrapping
	intent  Intent                                      // what a button does
	act     func(s *Session)                            // or, when set, what it does instead
	text    func(s *Session) string                     // a button's label when it shows a state, or a choice's value
	show    func(v int64) string                        // a slider's value as shown, when not as format writes it ("off" for 0)
	unused  func(c sim.Config) string                   // why the focused lane's settings ignore a slider's setting, or ""
	ladder  []int64                                     // a slider's stops over a wide range (rowcontrols.go), or nil: every step
	on      func(s *Session) bool                       // a tab: whether it is the one shown
}

// shortLabel returns slider w with short as its label where the full
// one does not fit.
func shortLabel(w widget, short string) widget {
	w.short = short
	return w
}

// unusedBy returns w showing why its setting is not used when unused
// says so.
func unusedBy(w widget, unused func(sim.Config) string) widget {
	w.unused = unused
	return w
}

// taskRangeUnused: task min and max draw the uniform service times and
// are bimodal's two times; the other shapes use the mean.
func taskRangeUnused(c sim.Config) string {
	if c.Service == sim.Uniform || c.Service == sim.Bimodal {
		return ""
	}
	return "unused (" + c.Service.String() + ")"
}

// queueRuleUnused: U, D and K are the queue rule's; target tracking
// (the "more" panel's autoscaler) reads none of them.
func queueRuleUnused(c sim.Config) string {
	if c.Autoscaler == sim.TargetTracking {
		return "unused (target)"
	}
	return ""
}

// settingSlider is a slider of the model's setting name (its `--set`
// name): it shows the value in force at the next cycle and schedules a
// change for the next cycle.
func settingSlider(name, label string, lo, hi, step int64, read func(sim.Config) int64, format func(int64) string) widget {
	if format == nil {
		format = func(v int64) string { return strconv.FormatInt(v, 10) }
	}
	return widget{id: name, kind: kSlider, label: label, min: lo, max: hi, step: step,
		get: func(s *Session) int64 { return s.settingValue(name, read) }, set: setSetting(name, format), format: format}
}

// settingChoice is a choice of the model's setting name among names; the
// setting's integer value is the index of its name. next, when not nil,
// says which values the choice offers.
func settingChoice(name, label string, width float32, names func() []string, read func(sim.Config) int64,
	next func(s *Session, cur int64, step int) int64) widget {
	format := func(v int64) string {
		ns := names()
		if v < 0 || v >= int64(len(ns)) {
			return strconv.FormatInt(v, 10)
		}
		return ns[v]
	}
	return widget{id: name, kind: kChoice, label: label, width: width, row: rowButtons, choices: names, next: next,
		get: func(s *Session) int64 { return s.settingValue(name, read) }, set: setSetting(name, format), format: format}
}

// startChoice is a choice of a starting setting (one the model cannot
// change during a run, like the queue mode): choosing a value restarts the
// run of the starting settings with it (see restartWith).
func startChoice(name, label string, width float32, names func() []string, read func(sim.Config) int64,
	apply func(*sim.Config, int64)) widget {
	w := settingChoice(name, label, width, names, read, nil)
	w.get = func(s *Session) int64 { return read(s.focused().Config()) }
	w.set = func(s *Session, v int64) {
		if err := s.restartWith(func(c *sim.Config) { apply(c, v) }); err != nil {
			s.say(fmt.Sprintf("%s = %s refused: %v", name, w.format(v), err), true)
		}
	}
	return w
}

func setSetting(name string, format func(int64) string) func(*Session, int64) {
	return func(s *Session, v int64) {
		err := s.Set(name, format(v))
		switch {
		case err == nil:
		case name == WScaleUp || name == WScaleDown:
			cfg := s.focused().Config()
			how := "move D down first"
			if name == WScaleDown {
				how = "move U up first"
			}
			s.say(fmt.Sprintf("%s = %s refused: scale-down D (%s) must stay below scale-up U (%s); %s",
				name, format(v), cfg.ScaleDown, cfg.ScaleUp, how), true)
		default:
			s.say(err.Error(), true)
		}
	}
}

// button is a button that carries out in; text, when given, is its label
// as it changes with the session's state.
func button(id, label string, width float32, in Intent, text func(*Session) string) widget {
	return widget{id: id, kind: kButton, label: label, width: width, row: rowButtons, intent: in, text: text}
}

// panelButton is a button at the end of the first row that opens a panel
// of settings (panels.go).
func panelButton(id, label string, width float32, in Intent) widget {
	w := button(id, label, width, in, nil)
	w.row = rowSliders
	return w
}

func onOff(label string, on func(*Session) bool) func(*Session) string {
	return func(s *Session) string {
		if on(s) {
			return label + ": on"
		}
		return label
	}
}

// widgets are the controls: the sliders, then the second row, in Tab order.
var widgets = []widget{
	shortLabel(settingSlider(WRate, "arrival rate", 50_000, 3_000_000, 50_000,
		func(c sim.Config) int64 { return int64(c.Rate) }, func(v int64) string { return sim.Rate(v).String() }), "rate"),
	shortLabel(unusedBy(settingSlider(WScaleUp, "scale-up U", 1_000, 200_000, 1_000,
		func(c sim.Config) int64 { return int64(c.ScaleUp) }, func(v int64) string { return sim.Factor(v).String() }), queueRuleUnused), "U"),
	shortLabel(unusedBy(settingSlider(WScaleDown, "scale-down D", 0, 199_000, 1_000,
		func(c sim.Config) int64 { return int64(c.ScaleDown) }, func(v int64) string { return sim.Factor(v).String() }), queueRuleUnused), "D"),
	shortLabel(unusedBy(settingSlider(WCooldown, "cooldown K", 1, 200, 1, func(c sim.Config) int64 { return c.Cooldown }, nil), queueRuleUnused), "K"),
	shortLabel(unusedBy(settingSlider(WTaskMin, "task min", 1, 200, 1, func(c sim.Config) int64 { return int64(c.TaskMin) }, nil), taskRangeUnused), "min"),
	shortLabel(unusedBy(settingSlider(WTaskMax, "task max", 1, 400, 1, func(c sim.Config) int64 { return int64(c.TaskMax) }, nil), taskRangeUnused), "max"),
	serviceWidget,
	shapeParamWidget,
	{id: WSpeed, kind: kSlider, label: "speed", short: "speed", min: 0, max: int64(len(ladder) - 1), step: 1,
		get:    func(s *Session) int64 { return int64(max(slices.Index(ladder[:], s.speed), 0)) },
		set:    func(s *Session, v int64) { s.setSpeed(ladder[min(max(v, 0), int64(len(ladder)-1))]) },
		format: func(v int64) string { return SpeedName(ladder[min(max(v, 0), int64(len(ladder)-1))]) }},
	panelButton(WClients, "clients", 72, OpenClients),
	panelButton(WHealth, "health", 68, OpenHealth),
	panelButton(WMore, "more", 60, OpenMore),
	settingChoice(WPolicy, "policy", 180, sim.PolicyNames, func(c sim.Config) int64 { return int64(c.Policy) },
		func(s *Session, cur int64, step int) int64 { return nextPolicy(cur, step, s.focused().Config().Queues) }),
	startChoice(WQueues, "queues", 150, sim.QueueModeNames, func(c sim.Config) int64 { return int64(c.Queues) },
		func(c *sim.Config, v int64) { c.Queues = sim.QueueMode(v) }),
	{id: WSeed, kind: kField, label: "seed", width: 160, row: rowButtons},
	button(WDice, "dice", 62, Dice, nil),
	button(WPlay, "play", 86, TogglePause, func(s *Session) string {
		if s.paused {
			return "► play"
		}
		return "|| pause"
	}),
	button(WStep, "step", 62, StepOne, nil),
	button(WArrival, "arrival", 76, StepArrival, nil),
	button(WRestart, "restart", 80, Restart, nil),
	button(WSave, "save", 62, Save, nil),
	button(WLoad, "load", 62, Load, nil),
	button(WShare, "share", 66, OpenShare, nil),
	button(WTheory, "theory", 92, ToggleTheory, onOff("theory", func(s *Session) bool { return s.theory })),
	button(WPresent, "present", 100, TogglePresent, onOff("present", func(s *Session) bool { return s.present })),
	button(WLessons, "lessons", 76, OpenLessons, nil),
	button(WCompare, "compare", 86, ToggleCompare, onOff("compare", func(s *Session) bool { return s.Comparing() })),
	button(WHelp, "help", 56, ToggleHelp, nil),
}

// scrubWidget is the replay's scrub bar; controls sets its range.
var scrubWidget = widget{id: WScrub, kind: kSlider, label: "replay cycle", row: rowBanner,
	get:    func(s *Session) int64 { return s.m.Cycle() },
	set:    func(s *Session, v int64) { s.SeekCycle(v) },
	format: Commas}

// Where a control sits.
const (
	rowSliders = iota // the first row of the control bar, equal widths
	rowButtons        // the second row, each its own width
	rowBanner         // the replay banner
	rowDialog         // the share dialog
	rowList           // a dialog's list: the lessons menu, the firewall's block list
	rowPanel          // a panel of settings' sliders: clients, health (panels.go)
	rowTab            // a list dialog's row of tabs over its list: the lessons menu's topics
)

// sliderValueAt maps a pointer x over a track to a value of w: the
// nearest step, clamped to the range.
func sliderValueAt(w widget, track Rect, x float32) int64 {
	if track.W <= 0 || w.max <= w.min {
		return w.min
	}
	f := float64((x - track.X) / track.W)
	f = min(max(f, 0), 1)
	if w.ladder != nil {
		return w.ladder[int(f*float64(len(w.ladder)-1)+0.5)]
	}
	steps := (w.max - w.min) / w.step
	k := int64(f*float64(steps) + 0.5)
	return w.min + k*w.step
}

// sliderFrac is the knob's position of v on w's track, 0 … 1.
func sliderFrac(w widget, v int64) float32 {
	if w.max <= w.min {
		return 0
	}
	if n := len(w.ladder); n > 1 {
		return float32(ladderIndex(w.ladder, v)) / float32(n-1)
	}
	return min(max(float32(v-w.min)/float32(w.max-w.min), 0), 1)
}

// sliderKey returns the value after key k on a slider at v, and whether
// the key is one a slider takes.
func sliderKey(w widget, v int64, k Key) (int64, bool) {
	if w.ladder != nil {
		return ladderKey(w.ladder, v, k)
	}
	big := max(w.step, (w.max-w.min)/10/w.step*w.step)
	switch k {
	case KeyLeft, KeyDown:
		v -= w.step
	case KeyRight, KeyUp:
		v += w.step
	case KeyPageDown:
		v -= big
	case KeyPageUp:
		v += big
	case KeyHome:
		v = w.min
	case KeyEnd:
		v = w.max
	default:
		return v, false
	}
	return min(max(v, w.min), w.max), true
}

// seedField is the text of the seed field while it is being edited.
type seedField struct {
	text    string
	editing bool
}

// maxSeedDigits bounds the field: every 19-digit number fits a uint64.
const maxSeedDigits = 19

// key edits the field. It returns done and the seed when Enter was pressed
// on a valid number; consumed reports whether the field took the key.
func (f *seedField) key(k Key) (seed uint64, done, consumed bool) {
	switch {
	case k.Rune() >= '0' && k.Rune() <= '9':
		if !f.editing {
			f.text, f.editing = "", true
		}
		if len(f.text) < maxSeedDigits {
			f.text += string(k.Rune())
		}
		return 0, false, true
	case k == KeyBackspace || k == KeyDelete:
		if !f.editing {
			f.text, f.editing = "", true
		}
		if f.text != "" {
			f.text = f.text[:len(f.text)-1]
		}
		return 0, false, true
	case k == KeyEnter:
		n, err := strconv.ParseUint(f.text, 10, 64)
		if !f.editing || err != nil {
			f.editing = false
			return 0, false, true
		}
		f.editing = false
		return n, true, true
	case k == KeyEscape:
		f.editing = false
		return 0, false, true
	}
	return 0, false, false
}

// nextFocus moves the focus one control forward (or back) in Tab order
// over n controls; -1 is no focus.
func nextFocus(cur, n int, back bool) int {
	if n == 0 {
		return -1
	}
	if cur < 0 {
		if back {
			return n - 1
		}
		return 0
	}
	if back {
		return (cur - 1 + n) % n
	}
	return (cur + 1) % n
}

// controlState is the controls' side of a Session: the keyboard focus, a
// drag in progress, the seed being typed and the intents waiting for the
// platform.
type controlState struct {
	focus    int // index into the controls, −1 for none
	dragging int // the slider being dragged, −1 for none
	dragVal  int64
	seedEdit seedField
	lastW    int // size of the last Draw, for hit-testing
	lastH    int
	requests []Intent
	// reduceMotion: the viewer asked for less motion (the browser's
	// prefers-reduced-motion): no request flies; the rest works as
	// always. It outlasts a restart or a lesson opened.
	reduceMotion bool
	// embedded: the page is embedded in slides (?embed=1): no control bar
	// (the keys, the server menu and the dialogs still work). It outlasts
	// a restart or a lesson opened.
	embedded bool
	// menuTopic is the lessons menu's topic last chosen (NoTopic: the
	// first); it outlasts a lesson opened.
	menuTopic lesson.Topic
}

// binding is a shortcut: the keys, how the help and the footer name them,
// the intent, and what it does in words.
type binding struct {
	keys  []Key
	label string // the keys as the help shows them
	short string // the footer's word, or "" to leave it out of the footer
	in    Intent
	what  string
}

// bindings are the shortcuts, taken when no control has the focus (or the
// focused control does not take the key), in the order the footer and the
// help list them. Digits start typing a seed, Tab moves the focus, Esc
// hides help, messages and the caption. This table and the focused control
// are the only places a key is given a meaning (package render only names
// the platform's keys); the help and the footer are derived from it.
var bindings = []binding{
	{[]Key{RuneKey('h')}, "H", "help", ToggleHelp, "this help"},
	{[]Key{KeySpace}, "Space", "play", TogglePause, "play / pause"},
	{[]Key{KeyRight}, "→", "step", StepOne, "one cycle (pauses first)"},
	{[]Key{RuneKey('a')}, "A", "", StepArrival, "step mode: the next routing decision, labelled (pauses first)"},
	{[]Key{KeyPlus, KeyUp}, "+ ↑", "", Faster, "faster"},
	{[]Key{KeyMinus, KeyDown}, "− ↓", "", Slower, "slower"},
	{[]Key{RuneKey('k')}, "K", "share", OpenShare, "share link (#r=…): a dialog"},
	{[]Key{RuneKey('t')}, "T", "theory", ToggleTheory, "theory panel (Erlang C)"},
	{[]Key{RuneKey('p')}, "P", "present", TogglePresent, "presentation mode"},
	{[]Key{RuneKey('r')}, "R", "restart", Restart, "restart (a replay: from its start)"},
	{[]Key{RuneKey('s')}, "S", "save", Save, "save the run (.lbsnap)"},
	{[]Key{RuneKey('l')}, "L", "load", Load, "load a snapshot (or drop a file)"},
	{[]Key{RuneKey('b')}, "B", "firewall", OpenFirewall, "the firewall's block list"},
	{[]Key{RuneKey('g')}, "G", "", OpenServerMenu, "a server's menu (or click the server)"},
	{[]Key{RuneKey('c')}, "C", "", ToggleCompare, "compare with the next policy (again: back)"},
	{[]Key{RuneKey('n')}, "N", "", FocusNextLane, "compare: focus the next lane"},
	{[]Key{RuneKey('v')}, "V", "", NextGate, "a fleet: the next balancer's beliefs (or click its gate)"},
	{[]Key{RuneKey('d')}, "D", "", Dice, "dice: a random seed"},
	{[]Key{RuneKey('f')}, "F", "", Fullscreen, "fullscreen"},
}

// shortcuts maps each key of bindings to its intent.
var shortcuts = func() map[Key]Intent {
	m := map[Key]Intent{}
	for _, b := range bindings {
		for _, k := range b.keys {
			m[k] = b.in
		}
	}
	return m
}()

// controls returns the controls on screen, in Tab order: the share
// dialog's alone while it is open.
func (s *Session) controls() []widget {
	switch s.dialog {
	case dialogShare:
		return shareWidgets
	case dialogLessons:
		return s.lessonWidgets()
	case dialogFirewall:
		return s.firewallWidgets()
	case dialogServer:
		return s.serverMenuWidgets()
	case dialogClients:
		return clientWidgets
	case dialogHealth:
		return healthWidgets
	case dialogQuiz:
		return s.quizWidgets()
	case dialogMore:
		return moreWidgets
	}
	bar := widgets
	if s.embedded {
		bar = nil // no control bar
	}
	if s.replay == nil {
		return bar
	}
	w := scrubWidget
	cycles := s.replay.Lanes[0].Config.Cycles
	w.min, w.max, w.step = 0, cycles, max(cycles/100, 1)
	return append(slices.Clip(bar), w)
}

// settingValue returns the value of the setting name as the controls show
// it: the value in force at the current cycle, or the viewer's change
// already scheduled for the next cycle. Recorded changes (a replay's, or
// the page's set= parameters) are not shown before their cycle.
func (s *Session) settingValue(name string, read func(sim.Config) int64) int64 {
	m := s.focused()
	v := read(m.Config())
	if s.replay != nil {
		return v
	}
	next := m.Cycle() + 1
	given := s.opts.Changes
	if i := min(s.lane, len(s.set.Lanes)-1); len(s.opts.Lanes) > i {
		given = s.opts.Lanes[i].Changes
	}
	for _, c := range m.Pending() {
		if c.Cycle == next && c.Setting.String() == name && !slices.Contains(given, c) {
			v = c.Value
		}
	}
	return v
}

// value is what a slider or a choice shows: the dragged value during a
// drag, else its get.
func (s *Session) value(i int, w widget) int64 {
	if s.dragging == i && s.dragging >= 0 {
		return s.dragVal
	}
	if w.get == nil {
		return 0
	}
	return w.get(s)
}

// valueText is what control i shows as its value.
func (s *Session) valueText(i int, w widget) string {
	if w.unused != nil {
		if why := w.unused(s.focused().Config()); why != "" {
			return why
		}
	}
	switch w.kind {
	case kSlider, kChoice:
		if w.kind == kChoice && w.text != nil {
			return w.text(s)
		}
		if w.show != nil {
			return w.show(s.value(i, w))
		}
		return w.format(s.value(i, w))
	case kField:
		if s.seedEdit.editing {
			return s.seedEdit.text
		}
		return strconv.FormatUint(s.cfg.Seed, 10)
	}
	if w.text != nil {
		return w.text(s)
	}
	return w.label
}

// setControl gives a slider or a choice a new value through its set,
// unless it has that value already.
func (s *Session) setControl(w widget, v int64) {
	if w.id != WScrub && v == w.get(s) {
		return
	}
	w.set(s, v)
}

// Set schedules the setting name (a `lbsim run --set` name) to value at
// the next cycle, as a slider does. During a replay it first forks a new
// run from the cycle shown. A change of the same setting already
// scheduled for the next cycle (pressing → three times while paused) is
// replaced, so one cycle holds one change per setting.
func (s *Session) Set(name, value string) error {
	c, err := sim.NewChange(s.m.Cycle()+1, name, value)
	if err != nil {
		return err
	}
	if s.replay != nil {
		if err := s.fork(); err != nil { // the fork stays at the cycle shown
			return err
		}
	}
	if s.m.Done() {
		return errors.New("the run has ended: R restarts it")
	}
	if err := s.unread(c); err != nil {
		return fmt.Errorf("%s = %s refused: %w", name, value, err)
	}
	if err := s.schedule(c); err != nil {
		return fmt.Errorf("%s = %s: %w", name, value, err)
	}
	return nil
}

// unread refuses change c when a lane it goes to would not read it, from
// its settings in force and its pending changes on, and never could: what
// the setting needs is a starting setting no change can give (a setting of
// the other autoscaler). The command line refuses that --set, so a run the
// page records stays one the CLI replays. A setting whose need a later
// change may bring (backoff before retries) is left to the viewer.
func (s *Session) unread(c sim.Change) error {
	r := sim.ChangeRow(c.Setting)
	if r == nil || len(r.Needs) == 0 {
		return nil
	}
	if need := sim.RowNamed(strings.TrimPrefix(r.Needs[0], "--")); need == nil || need.Changeable {
		return nil
	}
	for _, i := range s.targets(c) {
		m := s.set.Lanes[i].Model
		cfg, changes := m.Config(), append(m.Pending(), c)
		for _, ue := range sim.UnreadChanges(&cfg, changes) {
			if ue.Change == &changes[len(changes)-1] {
				return errors.New(ue.Why)
			}
		}
	}
	return nil
}

// schedule adds c to the pending changes of the lanes it goes to (see
// targets: every lane for an arrival or firewall setting, else the focused
// lane), first dropping a pending change of the same setting at the same
// cycle (faults excepted: each click on a server is its own change).
// Dropping one rebuilds the lanes to the current cycle without it, and so
// does a retry budget set where the run kept no window for it.
func (s *Session) schedule(c sim.Change) error {
	listy := c.IsFault() || c.Setting == sim.SetBlock || c.Setting == sim.SetUnblock // each its own change
	same := func(p sim.Change) bool { return !listy && p.Cycle == c.Cycle && p.Setting == c.Setting }
	targets := s.targets(c)
	replace := false
	for _, i := range targets {
		m := s.set.Lanes[i].Model
		// A retry budget the run has kept no window for is set by
		// running the lanes again with it from the start.
		replace = replace || slices.ContainsFunc(m.Pending(), same) || errors.Is(m.CanSchedule(c), sim.ErrRetryBudgetLate)
	}
	if !replace {
		return s.scheduleOn(c, targets)
	}
	specs := s.runSpecs()
	for _, i := range targets {
		specs[i].Changes = append(slices.DeleteFunc(specs[i].Changes, same), c)
	}
	if _, err := lanes.New(specs); err != nil { // check before leaving the lanes shown
		return err
	}
	paused, pauseAt := s.paused, s.pauseAt
	if err := s.build(specs, s.m.Cycle()); err != nil {
		return err
	}
	s.paused, s.pauseAt = paused, pauseAt
	return nil
}

// scheduleOn schedules c on the lanes targets through lanes.Set.Schedule:
// on every lane or none.
func (s *Session) scheduleOn(c sim.Change, targets []int) error {
	if len(targets) == 1 || lanes.Arrival(c.Setting) {
		return s.set.Schedule(c, targets[0])
	}
	for _, i := range targets { // the firewall's lists: check all first
		if err := s.set.Lanes[i].Model.CanSchedule(c); err != nil {
			return err
		}
	}
	for _, i := range targets {
		if err := s.set.Schedule(c, i); err != nil {
			return err
		}
	}
	return nil
}

// HandleInput carries out one tick of pointer and keyboard input: the
// controls first (pointer over a control, or the focused control for a
// key), then clicks on servers, then the shortcuts.
func (s *Session) HandleInput(in Input) {
	ws := s.controls()
	if s.focus >= len(ws) {
		s.focus = -1
	}
	var rs []Rect
	var l Layout
	if s.lastW > 0 {
		l = s.layout(s.lastW, s.lastH)
		rs = s.controlRects(l)
	}
	if in.Pressed && rs != nil {
		s.press(ws, rs, l, in)
	}
	if s.dragging >= 0 && s.dragging < len(ws) && rs != nil {
		w := ws[s.dragging]
		if in.Down || in.Released {
			s.dragVal = sliderValueAt(w, sliderTrack(rs[s.dragging], l.T), in.X)
		}
		if in.Released || !in.Down {
			s.dragging = -1
			s.setControl(w, s.dragVal)
		}
	}
	for _, k := range in.Keys {
		ws = s.controls() // a key may have opened or closed a dialog
		if s.focus >= len(ws) {
			s.focus = -1
		}
		s.key(ws, k, in.Shift)
	}
}

func (s *Session) press(ws []widget, rs []Rect, l Layout, in Input) {
	p := Point{in.X, in.Y}
	for i, r := range rs {
		if !inside(r, p) {
			continue
		}
		w := ws[i]
		s.banner = false
		if s.focus != i && s.seedEdit.editing {
			s.seedEdit.editing = false
		}
		s.focus = i
		switch w.kind {
		case kSlider:
			s.dragging = i
			s.dragVal = sliderValueAt(w, sliderTrack(r, l.T), in.X)
		case kChoice:
			s.setControl(w, w.stepChoice(s, 1))
		case kField:
			s.seedEdit = seedField{text: "", editing: true}
		case kButton:
			s.press1(w)
		}
		return
	}
	s.focus = -1
	s.seedEdit.editing = false
	if s.dialog != dialogNone {
		s.Apply(CloseDialog) // a click outside a dialog closes it
		return
	}
	if inside(l.Gate, p) {
		s.Apply(OpenFirewall)
		return
	}
	if s.clickGate(l, p) {
		return
	}
	s.clickServer(l, p)
}

func inside(r Rect, p Point) bool {
	return p.X >= r.X && p.X < r.X+r.W && p.Y >= r.Y && p.Y < r.Y+r.H
}

// key carries out one key: Tab moves the focus, the focused control takes
// what it understands, the rest are shortcuts.
func (s *Session) key(ws []widget, k Key, shift bool) {
	s.banner = false
	if k == KeyTab {
		s.seedEdit.editing = false
		s.focus = nextFocus(s.focus, len(ws), shift)
		return
	}
	if s.dialog != dialogNone && k == KeyEscape {
		s.Apply(CloseDialog)
		return
	}
	if s.quizKey(k) || s.menuKey(k) {
		return
	}
	if s.dialog == dialogShare && k == RuneKey('k') {
		s.Apply(Share)
		return
	}
	if s.focus >= 0 && s.focusedKey(ws[s.focus], k) {
		return
	}
	if s.listKey(ws, k) {
		return
	}
	if r := k.Rune(); r >= '0' && r <= '9' {
		// Typing digits edits the seed.
		s.focus = slices.IndexFunc(ws, func(w widget) bool { return w.id == WSeed })
		s.seedEdit = seedField{}
		s.seedEdit.key(k)
		return
	}
	if s.dialog != dialogNone {
		return // a dialog is modal
	}
	if k == KeyEscape && s.clearGate() {
		return // a selected gate first
	}
	if k == KeyEscape {
		s.help = false
		if s.message == "" {
			s.steps = stepState{} // step mode's label, once no message covers it
		}
		s.message = ""
		s.caption = nil
		return
	}
	if in, ok := shortcuts[k]; ok {
		s.Apply(in)
	}
}

// focusedKey gives k to the focused control w and reports whether it took
// it; Esc leaves the focus.
func (s *Session) focusedKey(w widget, k Key) bool {
	switch w.kind {
	case kSlider:
		if v, ok := sliderKey(w, w.get(s), k); ok {
			s.setControl(w, v)
			return true
		}
	case kChoice:
		switch k {
		case KeyRight, KeyUp, KeyEnter: // not Space, play elsewhere: a choice may restart the run
			s.setControl(w, w.stepChoice(s, 1))
			return true
		case KeyLeft, KeyDown:
			s.setControl(w, w.stepChoice(s, -1))
			return true
		}
	case kField:
		seed, done, ok := s.seedEdit.key(k)
		if done {
			s.focus = -1
			s.restartWithSeed(seed)
		}
		if ok {
			if k == KeyEscape {
				s.focus = -1
			}
			return true
		}
	case kButton:
		if k == KeyEnter || k == KeySpace {
			s.press1(w)
			return true
		}
	}
	if k == KeyEscape {
		s.focus = -1
		return true
	}
	return false
}

// clickServer opens the server menu on the clicked server (its lane
// becomes the focused lane). A click elsewhere in a lane focuses that
// lane.
func (s *Session) clickServer(l Layout, p Point) {
	for k, sb := range s.shown() {
		if k >= len(l.Lanes) {
			break
		}
		_, g := s.laneGeom(l, k, sb)
		i := 0
		for v := range sb.b.Servers() {
			if inside(g.BoxAt(i), p) {
				s.openServerMenu(sb.lane, sb.bal, v.ID)
				return
			}
			i++
		}
		ln := l.Lanes[k]
		if inside(Rect{ln.Queue.X, ln.Title.Y, ln.Pool.X + ln.Pool.W - ln.Queue.X, ln.Pool.Y + ln.Pool.H - ln.Title.Y}, p) {
			s.lane = sb.lane
			return
		}
	}
}

// press1 carries out a button: its act, or its intent.
func (s *Session) press1(w widget) {
	if w.act != nil {
		w.act(s)
		return
	}
	s.Apply(w.intent)
}

// stepChoice returns the value of choice w one place after its value now (step
// 1) or before it (−1), wrapping.
func (w widget) stepChoice(s *Session, step int) int64 {
	cur := w.get(s)
	if w.next != nil {
		return w.next(s, cur, step)
	}
	n := int64(len(w.choices()))
	return (cur + int64(step) + n) % n
}

// nextPolicy returns the policy step places after cur (−1: before it),
// wrapping, among those the queue mode q runs.
func nextPolicy(cur int64, step int, q sim.QueueMode) int64 {
	ps := sim.PoliciesFor(q)
	i := 0
	for j, p := range ps {
		if int64(p) == cur {
			i = j
		}
	}
	return int64(ps[(i+step+len(ps))%len(ps)])
}
