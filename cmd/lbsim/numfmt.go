package main

import (
	"math"
	"strconv"
)

// One number format for every interval lbsim prints (compare, aggregate):
// the half-width gets two significant digits, and the mean and the ends
// get as many decimals as the half-width, so the digits shown are the
// digits the interval supports, never an exponent: 2261 ± 110 and
// 0.528 ± 0.016, not 2261 ± 107.9 and 0.5279 ± 0.01609.

// intervalDecimals is the decimals that give half two significant digits
// (0 for a half-width of 10 or more, or none).
func intervalDecimals(half float64) int {
	if half <= 0 || math.IsNaN(half) || math.IsInf(half, 0) {
		return -1
	}
	return min(max(0, 1-int(math.Floor(math.Log10(half)))), 15)
}

// fixed writes x with d decimals, rounding a value of 10 or more to two
// significant digits of the half-width's order (2261 at ±107.9 → 2260);
// d < 0 (no interval) writes x as readable does.
func fixed(x float64, d int, half float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case d < 0:
		return readable(x)
	case d == 0 && half >= 10:
		unit := math.Pow(10, math.Floor(math.Log10(half))-1)
		return strconv.FormatFloat(math.Round(x/unit)*unit, 'f', 0, 64)
	}
	s := strconv.FormatFloat(x, 'f', d, 64)
	if s == "-"+strconv.FormatFloat(0, 'f', d, 64) {
		s = s[1:] // no "-0.00"
	}
	return s
}

// formatInterval writes "mean ± half" (the mean alone without a
// half-width).
func formatInterval(mean, half float64) string {
	d := intervalDecimals(half)
	if d < 0 {
		if math.IsNaN(half) {
			return fixed(mean, d, half)
		}
		return fixed(mean, d, half) + " ± 0"
	}
	return fixed(mean, d, half) + " ± " + fixed(half, d, half)
}

// formatRange writes "mean [low, high]" with the digits of the interval.
func formatRange(mean, low, high float64) string {
	half := (high - low) / 2
	d := intervalDecimals(half)
	return fixed(mean, d, half) + " [" + fixed(low, d, half) + ", " + fixed(high, d, half) + "]"
}
