package scene

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/lbsim/lbsim/lanes"
	"github.com/lbsim/lbsim/render/lesson"
	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// Intent is what the viewer asked for: a shortcut key (see bindings) or a
// button gives one, and Apply carries it out.
type Intent uint8

// The intents.
const (
	TogglePause    Intent = iota // Space
	StepOne                      // →: pause if running, then one cycle
	Faster                       // +
	Slower                       // −
	Restart                      // R: the same run again from cycle 0
	ToggleHelp                   // H
	Dice                         // D: restart with a random seed
	Save                         // S: save the run (the platform writes or downloads it)
	Load                         // L: load a snapshot (the platform asks for a file)
	Share                        // make the share link the dialog chose (the platform shows it)
	ToggleTheory                 // T: the Erlang C panel
	TogglePresent                // P: presentation mode
	Fullscreen                   // F: handled by the platform
	OpenShare                    // K: open the share dialog
	OpenLessons                  // the lessons menu
	OpenFirewall                 // B, or a click on the gate: the firewall's block list
	CloseDialog                  // Esc in a dialog
	ToggleCompare                // C: the run beside the next policy, or back to one run
	FocusNextLane                // N: in the compare view, the lane the controls change
	OpenServerMenu               // G, or a click on a server: its menu of faults
	OpenClients                  // the clients panel: timeout, retries, budget
	OpenHealth                   // the health panel: health checks, ejection, warm-up
	NextGate                     // V: a fleet: select the next balancer's gate, to see its beliefs (fleet.go)
	StepArrival                  // A: step mode: the next routing decision, labelled (stepmode.go)
	OpenMore                     // the "more" panel: every other changeable setting, from its row (rowcontrols.go)
)

// Options start a Session.
type Options struct {
	Config   sim.Config
	Speed    int64    // cycles per second, or MaxSpeed
	PauseAt  int64    // pause when the cycle reaches it; −1 for never
	Problems []string // shown in a banner until a key is pressed
	// RandomSeed picks the dice's seed; it must not be the model's
	// generator (nil: a cosmetic generator of the Session's own).
	RandomSeed func() uint64
	// Changes are scheduled on the model at every (re)start of the
	// starting settings: the page's set= and fault= parameters, like
	// --set and --fault.
	Changes []sim.Change
	// Present and Theory start the view in presentation mode and with the
	// theory panel shown.
	Present, Theory bool
	// Caption is shown in a strip under the HUD until Esc hides it (a
	// lesson's text, or the lines of Note); empty for none.
	Caption []string
	// Note is a teacher's own caption (the page's caption parameter,
	// snapshot.CheckCaption): saved and shared snapshots carry it, and a
	// snapshot that carries one shows it.
	Note string
	// Measure is the figure the lesson's claim rests on (lesson.Measure):
	// each lane's title shows it, large; NoMeasure for none.
	Measure lesson.Measure
	// Lesson returns the options of the lesson named name, for the
	// lessons menu (nil: no menu).
	Lesson func(name string) (Options, error)
	// Comparison returns the options of the ready-made comparison named
	// name (lesson.Comparisons), for the same menu (nil: not offered).
	Comparison func(name string) (Options, error)
	// Quiz is the lesson's question, asked at cycle 0 with the run held
	// (quiz.go); nil for none. Try opens its "now try" run (nil: not
	// offered). Title names the lesson, for the run in words (words.go).
	Quiz  *lesson.Quiz
	Try   func() (Options, error)
	Title string
	// MaxQueued bounds the queued requests of every run shown (0:
	// PageMaxQueued). A run that exceeds it stops with a message; the
	// page stays usable.
	MaxQueued int
	// Lanes, two to snapshot.MaxLanes of them, open the compare view:
	// each lane's label, settings and changes (Config and Changes are
	// then the first lane's). The lanes must differ only in balancer
	// settings to see the same requests.
	Lanes []snapshot.LaneSpec
}

// PageMaxQueued is the bound on queued requests in the page and the
// window unless Options say otherwise: 2 million requests take about 50 MB,
// which a browser tab holds well beside the renderer.
const PageMaxQueued = 2_000_000

