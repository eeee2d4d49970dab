package sim

import (
	"math"
	"math/rand/v2"

	"github.com/lbsim/lbsim/sim/internal/detmath"
)

// poissonPart bounds the mean of one Poisson draw by inversion; a larger
// mean is split into equal parts so that e^-mean stays a normal float.
const poissonPart = 500

// arrivals draws the number of requests arriving in each cycle: a Poisson
// count whose mean is the configured rate, or the rate moved by the slow
// wave. The mean is piecewise constant over blocks of WaveStep cycles.
type arrivals struct {
	block int64   // the block the cached values belong to; -1 = stale
	mean  float64 // mean of the current block
	parts int     // the draw is the sum of this many Poisson draws …
	p0    float64 // … each with mean mean/parts, whose P(0) is p0
	kmax  int     // bound on one part's count (beyond it lies < 1e-30)
}

// meanAt returns the mean arrival count of cycle t under cfg.
func meanAt(cfg *Config, t int64) float64 {
	base := cfg.Rate.PerCycle()
	if !cfg.Wave || cfg.WaveAmplitude == 0 {
		return base
	}
	start := t / WaveStep * WaveStep
	phase := float64(start%cfg.WavePeriod) / float64(cfg.WavePeriod)
	s := math.Sin(float64(2*math.Pi) * phase)
	return base * float64(1+float64(float64(cfg.WaveAmplitude)/100*s))
}

func (a *arrivals) invalidate() { a.block = -1 }

// count draws the number of arrivals at cycle t ≥ 1.
func (a *arrivals) count(cfg *Config, t int64, r *rand.Rand) int {
	if b := t / WaveStep; b != a.block {
		a.block = b
		a.setMean(meanAt(cfg, t))
	}
	if a.mean <= 0 {
		return 0
	}
	n := 0
	for range a.parts {
		n += a.poisson(r)
	}
	return n
}

func (a *arrivals) setMean(m float64) {
	a.mean = m
	if m <= 0 {
		return
	}
	a.parts = int(math.Ceil(m / poissonPart))
	part := m / float64(a.parts)
	a.p0 = detmath.ExpNeg(part)
	a.kmax = int(part + 20*math.Sqrt(part) + 30)
}

// poisson draws one part by inversion: the smallest k with U < F(k).
func (a *arrivals) poisson(r *rand.Rand) int {
	u := float64(r.Uint64()>>11) * 0x1p-53
	p := a.p0
	f := p
	part := a.mean / float64(a.parts)
	k := 0
	for u >= f && k < a.kmax {
		k++
		p = float64(p*part) / float64(k)
		f += p
	}
	return k
}

// makeRequest draws one generated request's fields: source and destination
// from one 64-bit draw, the type from a second, the time from the rest.
func (m *Model) makeRequest(id, t int64) Request {
	cfg, r := &m.cfg, m.rng
	addr := r.Uint64()
	typ := Processing
	if r.Uint64()%100 < uint64(cfg.StreamShare) {
		typ = Streaming
	}
	return Request{
		ID:      id,
		Arrival: t,
		Src:     uint32(addr >> 32),
		Dst:     uint32(addr),
		Time:    m.serviceTime(),
		Type:    typ,
	}
}

// serviceTime draws one processing time from the configured distribution.
func (m *Model) serviceTime() uint32 {
	cfg := &m.cfg
	switch cfg.Service {
	case Constant:
		return uint32(cfg.MeanService)
	case Geometric:
		if cfg.MeanService <= 1 {
			return 1
		}
		// Inversion: k = 1 + ⌊ln U / ln(1−p)⌋ for U uniform in (0, 1].
		u := float64(m.rng.Uint64()>>11+1) * 0x1p-53
		k := 1 + math.Floor(detmath.Log(u)/m.geoLog)
		return uint32(min(k, MaxTaskTime))
	}
	return uint32(cfg.TaskMin + m.rng.IntN(cfg.TaskMax-cfg.TaskMin+1))
}

// poissonDraw draws one Poisson count of the given mean.
func poissonDraw(mean float64, r *rand.Rand) int {
	var a arrivals
	a.setMean(mean)
	if mean <= 0 {
		return 0
	}
	n := 0
	for range a.parts {
		n += a.poisson(r)
	}
	return n
}
