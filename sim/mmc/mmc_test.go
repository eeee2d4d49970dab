package mmc

import (
	"math"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/queueing"
	"github.com/lbsim/lbsim/sim"
)

// TestSimulationMatchesErlangC runs the central queue as M/M/c for c ∈ {1,
// 5, 20} and ρ ∈ {0.5, 0.8, 0.9} with m = 100 and checks every measured
// quantity against Erlang C at the arrival rate and mean service the run
// realized (themselves checked against the configured ones): the theory
// value lies inside the batch-means interval (95%, widened for the number of
// checks: see check), or within 3% of the measurement.
//
// Why not exact: the clock has whole cycles. A server freed in step a is
// reused in step d of the same cycle, arrivals come in bunches at cycle
// boundaries, and a dispatched request starts losing time one cycle later.
// These shift Wq by roughly 1/m relative (an independent simulation measured −2.8% to −4.8% at
// m = 25 from an independent simulation); with m = 100 that is about 1%,
// well inside the tolerance. Near ρ = 0.9 the measurement converges slowly,
// which the intervals account for honestly (they widen).
func TestSimulationMatchesErlangC(t *testing.T) {
	base := int64(4_000_000)
	if testing.Short() {
		base = 800_000 // the wasm run under Node (make test-wasm): same checks, wider intervals
	}
	// Heavier loads relax more slowly: give them more cycles.
	length := map[float64]int64{0.5: base, 0.8: 4 * base, 0.9: 12 * base}
	for _, c := range []int{1, 5, 20} {
		for _, rho := range []float64{0.5, 0.8, 0.9} {
			cycles := length[rho]
			lambda := rho * float64(c) / 100
			p := Params{Servers: c, Rate: sim.Rate(math.Round(lambda * sim.RateScale)), MeanService: 100,
				Cycles: cycles, Warmup: cycles / 20, Seed: uint64(1000*c) + uint64(rho*10)}
			r, err := Run(p)
			if err != nil {
				t.Fatal(err)
			}
			if r.Theory == nil {
				t.Fatalf("c=%d ρ=%.1f: no theory: %s", c, rho, r.TheoryError)
			}
			ms := r.Measured
			// The inputs first: the realized arrival rate and mean service
			// lie within 4 standard errors of the configured ones.
			n := float64(ms.Dispatched)
			if se := math.Sqrt(lambda / float64(cycles-p.Warmup)); math.Abs(ms.Lambda-lambda) > 4*se {
				t.Errorf("c=%d ρ=%.1f: arrivals %.6f per cycle, want %.6f ± %.6f", c, rho, ms.Lambda, lambda, 4*se)
			}
			if se := math.Sqrt(100 * 99 / n); math.Abs(ms.MeanService-100) > 4*se {
				t.Errorf("c=%d ρ=%.1f: mean service %.3f, want 100 ± %.3f", c, rho, ms.MeanService, 4*se)
			}
			// Then the queue: Erlang C at the inputs the run realized, so
			// that their sampling noise (which moves Wq several percent at
			// ρ = 0.8 in a few million cycles) does not hide or fake a fault.
			th, err := queueing.MMC{Servers: c, Lambda: ms.Lambda, MeanService: ms.MeanService}.Metrics()
			if err != nil {
				t.Fatalf("c=%d ρ=%.1f: theory at the realized inputs: %v", c, rho, err)
			}
			check := func(name string, theory, measured float64, ci [2]float64) {
				rel := math.Abs(measured-theory) / theory
				// 27 checks at 95% each would miss about once by chance
				// alone. Bonferroni: widen each to 1 − 0.05/27 ≈ 99.8%, so
				// the whole family misses with at most 5%: t(0.999, 19 dof)
				// = 3.579 instead of t(0.975, 19) = 2.093 (20 batches).
				mid, half := (ci[0]+ci[1])/2, (ci[1]-ci[0])/2*3.579/2.093
				inside := mid-half <= theory && theory <= mid+half
				if !inside && rel >= 0.03 {
					t.Errorf("c=%d ρ=%.1f %s: theory %.4g outside the measured 99.8%% interval [%.4g, %.4g] and %.1f%% off",
						c, rho, name, theory, mid-half, mid+half, 100*rel)
				}
				t.Logf("c=%d ρ=%.1f %-7s theory %8.4g measured %8.4g [%8.4g, %8.4g] %+5.1f%% (nominal theory %+5.1f%%)", c, rho, name,
					theory, measured, ci[0], ci[1], 100*(measured-theory)/theory, 100*(measured-nominal(r.Theory, name))/nominal(r.Theory, name))
			}
			check("Wq", th.Wq, ms.Wq, ms.WqCI)
			check("Lq", th.Lq, ms.Lq, ms.LqCI)
			check("P(wait)", th.PWait, ms.PWait, ms.PWaitCI)
			if d := math.Abs(ms.Utilisation - rho); d > 0.02 {
				t.Errorf("c=%d ρ=%.1f: utilisation %.4f, want within 0.02 of ρ", c, rho, ms.Utilisation)
			}
			if ms.WqCI[0] > ms.Wq || ms.Wq > ms.WqCI[1] {
				t.Errorf("c=%d ρ=%.1f: Wq %.4g outside its own interval %v", c, rho, ms.Wq, ms.WqCI)
			}
		}
	}
}

// nominal returns the Erlang C value of name at the configured inputs.
func nominal(th *Theory, name string) float64 {
	switch name {
	case "Wq":
		return th.Wq
	case "Lq":
		return th.Lq
	}
	return th.PWait
}