// modelOptions are the options of every model the session builds.
func (s *Session) modelOptions() []sim.Option {
	limit := s.opts.MaxQueued
	if limit == 0 {
		limit = PageMaxQueued
	}
	return []sim.Option{sim.WithEvents(), sim.WithMaxQueued(limit)}
}

// Session is one run on screen: the model and, each in its own file and
// struct, its pacing (pacing.go), its controls (controls.go), its replay
// and recording (replay.go) and its theory panel (theory.go). It is not
// safe for concurrent use.
type Session struct {
	// momentsKey names the service shape momentsOf was worked out for
	// (the theory panel's M/G/c, see moments).
	momentsKey string
	momentsOf  sim.Moments

	opts Options
	m    *sim.Model

	pacing
	laneState
	controlState
	replayState
	theoryState
	share   shareState
	dialog  int        // the open dialog (modal), or dialogNone
	menu    serverMenu // the server the server menu acts on
	caption []string   // the lesson's caption, until Esc hides it
	note    string     // the teacher's caption, carried by snapshots

	quiz  quizState  // the lesson's question (quiz.go)
	words wordsState // the run in words (words.go)

	fleet fleetView // the balancer gate selected (fleet.go)
	steps stepState // step mode's decisions (stepmode.go)
	// requeues are the recent re-queues, shown on the picture (requeue.go).
	requeues []requeueNote
	anim     animator
	hists    []History   // the charts' history of each lane
	dists    []waitDist  // each lane's waits so far, for a tail lesson's chart (waitcdf.go)
	parts    []partTimes // each lane's parts' responses so far, with fan-out or hedging (partp99.go)
	// shares counts each lane's dispatches per server (serverKey) and per
	// balancer (serverKey(b, 0)) since cycle 0: a server's share of the
	// requests, shown beside its queue (per-server queues).
	shares  []map[int64]int64
	fw      firewallState
	help    bool
	banner  bool
	present bool
	message string // info or error shown in a banner
	isError bool
	// messageTick is the tick the message appeared at; it fades after
	// messageTicks.
	messageTick int64
	frame       Frame // reused by Draw
	dice        *rand.Rand
}

// New builds the model from opts.Config and returns the session at cycle 0.
func New(opts Options) (*Session, error) {
	s := &Session{opts: opts, anim: newAnimator(), banner: len(opts.Problems) > 0,
		dice: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))}
	s.speed, s.budget = opts.Speed, NewBudget()
	s.focus, s.dragging = -1, -1
	s.present, s.theory = opts.Present, opts.Theory
	s.caption, s.note = opts.Caption, opts.Note
	if s.speed == 0 {
		s.speed = 5
	}
	if err := s.restart(); err != nil {
		return nil, err
	}
	s.pauseAt = opts.PauseAt
	s.checkPauseAt()
	if opts.Title != "" {
		said := []string{"Opened: " + opts.Title + "."}
		if opts.Quiz == nil { // a question's caption waits: it states the answer
			said = append(said, opts.Caption...)
		}
		s.announce(said...)
	}
	s.startQuiz()
	return s, nil
}

func (s *Session) restart() error {
	return s.build(s.startSpecs(), 0)
}

// build starts the lanes of specs (one for a single run) with their changes
// scheduled and re-simulates them up to cycle to (headless, each lane
// recording every cycle), then resets the view's pacing, animations and
// charts.
func (s *Session) build(specs []snapshot.LaneSpec, to int64) error {
	set, err := lanes.New(specs, s.modelOptions()...)
	if err != nil {
		return err
	}
	for _, l := range set.Lanes {
		if err := l.Model.Err(); err != nil {
			return err
		}
	}
	s.set, s.start = set, cloneSpecs(specs)
	s.m, s.cfg = set.Lanes[0].Model, specs[0].Config.Clone()
	s.lane = min(s.lane, len(set.Lanes)-1)
	s.meas = measured{}
	s.hists = make([]History, len(set.Lanes))
	s.dists = make([]waitDist, len(set.Lanes))
	s.parts = make([]partTimes, len(set.Lanes))
	s.requeues = nil
	s.shares = make([]map[int64]int64, len(set.Lanes))
	for i := range s.shares {
		s.shares[i] = map[int64]int64{}
	}
	s.fw.reset(s.m.Config())
	s.observe()
	for s.m.Cycle() < to && s.set.Step() {
		s.observe()
	}
	s.pace.Reset()
	s.budget.Reset()
	s.anim.reset()
	s.rate = rateMeter{}
	return nil
}

