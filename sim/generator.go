package sim

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/lbsim/lbsim/detmath"
)

// poissonPart bounds the mean of one Poisson draw by inversion; a larger
// mean is split into equal parts so that e^-mean stays a normal float.
const poissonPart = 500

// skipBelow is the mean below which arrivals skip ahead: instead of a draw
// every cycle, one 64-bit draw gives both the next cycle with any arrival
// and its count. Both ways give exact Poisson counts; skipping makes quiet
// cycles cost two comparisons.
const skipBelow = 3

// gapChunk is how many cycles the skip-ahead compares at once, without a
// branch.
const gapChunk = 8

// arrivals draws the number of requests arriving in each cycle: a Poisson
// count whose mean is the configured rate, or the rate moved by the slow
// wave. The mean is piecewise constant over blocks of WaveStep cycles, and
// changes (Schedule) invalidate it.
//
// Below skipBelow the draw is in fixed point. With p0 = e^-mean, the next
// cycle with arrivals lies g cycles on with probability p0^g·(1−p0), and its
// count is Poisson given at least one. One uniform 64-bit u decides both:
// g is the number of thresholds gap[j] = ⌊p0^j·2^64⌋, j ≥ 1, above u, and
// where u lies in its interval [gap[g+1], gap[g]) is itself uniform, so it is
// compared with that interval cut in the count's proportions (cum). Every
// probability is exact to within 2^-64, and the hot path has no floats.
type arrivals struct {
	end   int64   // the first cycle after the block the cached values belong to; 0 = stale
	mean  float64 // mean of the current block
	parts int     // the draw is the sum of this many Poisson draws …
	p0    float64 // … each with mean mean/parts, whose P(0) is p0
	kmax  int     // bound on one part's count (beyond it lies < 1e-30)
	// With mean < skipBelow: next is the next cycle with arrivals, or -1
	// when the cycles from now on are undecided, and n its count.
	next int64
	n    int
	// gap[j] = ⌊p0^j·2^64⌋ for 1 ≤ j ≤ gaps (gap[0] stands for 2^64);
	// the rest are filled in as a search first needs them.
	gap  [WaveStep + 2*gapChunk]uint64
	gaps int
	pj   float64 // p0^gaps
	// cum[k] = ⌊P(count ≤ k | count ≥ 1)·2^64⌋ for 1 ≤ k < len(cum), filled
	// in as counts first need them; a count that reaches the end stops
	// there (its tail is below 2^-64).
	cum []uint64
	// growCum's running term, sum and normalization, and whether it has
	// reached the end.
	cumP, cumF, cumNorm float64
	cumDone             bool
	// With mean ≥ skipBelow: cdf[k] is one part's P(count ≤ k), k < kmax,
	// summed term by term in the order an inversion would.
	cdf []float64
}

// meanAt returns the mean arrival count of cycle t under cfg.
func meanAt(cfg *Config, t int64) float64 {
	base := cfg.Rate.PerCycle()
	if !cfg.Wave || cfg.WaveAmplitude == 0 {
		return base
	}
	start := t / WaveStep * WaveStep
	phase := float64(start%cfg.WavePeriod) / float64(cfg.WavePeriod)
	s := detmath.Sin(float64(2*math.Pi) * phase) // math.Sin bit for bit on amd64, and the same everywhere
	return base * float64(1+float64(float64(cfg.WaveAmplitude)/100*s))
}

func (a *arrivals) invalidate() { a.end = 0 }

// due reports whether count must be asked at cycle t: false only when a
// skip-ahead already knows that t has no arrivals.
func (a *arrivals) due(t int64) bool {
	return a.next <= t || t >= a.end
}

// nextDue returns the first cycle ≥ t at which count must be asked.
func (a *arrivals) nextDue(t int64) int64 {
	if a.next < t || t >= a.end {
		return t
	}
	return min(a.next, a.end)
}

// startBlock starts the block of cycle t: its mean, undecided.
func (a *arrivals) startBlock(cfg *Config, t int64) {
	a.end = (t/WaveStep + 1) * WaveStep
	if m := meanAt(cfg, t); m != a.mean {
		a.setMean(m) // the tables depend on the mean alone: keep them when it stays
	}
	a.next = -1 // the new block's mean decides afresh (Poisson is memoryless)
}

