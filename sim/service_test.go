package sim

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// shapeConfigs are one configuration of each shape the sampler draws.
func shapeConfigs() map[string]Config {
	base := DefaultConfig()
	base.MeanService = 100
	out := map[string]Config{}
	c := base
	c.Service, c.ServiceCV = Lognormal, 2*DecimalScale
	out["lognormal"] = c
	c = base
	c.Service, c.ServiceShape, c.ServiceMax = Pareto, 1_100_000, 5000
	out["pareto"] = c
	c = base
	c.Service, c.TaskMin, c.TaskMax, c.LongShare = Bimodal, 10, 1000, 10_000
	out["bimodal"] = c
	c = base
	c.Service, c.ServiceValues = Empirical, []int32{1, 5, 5, 70, 1_000_000}
	out["empirical"] = c
	return out
}

// shapeDigests are the FNV-1a digests of 100,000 draws of each shape from
// PCG(7, 8), computed on amd64: the wasm and arm64 runs of this test must
// find the same bits.
var shapeDigests = map[string]uint64{
	"lognormal": 0x9eacc6e5eb4c7235,
	"pareto":    0xa49ab11130cc905d,
	"bimodal":   0x4fe42105d5ade809,
	"empirical": 0x5127018b73243c5a,
}

func TestShapeDrawsGolden(t *testing.T) {
	for name, cfg := range shapeConfigs() {
		s := newSampler(&cfg)
		r := rand.NewPCG(7, 8)
		h := fnv.New64a()
		var b [4]byte
		for range 100_000 {
			binary.LittleEndian.PutUint32(b[:], s.draw(r.Uint64(), &cfg))
			h.Write(b[:])
		}
		if got := h.Sum64(); got != shapeDigests[name] {
			t.Errorf("%s: digest %#x, want %#x (amd64's)", name, got, shapeDigests[name])
		}
	}
}

// TestShapeMomentsMatchDraws: the exact moments ServiceMoments gives are
// those of what the sampler draws (to within sampling error: a mean of
// 200,000 draws, for shapes whose variance is moderate).
func TestShapeMomentsMatchDraws(t *testing.T) {
	tests := []struct {
		name string
		set  func(*Config)
		tol  float64
	}{
		{"lognormal cv 0.5", func(c *Config) { c.Service, c.MeanService, c.ServiceCV = Lognormal, 20, 500_000 }, 0.005},
		{"lognormal cv 2 cut at 300", func(c *Config) {
			c.Service, c.MeanService, c.ServiceCV, c.ServiceMax = Lognormal, 50, 2*DecimalScale, 300
		}, 0.01},
		{"pareto α 3", func(c *Config) { c.Service, c.MeanService, c.ServiceShape = Pareto, 30, 3*DecimalScale }, 0.01},
		{"pareto α 1.2 cut at 400", func(c *Config) { c.Service, c.MeanService, c.ServiceShape, c.ServiceMax = Pareto, 10, 1_200_000, 400 }, 0.02},
		{"bimodal", func(c *Config) { c.Service, c.TaskMin, c.TaskMax, c.LongShare = Bimodal, 3, 40, 250_000 }, 0.01},
		{"empirical", func(c *Config) { c.Service, c.ServiceValues = Empirical, []int32{2, 3, 10, 10, 41} }, 0.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.set(&cfg)
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			want := ServiceMoments(&cfg)
			s := newSampler(&cfg)
			r := rand.NewPCG(1, 2)
			var s1, s2 float64
			const n = 200_000
			for range n {
				x := float64(s.draw(r.Uint64(), &cfg))
				s1 += x
				s2 += x * x
			}
			if got := s1 / n; math.Abs(got-want.Mean) > tt.tol*want.Mean {
				t.Errorf("mean of draws %v, ServiceMoments %v", got, want.Mean)
			}
			if got := s2 / n; math.Abs(got-want.Second) > 5*tt.tol*want.Second {
				t.Errorf("second moment of draws %v, ServiceMoments %v", got, want.Second)
			}
		})
	}
}