// Model returns the model being shown (read-only use).
func (s *Session) Model() *sim.Model { return s.m }

// Apply carries out one intent. Save, Load, Share and Fullscreen need
// the platform: they are queued for TakeRequests.
func (s *Session) Apply(in Intent) {
	s.banner = false
	d := s.dialog // the dialog open before
	switch in {
	case TogglePause, StepOne, Restart, Dice, ToggleCompare, FocusNextLane:
		s.steps = stepState{} // the run moves on: the label would be stale
	}
	switch in {
	case StepArrival:
		s.stepArrival()
	case TogglePause:
		if s.m.Done() {
			return
		}
		s.paused = !s.paused
		s.budget.Reset()
	case StepOne:
		s.paused = true
		s.pace.Reset()
		s.step(1, true)
	case Faster:
		s.setSpeed(SpeedUp(s.speed))
	case Slower:
		s.setSpeed(SlowDown(s.speed))
	case Restart:
		s.message = ""
		if s.replay != nil {
			s.startReplay(*s.replay)
		} else {
			_ = s.restart() // the configuration was valid at New
		}
		s.pauseAt = -1
		s.paused = false // after the end too: R runs again, no Space needed
	case Dice:
		s.restartWithSeed(s.randomSeed())
	case ToggleHelp:
		s.help = !s.help
	case ToggleTheory:
		s.theory = !s.theory
	case TogglePresent:
		s.present = !s.present
	case OpenShare:
		s.dialog, s.dragging = dialogShare, -1
		s.focus = slices.IndexFunc(shareWidgets, func(w widget) bool { return w.id == WShareMake })
	case OpenLessons:
		s.dialog, s.dragging = dialogLessons, -1
		s.focus = countRow(s.lessonWidgets(), rowTab) // the shown topic's first entry
	case OpenFirewall:
		s.dialog, s.dragging, s.focus = dialogFirewall, -1, 0
	case OpenServerMenu:
		s.openServerMenuKey()
	case OpenClients:
		s.dialog, s.dragging, s.focus = dialogClients, -1, 0
	case OpenHealth:
		s.dialog, s.dragging, s.focus = dialogHealth, -1, 0
	case OpenMore:
		s.dialog, s.dragging, s.focus = dialogMore, -1, 0
	case CloseDialog:
		s.dialog, s.focus = dialogNone, -1
		if s.quiz.asking && d != dialogQuiz {
			s.dialog, s.focus = dialogQuiz, 0 // a dialog over the question closed: the question again
		}
	case ToggleCompare:
		s.toggleCompare()
	case FocusNextLane:
		s.NextLane()
	case NextGate:
		s.nextGate()
	case Share:
		s.dialog, s.focus = dialogNone, -1
		s.requests = append(s.requests, in)
	case Save, Load, Fullscreen:
		s.requests = append(s.requests, in)
	}
}

// TakeRequests returns the Save, Load, Share and Fullscreen intents asked
// for since the last call, for the platform to carry out.
func (s *Session) TakeRequests() []Intent {
	r := s.requests
	s.requests = nil
	return r
}

func (s *Session) randomSeed() uint64 {
	if s.opts.RandomSeed != nil {
		return s.opts.RandomSeed()
	}
	return s.dice.Uint64N(999_999_999) + 1
}

