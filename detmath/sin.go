package detmath

import "math"

// π/4 in three parts (Cody and Waite): the first two have trailing zero bits,
// so y·pi4A and y·pi4B are exact for the multiples y of π/4 Sin reduces by.
const (
	pi4A = 7.85398125648498535156e-1
	pi4B = 3.77489470793079817668e-8
	pi4C = 2.69515142907905952645e-15
)

// Minimax polynomials for sin and cos on [−π/4, π/4] (Cephes, Moshier),
// highest degree first.
var (
	sinCoef = [6]float64{1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6,
		-1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1}
	cosCoef = [6]float64{-1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7,
		2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2}
)

// sinLimit bounds the arguments Sin reduces exactly: beyond it the octant
// count would lose bits.
const sinLimit = 1 << 29

// Sin returns the sine of x for |x| < 2^29 (NaN beyond, and for NaN and
// ±Inf), with the operations math.Sin performs, in the same order: on amd64,
// where Go never fuses a multiply and an add, the results are bit for bit
// those of math.Sin; elsewhere (arm64 fuses them in math.Sin) they stay the
// amd64 ones. The wave of arrivals uses it, so a run is the same everywhere.
func Sin(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= sinLimit {
		return math.NaN()
	}
	if x == 0 {
		return x // ±0
	}
	neg := x < 0
	if neg {
		x = -x
	}
	// The octant j of x, rounded up to an even one: x = j·π/4 + z with
	// |z| ≤ π/4.
	j := uint64(x * (4 / math.Pi))
	y := float64(j)
	if j&1 == 1 {
		j++
		y++
	}
	j &= 7
	z := float64(float64(x-float64(y*pi4A))-float64(y*pi4B)) - float64(y*pi4C)
	if j > 3 {
		neg = !neg
		j -= 4
	}
	zz := float64(z * z)
	if j == 1 || j == 2 {
		y = float64(1.0-float64(0.5*zz)) + float64(float64(zz*zz)*horner(&cosCoef, zz))
	} else {
		y = z + float64(float64(z*zz)*horner(&sinCoef, zz))
	}
	if neg {
		y = -y
	}
	return y
}

// horner evaluates c[0]·x⁵ + c[1]·x⁴ + … + c[5] without fused operations.
func horner(c *[6]float64, x float64) float64 {
	p := float64(c[0] * x)
	p = float64(float64(p+c[1]) * x)
	p = float64(float64(p+c[2]) * x)
	p = float64(float64(p+c[3]) * x)
	p = float64(float64(p+c[4]) * x)
	return p + c[5]
}
