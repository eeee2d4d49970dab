package swrr

import (
	"fmt"
	"testing"
)

// benchWeights returns n weights cycling through 1 to 10.
func benchWeights(n int) []int {
	w := make([]int, n)
	for i := range w {
		w[i] = 1 + i%10
	}
	return w
}

func BenchmarkPick(b *testing.B) {
	for _, n := range []int{3, 100, 10_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			p := mustNew(b, benchWeights(n)...)
			b.ReportAllocs()
			for b.Loop() {
				p.Pick()
			}
		})
	}
}

// BenchmarkPickAvailable has every other backend available, the way the
// simulator asks for idle servers.
func BenchmarkPickAvailable(b *testing.B) {
	for _, n := range []int{3, 100, 10_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			p := mustNew(b, benchWeights(n)...)
			busy := make([]bool, n)
			for i := range busy {
				busy[i] = i%2 == 1
			}
			b.ReportAllocs()
			for b.Loop() {
				p.PickAvailable(func(i int) bool { return !busy[i] })
			}
		})
	}
}