// restartWithSeed starts a new run of the starting settings with seed,
// leaving any replay.
func (s *Session) restartWithSeed(seed uint64) {
	if s.replay != nil {
		s.setStartSpecs(s.forkSpecs(false))
	}
	s.opts.Config.Seed = seed
	for i := range s.opts.Lanes {
		s.opts.Lanes[i].Config.Seed = seed
	}
	s.replay, s.verdict, s.message = nil, "", ""
	_ = s.restart() // only the seed changed
	s.pauseAt = -1
	s.paused = false
}

// restartWith starts a new run of the starting settings changed by apply
// (leaving any replay), from cycle 0 and running. A policy the new
// settings refuse (say least-work when the queues become pooled) falls
// back to the mode's default: round-robin per server, first-idle pooled.
// On error the run on screen goes on.
func (s *Session) restartWith(apply func(*sim.Config)) error {
	return s.restartLanes(func(c *sim.Config) error { apply(c); return nil }, false)
}

// restartLanes is restartWith for the focused lane's settings, or with
// all for every lane's (a setting of the request stream, which the lanes
// share); apply may refuse the change.
func (s *Session) restartLanes(apply func(*sim.Config) error, all bool) error {
	specs := s.startSpecs()
	if s.replay != nil {
		specs = s.forkSpecs(false)
	}
	for i := range specs {
		if !all && i != min(s.lane, len(specs)-1) { // the focused lane's
			continue
		}
		cfg := &specs[i].Config
		if err := apply(cfg); err != nil {
			return err
		}
		if cfg.Policy.Allowed(cfg.Queues) != "" {
			cfg.Policy = sim.DefaultPolicy(cfg.Queues)
		}
		if err := cfg.Validate(); err != nil {
			return err
		}
	}
	old := s.opts
	s.setStartSpecs(specs)
	if err := s.restart(); err != nil {
		s.opts = old
		_ = s.restart() // the old settings ran
		return err
	}
	s.replay, s.verdict, s.message = nil, "", ""
	s.pauseAt = -1
	s.paused = false
	return nil
}

// State is what the browser hook and the tests observe.
type State struct {
	Cycle   int64
	Frames  int64
	Painted int64 // frames painted on screen: fewer than Frames while nothing changes
	Ticks   int64
	Paused  bool
	Done    bool
	Speed   int64 // cycles per second, or MaxSpeed
	Seed    uint64
	Summary sim.Summary

	Hash      uint64       // the model's state hash
	Replaying bool         // a loaded snapshot or share link is playing
	Error     string       // the last load or link error, or ""
	Message   string       // the banner's text, or ""
	Changes   []sim.Change // the changes that have taken effect
	Config    sim.Config   // the settings in effect
	Controls  []Control    // where the controls are, in screen pixels
	Servers   []Control    // the first server boxes (ID "3", or "S:3"; Value the state, then ",failing" etc. when gray, ",ejected", ",warming", ",abandoned"), for tests
	Gates     []Control    // a fleet's balancer gates (ID "gate:2", or "LANE/gate:2"; Value its label, ",selected" after the selected one's), for tests
	Focus     string       // the focused control's id, or ""
	Present   bool         // presentation mode
	Theory    bool         // the theory panel is shown
	Lanes     []LaneState  // the compare view's lanes, or nil for a single run
	Lane      int          // the focused lane (0 for a single run)
	// Words is the run in words, for the page's live region (words.go).
	Words Words
	// ReducedMotion: no request flies (SetReducedMotion).
	ReducedMotion bool
	// Embedded: no control bar (SetEmbedded).
	Embedded bool
	// Step is step mode's label of the decision shown (A), or "": for a
	// screen reader's live region and tests.
	Step string
}

// maxServerBoxes bounds State.Servers per balancer.
const maxServerBoxes = 64

// Control is one control's place on screen and its shown value.
type Control struct {
	ID    string
	R     Rect
	Value string
}

