package queueing

import (
	"math"
	"strings"
	"testing"
)

// pureFit returns an M/M/c configuration: c = 5, ρ = 0.8, m = 100.
func pureFit() FitInput {
	return FitInput{Servers: 5, Lambda: 0.04, MeanService: 100, Service: ServiceGeometric}
}

func TestCheckFitPure(t *testing.T) {
	for _, policy := range []string{"", "first-idle", "round-robin", "random"} {
		in := pureFit()
		in.Policy = policy
		got := CheckFit(in)
		if !got.Applies || len(got.Reasons) != 0 || len(got.Caveats) != 0 {
			t.Errorf("CheckFit(%+v) = %+v, want Applies and no reasons or caveats", in, got)
		}
		if s := got.String(); !strings.HasPrefix(s, "M/M/c applies") {
			t.Errorf("String() = %q, want it to start with %q", s, "M/M/c applies")
		}
	}
}

func TestCheckFitReasons(t *testing.T) {
	tests := []struct {
		name   string
		change func(*FitInput)
		n      int      // number of reasons
		want   []string // each must be a substring of some reason
	}{
		{"autoscaling", func(in *FitInput) { in.Autoscaling = true }, 1,
			[]string{"autoscaling is on: the number of servers changes, but M/M/c assumes a fixed c"}},
		{"wave", func(in *FitInput) { in.Wave = true }, 1,
			[]string{"the arrival rate follows a wave; M/M/c assumes a constant rate"}},
		{"faults", func(in *FitInput) { in.Faults = true }, 1, []string{"fault injection is on"}},
		{"trace", func(in *FitInput) { in.Trace = true }, 1, []string{"trace file", "Poisson"}},
		{"switch", func(in *FitInput) { in.Switch = true }, 1, []string{"switch mode", "two balancers"}},
		{"uniform service", func(in *FitInput) { in.Service = ServiceUniform }, 1,
			[]string{"service times are uniform, not exponential (geometric)"}},
		{"constant service", func(in *FitInput) { in.Service = ServiceConstant }, 1,
			[]string{"service times are constant, not exponential (geometric)", "M/D/c"}},
		{"no service given", func(in *FitInput) { in.Service = "" }, 1, []string{"not given"}},
		{"unknown service", func(in *FitInput) { in.Service = "weibull" }, 1,
			[]string{`"weibull" is not known; allowed: geometric, uniform, constant, lognormal, pareto, bimodal, empirical`}},
		{"pareto service", func(in *FitInput) { in.Service = "pareto" }, 1,
			[]string{"service times are pareto", "M/G/c", "Pollaczek–Khinchine", "Allen–Cunneen"}},
		{"queue capacity", func(in *FitInput) { in.QueueCap = 50 }, 1,
			[]string{"a queue capacity of 50 makes this M/M/c/K"}},
		{"negative queue capacity", func(in *FitInput) { in.QueueCap = -1 }, 1, []string{"queue capacity -1 is negative"}},
		{"per-server swrr", func(in *FitInput) { in.PerServer, in.Policy = true, "swrr" }, 1,
			[]string{`no queueing model is known for "swrr" routing to per-server queues`}},
		{"per-server hash", func(in *FitInput) { in.PerServer, in.Policy = true, "hash" }, 1,
			[]string{`"hash" routing`}},
		{"unequal speeds", func(in *FitInput) { in.UnequalSpeeds = true }, 1,
			[]string{"different speeds"}},
		{"ρ = 1", func(in *FitInput) { in.Lambda = 0.05 }, 1,
			[]string{"a = λ·m = 5 ≥ c = 5", "ρ = a/c = 1", "grows without bound"}},
		{"ρ > 1", func(in *FitInput) { in.Lambda = 0.45 }, 1, []string{"ρ = a/c = 9", "only when ρ < 1"}},
		{"no servers", func(in *FitInput) { in.Servers = 0 }, 1, []string{"servers c = 0 is not allowed"}},
		{"negative rate", func(in *FitInput) { in.Lambda = -1 }, 1, []string{"arrival rate λ = -1 is not allowed"}},
		{"NaN rate", func(in *FitInput) { in.Lambda = math.NaN() }, 1, []string{"arrival rate λ = NaN"}},
		{"zero mean service", func(in *FitInput) { in.MeanService = 0 }, 1, []string{"mean service time m = 0 is not allowed"}},
		{"sub-cycle mean service", func(in *FitInput) { in.MeanService, in.Lambda = 0.5, 1 }, 1,
			[]string{"m = 0.5 cycles is below 1"}},
		{"lbsim defaults", func(in *FitInput) {
			in.Autoscaling, in.Wave, in.Service = true, true, ServiceUniform
		}, 3, []string{"autoscaling is on", "follows a wave", "uniform"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := pureFit()
			tt.change(&in)
			got := CheckFit(in)
			if got.Applies {
				t.Fatalf("CheckFit(%+v).Applies = true, want false", in)
			}
			if len(got.Reasons) != tt.n {
				t.Errorf("CheckFit(%+v) gave %d reasons %q, want %d", in, len(got.Reasons), got.Reasons, tt.n)
			}
			for _, w := range tt.want {
				if !anyContains(got.Reasons, w) {
					t.Errorf("no reason mentions %q; reasons: %q", w, got.Reasons)
				}
			}
			s := got.String()
			if !strings.HasPrefix(s, "M/M/c does not apply:\n  - ") {
				t.Errorf("String() = %q, want a list under %q", s, "M/M/c does not apply:")
			}
		})
	}
}

