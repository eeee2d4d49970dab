package queueing

import (
	"errors"
	"math"
	"testing"
)

func TestMGCSplit(t *testing.T) {
	tests := []struct {
		name   string
		q      MGC
		wantWq float64
	}{
		// Exponential moments (E[S²] = 2m²): Pollaczek–Khinchine is M/M/1's ρ·m/(1−ρ).
		{"exponential", MGC{Servers: 4, Lambda: 0.02, Mean: 100, Second: 20000}, 0.5 * 100 / 0.5},
		// Constant service (M/D/1): half of M/M/1.
		{"deterministic", MGC{Servers: 1, Lambda: 0.008, Mean: 100, Second: 10000}, 0.8 * 100 / 0.2 / 2},
		// Bimodal 10/1000 with p = 0.01: E[S] = 19.9, E[S²] = 10099, λ₁ = 0.02.
		{"bimodal", MGC{Servers: 10, Lambda: 0.2, Mean: 19.9, Second: 10099}, 0.02 * 10099 / (2 * (1 - 0.02*19.9))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.q.Split()
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.Wq-tt.wantWq) > 1e-9*tt.wantWq {
				t.Errorf("Wq = %v, want %v", got.Wq, tt.wantWq)
			}
			if got.Lq != tt.q.Lambda*got.Wq || got.W != got.Wq+tt.q.Mean {
				t.Errorf("Lq = %v, W = %v: not λ·Wq and Wq + E[S]", got.Lq, got.W)
			}
		})
	}
}

func TestAllenCunneen(t *testing.T) {
	// Exponential moments: exactly Erlang C.
	q := MGC{Servers: 5, Lambda: 0.04, Mean: 100, Second: 20000}
	got, err := q.AllenCunneen()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := MMC{Servers: 5, Lambda: 0.04, MeanService: 100}.Metrics()
	if math.Abs(got.Wq-want.Wq) > 1e-12*want.Wq {
		t.Errorf("exponential: Wq = %v, want Erlang C's %v", got.Wq, want.Wq)
	}
	// One server: Pollaczek–Khinchine exactly; cs² = 4 gives 2.5 × M/M/1.
	q = MGC{Servers: 1, Lambda: 0.005, Mean: 100, Second: 5 * 10000}
	ac, _ := q.AllenCunneen()
	pk, _ := q.Split()
	if math.Abs(ac.Wq-pk.Wq) > 1e-9*pk.Wq || math.Abs(pk.Wq-2.5*100) > 1e-9 {
		t.Errorf("c = 1: Allen–Cunneen %v, Pollaczek–Khinchine %v, want both 250", ac.Wq, pk.Wq)
	}
}

func TestMGCErrors(t *testing.T) {
	tests := []struct {
		q    MGC
		want error
	}{
		{MGC{Servers: 1, Lambda: 0.05, Mean: 10, Second: 50}, ErrInvalid}, // E[S²] < E[S]²
		{MGC{Servers: 1, Lambda: 0.05, Mean: 10, Second: math.NaN()}, ErrInvalid},
		{MGC{Servers: 0, Lambda: 0.1, Mean: 10, Second: 200}, ErrInvalid},
		{MGC{Servers: 2, Lambda: 0.2, Mean: 10, Second: 200}, ErrUnstable},
	}
	for _, tt := range tests {
		if _, err := tt.q.Split(); !errors.Is(err, tt.want) {
			t.Errorf("%+v: Split error %v, want %v", tt.q, err, tt.want)
		}
		if _, err := tt.q.AllenCunneen(); !errors.Is(err, tt.want) {
			t.Errorf("%+v: AllenCunneen error %v, want %v", tt.q, err, tt.want)
		}
	}
}
