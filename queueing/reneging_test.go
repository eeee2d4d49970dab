package queueing

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/detmath"
)

// renegingCases are checked against independent simulations: lbsim's own
// case (c = 10, ρ = 0.95, m = τ = 100), one with a short service where the
// whole-cycle clock matters, and an overloaded one (ρ = 1.5, kept stable by
// those who leave).
var renegingCases = []struct {
	name string
	q    Reneging
}{
	{"c=10 ρ=0.95 m=100 τ=100", Reneging{Servers: 10, Lambda: 0.095, MeanService: 100, Patience: 100}},
	{"c=3 ρ=0.8 m=4 τ=6", Reneging{Servers: 3, Lambda: 0.6, MeanService: 4, Patience: 6}},
	{"c=2 ρ=1.5 m=3 τ=4", Reneging{Servers: 2, Lambda: 1, MeanService: 3, Patience: 4}},
}

// simStats is what a simulation measured: interval estimates of the share
// that left the queue, the share completed and the mean wait of those
// served.
type simStats struct{ left, completed, wait Interval }

// batchStats collects per-arrival observations into batch means.
type batchStats struct{ left, completed, wait *BatchMeans }

func newBatchStats(t *testing.T, size int) batchStats {
	t.Helper()
	var s batchStats
	for _, p := range []**BatchMeans{&s.left, &s.completed, &s.wait} {
		b, err := NewBatchMeans(size)
		if err != nil {
			t.Fatal(err)
		}
		*p = b
	}
	return s
}

// add records one arrival: whether it left, whether it completed, and its
// wait if served (the wait batches count served arrivals only).
func (s batchStats) add(left, completed bool, wait float64) {
	b := func(x bool) float64 {
		if x {
			return 1
		}
		return 0
	}
	_ = s.left.Add(b(left))
	_ = s.completed.Add(b(completed))
	if !left {
		_ = s.wait.Add(wait)
	}
}

func (s batchStats) intervals(t *testing.T) simStats {
	t.Helper()
	var out simStats
	for _, p := range []struct {
		b  *BatchMeans
		iv *Interval
	}{{s.left, &out.left}, {s.completed, &out.completed}, {s.wait, &out.wait}} {
		iv, err := p.b.Interval()
		if err != nil {
			t.Fatal(err)
		}
		*p.iv = iv
	}
	return out
}

// simulateContinuous runs an M/M/c+D queue in continuous time for n
// arrivals. With first-come-first-served and one patience for all, an
// arrival is served iff the earliest time a server frees (after those
// ahead of it took theirs) is less than τ away, and one who leaves takes
// no server: so each arrival just takes the earliest-free server or leaves
// (a Lindley recursion over c servers).
func simulateContinuous(t *testing.T, q Reneging, n int, seed uint64) simStats {
	rng := rand.New(rand.NewPCG(seed, 1))
	free := make([]float64, q.Servers)
	st := newBatchStats(t, n/40)
	now := 0.0
	for range n {
		now += rng.ExpFloat64() / q.Lambda
		k := 0
		for i, f := range free {
			if f < free[k] {
				k = i
			}
		}
		wait := max(free[k]-now, 0)
		if wait >= q.Patience {
			st.add(true, false, 0)
			continue
		}
		svc := rng.ExpFloat64() * q.MeanService
		free[k] = now + wait + svc
		st.add(false, wait+svc <= q.Patience, wait)
	}
	return st.intervals(t)
}

