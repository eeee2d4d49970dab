package detmath

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
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

func TestLogMatchesMath(t *testing.T) {
	// Subnormals are left out: amd64's assembly math.Log gets them wrong
	// (log(5e-324) comes out as -709.09 instead of -744.44); see
	// TestLogSubnormal.
	xs := []float64{1e-300, 1e-10, 0.5, 0.7071067811865476, 1, 1 + 1e-12, 2, 10, 1e10, 1e300, math.MaxFloat64}
	for i := 1; i <= 100000; i++ {
		xs = append(xs, float64(i)/100000, float64(i)*1.37)
	}
	for _, x := range xs {
		got, want := Log(x), math.Log(x)
		if d := math.Abs(got - want); d > 4e-16*math.Max(1, math.Abs(want)) {
			t.Fatalf("Log(%v) = %v, want %v (off by %g)", x, got, want, d)
		}
	}
}

func TestLogEdges(t *testing.T) {
	if !math.IsNaN(Log(-1)) || !math.IsNaN(Log(math.NaN())) || !math.IsInf(Log(0), -1) || !math.IsInf(Log(math.Inf(1)), 1) || Log(1) != 0 {
		t.Errorf("edges: Log(-1)=%v Log(NaN)=%v Log(0)=%v Log(+Inf)=%v Log(1)=%v", Log(-1), Log(math.NaN()), Log(0), Log(math.Inf(1)), Log(1))
	}
}

func TestLogSubnormal(t *testing.T) {
	// log(2^-1074) = -1074·ln 2.
	if got, want := Log(math.SmallestNonzeroFloat64), -1074*0.6931471805599453; math.Abs(got-want) > 1e-12 {
		t.Errorf("Log(2^-1074) = %v, want %v", got, want)
	}
}

// sinGolden is the digest of Sin's bits over sinPoints, computed on amd64.
const sinGolden = 0xe465a770d85ee578

