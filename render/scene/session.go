package scene

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lbsim/lbsim/sim"
	"github.com/lbsim/lbsim/sim/snapshot"
)

// Intent is what the viewer asked for; package render turns keys into
// intents, so nothing here knows about keys.
type Intent uint8

// The intents.
const (
	TogglePause   Intent = iota // Space
	StepOne                     // →: pause if running, then one cycle
	Faster                      // +
	Slower                      // −
	Restart                     // R: the same run again from cycle 0
	ToggleHelp                  // H
	Dice                        // D: restart with a random seed
	Save                        // S: save the run (the platform writes or downloads it)
	Load                        // L: load a snapshot (the platform asks for a file)
	Share                       // K: put the run in a share link
	ToggleTheory                // T: the Erlang C panel
	TogglePresent               // P: presentation mode
	Fullscreen                  // F: handled by the platform
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
	// MaxQueued bounds the queued requests of every run shown (0:
	// PageMaxQueued). A run that exceeds it stops with a message; the
	// page stays usable.
	MaxQueued int
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

// Session is one run on screen: the model, its pace, the animations and the
// charts' history. It is not safe for concurrent use.
type Session struct {
	opts    Options
	m       *sim.Model
	speed   int64
	pace    Pacer
	budget  Budget
	paused  bool
	pauseAt int64

	tick   int64 // Updates so far
	frames int64 // Draws so far
	drawn  bool  // a frame was drawn since the last fast-forward stepping
	anim   animator
	hist   History
	rate   rateMeter
	help   bool
	banner bool

	frame Frame // reused by Draw

	cfg     sim.Config         // the configuration the model started from
	rec     *snapshot.Recorder // records the run being shown
	replay  *snapshot.Snapshot // the snapshot being replayed, or nil
	verdict string             // how the replay ended
	meas    measured           // time averages for the theory panel

	focus    int // index into the controls, −1 for none
	dragging int // the slider being dragged, −1 for none
	dragVal  int64
	seedEdit seedField
	lastW    int // size of the last Draw, for hit-testing
	lastH    int
	theory   bool
	present  bool
	message  string // info or error shown in a banner
	isError  bool
	errText  string // the last load or link error, for the hook
	requests []Intent
	dice     *rand.Rand
}

// New builds the model from opts.Config and returns the session at cycle 0.
func New(opts Options) (*Session, error) {
	s := &Session{opts: opts, speed: opts.Speed, budget: NewBudget(), anim: newAnimator(), banner: len(opts.Problems) > 0,
		focus: -1, dragging: -1, dice: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))}
	if s.speed == 0 {
		s.speed = 5
	}
	if err := s.restart(); err != nil {
		return nil, err
	}
	s.pauseAt = opts.PauseAt
	s.checkPauseAt()
	return s, nil
}

func (s *Session) restart() error {
	return s.build(s.opts.Config, s.opts.Changes, 0)
}

// build starts a model of cfg with the changes scheduled and re-simulates
// it up to cycle to (headless, recording every cycle), then resets the
// view's pacing, animations and charts.
func (s *Session) build(cfg sim.Config, changes []sim.Change, to int64) error {
	m, err := sim.New(cfg, s.modelOptions()...)
	if err != nil {
		return err
	}
	if err := m.Schedule(changes...); err != nil {
		return err
	}
	s.m, s.cfg = m, cfg.Clone()
	s.rec = snapshot.NewRecorder(cfg)
	s.meas = measured{}
	s.observe()
	s.hist.Reset()
	s.setStride()
	s.hist.Add(m.Last())
	for m.Cycle() < to && m.Step() {
		s.observe()
		s.hist.Add(m.Last())
	}
	s.pace.Reset()
	s.budget.Reset()
	s.anim.reset()
	s.rate = rateMeter{}
	return nil
}

func (s *Session) setStride() {
	switch {
	case s.speed == MaxSpeed:
		s.hist.SetStride(1000)
	default:
		s.hist.SetStride(max(s.speed/20, 1))
	}
}

// Model returns the model being shown (read-only use).
func (s *Session) Model() *sim.Model { return s.m }