// simulateDiscrete runs lbsim's whole-cycle rules for the given cycles:
// Poisson(λ) arrivals in each cycle's step b, geometric service of k ≥ 1
// cycles started at step d and ending at step a of start + k, an arrival at
// t started at the first cycle ≥ t with a free server if that is before
// t + τ (else it leaves at step a′ of t + τ), completed iff it ends by
// cycle t + τ. The same earliest-free-server recursion applies, with a
// server freed at step a of cycle f taking work at step d of f.
func simulateDiscrete(t *testing.T, q Reneging, cycles int, seed uint64) simStats {
	rng := rand.New(rand.NewPCG(seed, 2))
	tau := int64(q.Patience)
	free := make([]int64, q.Servers)
	st := newBatchStats(t, int(float64(cycles)*q.Lambda/40))
	e := detmath.ExpNeg(q.Lambda)
	lq := math.Log1p(-1 / q.MeanService)
	for now := range int64(cycles) {
		// Poisson by inversion.
		arrivals, p, u := 0, e, rng.Float64()
		for cum := p; u >= cum; cum += p {
			arrivals++
			p = p * q.Lambda / float64(arrivals)
		}
		for range arrivals {
			k := 0
			for i, f := range free {
				if f < free[k] {
					k = i
				}
			}
			start := max(free[k], now)
			if start-now >= tau {
				st.add(true, false, 0)
				continue
			}
			svc := int64(1)
			if lq < 0 {
				svc += int64(math.Floor(math.Log(1-rng.Float64()) / lq))
			}
			free[k] = start + svc
			st.add(false, start+svc <= now+tau, float64(start-now))
		}
	}
	return st.intervals(t)
}

// TestRenegingAgainstSimulation checks both models against long plain
// simulations written here: Continuous against a continuous-time one,
// Discrete against lbsim's whole-cycle rules. Each theory value must lie
// within two half-widths of the simulation's 95% interval (about four
// standard errors), and the two simulations must disagree where the clock
// matters (the short-service case), so the test can tell the models apart.
func TestRenegingAgainstSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("long simulation")
	}
	for i, tt := range renegingCases {
		t.Run(tt.name, func(t *testing.T) {
			cont, err := tt.q.Continuous()
			if err != nil {
				t.Fatal(err)
			}
			disc, err := tt.q.Discrete()
			if err != nil {
				t.Fatal(err)
			}
			arrivals := 400_000
			sc := simulateContinuous(t, tt.q, arrivals, uint64(10+i))
			sd := simulateDiscrete(t, tt.q, int(float64(arrivals)/tt.q.Lambda), uint64(20+i))
			for _, c := range []struct {
				what   string
				theory float64
				sim    Interval
			}{
				{"continuous: left the queue", cont.TimedOutQueued, sc.left},
				{"continuous: completed", cont.Completed, sc.completed},
				{"continuous: wait of the served", cont.WaitServed, sc.wait},
				{"discrete: left the queue", disc.TimedOutQueued, sd.left},
				{"discrete: completed", disc.Completed, sd.completed},
				{"discrete: wait of the served", disc.WaitServed, sd.wait},
			} {
				half := c.sim.HalfWidth
				t.Logf("%s: theory %.5f, simulation %.5f ± %.5f", c.what, c.theory, c.sim.Mean, half)
				if math.Abs(c.theory-c.sim.Mean) > 2*half {
					t.Errorf("%s: theory %.6g, simulation %.6g ± %.4g (95%%)", c.what, c.theory, c.sim.Mean, half)
				}
			}
		})
	}
}

// TestRenegingClockMatters shows that the two models differ where they
// should: with m = 4 and τ = 6 whole cycles the discrete chain's numbers
// are far from the continuous ones (so matching each simulation above says
// something), while at lbsim's m = τ = 100 they agree to about 1%.
func TestRenegingClockMatters(t *testing.T) {
	for _, tt := range []struct {
		q       Reneging
		minDiff float64 // |discrete − continuous| completed share, at least
		maxDiff float64 // and at most
	}{
		{Reneging{Servers: 3, Lambda: 0.6, MeanService: 4, Patience: 6}, 0.02, 1},
		{Reneging{Servers: 10, Lambda: 0.095, MeanService: 100, Patience: 100}, 0, 0.01},
	} {
		cont, err := tt.q.Continuous()
		if err != nil {
			t.Fatal(err)
		}
		disc, err := tt.q.Discrete()
		if err != nil {
			t.Fatal(err)
		}
		d := math.Abs(disc.Completed - cont.Completed)
		if d < tt.minDiff || d > tt.maxDiff {
			t.Errorf("%+v: completed share discrete %.5f, continuous %.5f: difference %.5f outside [%g, %g]",
				tt.q, disc.Completed, cont.Completed, d, tt.minDiff, tt.maxDiff)
		}
	}
}

