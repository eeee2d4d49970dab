package scene

import (
	"errors"
	"fmt"
	"time"

	"github.com/lbsim/lbsim/sim"
)

// TPS is the number of ticks (Updates) per second the view runs at; speeds
// are converted to cycles per tick with it.
const TPS = 60

// MaxSpeed is the fast-forward speed: as many cycles per frame as fit in the
// frame's time budget, drawn as aggregates.
const MaxSpeed int64 = -1

// MaxFixedSpeed is the fastest fixed speed in cycles per second.
const MaxFixedSpeed = 6_000_000

// Ladder is the sequence of speeds + and − move along, in cycles per
// second: from one cycle per second (watch each request) to 100,000 cycles
// per frame, then MaxSpeed.
var ladder = [...]int64{1, 2, 3, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 3000, 6000, 12_000,
	30_000, 60_000, 120_000, 300_000, 600_000, 1_200_000, MaxFixedSpeed, MaxSpeed}

// Ladder returns the speeds + and − move along, slowest first; the last is
// MaxSpeed.
func Ladder() []int64 { return ladder[:] }

// SpeedUp returns the next speed up the ladder from s (s itself at the top).
func SpeedUp(s int64) int64 {
	if s == MaxSpeed {
		return s
	}
	for _, v := range ladder {
		if v == MaxSpeed || v > s {
			return v
		}
	}
	return MaxSpeed
}

// SlowDown returns the next speed down the ladder from s (1 at the bottom).
func SlowDown(s int64) int64 {
	if s == MaxSpeed {
		return ladder[len(ladder)-2]
	}
	prev := ladder[0]
	for _, v := range ladder {
		if v == MaxSpeed || v >= s {
			return prev
		}
		prev = v
	}
	return prev
}

// AnimatedSpeed is the fastest speed at which single requests are drawn in
// flight; above it the view shows aggregates.
const AnimatedSpeed = 30

// Pacer turns a speed in whole cycles per second into whole cycles per tick
// with an integer accumulator, so that over any TPS ticks exactly Speed
// cycles are stepped and no rounding drifts.
type Pacer struct {
	Speed int64 // cycles per second, ≥ 1 (MaxSpeed is handled by Budget)
	acc   int64 // in 1/TPS cycles
}

// Tick advances one tick and returns how many cycles to step now.
func (p *Pacer) Tick() int64 {
	p.acc += p.Speed
	n := p.acc / TPS
	p.acc -= n * TPS
	return n
}

// Frac returns how far the view is between the last cycle and the next one,
// in [0, 1): the interpolation factor of smooth motion.
func (p *Pacer) Frac() float32 { return float32(p.acc) / TPS }

// Reset forgets the partial cycle.
func (p *Pacer) Reset() { p.acc = 0 }

// TicksPerCycle returns how many ticks one cycle lasts on screen at speed s
// (at least 1).
func TicksPerCycle(s int64) int64 {
	if s <= 0 {
		return 1
	}
	return max(TPS/s, 1)
}

// Budget decides how long fast-forward may step the model in one frame. It
// aims to spend about Share of the wall time stepping and the rest drawing,
// measuring the time between the end of one stepping and the start of the
// next, and keeps each frame's stepping between Min and Max so the view
// stays responsive. Times are passed in, so it is tested with a synthetic
// clock.
type Budget struct {
	Min, Max time.Duration
	Share    int // percent of wall time for stepping, 1..99

	lastEnd time.Duration
	started bool
	cur     time.Duration
}

// NewBudget returns the budget the view uses: 80% of the time stepping,
// 4 ms to 200 ms per frame.
func NewBudget() Budget {
	return Budget{Min: 4 * time.Millisecond, Max: 200 * time.Millisecond, Share: 80}
}

// Start returns the stepping time allowed for a frame whose stepping starts
// at now.
func (b *Budget) Start(now time.Duration) time.Duration {
	if !b.started {
		b.cur = b.Min * 2
	} else {
		other := max(now-b.lastEnd, 0)
		b.cur = min(max(other*time.Duration(b.Share)/time.Duration(100-b.Share), b.Min), b.Max)
	}
	return b.cur
}

// End records that the frame's stepping ended at now.
func (b *Budget) End(now time.Duration) { b.lastEnd, b.started = now, true }

// Reset forgets the measurements (after a pause).
func (b *Budget) Reset() { b.started = false }

// pacing is the pace side of a Session: the speed, pause and pause-at,
// the tick and frame counters and the measured rate.
type pacing struct {
	speed   int64
	pace    Pacer
	budget  Budget
	paused  bool
	pauseAt int64
	tick    int64 // Updates so far
	frames  int64 // Draws so far
	painted int64 // frames painted on screen so far (a Draw whose picture changed)
	drawn   bool  // a frame was drawn since the last fast-forward stepping
	rate    rateMeter
}

func (s *Session) setSpeed(sp int64) {
	s.speed = sp
	s.budget.Reset()
}

// Update advances one tick: at a fixed speed the Pacer's whole cycles, in
// fast-forward as many cycles as the frame's Budget allows (reading the
// wall clock through now). It never passes the pause-at cycle.
func (s *Session) Update(now func() time.Duration) {
	s.tick++
	s.anim.prune(s.tick)
	s.quizTick()
	if s.message != "" && s.tick-s.messageTick > messageTicks+TPS {
		s.message = "" // it has faded
	}
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
		s.step(s.pace.Tick(), s.speed <= AnimatedSpeed && !s.reduceMotion)
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
		if !s.set.Step() {
			break
		}
		s.observe()
		if animate {
			base := 0
			for _, l := range s.set.Lanes {
				s.anim.spawn(l.Model, base, s.tick, tpc)
				base += len(l.Model.Balancers())
			}
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
		if s.verdict == "" { // once, also when pause-at is the last cycle
			s.endOfReplay()
		}
		s.paused = true
	}
}

// FramePainted counts a frame the renderer painted on screen: it paints
// only frames that differ from the one shown (Frame.Sum), so a paused or
// ended run stops painting.
func (s *Session) FramePainted() { s.painted++ }

// FrameDrawn counts a frame as drawn; the renderer calls it after each
// Draw, painted or not.
func (s *Session) FrameDrawn() {
	s.frames++
	s.drawn = true
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

// SetReducedMotion turns the flying requests off (on) for a viewer who
// asked for less motion (the browser's prefers-reduced-motion): the
// model, the boxes, the queues and the charts work as always.
func (s *Session) SetReducedMotion(on bool) {
	s.reduceMotion = on
	if on {
		s.anim.reset()
	}
}

// SetEmbedded drops (on) or restores the control bar, for a page embedded
// in slides (?embed=1): the scene takes its room; the keys, a click on a
// server or the firewall and the dialogs work as always.
func (s *Session) SetEmbedded(on bool) { s.embedded = on }
