package sim

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/detmath"
)

// Decimal is a non-negative parameter of a service shape (a coefficient of
// variation, a Pareto shape, a probability), held in millionths so that a
// configuration is integers only: Decimal(1500000) is 1.5.
type Decimal int64

// DecimalScale is the number of Decimal units in 1.
const DecimalScale = 1_000_000

// Float returns d as a float64.
func (d Decimal) Float() float64 { return float64(d) / DecimalScale }

// String formats d with no trailing zeros, as ParseDecimal reads it.
func (d Decimal) String() string { return formatFixed(int64(d), DecimalScale) }

// ParseDecimal reads a non-negative decimal such as "1.5" with at most six
// decimal places.
func ParseDecimal(s string) (Decimal, error) {
	v, err := parseFixed(s, DecimalScale, 6)
	return Decimal(v), err
}

// Limits and defaults of the service shapes' parameters.
const (
	DefaultServiceCV    Decimal = 1 * DecimalScale                  // lognormal's coefficient of variation
	MaxServiceCV        Decimal = 10 * DecimalScale                 // 0 < cv ≤ 10
	DefaultServiceShape Decimal = 1_500_000                         // Pareto's α
	MaxServiceShape     Decimal = 100 * DecimalScale                // 1 < α ≤ 100
	DefaultLongShare    Decimal = 10_000                            // bimodal's p = 0.01
	MaxLongShare        Decimal = DecimalScale                      // 0 ≤ p ≤ 1
	MaxServerCost       Decimal = 1_000_000 * DecimalScale          // 0 ≤ server-cost ≤ 10⁶
	MaxServiceValues            = 10_000                            // empirical: at most this many values
	serviceMaxFactor            = 1000                              // lognormal and Pareto are cut at 1000·m by default
	maxServiceLine              = 64                                // longest line ReadServiceValues reads
	maxServiceFile              = MaxServiceValues * maxServiceLine // bytes ReadServiceValues reads at most
)

// usesMean reports whether the shape's times follow MeanService (the
// shapes that read mean-service)).
func (s Service) usesMean() bool { return s.reads("mean-service") }

// reads reports whether the shape reads the shape parameter called name
// (its row of the settings table).
func (s Service) reads(name string) bool {
	r := RowNamed(name)
	if r == nil || r.reads == nil {
		return false
	}
	return r.reads(&Config{Service: s})
}

// Cap returns the largest time a lognormal or Pareto draw is cut at:
// ServiceMax, or by default 1000 × MeanService (at most MaxTaskTime).
func (c *Config) Cap() int {
	if c.ServiceMax > 0 {
		return c.ServiceMax
	}
	return min(serviceMaxFactor*c.MeanService, MaxTaskTime)
}

// CV returns the lognormal shape's coefficient of variation: ServiceCV,
// or DefaultServiceCV for 0.
func (c *Config) CV() Decimal { return cmp.Or(c.ServiceCV, DefaultServiceCV) }

// Alpha returns the Pareto shape's α: ServiceShape, or
// DefaultServiceShape for 0.
func (c *Config) Alpha() Decimal { return cmp.Or(c.ServiceShape, DefaultServiceShape) }

// Allowed ranges of the shape parameters, as errors name them.
const (
	cvAllowed    = "the coefficient of variation must be above 0 and at most 10"
	alphaAllowed = "Pareto's shape α must be above 1 and at most 100"
)

// checkServiceValues checks the empirical shape's values, which may come
// from a snapshot rather than from ReadServiceValues (the service-file
// row's check).
func checkServiceValues(c *Config) error {
	if len(c.ServiceValues) > MaxServiceValues {
		return intErr("service-file", int64(len(c.ServiceValues)), "at most %d values", MaxServiceValues)
	}
	for i, v := range c.ServiceValues {
		if v < 1 || v > MaxTaskTime {
			return &FieldError{Field: "service-file", Value: fmt.Sprintf("value %d (%d)", i+1, v), Allowed: fmt.Sprintf("every value must be a whole number of cycles from 1 to %d", MaxTaskTime)}
		}
	}
	return nil
}

