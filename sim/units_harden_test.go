package sim_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/lbsim/lbsim/sim"
)

// TestFixedStringExtremes: every fixed-point type formats every int64,
// −2⁶³ included, without panicking, and what it writes reads back (a
// hostile snapshot's −2⁶³ retry budget or cv once panicked in the error
// message that named it: "strings: negative Repeat count").
func TestFixedStringExtremes(t *testing.T) {
	for _, v := range []int64{math.MinInt64, math.MinInt64 + 1, -1_000_001, -1, 0, 1, 999_999, 1_000_001, math.MaxInt64} {
		for name, s := range map[string]string{
			"Decimal": sim.Decimal(v).String(),
			"Rate":    sim.Rate(v).String(),
			"Factor":  sim.Factor(v).String(),
			"Speed":   sim.Speed(int32(max(min(v, math.MaxInt32), math.MinInt32))).String(),
		} {
			if s == "" || s == "-" {
				t.Errorf("%s(%d) formats as %q", name, v, s)
			}
		}
		// Decimal, the scale of a retry budget and a cv: the text is the
		// exact value, sign included.
		got := sim.Decimal(v).String()
		want := exactFixed(v, 1_000_000)
		if got != want {
			t.Errorf("Decimal(%d).String() = %q, want %q", v, got, want)
		}
	}
}

// exactFixed writes v/scale (scale a power of ten) with no trailing
// zeros, working on v's magnitude as a uint64.
func exactFixed(v int64, scale uint64) string {
	sign, u := "", uint64(v)
	if v < 0 {
		sign, u = "-", -uint64(v)
	}
	s := strconv.FormatUint(u/scale, 10)
	if f := u % scale; f != 0 {
		fs := strconv.FormatUint(f+scale, 10)[1:]
		for fs[len(fs)-1] == '0' {
			fs = fs[:len(fs)-1]
		}
		s += "." + fs
	}
	return sign + s
}
