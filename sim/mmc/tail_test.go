package mmc

import (
	"math"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// tailConfig is a fixed pool of c per-server queues routed by
// least-connections, geometric service of mean m, λ requests a cycle.
func tailConfig(c int, lambda float64, m int) sim.Config {
	cfg := Params{Servers: c, Rate: sim.Rate(lambda * 1e6), MeanService: m, Cycles: 1000, Seed: 1,
		Queues: sim.PerServer, Policy: sim.LeastConnections}.Config()
	return cfg
}

// TestPredictTailApplies: which theory applies to which run, and why not
// where it does not (each Why names what fails).
func TestPredictTailApplies(t *testing.T) {
	tests := []struct {
		name           string
		cfg            func() sim.Config
		in             TailInput
		lowLoad, fork  bool
		lowWhy, forkWh string
	}{
		{"fan-out 20 at low load", func() sim.Config { return tailConfig(200, 0.005, 100) }, TailInput{Fanout: 20}, true, false, "", "every request to ask every server"},
		{"hedged", func() sim.Config { return tailConfig(200, 0.005, 100) }, TailInput{Fanout: 20, HedgeAfter: 300}, true, false, "", "every request"},
		{"too few servers for the hedges", func() sim.Config { return tailConfig(30, 0.001, 100) }, TailInput{Fanout: 20, HedgeAfter: 300}, false, false, "fewer than the 40 attempts", "every request"},
		{"high load", func() sim.Config { return tailConfig(100, 0.05, 100) }, TailInput{Fanout: 5}, false, false, "ρ = 0.25", "every request"},
		{"random routing", func() sim.Config {
			c := tailConfig(100, 0.001, 100)
			c.Policy = sim.Random
			return c
		}, TailInput{Fanout: 5}, false, false, "random routing can send a part to a busy server", "every request"},
		{"peak-ewma", func() sim.Config {
			c := tailConfig(100, 0.001, 100)
			c.Policy = sim.PeakEWMA
			return c
		}, TailInput{Fanout: 5}, false, false, "peak-ewma routing can send", "every request"},
		{"p2c drawing one", func() sim.Config {
			c := tailConfig(100, 0.001, 100)
			c.Policy, c.Choices = sim.P2C, 1
			return c
		}, TailInput{Fanout: 5}, false, false, "p2c routing can send", "every request"},
		{"p2c", func() sim.Config {
			c := tailConfig(100, 0.001, 100)
			c.Policy = sim.P2C
			return c
		}, TailInput{Fanout: 5}, true, false, "", "every request"},
		{"jiq", func() sim.Config {
			c := tailConfig(100, 0.001, 100)
			c.Policy = sim.JIQ
			return c
		}, TailInput{Fanout: 5}, true, false, "", "every request"},
		{"jiq with two balancers", func() sim.Config {
			c := tailConfig(100, 0.001, 100)
			c.Policy, c.Balancers = sim.JIQ, 2
			return c
		}, TailInput{Fanout: 5}, false, false, "jiq routing can send", "every request"},
		{"least-connections reading local counts", func() sim.Config {
			c := tailConfig(100, 0.001, 100)
			c.Balancers, c.LoadInfo = 10, sim.LoadLocal
			return c
		}, TailInput{Fanout: 5}, false, false, "least-connections routing can send", "every request"},
		{"swrr", func() sim.Config {
			c := tailConfig(100, 0.001, 100)
			c.Policy = sim.SWRR
			return c
		}, TailInput{Fanout: 5}, true, false, "", "every request"},
		{"fork-join 4 at ρ 0.5", func() sim.Config { return tailConfig(4, 0.005, 100) }, TailInput{Fanout: 4}, false, true, "ρ = 0.5", ""},
		{"fork-join 2 at low load", func() sim.Config { return tailConfig(2, 0.0005, 100) }, TailInput{Fanout: 2}, true, true, "", ""},
		{"fork-join 40", func() sim.Config { return tailConfig(40, 0.001, 100) }, TailInput{Fanout: 40}, true, false, "", "2 to 32 servers"},
		{"fork-join lognormal", func() sim.Config {
			c := tailConfig(8, 0.002, 100)
			c.Service = sim.Lognormal
			return c
		}, TailInput{Fanout: 8}, false, false, "ρ = 0.2", "geometric"},
		{"budget below the hedge rate", func() sim.Config { return tailConfig(200, 0.001, 100) }, TailInput{Fanout: 5, HedgeAfter: 100, HedgeBudget: 0.05}, false, false, "the budget allows 0.05", "every request"},
		{"budget above the hedge rate", func() sim.Config { return tailConfig(200, 0.001, 100) }, TailInput{Fanout: 5, HedgeAfter: 300, HedgeBudget: 0.1}, true, false, "", "every request"},
		{"autoscaling", func() sim.Config {
			c := tailConfig(200, 0.001, 100)
			c.MaxServers = 300
			return c
		}, TailInput{Fanout: 5}, false, false, "autoscaling", "autoscaling"},
		{"timeouts", func() sim.Config {
			c := tailConfig(200, 0.001, 100)
			c.Timeout = 500
			return c
		}, TailInput{Fanout: 5}, false, false, "give up after 500", "give up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := PredictTail(tt.cfg(), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if (tl.LowLoad != nil) != tt.lowLoad || !strings.Contains(tl.LowLoadWhy, tt.lowWhy) {
				t.Errorf("low load: %+v, why %q; want applies %v, why containing %q", tl.LowLoad, tl.LowLoadWhy, tt.lowLoad, tt.lowWhy)
			}
			if (tl.ForkJoin != nil) != tt.fork || !strings.Contains(tl.ForkJoinWhy, tt.forkWh) {
				t.Errorf("fork-join: %+v, why %q; want applies %v, why containing %q", tl.ForkJoin, tl.ForkJoinWhy, tt.fork, tt.forkWh)
			}
			if tl.LowLoad == nil && !strings.HasPrefix(tl.LowLoadWhy, "no closed form") || tl.ForkJoin == nil && !strings.HasPrefix(tl.ForkJoinWhy, "no ") {
				t.Errorf("a why that does not say there is no closed form: %q, %q", tl.LowLoadWhy, tl.ForkJoinWhy)
			}
		})
	}
}

