package scene

import (
	"time"

	"github.com/lbsim/lbsim/sim"
)

// Intent is what the viewer asked for; package render turns keys into
// intents, so nothing here knows about keys.
type Intent uint8

// The intents.
const (
	TogglePause    Intent = iota // Space
	StepOne                      // →: pause if running, then one cycle
	Faster                       // +
	Slower                       // −
	Restart                      // R: the same run again from cycle 0
	ToggleHelp                   // H
	DismissMessage               // any key hides the problems banner
)

// Options start a Session.
type Options struct {
	Config   sim.Config
	Speed    int64    // cycles per second, or MaxSpeed
	PauseAt  int64    // pause when the cycle reaches it; −1 for never
	Problems []string // shown in a banner until a key is pressed
	// Changes are scheduled on the model at every (re)start: the page's
	// set= and fault= parameters, like --set and --fault.
	Changes []sim.Change
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

	tick      int64 // Updates so far
	frames    int64 // Draws so far
	drawn     bool  // a frame was drawn since the last fast-forward stepping
	anim      animator
	hist      History
	rate      rateMeter
	help      bool
	banner    bool
	lastSteps int64 // cycles stepped by the last Update

	frame Frame // reused by Draw
}

// New builds the model from opts.Config and returns the session at cycle 0.
func New(opts Options) (*Session, error) {
	s := &Session{opts: opts, speed: opts.Speed, budget: NewBudget(), anim: newAnimator(), banner: len(opts.Problems) > 0}
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
	m, err := sim.New(s.opts.Config, sim.WithEvents())
	if err != nil {
		return err
	}
	if err := m.Schedule(s.opts.Changes...); err != nil {
		return err
	}
	s.m = m
	s.pace.Reset()
	s.budget.Reset()
	s.anim.reset()
	s.hist.Reset()
	s.setStride()
	s.hist.Add(m.Last())
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

// Apply carries out one intent.
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
		s.speed = SpeedUp(s.speed)
		s.setStride()
		s.budget.Reset()
	case Slower:
		s.speed = SlowDown(s.speed)
		s.setStride()
		s.budget.Reset()
	case Restart:
		_ = s.restart() // the configuration was valid at New
		s.pauseAt = -1
	case ToggleHelp:
		s.help = !s.help
	}
}

// Update advances one tick: at a fixed speed the Pacer's whole cycles, in
// fast-forward as many cycles as the frame's Budget allows (reading the
// wall clock through now). It never passes the pause-at cycle.
func (s *Session) Update(now func() time.Duration) {
	s.tick++
	s.anim.prune(s.tick)
	s.lastSteps = 0
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
		s.lastSteps++
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
	if s.m.Done() {
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
}

// State returns the session's state now.
func (s *Session) State() State {
	return State{
		Cycle: s.m.Cycle(), Frames: s.frames, Ticks: s.tick, Paused: s.paused, Done: s.m.Done(),
		Speed: s.speed, Seed: s.opts.Config.Seed, Summary: s.m.Summary(),
	}
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