// TestRenegingLimits checks the continuous model against Erlang B and C,
// and both models against what no queue at all gives.
func TestRenegingLimits(t *testing.T) {
	// τ = 0: whoever finds every server busy leaves, Erlang B's loss system.
	for _, c := range []int{1, 4, 10} {
		for _, a := range []float64{0.5, float64(c), 3 * float64(c)} {
			got, err := Reneging{Servers: c, Lambda: a / 20, MeanService: 20, Patience: 0}.Continuous()
			if err != nil {
				t.Fatal(err)
			}
			b := erlangB(c, a)
			if !near(got.TimedOutQueued, b, 1e-12) || !near(got.PWait, b, 1e-12) || got.Completed > 1e-12 {
				t.Errorf("c=%d a=%g τ=0: left %.15g, P(wait) %.15g, completed %g; want Erlang B %.15g, %.15g, 0",
					c, a, got.TimedOutQueued, got.PWait, got.Completed, b, b)
			}
		}
	}
	// τ → ∞: nobody leaves, Erlang C's P(wait) and Wq.
	q := MMC{Servers: 10, Lambda: 0.095, MeanService: 100}
	mm, err := q.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Reneging{Servers: 10, Lambda: 0.095, MeanService: 100, Patience: 1e6}.Continuous()
	if err != nil {
		t.Fatal(err)
	}
	if got.TimedOutQueued > 1e-12 || !near(got.PWait, mm.PWait, 1e-9) || !near(got.WaitServed, mm.Wq, 1e-9) {
		t.Errorf("τ = 10⁶: left %g, P(wait) %.12g, wait %.12g; want 0, Erlang C %.12g, %.12g",
			got.TimedOutQueued, got.PWait, got.WaitServed, mm.PWait, mm.Wq)
	}
	// λ = 0: nobody waits; a service longer than τ is abandoned in service:
	// e^(−τ/m) in continuous time, (1 − 1/m)^τ on the whole-cycle clock,
	// and the mean response of the completed is E[S | S ≤ τ].
	for _, tt := range []struct {
		name      string
		f         func(Reneging) (RenegingMetrics, error)
		abandoned float64
		response  float64
	}{
		{"continuous", Reneging.Continuous, math.Exp(-0.5), 5 * (1 - math.Exp(-0.5)*1.5) / (1 - math.Exp(-0.5))},
		{"discrete", Reneging.Discrete, math.Pow(0.8, 2.5), (1 - math.Pow(0.8, 2.5)*(1+2.5*0.2)) / 0.2 / (1 - math.Pow(0.8, 2.5))},
	} {
		q := Reneging{Servers: 3, Lambda: 0, MeanService: 5, Patience: 2.5}
		if tt.name == "discrete" {
			// Whole cycles: τ = 2.5 is refused; compute for τ = 5, m = 10.
			q = Reneging{Servers: 3, Lambda: 0, MeanService: 10, Patience: 5}
			tt.abandoned = math.Pow(0.9, 5)
			tt.response = (1 - math.Pow(0.9, 5)*(1+5*0.1)) / 0.1 / (1 - math.Pow(0.9, 5))
		}
		got, err := tt.f(q)
		if err != nil {
			t.Fatal(err)
		}
		if got.TimedOutQueued != 0 || got.PWait != 0 || got.WaitServed != 0 ||
			!near(got.TimedOutInService, tt.abandoned, 1e-12) || !near(got.Completed, 1-tt.abandoned, 1e-12) ||
			!near(got.ResponseCompleted, tt.response, 1e-12) {
			t.Errorf("%s, λ = 0: %+v; want no wait, %.12g abandoned in service, response %.12g",
				tt.name, got, tt.abandoned, tt.response)
		}
	}
}

