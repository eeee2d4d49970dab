package detmath

import "testing"

var sink float64

// BenchmarkExp, BenchmarkLog and BenchmarkNormalQuantile measure one call
// on arguments the service shapes use.
func BenchmarkExp(b *testing.B) {
	x := 0.0
	for b.Loop() {
		sink += Exp(x)
		x += 1e-3
		if x > 8 {
			x = -8
		}
	}
}

func BenchmarkLog(b *testing.B) {
	x := 0.001
	for b.Loop() {
		sink += Log(x)
		x += 1e-3
		if x > 1 {
			x = 0.001
		}
	}
}

func BenchmarkNormalQuantile(b *testing.B) {
	p := 0.0001
	for b.Loop() {
		sink += NormalQuantile(p)
		p += 0.0001
		if p >= 1 {
			p = 0.0001
		}
	}
}
