package queueing

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestMMCKnownValues(t *testing.T) {
	tests := []struct {
		name      string
		q         MMC
		wantPWait float64
		wantWq    float64
		tol       float64 // relative for values > 1, absolute otherwise
	}{
		{name: "c=3 λ=0.2 μ=0.1", q: MMC{Servers: 3, Lambda: 0.2, MeanService: 10},
			wantPWait: 4.0 / 9, wantWq: 40.0 / 9, tol: 1e-12},
		{name: "c=3 λ=270 μ=100", q: MMC{Servers: 3, Lambda: 270, MeanService: 1.0 / 100},
			wantPWait: 0.817, wantWq: 0.0272, tol: 5e-4},
		{name: "c=2 a=1", q: MMC{Servers: 2, Lambda: 0.01, MeanService: 100},
			wantPWait: 1.0 / 3, wantWq: 100.0 / 3, tol: 1e-12},
		{name: "no arrivals", q: MMC{Servers: 4, Lambda: 0, MeanService: 7},
			wantPWait: 0, wantWq: 0, tol: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.q.Metrics()
			if err != nil {
				t.Fatalf("%+v.Metrics(): %v", tt.q, err)
			}
			if !near(got.PWait, tt.wantPWait, tt.tol) {
				t.Errorf("PWait = %.17g, want %.17g (±%g)", got.PWait, tt.wantPWait, tt.tol)
			}
			if !near(got.Wq, tt.wantWq, tt.tol) {
				t.Errorf("Wq = %.17g, want %.17g (±%g)", got.Wq, tt.wantWq, tt.tol)
			}
			checkRelations(t, tt.q, got)
		})
	}
}

// checkRelations checks the identities every Metrics value must satisfy.
func checkRelations(t *testing.T, q MMC, m Metrics) {
	t.Helper()
	const tol = 1e-12
	c := float64(q.Servers)
	a := q.Lambda * q.MeanService
	checks := []struct {
		name      string
		got, want float64
	}{
		{"OfferedLoad = λ·m", m.OfferedLoad, a},
		{"Rho = a/c", m.Rho, a / c},
		{"Utilisation = ρ", m.Utilisation, a / c},
		{"Lq = λ·Wq", m.Lq, q.Lambda * m.Wq},
		{"W = Wq + m", m.W, m.Wq + q.MeanService},
		{"L = λ·W", m.L, q.Lambda * m.W},
		{"L = Lq + a", m.L, m.Lq + a},
	}
	for _, ch := range checks {
		if !near(ch.got, ch.want, tol) {
			t.Errorf("%s: got %.17g, want %.17g", ch.name, ch.got, ch.want)
		}
	}
	if !(m.PWait >= 0 && m.PWait <= 1) {
		t.Errorf("PWait = %g, outside [0, 1]", m.PWait)
	}
}

func TestMMOneReduces(t *testing.T) {
	for _, rho := range []float64{0, 0.1, 0.5, 0.8, 0.95, 0.999} {
		for _, m := range []float64{1, 25, 100} {
			q := MMC{Servers: 1, Lambda: rho / m, MeanService: m}
			mu, lambda := 1/m, rho/m
			wantWq := rho / (mu - lambda)
			for name, f := range map[string]func() (Metrics, error){"Metrics": q.Metrics, "Split": q.Split} {
				got, err := f()
				if err != nil {
					t.Fatalf("%+v.%s(): %v", q, name, err)
				}
				if !near(got.Wq, wantWq, 1e-9) || !near(got.PWait, rho, 1e-12) {
					t.Errorf("%+v.%s(): Wq = %g, PWait = %g; want ρ/(μ−λ) = %g and ρ = %g",
						q, name, got.Wq, got.PWait, wantWq, rho)
				}
			}
		}
	}
}

func TestSplitWaitsLonger(t *testing.T) {
	for _, c := range []int{1, 2, 5, 20, 1000} {
		for _, rho := range []float64{0.01, 0.3, 0.5, 0.8, 0.9, 0.99} {
			q := MMC{Servers: c, Lambda: rho * float64(c) / 100, MeanService: 100}
			pooled, err := q.Metrics()
			if err != nil {
				t.Fatal(err)
			}
			split, err := q.Split()
			if err != nil {
				t.Fatal(err)
			}
			checkRelations(t, q, pooled)
			checkRelations(t, q, split)
			if pooled.Wq > split.Wq*(1+1e-12) || pooled.PWait > split.PWait*(1+1e-12) {
				t.Errorf("c=%d ρ=%g: pooled Wq %g, P(wait) %g exceed split Wq %g, P(wait) %g",
					c, rho, pooled.Wq, pooled.PWait, split.Wq, split.PWait)
			}
			if wantWq := rho / (1/q.MeanService - q.Lambda/float64(c)); !near(split.Wq, wantWq, 1e-9) {
				t.Errorf("c=%d ρ=%g: split Wq = %g, want ρ/(μ − λ/c) = %g", c, rho, split.Wq, wantWq)
			}
		}
	}
}

func TestMMCErrors(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		name string
		q    MMC
		want error
		msg  string
	}{
		{"zero value", MMC{}, ErrInvalid, "servers c = 0"},
		{"no servers", MMC{Servers: 0, Lambda: 0.1, MeanService: 1}, ErrInvalid, "servers c = 0"},
		{"negative λ", MMC{Servers: 1, Lambda: -0.1, MeanService: 1}, ErrInvalid, "arrival rate λ = -0.1"},
		{"NaN λ", MMC{Servers: 1, Lambda: nan, MeanService: 1}, ErrInvalid, "arrival rate λ = NaN"},
		{"Inf λ", MMC{Servers: 1, Lambda: inf, MeanService: 1}, ErrInvalid, "arrival rate λ = +Inf"},
		{"zero m", MMC{Servers: 1, Lambda: 0.1, MeanService: 0}, ErrInvalid, "mean service time m = 0"},
		{"negative m", MMC{Servers: 1, Lambda: 0.1, MeanService: -5}, ErrInvalid, "m must be a finite number > 0"},
		{"NaN m", MMC{Servers: 1, Lambda: 0.1, MeanService: nan}, ErrInvalid, "mean service time m = NaN"},
		{"Inf m", MMC{Servers: 1, Lambda: 0.1, MeanService: inf}, ErrInvalid, "mean service time m = +Inf"},
		{"λ·m overflows", MMC{Servers: 1, Lambda: 1e200, MeanService: 1e200}, ErrInvalid, "must be finite"},
		{"wait overflows", MMC{Servers: 2, Lambda: 1e-300, MeanService: 1.9999999999999996e300}, ErrInvalid, "overflows float64"},
		{"ρ = 1", MMC{Servers: 5, Lambda: 0.05, MeanService: 100}, ErrUnstable, "a = λ·m = 5 ≥ c = 5"},
		{"ρ > 1", MMC{Servers: 5, Lambda: 0.45, MeanService: 100}, ErrUnstable, "grows without bound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, f := range map[string]func() (Metrics, error){"Metrics": tt.q.Metrics, "Split": tt.q.Split} {
				got, err := f()
				if !errors.Is(err, tt.want) {
					t.Fatalf("%+v.%s() error = %v, want %v", tt.q, name, err, tt.want)
				}
				if !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("%+v.%s() error %q does not mention %q", tt.q, name, err, tt.msg)
				}
				if got != (Metrics{}) {
					t.Errorf("%+v.%s() = %+v with an error, want the zero Metrics", tt.q, name, got)
				}
			}
		})
	}
}