// State returns the session's state now.
func (s *Session) State() State {
	st := State{
		Cycle: s.m.Cycle(), Frames: s.frames, Painted: s.painted, Ticks: s.tick, Paused: s.paused, Done: s.m.Done(),
		Speed: s.speed, Seed: s.cfg.Seed, Summary: s.m.Summary(),
		Hash: s.m.Hash(), Replaying: s.replay != nil, Error: s.errText, Config: s.m.Config(),
		Changes: s.m.Changes(), Present: s.present, Theory: s.theory, ReducedMotion: s.reduceMotion, Embedded: s.embedded,
		Lanes: s.laneStates(), Lane: s.lane, Words: s.Words(),
	}
	st.Message = s.message
	if st.Message == "" {
		st.Message = s.verdict
	}
	if lines := s.stepLines(); len(lines) > 0 {
		st.Step = lines[0]
	}
	ws := s.controls()
	if s.focus >= 0 && s.focus < len(ws) {
		st.Focus = ws[s.focus].id
	}
	if s.lastW > 0 {
		l := s.layout(s.lastW, s.lastH)
		rs := s.controlRects(l)
		for i, w := range ws {
			st.Controls = append(st.Controls, Control{ID: w.id, R: rs[i], Value: s.valueText(i, w)})
		}
		for k, sb := range s.shown() {
			_, g := s.laneGeom(l, k, sb)
			i := 0
			for v := range sb.b.Servers() {
				if i >= maxServerBoxes {
					break
				}
				id := sim.MakeServerRef(sb.bal, v.ID).String()
				if s.Comparing() {
					id = strconv.Itoa(sb.lane+1) + "/" + id // lane/server
				}
				val := v.State.String()
				if v.Gray != sim.Healthy {
					val += "," + v.Gray.String() // idle,failing
				}
				for _, fl := range [...]struct {
					on   bool
					name string
				}{{v.Ejected, "ejected"}, {v.Warming, "warming"}, {v.Abandoned, "abandoned"}} {
					if fl.on {
						val += "," + fl.name // idle,failing,ejected
					}
				}
				st.Servers = append(st.Servers, Control{ID: id, R: g.BoxAt(i), Value: val})
				i++
			}
		}
		st.Gates = s.gateControls(l)
	}
	return st
}

// Say shows a message in the banner (an error in red).
func (s *Session) Say(msg string, isError bool) { s.say(msg, isError) }

func (s *Session) say(msg string, isError bool) {
	s.message, s.isError, s.messageTick = msg, isError, s.tick
}

// observe records the cycle just completed (the lanes record themselves):
// each lane's history for the charts, the firewall's counts and the time
// averages.
func (s *Session) observe() {
	for i, l := range s.set.Lanes {
		lc := l.Model.Config()
		if s.waitsShown() && s.hists[i].Closes() {
			s.hists[i].AddWaits(l.Model.Last(), &lc, StatesOf(l.Model), ScalingOf(l.Model), WaitsOf(l.Model))
		} else {
			s.hists[i].Add(l.Model.Last(), &lc, StatesOf(l.Model), ScalingOf(l.Model))
		}
		s.observeRequeues(i, l.Model)
		s.observeWaits(i, l.Model)
		s.observeParts(i, l.Model, &lc)
		for _, e := range l.Model.Events() {
			if e.Kind == sim.Dispatch {
				s.shares[i][serverKey(e.Balancer, e.Server)]++
				s.shares[i][serverKey(e.Balancer, 0)]++
			}
		}
	}
	cfg := s.m.Config()
	s.fw.follow(cfg.Blocked)
	s.fw.observe(s.m.Events())
	s.meas.add(s.m)
}

// serverKey is the key of server id of balancer b in Session.shares (id
// 0: the balancer's total).
func serverKey(b, id int) int64 { return int64(b)<<32 | int64(id) }

// serverShare returns the share of lane's balancer b's requests that server id
// took since cycle 0, as "34%", or "" before any.
func (s *Session) serverShare(lane, b, id int) string {
	if lane >= len(s.shares) {
		return ""
	}
	total := s.shares[lane][serverKey(b, 0)]
	if total == 0 {
		return ""
	}
	return strconv.FormatFloat(100*float64(s.shares[lane][serverKey(b, id)])/float64(total), 'f', 0, 64) + "%"
}