// nextArrival returns the first cycle in [t, end] with arrivals, or end+1
// when there is none, deciding the blocks up to it as count would at their
// first cycle, with the same draws in the same order: the caller then
// passes every cycle up to the one returned less one, and nothing else
// draws from r in them. A mean of skipBelow or more draws every cycle: it
// returns the first cycle asked.
func (a *arrivals) nextArrival(cfg *Config, t, end int64, r *rand.PCG) int64 {
	steady := !cfg.Wave || cfg.WaveAmplitude == 0 // every block has the same mean
	for {
		c := a.nextDue(t)
		if c > end {
			return end + 1
		}
		if steady && c == a.end && c%WaveStep == 0 && a.quiet(cfg) {
			if c = a.quietBlocks(c, end, r); c > end {
				return end + 1
			}
		}
		if c >= a.end {
			a.startBlock(cfg, c)
		}
		switch {
		case a.mean <= 0:
			a.next = a.end // as count leaves it
		case a.mean >= skipBelow:
			return c
		case a.next < c:
			a.decide(c, r.Uint64())
		}
		if a.next < a.end {
			return min(a.next, end+1)
		}
		t = a.end
	}
}

// quietBlocks takes whole blocks of the same mean from cycle c, a block's
// first, up to end, as startBlock and decide would take them: most have no
// arrival, which one draw below the last threshold says. It returns the
// first cycle of the block it decided with an arrival, or end+1 (the
// blocks up to end all quiet). The generator's state is held in registers
// over the loop.
func (a *arrivals) quietBlocks(c, end int64, r *rand.PCG) int64 {
	th, p := a.gap[WaveStep], *r
	for ; c <= end; c += WaveStep {
		if u := p.Uint64(); u >= th {
			*r = p
			a.end = c + WaveStep
			a.decide(c, u)
			return c
		}
	}
	*r = p
	a.end, a.next = c, c // the last block passed ends at c; c's is undecided
	return end + 1
}

// quiet reports whether the mean in force is cfg's rate (the wave off)
// and below skipBelow, with the thresholds of a whole block filled in:
// nextArrival may then take whole blocks at once.
func (a *arrivals) quiet(cfg *Config) bool {
	if a.mean != cfg.Rate.PerCycle() || a.mean <= 0 || a.mean >= skipBelow {
		return false
	}
	if a.gaps < WaveStep {
		a.growGaps(WaveStep)
	}
	return true
}

// decided reports whether cycle c is known to have arrivals: nextArrival
// would return it without a draw (callers in a loop test it first, as it
// inlines).
func (a *arrivals) decided(c int64) bool { return c == a.next && c < a.end }

// count draws the number of arrivals at cycle t ≥ 1. Cycles must be asked
// in increasing order.
func (a *arrivals) count(cfg *Config, t int64, r *rand.PCG) int {
	if t >= a.end {
		a.startBlock(cfg, t)
	}
	if a.mean <= 0 {
		a.next = a.end // nothing until the next block
		return 0
	}
	if a.mean >= skipBelow {
		n := 0
		for range a.parts {
			n += a.invert(uniform(r))
		}
		return n
	}
	if a.next < t {
		a.decide(t, r.Uint64())
	}
	if t != a.next {
		return 0
	}
	n := a.n
	// Decide the next gap now, unless the next cycle starts a new block
	// (whose mean must decide it).
	if t+1 < a.end {
		a.decide(t+1, r.Uint64())
	} else {
		a.next = -1
	}
	return n
}

// decide draws the next cycle ≥ from that has arrivals, and its count,
// from one uniform u, the stream's next draw (see arrivals). The search
// stops at the block's end, where the next block decides afresh.
func (a *arrivals) decide(from int64, u uint64) {
	limit := int(a.end - from) // cycles left in the block
	if a.gaps < gapChunk {
		a.growGaps(gapChunk)
	}
	// The thresholds fall, so those above u are a prefix: count them,
	// the first chunk without a branch (written out: the compiler
	// neither unrolls the loop nor inlines a function doing this).
	th := (*[gapChunk]uint64)(a.gap[1:])
	_, b0 := bits.Sub64(u, th[0], 0)
	_, b1 := bits.Sub64(u, th[1], 0)
	_, b2 := bits.Sub64(u, th[2], 0)
	_, b3 := bits.Sub64(u, th[3], 0)
	_, b4 := bits.Sub64(u, th[4], 0)
	_, b5 := bits.Sub64(u, th[5], 0)
	_, b6 := bits.Sub64(u, th[6], 0)
	_, b7 := bits.Sub64(u, th[7], 0)
	g := int(b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7)
	if g == gapChunk && limit > gapChunk {
		g = a.longGap(u, limit)
	}
	if g >= limit {
		a.next = from + int64(limit) // no arrival in this block
		return
	}
	a.next = from + int64(g)
	lo := a.gap[g+1]
	width := a.gap[g] - lo // gap[0] = 0 stands for 2^64, and wraps to it here
	v := u - lo
	n := 1
	if len(a.cum) > 3 {
		// Counts of 1 to 3 without a branch: the cuts rise, so the
		// number of them at or below v is the count less one.
		c1, _ := bits.Mul64(width, a.cum[1])
		c2, _ := bits.Mul64(width, a.cum[2])
		c3, _ := bits.Mul64(width, a.cum[3])
		_, b1 := bits.Sub64(v, c1, 0)
		_, b2 := bits.Sub64(v, c2, 0)
		_, b3 := bits.Sub64(v, c3, 0)
		if n = 4 - int(b1+b2+b3); n < 4 {
			a.n = n
			return
		}
	}
	for n < len(a.cum) || a.growCum() {
		if cut, _ := bits.Mul64(width, a.cum[n]); v < cut {
			break
		}
		n++
	}
	a.n = n
}