// TestRenegingRelations checks identities of every result: the shares add
// to 1, Busy = λ·(1 − left)·m, the completed wait at most the served wait,
// and the discrete chain's shares near the continuous ones when m and τ are
// long.
func TestRenegingRelations(t *testing.T) {
	for _, tt := range renegingCases {
		for _, f := range []func(Reneging) (RenegingMetrics, error){Reneging.Continuous, Reneging.Discrete} {
			got, err := f(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if s := got.TimedOutQueued + got.TimedOutInService + got.Completed; !near(s, 1, 1e-9) {
				t.Errorf("%s: shares add up to %.15g", tt.name, s)
			}
			if want := tt.q.Lambda * (1 - got.TimedOutQueued) * tt.q.MeanService; !near(got.Busy, want, 1e-9) {
				t.Errorf("%s: Busy %g, want λ(1 − left)m = %g", tt.name, got.Busy, want)
			}
			if got.WaitCompleted > got.WaitServed || got.WaitServed >= tt.q.Patience || got.PWait < got.TimedOutQueued {
				t.Errorf("%s: inconsistent %+v", tt.name, got)
			}
		}
	}
}

// TestRenegingInvalid checks that every bad input is refused with an error
// naming it.
func TestRenegingInvalid(t *testing.T) {
	ok := Reneging{Servers: 2, Lambda: 0.5, MeanService: 3, Patience: 5}
	for _, tt := range []struct {
		name     string
		q        Reneging
		discrete bool // only Discrete refuses it
		want     string
	}{
		{"no servers", Reneging{Servers: 0, Lambda: 1, MeanService: 1, Patience: 1}, false, "servers c"},
		{"negative rate", Reneging{Servers: 1, Lambda: -1, MeanService: 1, Patience: 1}, false, "arrival rate λ"},
		{"NaN rate", Reneging{Servers: 1, Lambda: math.NaN(), MeanService: 1, Patience: 1}, false, "arrival rate λ"},
		{"zero mean", Reneging{Servers: 1, Lambda: 1, MeanService: 0, Patience: 1}, false, "mean service time m"},
		{"infinite mean", Reneging{Servers: 1, Lambda: 1, MeanService: math.Inf(1), Patience: 1}, false, "mean service time m"},
		{"negative patience", Reneging{Servers: 1, Lambda: 1, MeanService: 1, Patience: -1}, false, "patience τ"},
		{"NaN patience", Reneging{Servers: 1, Lambda: 1, MeanService: 1, Patience: math.NaN()}, false, "patience τ"},
		{"overflow", Reneging{Servers: 1, Lambda: 1e300, MeanService: 1, Patience: 1e300}, false, "overflows"},
		{"fractional patience", Reneging{Servers: 1, Lambda: 1, MeanService: 2, Patience: 1.5}, true, "whole number"},
		{"zero patience", Reneging{Servers: 1, Lambda: 1, MeanService: 2, Patience: 0}, true, "whole number"},
		{"mean below 1", Reneging{Servers: 1, Lambda: 1, MeanService: 0.5, Patience: 3}, true, "≥ 1"},
		{"rate above 100", Reneging{Servers: 1, Lambda: 101, MeanService: 2, Patience: 3}, true, "from 0 to 100"},
		{"too many states", Reneging{Servers: 100, Lambda: 1, MeanService: 2, Patience: 100}, true, "states"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := map[string]func(Reneging) (RenegingMetrics, error){"Discrete": Reneging.Discrete}
			if !tt.discrete {
				fs["Continuous"] = Reneging.Continuous
			} else if _, err := tt.q.Continuous(); err != nil && tt.name != "zero patience" {
				t.Errorf("Continuous refused %+v: %v", tt.q, err)
			}
			for name, f := range fs {
				if name == "Discrete" && tt.name == "overflow" {
					continue // refused earlier, for λ > 100
				}
				_, err := f(tt.q)
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s(%+v) = %v; want an error naming %q", name, tt.q, err, tt.want)
				}
			}
		})
	}
	if _, err := ok.Discrete(); err != nil {
		t.Errorf("Discrete(%+v): %v", ok, err)
	}
}

