package mmc

import (
	"math"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// perServer runs the check with per-server queues and policy p.
func perServer(t *testing.T, c int, rate sim.Rate, m int, cycles int64, p sim.Policy) Report {
	t.Helper()
	r, err := Run(Params{Servers: c, Rate: rate, MeanService: m, Cycles: cycles, Warmup: cycles / 20, Seed: 1,
		Queues: sim.PerServer, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRandomRoutingIsSplitMM1: random routing to per-server queues is c
// independent M/M/1 queues, Wq = ρ·m/(1−ρ).
func TestRandomRoutingIsSplitMM1(t *testing.T) {
	cycles := int64(600_000)
	if testing.Short() {
		cycles = 250_000
	}
	r := perServer(t, 10, 140_000, 50, cycles, sim.Random) // ρ = 0.7
	want := 0.7 * 50 / 0.3
	if r.Theory == nil || math.Abs(r.Theory.Wq-want) > 1e-9 {
		t.Fatalf("theory %+v, want Wq = %v", r.Theory, want)
	}
	ms := r.Measured
	inside := ms.WqCI[0] <= want && want <= ms.WqCI[1]
	if rel := math.Abs(ms.Wq-want) / want; !inside && rel > 0.03 {
		t.Errorf("measured Wq %.4g (interval %v), theory %.4g: %.1f%% off and outside the interval", ms.Wq, ms.WqCI, want, 100*rel)
	}
}

// TestP2CNearSupermarket: with many servers p2c approaches the supermarket
// model's mean.
func TestP2CNearSupermarket(t *testing.T) {
	cycles := int64(300_000)
	if testing.Short() {
		cycles = 120_000
	}
	r := perServer(t, 200, 3_600_000, 50, cycles, sim.P2C) // ρ = 0.9
	if r.Theory == nil {
		t.Fatalf("no theory: %s", r.TheoryError)
	}
	th, ms := r.Theory.W, r.Measured.W
	if rel := math.Abs(ms-th) / th; rel > 0.08 {
		t.Errorf("measured time in system %.4g, supermarket %.4g: %.1f%% apart, want ≤ 8%%", ms, th, 100*rel)
	}
}

// TestRoutingOrder: on the same requests (c = 50, ρ = 0.9), the mean waits
// order random > round-robin > p2c > least-connections ≥ pooled.
func TestRoutingOrder(t *testing.T) {
	cycles := int64(300_000)
	if testing.Short() {
		cycles = 150_000
	}
	var wq []float64
	for _, p := range []sim.Policy{sim.Random, sim.RoundRobin, sim.P2C, sim.LeastConnections} {
		wq = append(wq, perServer(t, 50, 900_000, 50, cycles, p).Measured.Wq)
	}
	pooled, err := Run(Params{Servers: 50, Rate: 900_000, MeanService: 50, Cycles: cycles, Warmup: cycles / 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	wq = append(wq, pooled.Measured.Wq)
	t.Logf("Wq random %.4g, round-robin %.4g, p2c %.4g, least-connections %.4g, pooled %.4g", wq[0], wq[1], wq[2], wq[3], wq[4])
	for i := 0; i+1 < len(wq); i++ {
		if wq[i] < wq[i+1] {
			t.Errorf("Wq %d (%.4g) below the next one (%.4g): want random > round-robin > p2c > least-connections ≥ pooled", i, wq[i], wq[i+1])
		}
	}
}

// TestPerServerBounds: round-robin and least-connections get bounds, not a
// formula; the bounds bracket what is measured.
func TestPerServerBounds(t *testing.T) {
	for _, p := range []sim.Policy{sim.RoundRobin, sim.LeastConnections} {
		r := perServer(t, 20, 320_000, 50, 200_000, p) // ρ = 0.8
		if r.Theory != nil || r.Bounds == nil {
			t.Fatalf("%v: theory %+v bounds %+v, want bounds only", p, r.Theory, r.Bounds)
		}
		if b := r.Bounds; b.WqLow >= b.WqHigh || r.Measured.Wq < b.WqLow || r.Measured.Wq > b.WqHigh {
			t.Errorf("%v: measured Wq %.4g outside its bounds %+v", p, r.Measured.Wq, b)
		}
	}
}
