package scene

import "time"

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