// TestRetryEquilibria checks the mean field of retries: without retries the
// only state is Λ = λ; with lbsim's metastable lesson (c = 10, m = 100,
// λ = 0.08, timeout 1000, 3 retries) there are three, a healthy stable one
// (Λ ≈ λ, nearly every request completes), an unstable one, and a stable
// overloaded one where about 4% of requests complete.
func TestRetryEquilibria(t *testing.T) {
	q := Reneging{Servers: 10, Lambda: 0.08, MeanService: 100, Patience: 1000}
	eq, err := q.RetryEquilibria(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(eq) != 1 || eq[0].AttemptRate != 0.08 || !eq[0].Stable {
		t.Errorf("no retries: %+v; want the one state Λ = λ", eq)
	}
	eq, err = q.RetryEquilibria(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eq {
		t.Logf("Λ = %.5f stable %v: %.3f attempts a request, request completes %.5f", e.AttemptRate, e.Stable, e.AttemptsPerRequest, e.Completed)
	}
	if len(eq) != 3 || !eq[0].Stable || eq[1].Stable || !eq[2].Stable {
		t.Fatalf("got %d states; want stable, unstable, stable", len(eq))
	}
	if eq[0].Completed < 0.9999 || eq[0].AttemptRate > 0.0801 {
		t.Errorf("healthy state %+v; want Λ ≈ 0.08 and nearly all complete", eq[0])
	}
	if eq[2].Completed < 0.02 || eq[2].Completed > 0.06 || eq[2].AttemptRate < 0.3 {
		t.Errorf("overloaded state %+v; want Λ > 0.3 and 2–6%% of requests complete", eq[2])
	}
	for _, e := range eq {
		if want := 0.08 * e.AttemptsPerRequest; !near(e.AttemptRate, want, 1e-9) {
			t.Errorf("Λ = %.12g is not λ·(attempts a request) = %.12g", e.AttemptRate, want)
		}
	}
	// When even four attempts per request fit in the pool (4λm < c), the
	// healthy state is the only one, however short the timeout.
	calm := Reneging{Servers: 10, Lambda: 0.02, MeanService: 100, Patience: 300}
	if eq, err := calm.RetryEquilibria(3); err != nil || len(eq) != 1 || !eq[0].Stable {
		t.Errorf("λ = 0.02: %+v, %v; want one stable state", eq, err)
	}
	if _, err := q.RetryEquilibria(11); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "retries N") {
		t.Errorf("11 retries: %v; want an error naming retries N", err)
	}
}

// TestRenegingGoldenBits pins exact bits, as TestGoldenBits does for the
// rest of the package: the results must be the same natively and in
// WebAssembly (run it with GOOS=js GOARCH=wasm too).
func TestRenegingGoldenBits(t *testing.T) {
	cont, err := Reneging{Servers: 10, Lambda: 0.095, MeanService: 100, Patience: 100}.Continuous()
	if err != nil {
		t.Fatal(err)
	}
	over, err := Reneging{Servers: 2, Lambda: 1, MeanService: 3, Patience: 400}.Continuous()
	if err != nil {
		t.Fatal(err)
	}
	disc, err := Reneging{Servers: 3, Lambda: 0.6, MeanService: 4, Patience: 6}.Discrete()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		got  float64
		want uint64
	}{
		{"continuous TimedOutQueued", cont.TimedOutQueued, 0x3fa8733697b08592},       // 0.047754007355489084
		{"continuous ResponseCompleted", cont.ResponseCompleted, 0x404a6cceeceb8a62}, // 52.850064864168203
		{"overloaded Completed", over.Completed, 0x3fd5555555555557},                 // 0.33333333333333343
		{"overloaded WaitServed", over.WaitServed, 0x4078cffffffffffe},               // 396.99999999999989
		{"discrete TimedOutQueued", disc.TimedOutQueued, 0x3fb063d67f22e81f},         // 0.064023405112408657
		{"discrete ResponseCompleted", disc.ResponseCompleted, 0x400a60b6e23c26c9},   // 3.297223823033026
	} {
		if got := math.Float64bits(tt.got); got != tt.want {
			t.Errorf("%s = %.17g (%#016x), want %.17g (%#016x)",
				tt.name, tt.got, got, math.Float64frombits(tt.want), tt.want)
		}
	}
}