// ReadServiceValues reads the service times of the empirical shape: one
// whole number of cycles (1 to MaxTaskTime) a line, 1 to MaxServiceValues
// lines; blank lines and lines starting with # are skipped. It reads at
// most a bounded number of bytes, and its errors name the line.
func ReadServiceValues(r io.Reader) ([]int32, error) {
	sc := bufio.NewScanner(io.LimitReader(r, maxServiceFile+1))
	sc.Buffer(make([]byte, 0, maxServiceLine), maxServiceLine)
	var vs []int32
	line, read := 0, 0
	for sc.Scan() {
		line++
		read += len(sc.Bytes()) + 1
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxTaskTime {
			return nil, fmt.Errorf("line %d: %s is not allowed: want a whole number of cycles from 1 to %d", line, QuoteInput(s), MaxTaskTime)
		}
		if len(vs) == MaxServiceValues {
			return nil, fmt.Errorf("line %d: more than %d values", line, MaxServiceValues)
		}
		vs = append(vs, int32(n))
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes: want one whole number a line", line+1, maxServiceLine)
		}
		return nil, err
	}
	if read > maxServiceFile {
		return nil, fmt.Errorf("more than %d bytes: at most %d values of one a line", maxServiceFile, MaxServiceValues)
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("no values: want 1 to %d lines, each a whole number of cycles from 1 to %d", MaxServiceValues, MaxTaskTime)
	}
	return vs, nil
}

// sampler draws the times of the lognormal, Pareto, bimodal and empirical
// shapes. Each draw takes exactly one 64-bit value from the arrival
// generator, whatever the parameters, so changing a shape's parameters
// keeps the request stream's other fields (common random numbers). Its
// arithmetic is detmath's: the same bits on every platform.
type sampler struct {
	shape Service
	cap   float64 // the cut (lognormal, Pareto)
	// lognormal: X = e^(mu + sigma·z), z standard normal.
	mu, sigma float64
	// Pareto: X = xm · U^(−1/α) = xm · e^(−ln U · invAlpha).
	xm, invAlpha float64
	// bimodal: long when the top 53 bits fall below longCut.
	longCut uint64
	values  []int32 // empirical
}

// newSampler prepares the draws of cfg's shape.
func newSampler(cfg *Config) sampler {
	s := sampler{shape: cfg.Service, cap: float64(cfg.Cap()), values: cfg.ServiceValues}
	m := float64(cfg.MeanService)
	switch cfg.Service {
	case Lognormal:
		cv := cfg.CV().Float()
		s2 := detmath.Log(1 + float64(cv*cv))
		s.sigma = math.Sqrt(s2)
		s.mu = detmath.Log(m) - s2/2
	case Pareto:
		a := cfg.Alpha().Float()
		s.invAlpha = 1 / a
		s.xm = m * (a - 1) / a
	case Bimodal:
		hi, lo := bits.Mul64(uint64(cfg.LongShare), 1<<53)
		s.longCut, _ = bits.Div64(hi, lo, DecimalScale)
	}
	return s
}

// draw returns the time (1 … MaxTaskTime) for the random 64 bits u; the
// bimodal shape reads task-min and task-max from cfg, which changes may
// move.
func (s *sampler) draw(u uint64, cfg *Config) uint32 {
	var x float64
	switch s.shape {
	case Lognormal:
		p := (float64(u>>11) + 0.5) * 0x1p-53 // in (0, 1)
		x = detmath.Exp(s.mu + float64(s.sigma*detmath.NormalQuantile(p)))
	case Pareto:
		p := float64(u>>11+1) * 0x1p-53 // in (0, 1]
		x = float64(s.xm * detmath.Exp(-float64(detmath.Log(p)*s.invAlpha)))
	case Bimodal:
		if u>>11 < s.longCut {
			return uint32(cfg.TaskMax)
		}
		return uint32(cfg.TaskMin)
	case Empirical:
		// The top half of u·n: uniform over the values to within
		// n/2^64, with no redraw, so every request takes one draw.
		i, _ := bits.Mul64(u, uint64(len(s.values)))
		return uint32(s.values[i])
	}
	if !(x < s.cap) {
		return uint32(s.cap)
	}
	return uint32(max(math.Ceil(x), 1))
}