// TestPredictTailNumbers: the low-load numbers for geometric service of
// mean 100, worked out by hand: a part's p99 is ⌈ln 0.01 ÷ ln 0.99⌉ = 459,
// 20 parts' p99 a part's 0.99^(1/20)-quantile, ⌈ln(1 − 0.99^(1/20)) ÷
// ln 0.99⌉ = 756; hedging after the part's p95 (299) sends 0.99^299 = 4.96%
// more attempts; and Flatto–Hahn's R₂ at ρ = 0.1, m = 100: 11.9/8·100/0.9.
func TestPredictTailNumbers(t *testing.T) {
	tl, err := PredictTail(tailConfig(200, 0.001, 100), TailInput{Fanout: 20})
	if err != nil || tl.LowLoad == nil {
		t.Fatalf("%v %+v", err, tl)
	}
	want := int(math.Ceil(math.Log(-math.Expm1(math.Log(0.99)/20)) / math.Log(0.99)))
	if lt := tl.LowLoad; lt.PartP99 != 459 || lt.RequestP99 != want || lt.AttemptsPerRequest != 20 || lt.ExtraLoad != 0 {
		t.Errorf("%+v; want part p99 459, request p99 %d, 20 attempts", lt, want)
	}
	if lt := tl.LowLoad; math.Abs(lt.WithinPartP99-math.Pow(1-math.Pow(0.99, 459), 20)) > 1e-12 || math.Abs(lt.AllWithin-math.Pow(0.99, 20)) > 1e-12 {
		t.Errorf("within %v, all within %v", lt.WithinPartP99, lt.AllWithin)
	}
	if math.Abs(tl.Load-0.001*20*100/200) > 1e-6 {
		t.Errorf("load %v, want 0.1", tl.Load)
	}
	h, err := PredictTail(tailConfig(200, 0.001, 100), TailInput{Fanout: 20, HedgeAfter: 299})
	if err != nil || h.LowLoad == nil {
		t.Fatalf("%v %+v", err, h)
	}
	if got, want := h.LowLoad.AttemptsPerRequest, 20*(1+math.Pow(0.99, 299)); math.Abs(got-want) > 1e-9 {
		t.Errorf("hedged attempts %v, want %v", got, want)
	}
	if h.LowLoad.RequestP99 >= tl.LowLoad.RequestP99 || h.LowLoad.PartP99 != 459 {
		t.Errorf("hedged request p99 %d, not below %d", h.LowLoad.RequestP99, tl.LowLoad.RequestP99)
	}
	fj, err := PredictTail(tailConfig(2, 0.001, 100), TailInput{Fanout: 2})
	if err != nil || fj.ForkJoin == nil || !fj.ForkJoin.Exact {
		t.Fatalf("%v %+v", err, fj)
	}
	if want := 11.9 / 8 * 100 / 0.9; math.Abs(fj.ForkJoin.AvgResponse-want) > 0.01*want { // ρ = λ·E[T], E[T] ≈ 100
		t.Errorf("R₂ %v, want about %v", fj.ForkJoin.AvgResponse, want)
	}
}

