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

// FuzzFixedRoundTrip: what the fixed-point parsers accept formats back to
// the same value, and every int64 formats without a panic, reading back
// when it is one a parser could have written.
func FuzzFixedRoundTrip(f *testing.F) {
	for _, s := range []string{"0", "0.45", "1.000001", "80", "2.5", ".5", "5.", "9223372036854.775807", "-1"} {
		f.Add(s, int64(0))
	}
	f.Add("", int64(math.MinInt64))
	f.Add("", int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, s string, v int64) {
		if d, err := sim.ParseDecimal(s); err == nil {
			if back, err := sim.ParseDecimal(d.String()); err != nil || back != d {
				t.Errorf("ParseDecimal(%q) = %d, formatted %q, read back %d, %v", s, d, d.String(), back, err)
			}
		}
		if r, err := sim.ParseRate(s); err == nil {
			if back, err := sim.ParseRate(r.String()); err != nil || back != r {
				t.Errorf("ParseRate(%q) = %d, formatted %q, read back %d, %v", s, r, r.String(), back, err)
			}
		}
		if f, err := sim.ParseFactor(s); err == nil {
			if back, err := sim.ParseFactor(f.String()); err != nil || back != f {
				t.Errorf("ParseFactor(%q) = %d, formatted %q, read back %d, %v", s, f, f.String(), back, err)
			}
		}
		text := sim.Decimal(v).String()
		if back, err := sim.ParseDecimal(text); err == nil && back != sim.Decimal(v) {
			t.Errorf("Decimal(%d) formats as %q, which reads back as %d", v, text, back)
		}
	})
}
