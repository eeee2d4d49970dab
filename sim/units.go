package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// Rate is a mean number of arrivals per cycle, held in millionths so that
// the model's state is fed by integers only: Rate(450000) is 0.45 per cycle.
type Rate int64

// RateScale is the number of Rate units in one arrival per cycle.
const RateScale = 1_000_000

// PerCycle returns r as arrivals per cycle.
func (r Rate) PerCycle() float64 { return float64(r) / RateScale }

// String formats r as a decimal with no trailing zeros, as ParseRate reads it.
func (r Rate) String() string { return formatFixed(int64(r), RateScale) }

// ParseRate reads a non-negative decimal such as "0.45" with at most six
// decimal places.
func ParseRate(s string) (Rate, error) {
	v, err := parseFixed(s, RateScale, 6)
	return Rate(v), err
}

// Factor is a scaling threshold factor (U or D of the clock), held in
// thousandths: Factor(80000) is 80 requests per active server.
type Factor int64

// FactorScale is the number of Factor units in one request per server.
const FactorScale = 1000

// String formats f as a decimal with no trailing zeros.
func (f Factor) String() string { return formatFixed(int64(f), FactorScale) }

// Float returns f as a float64, for display.
func (f Factor) Float() float64 { return float64(f) / FactorScale }

// ParseFactor reads a non-negative decimal such as "80" or "2.5" with at most
// three decimal places.
func ParseFactor(s string) (Factor, error) {
	v, err := parseFixed(s, FactorScale, 3)
	return Factor(v), err
}

// parseFixed reads a non-negative decimal into an integer count of 1/scale
// units, exactly (no binary floating point on the way).
func parseFixed(s string, scale int64, places int) (int64, error) {
	s = strings.TrimSpace(s)
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || strings.ContainsAny(whole, "+-") || strings.ContainsAny(frac, "+-") {
		return 0, fmt.Errorf("%q is not a non-negative decimal number", quoted(s))
	}
	if len(frac) > places {
		return 0, fmt.Errorf("%q has more than %d decimal places", quoted(s), places)
	}
	var w int64
	if whole != "" {
		var err error
		w, err = strconv.ParseInt(whole, 10, 64)
		if err != nil || w > (1<<62)/scale {
			return 0, fmt.Errorf("%q is not a non-negative decimal number of sensible size", quoted(s))
		}
	}
	var f int64
	if frac != "" {
		v, err := strconv.ParseInt(frac, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a non-negative decimal number", quoted(s))
		}
		for i := len(frac); i < places; i++ {
			v *= 10
		}
		f = v * (scale / pow10(places))
	}
	return w*scale + f, nil
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// formatFixed writes v/scale (scale a power of ten) with no trailing
// zeros. It works on v's magnitude as a uint64, so every int64 formats,
// −2⁶³ included (a hostile snapshot can hold any).
func formatFixed(v, scale int64) string {
	sign, u := "", uint64(v)
	if v < 0 {
		sign, u = "-", -uint64(v)
	}
	sc := uint64(scale)
	s := strconv.FormatUint(u/sc, 10)
	if f := u % sc; f != 0 {
		// f+sc has one more digit than sc's zeros: drop the leading 1 to
		// get f with its leading zeros.
		fs := strconv.FormatUint(f+sc, 10)[1:]
		s += "." + strings.TrimRight(fs, "0")
	}
	return sign + s
}

// Speed is a server's speed in hundredths: Speed(100) is speed 1, the
// speed every request's time is given at; Speed(200) serves twice as
// fast.
type Speed int32

// SpeedScale is the number of Speed units in speed 1.
const SpeedScale = 100

// Limits of a server's speed: 0.01 to 100.
const (
	MinSpeed Speed = 1
	MaxSpeed Speed = 100 * SpeedScale
)

// String formats v as a decimal with no trailing zeros, as ParseSpeed
// reads it.
func (v Speed) String() string { return formatFixed(int64(v), SpeedScale) }

// ParseSpeed reads a speed from 0.01 to 100 with at most two decimals.
func ParseSpeed(s string) (Speed, error) {
	v, err := parseFixed(s, SpeedScale, 2)
	if err != nil {
		return 0, err
	}
	if v < int64(MinSpeed) || v > int64(MaxSpeed) {
		return 0, fmt.Errorf("%q is outside 0.01..100", strings.TrimSpace(s))
	}
	return Speed(v), nil
}

// Cycles returns how many cycles a request of the given time (its work at
// speed 1) takes at speed v: ⌈time·100 ÷ v⌉, in integers.
func (v Speed) Cycles(time uint32) uint32 {
	if v == SpeedScale {
		return time
	}
	return uint32((uint64(time)*SpeedScale + uint64(v) - 1) / uint64(v))
}