// TestFanOutMatchesTheory runs fan-out through the simulator and sets
// what it measured beside the tail theory: at low load F(t)^K's median
// and mean (within 3%: sampling and the whole-cycle clock), its p99
// within 8% (the top 1% of a few thousand requests), K attempts a
// request; fork-join's mean within 5% of Flatto–Hahn (K = 2) and
// Nelson–Tantawi (K = 8).
func TestFanOutMatchesTheory(t *testing.T) {
	tests := []struct {
		name    string
		servers int
		lambda  float64
		k       int
		cycles  int64
	}{
		{"K = 5 at low load", 200, 0.002, 5, 2_000_000},
		{"K = 20 at low load", 200, 0.002, 20, 2_000_000},
		{"fork-join K = 2 at ρ = 0.5", 2, 0.005, 2, 3_000_000},
		{"fork-join K = 8 at ρ = 0.6", 8, 0.006, 8, 3_000_000},
	}
	scale := 1.0
	if testing.Short() {
		scale = 2 // the wasm run under Node: a quarter of the cycles, twice the sampling error
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() {
				tt.cycles /= 4
			}
			p := Params{Servers: tt.servers, Rate: sim.Rate(math.Round(tt.lambda * sim.RateScale)), MeanService: 100,
				Cycles: tt.cycles, Warmup: tt.cycles / 20, Seed: uint64(tt.k), Queues: sim.PerServer,
				Policy: sim.LeastConnections, Tail: TailInput{Fanout: tt.k}}
			r, err := Run(p)
			if err != nil {
				t.Fatal(err)
			}
			ms, tl := r.Measured.Response, r.Tail
			if ms == nil || tl == nil {
				t.Fatalf("no response measured (%v) or no tail theory (%v)", ms, tl)
			}
			near := func(name string, theory, measured, tol float64) {
				t.Logf("%-13s theory %8.4g measured %8.4g (%+.1f%%)", name, theory, measured, 100*(measured-theory)/theory)
				if math.Abs(measured-theory) > scale*tol*theory {
					t.Errorf("%s: theory %.4g, measured %.4g: more than %.0f%% apart", name, theory, measured, 100*tol)
				}
			}
			if math.Abs(ms.AttemptsPerRequest-float64(tt.k)) > 1e-9 {
				t.Errorf("attempts per request %v, want %d", ms.AttemptsPerRequest, tt.k)
			}
			if lt := tl.LowLoad; lt != nil {
				near("p50", float64(lt.RequestP50), float64(ms.P50), 0.03)
				near("p99", float64(lt.RequestP99), float64(ms.P99), 0.08)
				near("avg response", lt.AvgResponse, ms.AvgResponse, 0.03)
			}
			if fj := tl.ForkJoin; fj != nil {
				near("fork-join", fj.AvgResponse, ms.AvgResponse, 0.05)
			}
			if tl.LowLoad == nil && tl.ForkJoin == nil {
				t.Fatalf("no theory applies: %s; %s", tl.LowLoadWhy, tl.ForkJoinWhy)
			}
		})
	}
}