func TestServiceMomentsExact(t *testing.T) {
	tests := []struct {
		name         string
		set          func(*Config)
		mean, second float64
	}{
		{"uniform 1..3", func(c *Config) { c.TaskMin, c.TaskMax = 1, 3 }, 2, 14.0 / 3},
		{"constant 7", func(c *Config) { c.Service, c.MeanService = Constant, 7 }, 7, 49},
		{"bimodal", func(c *Config) { c.Service, c.TaskMin, c.TaskMax, c.LongShare = Bimodal, 10, 1000, 10_000 }, 19.9, 10099},
		{"empirical", func(c *Config) { c.Service, c.ServiceValues = Empirical, []int32{1, 2, 6} }, 3, 41.0 / 3},
		// Geometric with mean m: E[T²] = 2m² − m (uncut).
		{"geometric 10", func(c *Config) { c.Service, c.MeanService = Geometric, 10 }, 10, 190},
		// Pareto with α = 2, mean 2: xm = 1, P(X > k) = 1/k², cut at 2:
		// E[T] = 1 + 1, E[T²] = 1 + 3.
		{"pareto cut at 2", func(c *Config) { c.Service, c.MeanService, c.ServiceShape, c.ServiceMax = Pareto, 2, 2*DecimalScale, 2 }, 2, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.set(&cfg)
			got := ServiceMoments(&cfg)
			if math.Abs(got.Mean-tt.mean) > 1e-9*tt.mean || math.Abs(got.Second-tt.second) > 1e-9*tt.second {
				t.Errorf("moments %+v, want {%v %v}", got, tt.mean, tt.second)
			}
		})
	}
}

// FuzzSampler: whatever the parameters and the random bits, a draw lies
// from 1 to the cut (lognormal, Pareto) or among the shape's values.
func FuzzSampler(f *testing.F) {
	f.Add(uint8(3), 100, int64(2_000_000), 0, uint64(0))
	f.Add(uint8(3), 1, int64(10_000_000), 0, ^uint64(0))
	f.Add(uint8(4), 50_000, int64(1_000_001), 1_000_000, uint64(1))
	f.Add(uint8(4), 1, int64(100_000_000), 1, ^uint64(0))
	f.Add(uint8(5), 3, int64(1_000_000), 0, uint64(1<<63))
	f.Add(uint8(6), 7, int64(0), 0, uint64(12345))
	f.Fuzz(func(t *testing.T, shape uint8, mean int, param int64, cut int, u uint64) {
		cfg := DefaultConfig()
		cfg.Service = Lognormal + Service(shape%4)
		cfg.MeanService = mean
		cfg.ServiceMax = cut
		switch cfg.Service {
		case Lognormal:
			cfg.ServiceCV = Decimal(param)
		case Pareto:
			cfg.ServiceShape = Decimal(param)
		case Bimodal:
			cfg.ServiceMax, cfg.LongShare = 0, Decimal(param)
			cfg.TaskMin, cfg.TaskMax = max(mean, 1), max(mean, 1)+cut%1000
		case Empirical:
			cfg.ServiceMax = 0
			cfg.ServiceValues = []int32{int32(mean), int32(cut), int32(param)}
		}
		if cfg.Validate() != nil {
			return
		}
		s := newSampler(&cfg)
		x := s.draw(u, &cfg)
		lo, hi := uint32(1), uint32(cfg.Cap())
		switch cfg.Service {
		case Bimodal:
			if x != uint32(cfg.TaskMin) && x != uint32(cfg.TaskMax) {
				t.Fatalf("bimodal drew %d, not %d or %d", x, cfg.TaskMin, cfg.TaskMax)
			}
			return
		case Empirical:
			if !slices.Contains(cfg.ServiceValues, int32(x)) {
				t.Fatalf("empirical drew %d, not one of %v", x, cfg.ServiceValues)
			}
			return
		}
		if x < lo || x > hi {
			t.Fatalf("%v (mean %d, parameter %d, cut %d) drew %d for u = %#x: outside 1..%d", cfg.Service, mean, param, cut, x, u, hi)
		}
	})
}

// requestStream runs cfg for its cycles and returns every generated
// request, time included or not.
func requestStream(t *testing.T, cfg Config, withTime bool) []Request {
	m := mustNewEvents(t, cfg)
	var rs []Request
	for {
		for _, e := range m.Events() {
			if e.Kind == Arrive || e.Kind == Reject || e.Kind == Discard {
				r := e.Request
				r.Requeued = false
				if !withTime {
					r.Time = 0
				}
				rs = append(rs, r)
			}
		}
		if !m.Step() {
			break
		}
	}
	return rs
}