// Moments are the first two moments of the service time in cycles, E[T]
// and E[T²], at speed 1.
type Moments struct {
	Mean, Second float64
}

// SCV returns the squared coefficient of variation Var[T] ÷ E[T]².
func (m Moments) SCV() float64 {
	return max(m.Second-m.Mean*m.Mean, 0) / (m.Mean * m.Mean)
}

// ServiceMoments returns the exact moments of the discrete, capped
// distribution the generator draws from under cfg (before speeds): for
// lognormal and Pareto, T = min(⌈X⌉, cap) has E[T] = Σ P(X > k) and
// E[T²] = Σ (2k+1)·P(X > k) over k = 0 … cap−1. It is theory only: nothing
// it computes feeds the model.
func ServiceMoments(cfg *Config) Moments {
	m := float64(cfg.MeanService)
	switch cfg.Service {
	case Uniform:
		a, b := float64(cfg.TaskMin), float64(cfg.TaskMax)
		n := b - a + 1
		// Σ k² over a..b, divided by n.
		sq := (b*(b+1)*(2*b+1) - (a-1)*a*(2*a-1)) / 6
		return Moments{(a + b) / 2, sq / n}
	case Constant:
		return Moments{m, m * m}
	case Bimodal:
		p := cfg.LongShare.Float()
		a, b := float64(cfg.TaskMin), float64(cfg.TaskMax)
		return Moments{(1-p)*a + p*b, (1-p)*a*a + p*b*b}
	case Empirical:
		var s1, s2 float64
		for _, v := range cfg.ServiceValues {
			s1 += float64(v)
			s2 += float64(v) * float64(v)
		}
		n := float64(len(cfg.ServiceValues))
		return Moments{s1 / n, s2 / n}
	case Geometric:
		if m <= 1 {
			return Moments{1, 1}
		}
	case Lognormal, Pareto:
	default:
		return Moments{}
	}
	survive, limit := ServiceSurvival(cfg)
	s1, s2 := 1.0, 1.0 // k = 0: P(X > 0) = 1
	for k := 1; k < limit; k++ {
		p := survive(k)
		if p < 1e-300 {
			break
		}
		s1 += p
		s2 += float64(2*k+1) * p
	}
	return Moments{s1, s2}
}

// ServiceSurvival returns the distribution of the whole-cycle times the
// generator draws under cfg (before speeds), as survive(k) = P(T > k) for
// k ≥ 0, and the largest time limit it can draw (survive(k) = 0 from
// limit on): geometric (1 − 1/m)^k cut at MaxTaskTime, lognormal and Pareto
// P(X > k) cut at Cap, and the exact shares of uniform, constant, bimodal
// and empirical times. Like ServiceMoments it is theory only.
func ServiceSurvival(cfg *Config) (survive func(k int) float64, limit int) {
	m := float64(cfg.MeanService)
	cut := func(limit int, f func(k float64) float64) (func(int) float64, int) {
		return func(k int) float64 {
			switch {
			case k < 1:
				return 1
			case k >= limit:
				return 0
			}
			return f(float64(k))
		}, limit
	}
	switch cfg.Service {
	case Uniform:
		a, b := cfg.TaskMin, cfg.TaskMax
		return func(k int) float64 {
			return float64(min(max(b-k, 0), b-a+1)) / float64(b-a+1)
		}, b
	case Constant:
		return func(k int) float64 { return float64(max(0, min(cfg.MeanService-k, 1))) }, cfg.MeanService
	case Bimodal:
		p := cfg.LongShare.Float()
		a, b := cfg.TaskMin, cfg.TaskMax
		return func(k int) float64 {
			s := 0.0
			if k < a {
				s += 1 - p
			}
			if k < b {
				s += p
			}
			return s
		}, max(a, b)
	case Empirical:
		vs := slices.Clone(cfg.ServiceValues)
		slices.Sort(vs)
		n := len(vs)
		if n == 0 {
			return cut(1, nil)
		}
		return func(k int) float64 {
			i, _ := slices.BinarySearch(vs, int32(min(k, MaxTaskTime))+1) // the first value above k
			return float64(n-i) / float64(n)
		}, int(vs[n-1])
	case Geometric:
		if m <= 1 {
			return cut(1, nil)
		}
		lq := math.Log1p(-1 / m)
		return cut(MaxTaskTime, func(k float64) float64 { return math.Exp(k * lq) }) // P(T > k) = (1 − 1/m)^k
	case Lognormal:
		s := newSampler(cfg)
		return cut(cfg.Cap(), func(k float64) float64 {
			return 0.5 * math.Erfc((math.Log(k)-s.mu)/(s.sigma*math.Sqrt2))
		})
	case Pareto:
		s := newSampler(cfg)
		a := cfg.Alpha().Float()
		return cut(cfg.Cap(), func(k float64) float64 {
			if k <= s.xm {
				return 1
			}
			return math.Exp(a * math.Log(s.xm/k))
		})
	}
	return cut(1, nil)
}

