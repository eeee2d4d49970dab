// Package detmath holds the few transcendental functions the simulator needs,
// written with plain IEEE-754 operations only, so that they give bit-identical
// results on every GOOS and GOARCH.
//
// The standard library's math.Exp and math.Log use assembly on amd64 and pure
// Go elsewhere (wasm among them); the two disagree in the last bits for some
// inputs. A model whose random stream depends on such a value would diverge
// between the command line and the browser. Every multiplication whose result
// is added to something is wrapped in an explicit float64 conversion, which
// forbids the compiler to fuse it into a fused multiply-add on CPUs that have
// one.
package detmath

import "math"

// ln2 split in two (Cody and Waite): ln2Hi has trailing zero bits, so k·ln2Hi
// is exact for the k that occur here.
const (
	ln2   = 0.693147180559945309417232121458176568
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// inverses[n] is 1/n: ExpNeg multiplies instead of dividing.
var inverses = [21]float64{0, 1, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8, 1.0 / 9, 1.0 / 10,
	1.0 / 11, 1.0 / 12, 1.0 / 13, 1.0 / 14, 1.0 / 15, 1.0 / 16, 1.0 / 17, 1.0 / 18, 1.0 / 19, 1.0 / 20}

// oddInverses[k] is 1/(2k+1), the same correctly rounded value a division
// gives: Log multiplies and adds only.
var oddInverses = [12]float64{1, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17,
	1.0 / 19, 1.0 / 21, 1.0 / 23}

// ExpNeg returns e^-x for x ≥ 0, accurate to a few ulp. Its cost is a
// constant number of additions, multiplications and divisions.
func ExpNeg(x float64) float64 {
	if x <= 0 {
		return 1
	}
	if x > 745 {
		return 0
	}
	// e^-x = 2^-k · e^-r with r = x - k·ln2 in [0, ln2).
	k := math.Floor(x / ln2)
	r := float64(x-float64(k*ln2Hi)) - float64(k*ln2Lo)
	if r < 0 {
		r = 0
	}
	// Taylor series of e^-r in Horner form: 1 - r(1 - r/2(1 - r/3(…))).
	// With r < 0.7 the 20th term is below 1e-21.
	p := 1.0
	for n := 20; n >= 1; n-- {
		p = 1 - float64(float64(r*p)*inverses[n])
	}
	return math.Ldexp(p, -int(k))
}

// Log returns the natural logarithm of x for x > 0 (-Inf for 0, NaN for
// x < 0 or NaN), accurate to a few ulp, with plain IEEE operations only.
func Log(x float64) float64 {
	switch {
	case x != x || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	// x = f·2^e with f in [√½, √2): log x = e·ln2 + log f, and
	// log f = 2·atanh(s) = 2(s + s³/3 + s⁵/5 + …) with s = (f−1)/(f+1),
	// |s| ≤ 0.172, so 12 terms reach below 1e-18.
	f, e := math.Frexp(x)
	if f < math.Sqrt2/2 {
		f *= 2
		e--
	}
	s := (f - 1) / (f + 1)
	s2 := float64(s * s)
	p := 1.0 / 25
	for k := 11; k >= 0; k-- {
		p = oddInverses[k] + float64(s2*p)
	}
	logf := float64(2 * float64(s*p))
	ke := float64(e)
	return float64(ke*ln2Hi) + float64(logf+float64(ke*ln2Lo))
}
