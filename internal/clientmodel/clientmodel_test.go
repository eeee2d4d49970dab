package clientmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/queueing"
)

// script is a Source with given arrivals and service times (in dispatch
// order; 1 when they run out).
type script struct {
	arrivals map[int64]int
	services []int64
}

func (s *script) Arrivals(t int64, _ float64) int { return s.arrivals[t] }

func (s *script) Service() int64 {
	if len(s.services) == 0 {
		return 1
	}
	x := s.services[0]
	s.services = s.services[1:]
	return x
}

// TestTraces checks hand-computed runs of the rules.
func TestTraces(t *testing.T) {
	base := Params{Servers: 1, MeanService: 1, Phases: []Phase{{0, 1}}, Cycles: 20}
	tests := []struct {
		name        string
		change      func(*Params)
		src         script
		want        Counts
		retriesAt   []int64 // cycles in which a retry arrived
		wantInFight int64
	}{
		{
			// Request 0 is dispatched at 0 for 10 cycles: abandoned in
			// service at 5 (the server works on to 10: 5 wasted cycles);
			// its retry arrives at 5, waits, and leaves the queue at 10
			// (the server freed at step a of 10 is too late: a′ comes first).
			name:   "timeout in service, then queued",
			change: func(p *Params) { p.Timeout, p.Retries = 5, 1 },
			src:    script{arrivals: map[int64]int{0: 1}, services: []int64{10}},
			want: Counts{Admitted: 1, Retries: 1, TimedOut: 1, TimedOutQueued: 1, TimedOutInService: 1,
				Dispatched: 1, WastedCycles: 5},
			retriesAt: []int64{5},
		},
		{
			// A retry keeps its request's service time: 6 cycles against a
			// timeout of 5 fail on both attempts (a fresh draw would give
			// the next scripted time, 1, and complete).
			name:   "service kept across attempts",
			change: func(p *Params) { p.Servers, p.Timeout, p.Retries = 2, 5, 1 },
			src:    script{arrivals: map[int64]int{0: 1}, services: []int64{6, 1}},
			want: Counts{Admitted: 1, Retries: 1, TimedOut: 1, TimedOutInService: 2, Dispatched: 2,
				WastedCycles: 2},
			retriesAt: []int64{5},
		},
		{
			// A service that ends at step a of arrival + T completes.
			name:   "completion at the deadline",
			change: func(p *Params) { p.Timeout = 5 },
			src:    script{arrivals: map[int64]int{0: 1}, services: []int64{5}},
			want:   Counts{Admitted: 1, Completed: 1, Dispatched: 1, TotalResponse: 5},
		},
		{
			// Five requests at 0, the first served for 100 cycles: all time
			// out at 3. The budget (0.1 of 5 admitted) grants the first
			// retry only (0 < 0.5, then 1 ≥ 0.5); the retry arrives at 3
			// and leaves the queue at 6 with no retry left.
			name:   "budget",
			change: func(p *Params) { p.Timeout, p.Retries, p.BudgetMillionths = 3, 1, 100_000 },
			src:    script{arrivals: map[int64]int{0: 5}, services: []int64{100}},
			want: Counts{Admitted: 5, Retries: 1, TimedOut: 1, GaveUpBudget: 4, TimedOutQueued: 5,
				TimedOutInService: 1, Dispatched: 1, WastedCycles: 17},
			retriesAt: []int64{3},
		},
		{
			// Backoff 2: retry 1 arrives 2 cycles after the timeout at 1,
			// retry 2 4 cycles after the timeout at 4; it times out at 9.
			name:   "backoff doubles",
			change: func(p *Params) { p.Timeout, p.Retries, p.Backoff = 1, 2, 2 },
			src:    script{arrivals: map[int64]int{0: 1}, services: []int64{100}},
			want: Counts{Admitted: 1, Retries: 2, TimedOut: 1, TimedOutQueued: 2, TimedOutInService: 1,
				Dispatched: 1, WastedCycles: 19},
			retriesAt: []int64{3, 8},
		},
		{
			// Without a timeout nothing is abandoned: the second request
			// waits 4 cycles and both complete.
			name:   "no timeout",
			change: func(p *Params) {},
			src:    script{arrivals: map[int64]int{0: 2}, services: []int64{4, 2}},
			want:   Counts{Admitted: 2, Completed: 2, Dispatched: 2, TotalWait: 4, TotalResponse: 4 + 6},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base
			tt.change(&p)
			var at []int64
			last := int64(0)
			r, err := RunWith(p, &tt.src, func(c int64, total Counts, _ int64) error {
				if total.Retries != last {
					at = append(at, c)
					last = total.Retries
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.Total != tt.want {
				t.Errorf("counts\n got %+v\nwant %+v", r.Total, tt.want)
			}
			if fmt.Sprint(at) != fmt.Sprint(tt.retriesAt) {
				t.Errorf("retries arrived at %v, want %v", at, tt.retriesAt)
			}
			if r.InFlight != 0 {
				t.Errorf("in flight %d at the end, want 0", r.InFlight)
			}
		})
	}
}

// TestAccounting checks, every cycle of random runs, that every admitted
// request is completed, timed out, refused by the budget or in flight.
func TestAccounting(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 30 {
		p := Params{
			Servers:          1 + rng.IntN(5),
			MeanService:      1 + float64(rng.IntN(20)),
			Phases:           []Phase{{0, rng.Float64()}, {100 + rng.Int64N(200), 2 * rng.Float64()}},
			Timeout:          rng.Int64N(30),
			Retries:          rng.IntN(4),
			Backoff:          rng.Int64N(5),
			BudgetMillionths: []int64{0, 100_000, 500_000}[rng.IntN(3)],
			Cycles:           2000,
			Seed:             uint64(i),
		}
		r, err := RunWith(p, newRandom(p), func(c int64, n Counts, inFlight int64) error {
			if got := n.Completed + n.TimedOut + n.GaveUpBudget + inFlight; got != n.Admitted {
				return fmt.Errorf("admitted %d ≠ completed + timed out + gave up + in flight = %d (%+v)", n.Admitted, got, n)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if r.Total.Admitted == 0 {
			t.Errorf("%+v: nothing arrived", p)
		}
	}
}

// TestRenegingMatchesChain runs the model with a timeout and no retries and
// checks it against queueing's exact chain of the same rules (c = 10,
// m = 100, ρ = 0.95, timeout 100): each share and the mean wait within two
// half-widths of the 95% interval over 6 seeds.
func TestRenegingMatchesChain(t *testing.T) {
	if testing.Short() {
		t.Skip("long simulation")
	}
	want, err := queueing.Reneging{Servers: 10, Lambda: 0.095, MeanService: 100, Patience: 100}.Discrete()
	if err != nil {
		t.Fatal(err)
	}
	var left, done, wait queueing.BatchMeans
	for s := range 6 {
		r, err := Run(Params{Servers: 10, MeanService: 100, Phases: []Phase{{0, 0.095}}, Timeout: 100,
			Cycles: 600_000, From: 50_000, Seed: uint64(s)})
		if err != nil {
			t.Fatal(err)
		}
		w := r.Window
		n := int(w.TimedOutQueued + w.TimedOutInService + w.Completed)
		_ = left.AddBatch(float64(w.TimedOutQueued), n)
		_ = done.AddBatch(float64(w.Completed), n)
		_ = wait.AddBatch(float64(w.TotalWait), int(w.Dispatched))
	}
	for _, c := range []struct {
		name string
		b    *queueing.BatchMeans
		want float64
	}{{"timed out queued", &left, want.TimedOutQueued}, {"completed", &done, want.Completed}, {"wait", &wait, want.WaitServed}} {
		iv, err := c.b.Interval()
		if err != nil {
			t.Fatal(err)
		}
		half := iv.HalfWidth
		t.Logf("%s: model %.5f ± %.5f, chain %.5f", c.name, iv.Mean, half, c.want)
		if math.Abs(iv.Mean-c.want) > 2*half {
			t.Errorf("%s: model %.5f ± %.5f, chain %.5f", c.name, iv.Mean, half, c.want)
		}
	}
}

// newRandom is Run's source for p.
func newRandom(p Params) Source {
	src, _ := randomSource(p)
	return src
}

// TestValidate checks that every bad parameter is refused by name.
func TestValidate(t *testing.T) {
	ok := Params{Servers: 1, MeanService: 1, Phases: []Phase{{0, 1}}, Cycles: 10}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		change func(*Params)
		want   string
	}{
		{func(p *Params) { p.Servers = 0 }, "servers"},
		{func(p *Params) { p.MeanService = 0.5 }, "mean service"},
		{func(p *Params) { p.MeanService = math.NaN() }, "mean service"},
		{func(p *Params) { p.Phases = nil }, "phases"},
		{func(p *Params) { p.Phases = []Phase{{1, 1}} }, "phases"},
		{func(p *Params) { p.Phases = []Phase{{0, 1}, {0, 2}} }, "phase 1 starts"},
		{func(p *Params) { p.Phases = []Phase{{0, -1}} }, "rate"},
		{func(p *Params) { p.Phases = []Phase{{0, math.Inf(1)}} }, "rate"},
		{func(p *Params) { p.Timeout = -1 }, "timeout"},
		{func(p *Params) { p.Retries = 11 }, "retries"},
		{func(p *Params) { p.Backoff = -1 }, "backoff"},
		{func(p *Params) { p.BudgetMillionths = 2_000_000 }, "budget"},
		{func(p *Params) { p.Cycles = 0 }, "cycles"},
		{func(p *Params) { p.From = 10 }, "window"},
	} {
		p := ok
		p.Phases = append([]Phase(nil), ok.Phases...)
		tt.change(&p)
		_, err := Run(p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%+v) = %v; want an error naming %q", p, err, tt.want)
		}
	}
}

// TestMetastable runs the metastable lesson (c = 10, m = 100, λ = 0.08, a
// spike to 0.15 in cycles 20,000 … 24,999, timeout 1000, 3 retries, 80,000
// cycles) for three seeds and compares requests completed in the last
// 20,000 cycles with first attempts admitted there: without the spike and
// with it under a retry budget of 0.1 they match (within 3%); with the
// spike and no budget the queue stays overloaded, completing within a
// factor 2 of the share queueing's retry equilibrium predicts (about 4.5%).
func TestMetastable(t *testing.T) {
	eq, err := queueing.Reneging{Servers: 10, Lambda: 0.08, MeanService: 100, Patience: 1000}.RetryEquilibria(3)
	if err != nil || len(eq) != 3 {
		t.Fatalf("equilibria %+v, %v", eq, err)
	}
	stuck := eq[2].Completed
	spike := []Phase{{0, 0.08}, {20_000, 0.15}, {25_000, 0.08}}
	for _, tt := range []struct {
		name     string
		phases   []Phase
		budget   int64
		low, top float64
	}{
		{"no spike", []Phase{{0, 0.08}}, 0, 0.97, 1.03},
		{"spike, no budget", spike, 0, stuck / 2, stuck * 2},
		{"spike, budget 0.1", spike, 100_000, 0.97, 1.03},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			r, err := Run(Params{Servers: 10, MeanService: 100, Phases: tt.phases, Timeout: 1000, Retries: 3,
				BudgetMillionths: tt.budget, Cycles: 80_000, From: 60_000, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			ratio := float64(r.Window.Completed) / float64(r.Window.Admitted)
			t.Logf("%s, seed %d: %d completed / %d admitted = %.4f", tt.name, seed, r.Window.Completed, r.Window.Admitted, ratio)
			if ratio < tt.low || ratio > tt.top {
				t.Errorf("%s, seed %d: completed/admitted %.4f, want %.4f … %.4f", tt.name, seed, ratio, tt.low, tt.top)
			}
		}
	}
}