// TestRequestStreamProperties: the requests generated (ids, sources,
// destinations, types, arrival cycles) do not depend on a shape's
// parameters, and the whole stream, times included, does not depend on the
// policy, the queue mode or faults (common random numbers).
func TestRequestStreamProperties(t *testing.T) {
	rapidDefaults(40)
	rapid.Check(t, func(rt *rapid.T) {
		cfg := DefaultConfig()
		cfg.Cycles = rapid.Int64Range(1, 400).Draw(rt, "cycles")
		cfg.Seed = rapid.Uint64().Draw(rt, "seed")
		cfg.Servers, cfg.MaxServers = 3, 10
		cfg.InitialPerServer = rapid.IntRange(0, 3).Draw(rt, "initial")
		cfg.Rate = Rate(rapid.Int64Range(0, 4*RateScale).Draw(rt, "rate"))
		cfg.MeanService = rapid.IntRange(1, 200).Draw(rt, "mean")
		a, b := cfg, cfg
		switch rapid.IntRange(0, 3).Draw(rt, "shape") {
		case 0:
			a.Service, b.Service = Lognormal, Lognormal
			a.ServiceCV = Decimal(rapid.Int64Range(1, int64(MaxServiceCV)).Draw(rt, "cvA"))
			b.ServiceCV = Decimal(rapid.Int64Range(1, int64(MaxServiceCV)).Draw(rt, "cvB"))
			b.ServiceMax = rapid.IntRange(cfg.MeanService, MaxTaskTime).Draw(rt, "maxB")
		case 1:
			a.Service, b.Service = Pareto, Pareto
			a.ServiceShape = Decimal(rapid.Int64Range(DecimalScale+1, int64(MaxServiceShape)).Draw(rt, "alphaA"))
			b.ServiceShape = Decimal(rapid.Int64Range(DecimalScale+1, int64(MaxServiceShape)).Draw(rt, "alphaB"))
		case 2:
			a.Service, b.Service = Bimodal, Bimodal
			a.LongShare = Decimal(rapid.Int64Range(0, DecimalScale).Draw(rt, "pA"))
			b.LongShare = Decimal(rapid.Int64Range(0, DecimalScale).Draw(rt, "pB"))
			b.TaskMin, b.TaskMax = 1, rapid.IntRange(1, 5000).Draw(rt, "maxB")
		case 3:
			a.Service, b.Service = Empirical, Empirical
			a.ServiceValues = rapid.SliceOfN(rapid.Int32Range(1, MaxTaskTime), 1, 50).Draw(rt, "valuesA")
			b.ServiceValues = rapid.SliceOfN(rapid.Int32Range(1, 50), 1, 50).Draw(rt, "valuesB")
		}
		tt := t // requestStream fails the test itself
		if got, want := requestStream(tt, b, false), requestStream(tt, a, false); !slices.Equal(got, want) {
			rt.Fatalf("changing %v's parameters changed the requests: %d vs %d requests", a.Service, len(got), len(want))
		}
		// The same shape under another policy, queue mode and faults.
		c := a
		if rapid.Bool().Draw(rt, "perServer") {
			c.Queues = PerServer
		}
		c.Policy = rapid.SampledFrom(PoliciesFor(c.Queues)).Draw(rt, "policy")
		if rapid.Bool().Draw(rt, "faults") {
			c.MTBF, c.MTTR = rapid.Int64Range(1, 100).Draw(rt, "mtbf"), rapid.Int64Range(1, 20).Draw(rt, "mttr")
		}
		if got, want := requestStream(tt, c, true), requestStream(tt, a, true); !slices.Equal(got, want) {
			rt.Fatalf("policy %v, queues %v, mtbf %d changed the requests", c.Policy, c.Queues, c.MTBF)
		}
	})
}

func TestShapeValidation(t *testing.T) {
	tests := []struct {
		name  string
		set   func(*Config)
		field string
	}{
		{"cv above 10", func(c *Config) { c.Service, c.MeanService, c.ServiceCV = Lognormal, 10, 10*DecimalScale+1 }, "service-cv"},
		{"α of 1", func(c *Config) { c.Service, c.MeanService, c.ServiceShape = Pareto, 10, DecimalScale }, "service-shape"},
		{"α above 100", func(c *Config) { c.Service, c.MeanService, c.ServiceShape = Pareto, 10, 100*DecimalScale+1 }, "service-shape"},
		{"share above 1", func(c *Config) { c.Service, c.LongShare = Bimodal, DecimalScale+1 }, "long-share"},
		{"cut below the mean", func(c *Config) { c.Service, c.MeanService, c.ServiceMax = Lognormal, 10, 9 }, "service-max"},
		{"cut above 10⁶", func(c *Config) { c.Service, c.MeanService, c.ServiceMax = Pareto, 10, MaxTaskTime+1 }, "service-max"},
		{"no values", func(c *Config) { c.Service = Empirical }, "service-file"},
		{"a value of 0", func(c *Config) { c.Service, c.ServiceValues = Empirical, []int32{3, 0} }, "service-file"},
		{"lognormal without a mean", func(c *Config) { c.Service = Lognormal }, "mean-service"},
		{"unknown shape", func(c *Config) { c.Service = numServices }, "service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.set(&cfg)
			err := cfg.Validate()
			fe, ok := err.(*FieldError)
			if !ok || fe.Field != tt.field || fe.Allowed == "" {
				t.Errorf("Validate() = %v, want a FieldError naming %s", err, tt.field)
			}
		})
	}
}

