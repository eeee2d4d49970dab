package detmath

import (
	"math"
	"testing"
)

func TestExpNegMatchesMath(t *testing.T) {
	for i := 0; i <= 200000; i++ {
		x := float64(i) / 200 // 0 … 1000
		got, want := ExpNeg(x), math.Exp(-x)
		if want == 0 || want < 1e-300 {
			if got > 1e-300 {
				t.Fatalf("ExpNeg(%v) = %v, want ≈ %v", x, got, want)
			}
			continue
		}
		if rel := math.Abs(got-want) / want; rel > 1e-14 {
			t.Fatalf("ExpNeg(%v) = %v, want %v (relative error %g)", x, got, want, rel)
		}
	}
}

func TestExpNegEdges(t *testing.T) {
	tests := []struct {
		x, want float64
	}{
		{-1, 1}, {0, 1}, {746, 0}, {math.Inf(1), 0},
	}
	for _, tt := range tests {
		if got := ExpNeg(tt.x); got != tt.want {
			t.Errorf("ExpNeg(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
}