// longGap returns how many of the thresholds gap[1..limit] lie above u
// (limit when all do), given that the first gapChunk do: a quiet block's
// draw usually lies below the last one, else a binary search finds the
// first threshold at or below it.
func (a *arrivals) longGap(u uint64, limit int) int {
	if a.gaps < limit {
		a.growGaps(limit)
	}
	if u < a.gap[limit] {
		return limit
	}
	lo, hi := gapChunk+1, limit // the first j with gap[j] ≤ u lies in [lo, hi]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if a.gap[mid] <= u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo - 1
}

// growCum appends the next entry of cum and reports whether there was one:
// there is none once a cut rounds to 2^64 or the count reaches kmax. Most
// blocks need only the first few.
func (a *arrivals) growCum() bool {
	k := len(a.cum)
	if a.cumDone || k >= a.kmax {
		return false
	}
	a.cumP = float64(a.cumP*a.mean) * reciprocal(k)
	a.cumF += a.cumP
	c := fixed64(float64(a.cumF * a.cumNorm))
	if c == math.MaxUint64 {
		a.cumDone = true
		return false
	}
	a.cum = append(a.cum, c)
	return true
}

// growGaps fills gap up to index j (at most its length).
func (a *arrivals) growGaps(j int) {
	for j = min(j, len(a.gap)-1); a.gaps < j; {
		a.pj = float64(a.pj * a.p0)
		a.gaps++
		a.gap[a.gaps] = fixed64(a.pj)
	}
}

// fixed64 returns ⌊x·2^64⌋ for 0 ≤ x, saturated at 2^64 − 1.
func fixed64(x float64) uint64 {
	if x >= 1 {
		return math.MaxUint64
	}
	return uint64(float64(x * 0x1p64))
}

// setParams sets the mean and what poisson needs.
func (a *arrivals) setParams(m float64) {
	a.mean = m
	if m <= 0 {
		return
	}
	a.parts = int(math.Ceil(m / poissonPart))
	part := m / float64(a.parts)
	a.p0 = detmath.ExpNeg(part)
	a.kmax = int(part + 20*math.Sqrt(part) + 30)
}

// setMean sets the mean and the tables that count draws from.
func (a *arrivals) setMean(m float64) {
	a.setParams(m)
	if m <= 0 {
		return
	}
	part := m / float64(a.parts)
	if m >= skipBelow {
		a.cdf = a.cdf[:0]
		p := a.p0
		f := p
		for k := 0; k < a.kmax; k++ {
			if k > 0 {
				p = float64(p*part) * reciprocal(k)
				f += p
			}
			a.cdf = append(a.cdf, f)
		}
		return
	}
	a.gaps, a.pj = 0, 1
	// The count given at least one: P(k)/(1 − p0), cumulated as growCum
	// needs it.
	a.cum = append(a.cum[:0], 0)
	a.cumP, a.cumF, a.cumNorm, a.cumDone = a.p0, 0, 1/float64(1-a.p0), false
	for len(a.cum) < 4 && a.growCum() {
	}
}

// uniform draws a float64 uniformly from [0, 1) with 53 random bits.
func uniform(r *rand.PCG) float64 { return float64(r.Uint64()>>11) * 0x1p-53 }

