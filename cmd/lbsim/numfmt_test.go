package main

import (
	"math"
	"testing"
)

// TestIntervalFormat: the half-width has two significant digits and the
// mean and the ends as many decimals, never an exponent.
func TestIntervalFormat(t *testing.T) {
	for _, tt := range []struct {
		mean, half float64
		want       string
	}{
		{2261.3, 107.9, "2260 ± 110"},
		{0.5279, 0.01609, "0.528 ± 0.016"},
		{0.028247, 0.0029795, "0.0282 ± 0.0030"},
		{5067, 0, "5067 ± 0"},
		{1.5, 0.25, "1.50 ± 0.25"},
		{15.835, 0.7756, "15.84 ± 0.78"},
		{4.09e-05, 1.7e-05, "0.000041 ± 0.000017"},
		{-0.0001, 0.25, "0.00 ± 0.25"},
		{3, math.NaN(), "3"},
	} {
		if got := formatInterval(tt.mean, tt.half); got != tt.want {
			t.Errorf("formatInterval(%v, %v) = %q, want %q", tt.mean, tt.half, got, tt.want)
		}
	}
	if got, want := formatRange(4.09e-05, 2.392e-05, 5.788e-05), "0.000041 [0.000024, 0.000058]"; got != want {
		t.Errorf("formatRange = %q, want %q", got, want)
	}
	if got, want := formatRange(0, 0, 0), "0 [0, 0]"; got != want {
		t.Errorf("formatRange of nothing = %q, want %q", got, want)
	}
}
