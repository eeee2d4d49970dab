package detmath

import (
	"math"
	"testing"
)

// TestSinIsMathSinOnAMD64: on amd64, where nothing is fused, Sin is
// math.Sin bit for bit, so the wave kept its values when it moved here.
func TestSinIsMathSinOnAMD64(t *testing.T) {
	for _, x := range sinPoints() {
		if got, want := Sin(x), math.Sin(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Sin(%v) = %v, math.Sin %v", x, got, want)
		}
	}
}
