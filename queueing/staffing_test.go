package queueing

import (
	"errors"
	"math"
	"testing"
)

func TestMinServersForWait(t *testing.T) {
	for _, tc := range []struct{ lambda, m, w float64 }{
		{0.04, 100, 10}, {0.5, 10, 1}, {2, 100, 5}, {2, 100, 0.5}, {0.001, 100, 0}, {10, 100, 2},
	} {
		c, err := MinServersForWait(tc.lambda, tc.m, tc.w)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		at, err := MMC{Servers: c, Lambda: tc.lambda, MeanService: tc.m}.Metrics()
		if err != nil || at.Wq > tc.w {
			t.Errorf("%+v: c = %d has Wq = %g (err %v), want ≤ %g", tc, c, at.Wq, err, tc.w)
		}
		if below, err := (MMC{Servers: c - 1, Lambda: tc.lambda, MeanService: tc.m}).Metrics(); c > 1 && err == nil && below.Wq <= tc.w {
			t.Errorf("%+v: c − 1 = %d already has Wq = %g ≤ %g: %d is not the fewest", tc, c-1, below.Wq, tc.w, c)
		}
	}
}

func TestMinServersForWaitQuantile(t *testing.T) {
	tail := func(c int, lambda, m, tt float64) float64 {
		a := lambda * m
		return erlangC(c, a) * math.Exp(-(float64(c)-a)*tt/m)
	}
	for _, tc := range []struct{ lambda, m, p, t float64 }{
		{2, 100, 0.99, 200}, {0.04, 100, 0.95, 50}, {0.5, 10, 0.5, 0},
	} {
		c, err := MinServersForWaitQuantile(tc.lambda, tc.m, tc.p, tc.t)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if got := tail(c, tc.lambda, tc.m, tc.t); got > 1-tc.p+1e-12 {
			t.Errorf("%+v: c = %d leaves P(Wq > t) = %g > %g", tc, c, got, 1-tc.p)
		}
		if c-1 > int(tc.lambda*tc.m) && tail(c-1, tc.lambda, tc.m, tc.t) <= 1-tc.p-1e-12 {
			t.Errorf("%+v: c − 1 = %d already meets it", tc, c-1)
		}
	}
}

func TestStaffingErrors(t *testing.T) {
	for name, err := range map[string]error{
		"negative w":   second(MinServersForWait(1, 10, -1)),
		"NaN λ":        second(MinServersForWait(math.NaN(), 10, 1)),
		"zero m":       second(MinServersForWait(1, 0, 1)),
		"huge load":    second(MinServersForWait(1e6, 1e3, 1)),
		"p = 1":        second(MinServersForWaitQuantile(1, 10, 1, 5)),
		"negative t":   second(MinServersForWaitQuantile(1, 10, 0.9, -5)),
		"P(wait) = 0":  second(HalfinWhittBeta(0)),
		"P(wait) = 1":  second(HalfinWhittBeta(1)),
		"P(wait) NaN":  second(HalfinWhittBeta(math.NaN())),
		"P(wait) tiny": second(HalfinWhittBeta(1e-320)),
	} {
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want an input error", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestHalfinWhittBeta(t *testing.T) {
	// Round trip: β → P(wait) by the formula → β.
	for _, beta := range []float64{0.05, 0.5, 1, 1.5, 2.5, 4} {
		phi := math.Exp(-beta*beta/2) / math.Sqrt(2*math.Pi)
		p := 1 / (1 + beta*0.5*math.Erfc(-beta/math.Sqrt2)/phi)
		got, err := HalfinWhittBeta(p)
		if err != nil || math.Abs(got-beta) > 1e-9 {
			t.Errorf("P(wait) = %g: β = %g (err %v), want %g", p, got, err, beta)
		}
	}
	// Beside Erlang C: at its answer for a large load, a + β√a lands within
	// a server or two of it (the heavy-traffic limit).
	lambda, m := 2.0, 100.0
	c, err := MinServersForWait(lambda, m, 5)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := ErlangC(c, lambda*m)
	beta, err := HalfinWhittBeta(pw)
	if err != nil {
		t.Fatal(err)
	}
	if est := SquareRootStaffing(lambda*m, beta); math.Abs(est-float64(c)) > 2 {
		t.Errorf("square-root staffing gives %g beside Erlang C's %d (β = %g, P(wait) = %g)", est, c, beta, pw)
	}
}