func TestUnstableStillSimulates(t *testing.T) {
	r, err := Run(Params{Servers: 2, Rate: 30_000, MeanService: 100, Cycles: 50_000, Warmup: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Theory != nil || !strings.Contains(r.TheoryError, "ρ") {
		t.Errorf("ρ = 1.5: theory %+v, error %q; want no theory and a reason", r.Theory, r.TheoryError)
	}
	if r.Measured.Utilisation < 0.99 || r.Measured.Dispatched == 0 {
		t.Errorf("measured %+v: want a saturated pool", r.Measured)
	}
}

func TestParamsValidate(t *testing.T) {
	ok := Params{Servers: 2, Rate: 10_000, MeanService: 100, Cycles: 10_000, Warmup: 100, Seed: 1}
	tests := []struct {
		name string
		edit func(*Params)
		want string
	}{
		{"warmup too long", func(p *Params) { p.Warmup = p.Cycles }, "--warmup"},
		{"negative warmup", func(p *Params) { p.Warmup = -5 }, "--warmup"},
		{"batches", func(p *Params) { p.Batches = 1 }, "--batches"},
		{"servers", func(p *Params) { p.Servers = 0 }, "servers"},
		{"mean service", func(p *Params) { p.MeanService = 0 }, "mean-service"},
	}
	for _, tt := range tests {
		p := ok
		tt.edit(&p)
		if _, err := Run(p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming %s", tt.name, err, tt.want)
		}
	}
}

func TestFitInput(t *testing.T) {
	def := sim.DefaultConfig()
	fit := queueing.CheckFit(FitInput(def))
	if fit.Applies {
		t.Fatal("the default run (autoscaling, wave, uniform service) must not fit M/M/c")
	}
	joined := strings.Join(fit.Reasons, "\n")
	for _, want := range []string{"autoscal", "wave", "uniform"} {
		if !strings.Contains(strings.ToLower(joined), want) {
			t.Errorf("reasons lack %q:\n%s", want, joined)
		}
	}
	p := Params{Servers: 5, Rate: 40_000, MeanService: 100, Cycles: 1000}
	if fit := queueing.CheckFit(FitInput(p.Config())); !fit.Applies {
		t.Errorf("the mmc check's own config must fit: %v", fit.Reasons)
	}
	blocked := p.Config()
	blocked.Blocked = []sim.Range{{First: 0, Last: 1<<31 - 1}} // half of all sources
	if in := FitInput(blocked); math.Abs(in.Lambda-0.02) > 1e-12 {
		t.Errorf("λ after a firewall blocking half = %v, want 0.02", in.Lambda)
	}
}

// TestEstimateInsideItsInterval: every point estimate lies inside its own
// interval, and batches too small to carry information are merged, not
// counted (before, P(wait) fell outside its interval with 1,000 batches,
// and empty batches counted).
func TestEstimateInsideItsInterval(t *testing.T) {
	for _, p := range []Params{
		{Servers: 5, Rate: 40_000, MeanService: 100, Cycles: 100_000, Warmup: 5_000, Seed: 1, Batches: 1000},
		{Servers: 5, Rate: 300, MeanService: 100, Cycles: 400_000, Warmup: 20_000, Seed: 1, Batches: 100},
	} {
		r, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		ms := r.Measured
		for _, c := range []struct {
			name string
			v    float64
			ci   [2]float64
		}{{"p_wait", ms.PWait, ms.PWaitCI}, {"wq", ms.Wq, ms.WqCI}, {"lq", ms.Lq, ms.LqCI}} {
			if c.v < c.ci[0] || c.v > c.ci[1] {
				t.Errorf("batches %d: %s = %g outside its interval %v", p.Batches, c.name, c.v, c.ci)
			}
		}
		if ms.Batches >= p.Batches || ms.Dispatched < int64(ms.Batches)*minBatchDispatches || len(r.Notes) == 0 {
			t.Errorf("batches %d: %d used for %d dispatches, notes %q", p.Batches, ms.Batches, ms.Dispatched, r.Notes)
		}
	}
}

// TestFitInputTheoryFromTheTable: the routing model comes from the policy
// table: p2c drawing one queue is random routing (c × M/M/1, as Predict
// says), drawing two the supermarket model; policies without a model are
// reasons, not caveats.
func TestFitInputTheoryFromTheTable(t *testing.T) {
	for _, c := range []struct {
		policy  sim.Policy
		choices int
		want    string
		applies bool
	}{
		{sim.P2C, 1, "M/M/1", true}, {sim.P2C, 2, "supermarket", true}, {sim.Random, 0, "M/M/1", true},
		{sim.RoundRobin, 0, "bounds", true}, {sim.LeastConnections, 0, "bounds", true},
		{sim.Hash, 0, `no queueing model is known for "hash"`, false}, {sim.PeakEWMA, 0, `"peak-ewma"`, false},
	} {
		cfg := sim.DefaultConfig()
		cfg.Queues, cfg.Policy, cfg.Choices = sim.PerServer, c.policy, c.choices
		cfg.Servers, cfg.MinServers, cfg.MaxServers, cfg.Wave = 4, 4, 4, false
		cfg.Service, cfg.MeanService, cfg.Blocked = sim.Geometric, 100, nil
		cfg.Rate = sim.Rate(2 * sim.RateScale / 100)
		fit := queueing.CheckFit(FitInput(cfg))
		text := strings.Join(append(fit.Caveats, fit.Reasons...), " ")
		if fit.Applies != c.applies || !strings.Contains(text, c.want) {
			t.Errorf("%v, choices %d: applies %v, %q; want applies %v and %q", c.policy, c.choices, fit.Applies, text, c.applies, c.want)
		}
		pr, err := Predict(4, 0.02, 100, sim.PerServer, c.policy, c.choices)
		if err != nil || (pr.Why == "") != c.applies {
			t.Errorf("%v, choices %d: Predict %+v, %v", c.policy, c.choices, pr, err)
		}
	}
}