// invert returns one part's count for the uniform u: the smallest k with
// u < cdf[k], or kmax. It gives exactly what poisson gives, by binary
// search.
func (a *arrivals) invert(u float64) int {
	lo, hi := 0, len(a.cdf)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if u < a.cdf[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// poisson returns one part's count by inversion: the smallest k with
// u < F(k), or kmax.
func (a *arrivals) poisson(u float64) int {
	p := a.p0
	f := p
	part := a.mean / float64(a.parts)
	k := 0
	for u >= f && k < a.kmax {
		k++
		p = float64(p*part) * reciprocal(k)
		f += p
	}
	return k
}

// maxPart bounds kmax = part + 20·√part + 30 for part ≤ poissonPart
// (√500 < 23), so reciprocals covers every k the inversion reaches.
const maxPart = poissonPart + 20*23 + 31

// reciprocals[k] is 1/k, so the inversion multiplies instead of dividing.
var reciprocals = func() [maxPart]float64 {
	var r [maxPart]float64
	for k := 1; k < len(r); k++ {
		r[k] = 1 / float64(k)
	}
	return r
}()

func reciprocal(k int) float64 {
	if k < len(reciprocals) {
		return reciprocals[k]
	}
	return 1 / float64(k)
}

// makeRequest draws one generated request's fields: source and destination
// from one 64-bit draw; the type and a uniform time from a second (its high
// and low 32 bits); other service times draw on their own.
func (m *Model) makeRequest(id, t int64) packed {
	r := m.pcg // the concrete generator: its calls inline (m.rng draws the same stream)
	addr := r.Uint64()
	y := r.Uint64()
	var flags uint64
	if y>>32 < m.streamCut {
		flags = packedStreaming
	}
	var time uint32
	if m.cfg.Service == Uniform {
		// Uniform in [0, n) from the low 32 bits of y, exactly: Lemire's
		// multiply-shift, with the rare biased draws redrawn (unbias).
		n := uint32(m.cfg.TaskMax - m.cfg.TaskMin + 1)
		prod := uint64(uint32(y)) * uint64(n)
		if uint32(prod) < n {
			prod = m.unbias(prod, n)
		}
		time = uint32(m.cfg.TaskMin) + uint32(prod>>32)
	} else {
		time = m.serviceTime()
	}
	return newPacked(id, addr, t, time, flags)
}

// routeDraw returns a uniform integer in [0, n), n ≥ 1, from the routing
// generator (drawN).
func (m *Model) routeDraw(n int) int { return drawN(m.rpcg, n) }

// drawN returns a uniform integer in [0, n), n ≥ 1, from g: exactly what
// rand.New(g).IntN(n) returns on every platform (the standard library's
// 64-bit computation, which its 32-bit one is documented to match), drawn
// from the concrete generator so that its Uint64 inlines. The routing and
// the fleet generators draw through it.
func drawN(g *rand.PCG, n int) int {
	un := uint64(n)
	if un&(un-1) == 0 {
		return int(g.Uint64() & (un - 1))
	}
	hi, lo := bits.Mul64(g.Uint64(), un)
	if lo < un {
		for thresh := -un % un; lo < thresh; {
			hi, lo = bits.Mul64(g.Uint64(), un)
		}
	}
	return int(hi)
}

// unbias takes the product prod of 32 random bits and n, whose low half is
// below n, and returns it or a redrawn one whose low half is at least
// 2^32 mod n: the top half is then uniform in [0, n).
func (m *Model) unbias(prod uint64, n uint32) uint64 {
	for thresh := -n % n; uint32(prod) < thresh; {
		prod = uint64(uint32(m.pcg.Uint64())) * uint64(n)
	}
	return prod
}

// serviceTime draws one processing time of any shape but uniform
// (makeRequest draws uniform times itself): no draw for constant, one
// 64-bit draw for every other shape, whatever its parameters.
func (m *Model) serviceTime() uint32 {
	cfg := &m.cfg
	switch cfg.Service {
	case Constant:
		return uint32(cfg.MeanService)
	case Geometric: // below
	default:
		return m.svc.draw(m.pcg.Uint64(), cfg)
	}
	if cfg.MeanService <= 1 {
		m.pcg.Uint64() // the draw every geometric time takes
		return 1
	}
	// Geometric, by inversion: k = 1 + ⌊ln U / ln(1−p)⌋ for U uniform in (0, 1].
	u := float64(m.pcg.Uint64()>>11+1) * 0x1p-53
	k := 1 + math.Floor(detmath.Log(u)/m.geoLog)
	return uint32(min(k, MaxTaskTime))
}

// poissonDraw draws one Poisson count of the given mean.
func poissonDraw(mean float64, r *rand.PCG) int {
	var a arrivals
	a.setParams(mean)
	if mean <= 0 {
		return 0
	}
	n := 0
	for range a.parts {
		n += a.poisson(uniform(r))
	}
	return n
}
