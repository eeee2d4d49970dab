package detmath

import "math"

// expMax and expMin bound Exp's finite, non-zero results: e^709.78 is the
// largest float64 and e^-745.13 the smallest subnormal.
const (
	expMax = 709.782712893383973096
	expMin = -745.133219101941108420
)

// expSteps is how many steps of 2^(1/expSteps) Exp's table holds.
const expSteps = 64

// expTable[j] is 2^(j/64), from a long Taylor series of e^(j·ln2/64) in
// plain operations: the same bits everywhere.
var expTable = func() [expSteps]float64 {
	var t [expSteps]float64
	for j := range t {
		r := float64(float64(j)*ln2) / expSteps
		p := 1.0
		for n := 20; n >= 1; n-- {
			p = 1 + float64(float64(r*p)*inverses[n])
		}
		t[j] = p
	}
	return t
}()

// Exp returns e^x, accurate to a few ulp, with plain IEEE operations only
// (math.Exp uses assembly on amd64 and differs from wasm's in the last bit).
// It is +Inf above about 709.78, 0 below about -745.13, and NaN for NaN.
func Exp(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > expMax:
		return math.Inf(1)
	case x < expMin:
		return 0
	case x == 0:
		return 1
	}
	// e^x = 2^m · 2^(j/64) · e^r with k = 64m + j the nearest integer to
	// 64x/ln2 and r = x − k·ln2/64 in [−ln2/128, ln2/128]. ln2Hi/64 has
	// trailing zero bits, so k·ln2Hi/64 is exact.
	kf := math.Floor(float64(x*(expSteps/ln2)) + 0.5)
	r := float64(x-float64(kf*(ln2Hi/expSteps))) - float64(kf*(ln2Lo/expSteps))
	// e^r by Taylor to r⁶/6!: with |r| ≤ 0.0055 the next term is below
	// 1e-19.
	p := 1 + float64(r*(1+float64(r*(0.5+float64(r*(1.0/6+float64(r*(1.0/24+float64(r*(1.0/120+float64(r*(1.0/720))))))))))))
	k := int(kf)
	y := float64(expTable[k&(expSteps-1)] * p)
	m := k >> 6 // floor(k/64)
	switch {
	case m < -1022:
		return math.Ldexp(y, m) // subnormal: Ldexp rounds once
	case m > 1023: // x just below expMax: 2^1024 is not a float64
		return float64(float64(y*2) * 0x1p1023)
	}
	return float64(y * math.Float64frombits(uint64(m+1023)<<52))
}

// Coefficients of Wichura's algorithm AS 241 (PPND16), highest degree
// last: the normal quantile to about 1e-16 relative.
var (
	qa = [8]float64{3.3871328727963666080e0, 1.3314166789178437745e+2, 1.9715909503065514427e+3,
		1.3731693765509461125e+4, 4.5921953931549871457e+4, 6.7265770927008700853e+4,
		3.3430575583588128105e+4, 2.5090809287301226727e+3}
	qb = [8]float64{1, 4.2313330701600911252e+1, 6.8718700749205790830e+2,
		5.3941960214247511077e+3, 2.1213794301586595867e+4, 3.9307895800092710610e+4,
		2.8729085735721942674e+4, 5.2264952788528545610e+3}
	qc = [8]float64{1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
		3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
		2.27238449892691845833e-2, 7.74545014278341407640e-4}
	qd = [8]float64{1, 2.05319162663775882187e0, 1.67638483018380384940e0,
		6.89767334985100004550e-1, 1.48103976427480074590e-1, 1.51986665636164571966e-2,
		5.47593808499534494600e-4, 1.05075007164441684324e-9}
	qe = [8]float64{6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
		2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
		2.71155556874348757815e-5, 2.01033439929228813265e-7}
	qf = [8]float64{1, 5.99832206555887937690e-1, 1.36929880922735805310e-1,
		1.48753612908506148525e-2, 7.86869131145613259100e-4, 1.84631831751005468180e-5,
		1.42151175831644588870e-7, 2.04426310338993978564e-15}
)

// poly7 evaluates c[0] + c[1]·x + … + c[7]·x⁷ without fused operations.
func poly7(c *[8]float64, x float64) float64 {
	p := c[7]
	for i := 6; i >= 0; i-- {
		p = float64(p*x) + c[i]
	}
	return p
}

// NormalQuantile returns z with Φ(z) = p for 0 < p < 1, Φ the standard
// normal distribution function (Wichura's AS 241, about 1e-16 relative),
// with plain IEEE operations and Log only: the same bits on every
// platform. It is −Inf at 0, +Inf at 1 and NaN outside [0, 1].
func NormalQuantile(p float64) float64 {
	switch {
	case p != p || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	}
	q := p - 0.5
	if math.Abs(q) <= 0.425 {
		r := 0.180625 - float64(q*q)
		return float64(q*poly7(&qa, r)) / poly7(&qb, r)
	}
	r := p
	if q > 0 {
		r = 1 - p
	}
	r = math.Sqrt(-Log(r))
	var z float64
	if r <= 5 {
		r -= 1.6
		z = poly7(&qc, r) / poly7(&qd, r)
	} else {
		r -= 5
		z = poly7(&qe, r) / poly7(&qf, r)
	}
	if q < 0 {
		z = -z
	}
	return z
}