// sinPoints returns every phase the wave evaluates for periods of 20,000
// and 7,919 cycles, and random arguments up to 10^6.
func sinPoints() []float64 {
	var xs []float64
	for _, period := range []int64{20_000, 7_919} {
		for start := int64(0); start < period; start += 100 {
			xs = append(xs, float64(2*math.Pi)*(float64(start)/float64(period)))
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		xs = append(xs, (r.Float64()*2-1)*1e6)
	}
	return xs
}

// TestSinGolden: Sin gives the same bits on every GOARCH (make test-arm64
// and the wasm tests run it), as the model's wave needs.
func TestSinGolden(t *testing.T) {
	h := fnv.New64a()
	for _, x := range sinPoints() {
		binary.Write(h, binary.LittleEndian, math.Float64bits(Sin(x)))
	}
	if got := h.Sum64(); got != sinGolden {
		t.Errorf("Sin's digest is %#x, want %#x (amd64's)", got, uint64(sinGolden))
	}
}

// TestSinMatchesMathWithinOneUlp compares Sin with math.Sin over the wave's
// range and beyond: within one ulp everywhere (math.Sin itself may fuse on
// some CPUs), and bit for bit on amd64 (sin_amd64_test.go).
func TestSinMatchesMathWithinOneUlp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 1_000_000 {
		x := (r.Float64()*2 - 1) * 4 * math.Pi
		if i%4 == 0 {
			x = r.Float64() * 1e6
		}
		got, want := Sin(x), math.Sin(x)
		if got != want && math.Abs(got-want) > math.Abs(math.Nextafter(want, math.Inf(1))-want) {
			t.Fatalf("Sin(%v) = %v, math.Sin %v", x, got, want)
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1 << 29, -(1 << 30)} {
		if !math.IsNaN(Sin(x)) {
			t.Errorf("Sin(%v) = %v, want NaN", x, Sin(x))
		}
	}
	if s := Sin(math.Copysign(0, -1)); s != 0 || !math.Signbit(s) {
		t.Errorf("Sin(-0) = %v", s)
	}
}

// expGolden and quantileGolden are the digests of Exp's and
// NormalQuantile's bits over expPoints and quantilePoints, computed on
// amd64: wasm and arm64 must find the same (the service shapes draw with
// them).
const (
	expGolden      = 0x212b051229798a84
	quantileGolden = 0x1d9b3d58925529e5
)

// expPoints covers the arguments the lognormal and Pareto draws reach, and
// the edges.
func expPoints() []float64 {
	xs := []float64{0, -0, 1, -1, 709.78, 709.782, 709.7827, 709.79, -708.39, -708.4, -745.13, -745.2,
		math.NaN(), math.Inf(1), math.Inf(-1), 0x1p-60}
	r := rand.New(rand.NewPCG(5, 6))
	for range 100_000 {
		xs = append(xs, (r.Float64()*2-1)*40, (r.Float64()*2-1)*740)
	}
	return xs
}

// quantilePoints covers the uniforms the lognormal draw feeds in: both
// tails and the middle.
func quantilePoints() []float64 {
	xs := []float64{0, 1, 0.5, 0.075, 0.925, 0x1p-53, 1 - 0x1p-53, math.NaN(), -1, 2}
	r := rand.New(rand.NewPCG(9, 10))
	for range 100_000 {
		xs = append(xs, (float64(r.Uint64()>>11)+0.5)*0x1p-53, math.Ldexp(r.Float64(), -r.IntN(60)))
	}
	return xs
}

func digest(xs []float64, f func(float64) float64) uint64 {
	h := fnv.New64a()
	for _, x := range xs {
		binary.Write(h, binary.LittleEndian, math.Float64bits(f(x)))
	}
	return h.Sum64()
}

// TestExpGolden and TestNormalQuantileGolden: the same bits on every
// GOARCH (the wasm tests and make test-arm64 run them).
func TestExpGolden(t *testing.T) {
	if got := digest(expPoints(), Exp); got != expGolden {
		t.Errorf("Exp's digest is %#x, want %#x (amd64's)", got, uint64(expGolden))
	}
}

func TestNormalQuantileGolden(t *testing.T) {
	if got := digest(quantilePoints(), NormalQuantile); got != quantileGolden {
		t.Errorf("NormalQuantile's digest is %#x, want %#x (amd64's)", got, uint64(quantileGolden))
	}
}

func TestExpMatchesMath(t *testing.T) {
	for _, x := range expPoints() {
		got, want := Exp(x), math.Exp(x)
		switch {
		case math.IsNaN(want):
			if !math.IsNaN(got) {
				t.Fatalf("Exp(%v) = %v, want NaN", x, got)
			}
		case math.IsInf(want, 1) && x < expMax:
			// amd64's assembly overflows a little early (at 709.78):
			// compare with e^(x−1)·e.
			if w := math.Exp(x-1) * math.E; math.Abs(got-w) > 1e-15*w {
				t.Fatalf("Exp(%v) = %v, want %v", x, got, w)
			}
		case math.IsInf(want, 1):
			if !math.IsInf(got, 1) {
				t.Fatalf("Exp(%v) = %v, want +Inf", x, got)
			}
		case want < 1e-300:
			if math.Abs(got-want) > 1e-300 {
				t.Fatalf("Exp(%v) = %v, want %v", x, got, want)
			}
		case math.Abs(got-want) > 1e-15*want:
			t.Fatalf("Exp(%v) = %v, want %v (relative error %g)", x, got, want, math.Abs(got-want)/want)
		}
	}
}

// TestNormalQuantileInvertsErfc: Φ(NormalQuantile(p)) = p, with Φ from
// math.Erfc, to about 1e-13 relative (Erfc's own conditioning in the
// tails), and the table values.
func TestNormalQuantileInvertsErfc(t *testing.T) {
	for _, p := range quantilePoints() {
		if p <= 0 || p >= 1 || p != p {
			continue
		}
		z := NormalQuantile(p)
		back := 0.5 * math.Erfc(-z/math.Sqrt2)
		if q := min(p, 1-p); math.Abs(back-p) > 1e-13*q+1e-300 {
			t.Fatalf("Φ(NormalQuantile(%v)) = %v", p, back)
		}
	}
	for _, tt := range []struct{ p, z float64 }{{0.5, 0}, {0.975, 1.959963984540054}, {0.025, -1.959963984540054}, {0.8413447460685429, 1}} {
		if got := NormalQuantile(tt.p); math.Abs(got-tt.z) > 1e-14 {
			t.Errorf("NormalQuantile(%v) = %v, want %v", tt.p, got, tt.z)
		}
	}
	if !math.IsInf(NormalQuantile(0), -1) || !math.IsInf(NormalQuantile(1), 1) || !math.IsNaN(NormalQuantile(2)) {
		t.Error("NormalQuantile's edges: want -Inf at 0, +Inf at 1, NaN outside")
	}
}
