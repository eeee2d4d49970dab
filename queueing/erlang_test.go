package queueing

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// near reports whether got is within tol of want, relative to |want| when
// |want| > 1 and absolute otherwise.
func near(got, want, tol float64) bool {
	d := math.Abs(got - want)
	if s := math.Abs(want); s > 1 {
		return d <= tol*s
	}
	return d <= tol
}

func TestErlangBKnownValues(t *testing.T) {
	tests := []struct {
		c    int
		a    float64
		want float64
		tol  float64
	}{
		{c: 1, a: 1, want: 0.5, tol: 1e-15},
		{c: 2, a: 1, want: 0.2, tol: 1e-15},
		{c: 3, a: 2, want: 4.0 / 19, tol: 1e-15}, // (8/6) / (1 + 2 + 2 + 8/6)
		{c: 1, a: 0, want: 0, tol: 0},
		{c: 5, a: 0, want: 0, tol: 0},
		{c: 1, a: 3, want: 0.75, tol: 1e-15}, // a / (1 + a)
		// Overload is allowed for B: a lost call system is always stable.
		{c: 2, a: 10, want: 50.0 / 61, tol: 1e-15}, // 50 / (1 + 10 + 50)
	}
	for _, tt := range tests {
		got, err := ErlangB(tt.c, tt.a)
		if err != nil {
			t.Errorf("ErlangB(%d, %g): unexpected error %v", tt.c, tt.a, err)
			continue
		}
		if !near(got, tt.want, tt.tol) {
			t.Errorf("ErlangB(%d, %g) = %.17g, want %.17g (±%g)", tt.c, tt.a, got, tt.want, tt.tol)
		}
	}
}

func TestErlangCKnownValues(t *testing.T) {
	tests := []struct {
		c    int
		a    float64
		want float64
		tol  float64
	}{
		{c: 2, a: 1, want: 1.0 / 3, tol: 1e-15},
		{c: 1, a: 0.5, want: 0.5, tol: 1e-15}, // M/M/1: C = ρ
		{c: 1, a: 0.9, want: 0.9, tol: 1e-15},
		{c: 3, a: 2, want: 4.0 / 9, tol: 1e-15},
		{c: 3, a: 2.7, want: 0.817, tol: 5e-4}, // λ = 270, μ = 100
		{c: 4, a: 0, want: 0, tol: 0},
	}
	for _, tt := range tests {
		got, err := ErlangC(tt.c, tt.a)
		if err != nil {
			t.Errorf("ErlangC(%d, %g): unexpected error %v", tt.c, tt.a, err)
			continue
		}
		if !near(got, tt.want, tt.tol) {
			t.Errorf("ErlangC(%d, %g) = %.17g, want %.17g (±%g)", tt.c, tt.a, got, tt.want, tt.tol)
		}
	}
}

func TestErlangErrors(t *testing.T) {
	tests := []struct {
		name string
		c    int
		a    float64
		want error // for ErlangC; ErlangB never reports ErrUnstable
	}{
		{name: "no servers", c: 0, a: 1, want: ErrInvalid},
		{name: "negative servers", c: -3, a: 1, want: ErrInvalid},
		{name: "too many servers", c: MaxServers + 1, a: 1, want: ErrInvalid},
		{name: "negative load", c: 2, a: -0.1, want: ErrInvalid},
		{name: "NaN load", c: 2, a: math.NaN(), want: ErrInvalid},
		{name: "+Inf load", c: 2, a: math.Inf(1), want: ErrInvalid},
		{name: "-Inf load", c: 2, a: math.Inf(-1), want: ErrInvalid},
		{name: "ρ = 1", c: 3, a: 3, want: ErrUnstable},
		{name: "ρ > 1", c: 3, a: 4.5, want: ErrUnstable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotC, err := ErlangC(tt.c, tt.a)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ErlangC(%d, %g) error = %v, want %v", tt.c, tt.a, err, tt.want)
			}
			if math.IsNaN(gotC) {
				t.Errorf("ErlangC(%d, %g) = NaN", tt.c, tt.a)
			}
			if tt.want == ErrUnstable && gotC != 1 {
				t.Errorf("ErlangC(%d, %g) = %g with ErrUnstable, want 1", tt.c, tt.a, gotC)
			}
			_, errB := ErlangB(tt.c, tt.a)
			if tt.want == ErrInvalid && !errors.Is(errB, ErrInvalid) {
				t.Errorf("ErlangB(%d, %g) error = %v, want ErrInvalid", tt.c, tt.a, errB)
			}
			if tt.want == ErrUnstable && errB != nil {
				t.Errorf("ErlangB(%d, %g) error = %v, want none (a loss system is always stable)", tt.c, tt.a, errB)
			}
		})
	}
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		c     int
		a     float64
		wants []string
	}{
		{c: 0, a: 1, wants: []string{"servers c = 0", "from 1 to 10000000"}},
		{c: 2, a: -1, wants: []string{"offered load a = -1", "finite number ≥ 0"}},
		{c: 3, a: 3, wants: []string{"a = λ·m = 3 ≥ c = 3", "ρ = a/c = 1", "grows without bound", "only when ρ < 1"}},
	}
	for _, tt := range tests {
		_, err := ErlangC(tt.c, tt.a)
		if err == nil {
			t.Fatalf("ErlangC(%d, %g): no error", tt.c, tt.a)
		}
		for _, w := range tt.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ErlangC(%d, %g) error %q does not contain %q", tt.c, tt.a, err, w)
			}
		}
	}
	var ue *UnstableError
	if _, err := ErlangC(3, 4.5); !errors.As(err, &ue) || ue.Servers != 3 || ue.Load != 4.5 {
		t.Errorf("ErlangC(3, 4.5) error = %#v, want *UnstableError{3, 4.5}", err)
	}
}