// Apply carries out one intent. Save, Load, Share and Fullscreen need
// the platform: they are queued for TakeRequests.
func (s *Session) Apply(in Intent) {
	s.banner = false
	switch in {
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
	case Dice:
		s.restartWithSeed(s.randomSeed())
	case ToggleHelp:
		s.help = !s.help
	case ToggleTheory:
		s.theory = !s.theory
	case TogglePresent:
		s.present = !s.present
	case Save, Load, Share, Fullscreen:
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

func (s *Session) setSpeed(sp int64) {
	s.speed = sp
	s.setStride()
	s.budget.Reset()
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
		s.opts.Config, s.opts.Changes = s.forkConfig(), nil
	}
	s.opts.Config.Seed = seed
	s.replay, s.verdict, s.message = nil, "", ""
	_ = s.restart() // only the seed changed
	s.pauseAt = -1
	s.paused = false
}

// Update advances one tick: at a fixed speed the Pacer's whole cycles, in
// fast-forward as many cycles as the frame's Budget allows (reading the
// wall clock through now). It never passes the pause-at cycle.
func (s *Session) Update(now func() time.Duration) {
	s.tick++
	s.anim.prune(s.tick)
	if s.paused || s.m.Done() {
		s.rate.sample(now(), s.m.Cycle())
		return
	}
	if s.speed == MaxSpeed {
		if !s.drawn {
			return // step once per frame, not once per catch-up tick
		}
		s.drawn = false
		start := now()
		budget := s.budget.Start(start)
		for now()-start < budget && !s.m.Done() && !s.paused {
			s.step(256, false)
		}
		s.budget.End(now())
	} else {
		s.pace.Speed = s.speed
		s.step(s.pace.Tick(), s.speed <= AnimatedSpeed)
	}
	s.rate.sample(now(), s.m.Cycle())
}

// step advances up to n cycles, stopping at pause-at and at the end of the
// run; animate spawns the flights of each cycle.
func (s *Session) step(n int64, animate bool) {
	if s.pauseAt >= 0 {
		n = min(n, s.pauseAt-s.m.Cycle())
	}
	tpc := TicksPerCycle(s.speed)
	for range max(n, 0) {
		if !s.m.Step() {
			break
		}
		s.observe()
		s.hist.Add(s.m.Last())
		if animate {
			s.anim.spawn(s.m, s.tick, tpc)
		}
	}
	s.checkPauseAt()
}

func (s *Session) checkPauseAt() {
	if s.pauseAt >= 0 && s.m.Cycle() >= s.pauseAt {
		s.paused = true
		s.pauseAt = -1
		s.pace.Reset()
	}
	if err := s.m.Err(); err != nil {
		if s.errText != err.Error() {
			s.errText = err.Error()
			msg := err.Error()
			var le *sim.QueueLimitError
			if errors.As(err, &le) { // short enough for the banner
				msg = fmt.Sprintf("stopped at cycle %s: %s requests queued, over the limit of %s: lower the rate or add servers",
					Commas(le.Cycle), Commas(int64(le.Queued)), Commas(int64(le.Limit)))
			}
			s.say(msg, true)
		}
		s.paused = true
		return
	}
	if s.m.Done() {
		if !s.paused {
			s.endOfReplay()
		}
		s.paused = true
	}
}

// FrameDrawn counts a frame as drawn; the renderer calls it after painting.
func (s *Session) FrameDrawn() {
	s.frames++
	s.drawn = true
}

// State is what the browser hook and the tests observe.
type State struct {
	Cycle   int64
	Frames  int64
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
	Servers   []Control    // the first server boxes (ID "3", or "S:3"; Value the state), for tests
	Focus     string       // the focused control's id, or ""
	Present   bool         // presentation mode
	Theory    bool         // the theory panel is shown
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
		Cycle: s.m.Cycle(), Frames: s.frames, Ticks: s.tick, Paused: s.paused, Done: s.m.Done(),
		Speed: s.speed, Seed: s.cfg.Seed, Summary: s.m.Summary(),
		Hash: s.m.Hash(), Replaying: s.replay != nil, Error: s.errText, Config: s.m.Config(),
		Changes: s.m.Changes(), Present: s.present, Theory: s.theory,
	}
	st.Message = s.message
	if st.Message == "" {
		st.Message = s.verdict
	}
	if s.focus >= 0 && s.focus < len(s.controls()) {
		st.Focus = s.controls()[s.focus].id
	}
	if s.lastW > 0 {
		l := NewLayout(s.lastW, s.lastH, len(s.m.Balancers()))
		rs := s.controlRects(l)
		for i, w := range s.controls() {
			st.Controls = append(st.Controls, Control{ID: w.id, R: rs[i], Value: s.valueText(w)})
		}
		for bi, b := range s.m.Balancers() {
			pl := b.Pool()
			g := NewGrid(l.Lanes[bi].Pool, pl.Live+pl.Down, l.Unit)
			i := 0
			for v := range b.Servers() {
				if i >= maxServerBoxes {
					break
				}
				st.Servers = append(st.Servers, Control{ID: sim.MakeServerRef(bi, v.ID).String(), R: g.BoxAt(i), Value: v.State.String()})
				i++
			}
		}
	}
	return st
}

// Paused reports whether the model is not advancing.
func (s *Session) Paused() bool { return s.paused }

// Speed returns the speed in cycles per second, or MaxSpeed.
func (s *Session) Speed() int64 { return s.speed }

// rateMeter measures the model's cycles per second of wall time over
// windows of at least one second.
type rateMeter struct {
	start      time.Duration
	startCycle int64
	started    bool
	rate       int64
}

func (r *rateMeter) sample(now time.Duration, cycle int64) {
	if !r.started {
		r.start, r.startCycle, r.started = now, cycle, true
		return
	}
	if d := now - r.start; d >= time.Second {
		r.rate = int64(float64(cycle-r.startCycle) * float64(time.Second) / float64(d))
		r.start, r.startCycle = now, cycle
	}
}

// Rate returns the cycles per second of wall time measured over the last
// complete window (0 before the first).
func (s *Session) Rate() int64 { return s.rate.rate }