// Shape is the part of a Config that decides service times: the shape
// and its parameters.
type Shape struct {
	Service                            Service
	MeanService, TaskMin, TaskMax      int
	ServiceMax                         int
	ServiceCV, ServiceShape, LongShare Decimal
	ServiceValues                      []int32
}

// Shape returns c's service shape.
func (c *Config) Shape() Shape {
	return Shape{Service: c.Service, MeanService: c.MeanService, TaskMin: c.TaskMin, TaskMax: c.TaskMax,
		ServiceMax: c.ServiceMax, ServiceCV: c.ServiceCV, ServiceShape: c.ServiceShape, LongShare: c.LongShare,
		ServiceValues: c.ServiceValues}
}

// SetShape gives c the service shape s.
func (c *Config) SetShape(s Shape) {
	c.Service, c.MeanService, c.TaskMin, c.TaskMax = s.Service, s.MeanService, s.TaskMin, s.TaskMax
	c.ServiceMax, c.ServiceCV, c.ServiceShape, c.LongShare = s.ServiceMax, s.ServiceCV, s.ServiceShape, s.LongShare
	c.ServiceValues = s.ServiceValues
}

// String describes the shape in the command line's words, e.g.
// "lognormal, mean 100, cv 2, cut at 100000".
func (s Shape) String() string {
	c := Config{}
	c.SetShape(s)
	switch s.Service {
	case Uniform:
		return fmt.Sprintf("uniform %d..%d", s.TaskMin, s.TaskMax)
	case Geometric, Constant:
		return fmt.Sprintf("%v, mean %d", s.Service, s.MeanService)
	case Lognormal:
		return fmt.Sprintf("lognormal, mean %d, cv %v, cut at %d", s.MeanService, c.CV(), c.Cap())
	case Pareto:
		return fmt.Sprintf("pareto, mean %d, α %v, cut at %d", s.MeanService, c.Alpha(), c.Cap())
	case Bimodal:
		return fmt.Sprintf("bimodal, %d or %d with p = %v", s.TaskMin, s.TaskMax, s.LongShare)
	case Empirical:
		return fmt.Sprintf("empirical, %d values", len(s.ServiceValues))
	}
	return s.Service.String()
}

// NominalMean returns the mean service time at speed 1 that the shape is
// configured with: (min + max)/2 for uniform, m for geometric, constant,
// lognormal and Pareto (before the cut), (1 − p)·min + p·max for bimodal,
// the mean of the values for empirical. It feeds the model (peak-ewma's
// starting cost), so it is computed in integers and one division, the same
// bits everywhere.
func (c *Config) NominalMean() float64 {
	switch c.Service {
	case Uniform:
		return float64(c.TaskMin+c.TaskMax) / 2
	case Bimodal:
		p := int64(c.LongShare)
		return float64((DecimalScale-p)*int64(c.TaskMin)+p*int64(c.TaskMax)) / DecimalScale
	case Empirical:
		var sum int64
		for _, v := range c.ServiceValues {
			sum += int64(v)
		}
		return float64(sum) / float64(max(len(c.ServiceValues), 1))
	}
	return float64(c.MeanService)
}