// logErlangB computes ln B(c, a) a different way, for cross-checking: the
// textbook B = (aᶜ/c!) / Σₖ aᵏ/k!, with every term in log space and the sum
// done by log-sum-exp.
func logErlangB(c int, a float64) float64 {
	la := math.Log(a)
	logTerm := func(k int) float64 {
		lg, _ := math.Lgamma(float64(k) + 1)
		return float64(k)*la - lg
	}
	maxT := math.Inf(-1)
	for k := 0; k <= c; k++ {
		maxT = math.Max(maxT, logTerm(k))
	}
	sum := 0.0
	for k := 0; k <= c; k++ {
		sum += math.Exp(logTerm(k) - maxT)
	}
	return logTerm(c) - (maxT + math.Log(sum))
}

func TestErlangLargeServersCrossCheck(t *testing.T) {
	const c = 10_000
	for _, a := range []float64{9000, 9500, 9800, 9900, 9990, 10_000, 10_500} {
		got, err := ErlangB(c, a)
		if err != nil {
			t.Fatalf("ErlangB(%d, %g): %v", c, a, err)
		}
		want := math.Exp(logErlangB(c, a))
		if rel := math.Abs(got-want) / want; !(rel <= 1e-9) {
			t.Errorf("ErlangB(%d, %g) = %.15g, log-space sum gives %.15g (relative difference %.2g > 1e-9)",
				c, a, got, want, rel)
		}
		if a >= c {
			continue
		}
		gotC, err := ErlangC(c, a)
		if err != nil {
			t.Fatalf("ErlangC(%d, %g): %v", c, a, err)
		}
		rho := a / c
		wantC := want / (1 - rho*(1-want))
		if rel := math.Abs(gotC-wantC) / wantC; !(rel <= 1e-9) {
			t.Errorf("ErlangC(%d, %g) = %.15g, log-space sum gives %.15g (relative difference %.2g > 1e-9)",
				c, a, gotC, wantC, rel)
		}
	}
}

func TestErlangStableAndMonotone(t *testing.T) {
	for _, c := range []int{1, 2, 7, 100, 10_000, 100_000} {
		prevB, prevC := -1.0, -1.0
		fc := float64(c)
		for i := 0; i <= 200; i++ {
			a := fc * 1.5 * float64(i) / 200 // 0 … 1.5c
			b, err := ErlangB(c, a)
			if err != nil {
				t.Fatalf("ErlangB(%d, %g): %v", c, a, err)
			}
			if !(b >= 0 && b <= 1) {
				t.Fatalf("ErlangB(%d, %g) = %g, outside [0, 1]", c, a, b)
			}
			if b < prevB {
				t.Fatalf("ErlangB(%d, ·) decreases at a = %g: %g < %g", c, a, b, prevB)
			}
			prevB = b
			if a >= fc {
				continue
			}
			cw, err := ErlangC(c, a)
			if err != nil {
				t.Fatalf("ErlangC(%d, %g): %v", c, a, err)
			}
			if !(cw >= b && cw <= 1) {
				t.Fatalf("ErlangC(%d, %g) = %g, outside [B = %g, 1]", c, a, cw, b)
			}
			if cw < prevC {
				t.Fatalf("ErlangC(%d, ·) decreases at a = %g: %g < %g", c, a, cw, prevC)
			}
			prevC = cw
		}
	}
}

func TestErlangMaxServers(t *testing.T) {
	c := MaxServers
	a := 0.999 * float64(c)
	got, err := ErlangC(c, a)
	if err != nil || !(got > 0 && got < 1) {
		t.Errorf("ErlangC(%d, %g) = %g, %v; want a value in (0, 1)", c, a, got, err)
	}
}
