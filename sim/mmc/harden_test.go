package mmc

import (
	"strings"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestShapeP2CHasNoClosedForm: per-server p2c with a shape other than
// geometric has no closed form and says so, whatever d it draws but 1
// (the power of one choice is random routing, c × M/G/1). Before, p2c was
// given random routing's c × M/G/1 (Wq 2031 where p2c measured 295).
func TestShapeP2CHasNoClosedForm(t *testing.T) {
	mom := sim.Moments{Mean: 100, Second: 50_000}
	for _, d := range []int{0, 2, 3} {
		pr, err := PredictShape(5, 0.03, mom, sim.Lognormal, sim.PerServer, sim.P2C, d)
		if err != nil || pr.Theory != nil || !strings.Contains(pr.Why, "no queueing model") {
			t.Errorf("p2c, d = %d, lognormal: %+v, %v; want no theory and why", d, pr, err)
		}
	}
	pr, err := PredictShape(5, 0.03, mom, sim.Lognormal, sim.PerServer, sim.P2C, 1)
	if err != nil || pr.Theory == nil || pr.Model != ModelPollaczekKhinchine {
		t.Errorf("p2c, d = 1 (random routing), lognormal: %+v, %v; want %s", pr, err, ModelPollaczekKhinchine)
	}
	// The whole check, as lbsim mmc runs it.
	shape := sim.Shape{Service: sim.Lognormal, MeanService: 20, ServiceCV: 2 * sim.DecimalScale}
	r, err := Run(Params{Servers: 4, Rate: 100_000, MeanService: 20, Shape: &shape, Queues: sim.PerServer, Policy: sim.P2C,
		Cycles: 20_000, Warmup: 1000, Batches: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Theory != nil || r.TheoryError == "" {
		t.Errorf("lbsim mmc of p2c with lognormal times: theory %+v, why %q; want none and why", r.Theory, r.TheoryError)
	}
}

// TestRunStops: a Stop that says stop ends Run at the next multiple of
// 4096 cycles with ErrStopped, with and without fan-out; one that never
// does leaves the run to its end.
func TestRunStops(t *testing.T) {
	for _, tt := range []struct {
		name   string
		fanout int
		stop   bool
		want   error
	}{
		{"stopped", 0, true, ErrStopped},
		{"stopped, fan-out 4", 4, true, ErrStopped},
		{"never asked to stop", 0, false, nil},
	} {
		p := Params{Servers: 8, Rate: 10_000, MeanService: 100, Cycles: 40_000, Warmup: 1000, Batches: 20, Seed: 3}
		if tt.fanout > 0 {
			p.Queues, p.Policy, p.Tail.Fanout = sim.PerServer, sim.RoundRobin, tt.fanout
		}
		asked := 0
		p.Stop = func() bool { asked++; return tt.stop }
		_, err := Run(p)
		if err != tt.want {
			t.Errorf("%s: Run error %v, want %v", tt.name, err, tt.want)
		}
		if wantAsked := 1; tt.stop && asked != wantAsked {
			t.Errorf("%s: Stop asked %d times, want %d", tt.name, asked, wantAsked)
		}
		if !tt.stop && asked != 40_000/4096 {
			t.Errorf("%s: Stop asked %d times, want %d", tt.name, asked, 40_000/4096)
		}
	}
}