func TestReadServiceValues(t *testing.T) {
	tests := []struct {
		in   string
		want []int32
		err  string
	}{
		{"5\n# comment\n\n 7 \n1000000\n", []int32{5, 7, 1_000_000}, ""},
		{"5\n0\n", nil, "line 2"},
		{"5\nx\n", nil, "line 2"},
		{"1000001\n", nil, "line 1"},
		{"", nil, "no values"},
		{strings.Repeat("1\n", MaxServiceValues+1), nil, "more than"},
		{strings.Repeat("9", 100), nil, "longer than"},
	}
	for _, tt := range tests {
		got, err := ReadServiceValues(strings.NewReader(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ReadServiceValues(%.20q) error %v, want one with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ReadServiceValues(%.20q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// FuzzReadServiceValues: any input gives values within the limits or an
// error, never a panic.
func FuzzReadServiceValues(f *testing.F) {
	f.Add("5\n7\n")
	f.Add("# x\n\n1000000\n")
	f.Add("-1\n")
	f.Fuzz(func(t *testing.T, in string) {
		vs, err := ReadServiceValues(strings.NewReader(in))
		if err != nil {
			return
		}
		if len(vs) < 1 || len(vs) > MaxServiceValues {
			t.Fatalf("%d values", len(vs))
		}
		for _, v := range vs {
			if v < 1 || v > MaxTaskTime {
				t.Fatalf("value %d", v)
			}
		}
	})
}

// BenchmarkShapeDraw measures one time of each shape, its random draw
// included.
func BenchmarkShapeDraw(b *testing.B) {
	production(b)
	for _, name := range []string{"lognormal", "pareto", "bimodal", "empirical"} {
		cfg := shapeConfigs()[name]
		b.Run(name, func(b *testing.B) {
			s := newSampler(&cfg)
			r := rand.NewPCG(1, 2)
			var sum uint32
			for b.Loop() {
				sum += s.draw(r.Uint64(), &cfg)
			}
			if sum == 0 {
				b.Log(sum)
			}
		})
	}
	b.Run("geometric", func(b *testing.B) {
		cfg := DefaultConfig()
		cfg.Service, cfg.MeanService = Geometric, 100
		m, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			m.serviceTime()
		}
	})
}

// TestNominalMean: the configured mean equals the exact mean of the
// distribution drawn where nothing is cut (uniform, constant, bimodal,
// empirical), and m for the shapes whose mean is m before the cut.
func TestNominalMean(t *testing.T) {
	for _, s := range []Service{Uniform, Geometric, Constant, Lognormal, Pareto, Bimodal, Empirical} {
		cfg := DefaultConfig()
		cfg.Service, cfg.MeanService, cfg.TaskMin, cfg.TaskMax = s, 40, 3, 200
		cfg.LongShare, cfg.ServiceValues = 250_000, []int32{1, 2, 3, 10}
		got := cfg.NominalMean()
		want := ServiceMoments(&cfg).Mean
		if s.usesMean() {
			want = 40
		}
		if got != want {
			t.Errorf("%v: NominalMean %v, want %v", s, got, want)
		}
	}
}

// TestAvgServiceAppliesSpeed: avg_service is the mean of the cycles given
// at dispatch, speed applied, counting every dispatch of a requeued
// request. Two requests of time 10 at cycle 0: server 1 (speed 2) takes
// 5 cycles, server 2 (speed 1) 10; a third of time 3 at cycle 7 goes to
// server 1 again, 2 cycles: (5 + 10 + 2) / 3.
func TestAvgServiceAppliesSpeed(t *testing.T) {
	cfg := traceConfig(2, 20, row(0, 10), row(0, 10), row(7, 3))
	cfg.Speeds = []Speed{200}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Run()
	s := m.Summary()
	if s.Dispatched != 3 || s.ServiceCycles != 17 || math.Abs(s.AvgService-17.0/3) > 1e-12 {
		t.Errorf("dispatched %d, service cycles %d, avg_service %v; want 3, 17, 17/3", s.Dispatched, s.ServiceCycles, s.AvgService)
	}
}

// TestServiceSurvivalMatchesDraws: the distribution ServiceSurvival gives
// is that of the times the generator draws: over 100,000 draws of each
// shape, the share above k is within 0.01 of survive(k) at every k (a
// Kolmogorov–Smirnov distance; 0.0043 is its 5% critical value), and no
// draw reaches the limit's far side.
func TestServiceSurvivalMatchesDraws(t *testing.T) {
	cfgs := shapeConfigs()
	c := DefaultConfig()
	c.Service, c.MeanService = Geometric, 40
	cfgs["geometric"] = c
	c = DefaultConfig()
	c.Service, c.MeanService = Constant, 17
	cfgs["constant"] = c
	c = DefaultConfig()
	c.Service, c.MeanService, c.ServiceCV, c.ServiceMax = Lognormal, 50, 2*DecimalScale, 300
	cfgs["lognormal cut at 300"] = c
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) {
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			survive, limit := ServiceSurvival(&cfg)
			const n = 100_000
			draws := make([]int, n)
			for i := range draws {
				draws[i] = int(m.serviceTime())
				if draws[i] < 1 || draws[i] > limit {
					t.Fatalf("draw %d outside 1 … %d", draws[i], limit)
				}
			}
			slices.Sort(draws)
			if got := survive(limit); got != 0 {
				t.Errorf("survive(limit %d) = %v, want 0", limit, got)
			}
			if got := survive(0); got != 1 {
				t.Errorf("survive(0) = %v, want 1", got)
			}
			worst, at := 0.0, 0
			for _, k := range draws { // the share above k just before and at each draw
				for _, kk := range []int{k - 1, k} {
					above := float64(n-upper(draws, kk)) / n
					if d := math.Abs(above - survive(kk)); d > worst {
						worst, at = d, kk
					}
				}
			}
			if worst > 0.01 {
				t.Errorf("largest |share above k − survive(k)| = %.4f at k = %d", worst, at)
			}
		})
	}
}

// upper returns the number of sorted values ≤ k.
func upper(sorted []int, k int) int {
	i, _ := slices.BinarySearch(sorted, k+1)
	return i
}

// TestServiceSurvivalExact: small shapes' survival functions, counted by
// hand, and the moments they sum to (Σ P(T > k) = E[T]).
func TestServiceSurvivalExact(t *testing.T) {
	tests := []struct {
		name  string
		set   func(*Config)
		want  []float64 // P(T > k) for k = 0, 1, 2, …
		limit int
	}{
		{"uniform 2..4", func(c *Config) { c.TaskMin, c.TaskMax = 2, 4 }, []float64{1, 1, 2.0 / 3, 1.0 / 3, 0, 0}, 4},
		{"constant 3", func(c *Config) { c.Service, c.MeanService = Constant, 3 }, []float64{1, 1, 1, 0, 0}, 3},
		{"bimodal 1 or 3, p = 0.25", func(c *Config) { c.Service, c.TaskMin, c.TaskMax, c.LongShare = Bimodal, 1, 3, 250_000 }, []float64{1, 0.25, 0.25, 0, 0}, 3},
		{"empirical 1 2 2 5", func(c *Config) { c.Service, c.ServiceValues = Empirical, []int32{5, 2, 1, 2} }, []float64{1, 0.75, 0.25, 0.25, 0.25, 0, 0}, 5},
		{"geometric 2", func(c *Config) { c.Service, c.MeanService = Geometric, 2 }, []float64{1, 0.5, 0.25, 0.125}, MaxTaskTime},
		{"geometric 1", func(c *Config) { c.Service, c.MeanService = Geometric, 1 }, []float64{1, 0, 0}, 1},
		{"pareto cut at 2", func(c *Config) { c.Service, c.MeanService, c.ServiceShape, c.ServiceMax = Pareto, 2, 2*DecimalScale, 2 }, []float64{1, 1, 0, 0}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.set(&cfg)
			survive, limit := ServiceSurvival(&cfg)
			if limit != tt.limit {
				t.Errorf("limit %d, want %d", limit, tt.limit)
			}
			for k, want := range tt.want {
				if got := survive(k); math.Abs(got-want) > 1e-12 {
					t.Errorf("P(T > %d) = %v, want %v", k, got, want)
				}
			}
		})
	}
}