func TestCheckFitCaveats(t *testing.T) {
	tests := []struct {
		name   string
		change func(*FitInput)
		n      int      // number of caveats
		want   []string // each must be a substring of some caveat
	}{
		{"m = 25", func(in *FitInput) { in.MeanService, in.Lambda = 25, 0.16 }, 1,
			[]string{"roughly 1/m = 4.0% at m = 25 cycles; use m ≥ 100"}},
		{"m = 3", func(in *FitInput) { in.MeanService, in.Lambda = 3, 1 }, 1, []string{"1/m = 33% at m = 3"}},
		{"m = 99.5", func(in *FitInput) { in.MeanService = 99.5 }, 1, []string{"1/m = 1.0%"}},
		{"ρ = 0.9", func(in *FitInput) { in.Lambda = 0.045 }, 1, []string{"ρ = 0.9 is close to 1", "batch-means interval"}},
		{"swrr", func(in *FitInput) { in.Policy, in.Weighted = "swrr", true }, 1, []string{"weight 0 never gets work"}},
		{"per-server split", func(in *FitInput) { in.PerServer, in.Policy, in.Routing = true, "random", RoutingSplit }, 1, []string{"M/M/1"}},
		{"per-server supermarket", func(in *FitInput) { in.PerServer, in.Policy, in.Routing = true, "p2c", RoutingSupermarket }, 1, []string{"supermarket"}},
		{"ρ = 0.9 and m = 50", func(in *FitInput) { in.MeanService, in.Lambda = 50, 0.09 }, 2,
			[]string{"ρ = 0.9", "1/m = 2.0%"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := pureFit()
			tt.change(&in)
			got := CheckFit(in)
			if !got.Applies || len(got.Reasons) != 0 {
				t.Fatalf("CheckFit(%+v) = %+v, want Applies (caveats do not disqualify)", in, got)
			}
			if len(got.Caveats) != tt.n {
				t.Errorf("caveats %q, want %d", got.Caveats, tt.n)
			}
			for _, w := range tt.want {
				if !anyContains(got.Caveats, w) {
					t.Errorf("no caveat mentions %q; caveats: %q", w, got.Caveats)
				}
			}
			if s := got.String(); !strings.Contains(s, "Caveats:\n  - ") {
				t.Errorf("String() = %q lacks the caveats", s)
			}
		})
	}
}

// anyContains reports whether some element of list contains sub.
func anyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
