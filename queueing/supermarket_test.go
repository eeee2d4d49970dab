package queueing

import (
	"fmt"
	"math"
	"testing"
)

func TestSupermarket(t *testing.T) {
	for _, c := range []struct {
		d         int
		rho, m    float64
		want      float64
		tolerance float64
	}{
		{2, 0.9, 1, 2.61, 0.005},
		{2, 0.99, 1, 5.43, 0.005},
		{2, 0, 10, 10, 1e-12}, // no load: the service time alone
		{2, 0.5, 1, 1 + math.Pow(0.5, 2) + math.Pow(0.5, 6) + math.Pow(0.5, 14) + math.Pow(0.5, 30), 1e-9},
		{3, 0.9, 100, 100 * (1 + math.Pow(0.9, 3) + math.Pow(0.9, 12) + math.Pow(0.9, 39) + math.Pow(0.9, 120)), 1e-6},
	} {
		got, err := Supermarket(c.d, c.rho, c.m)
		if err != nil || math.Abs(got-c.want) > c.tolerance*c.want {
			t.Errorf("Supermarket(%d, %v, %v) = %v, %v; want %v", c.d, c.rho, c.m, got, err, c.want)
		}
	}
	for _, bad := range []struct {
		d      int
		rho, m float64
	}{{1, 0.5, 1}, {2, 1, 1}, {2, -0.1, 1}, {2, 0.5, 0}, {2, math.NaN(), 1}} {
		if _, err := Supermarket(bad.d, bad.rho, bad.m); err == nil {
			t.Errorf("Supermarket(%d, %v, %v) accepted", bad.d, bad.rho, bad.m)
		}
	}
}

// ExampleSupermarket shows why two random choices help so much: at ρ = 0.9
// one random queue means waiting 9 service times, two choices 1.61.
func ExampleSupermarket() {
	t, _ := Supermarket(2, 0.9, 1)
	fmt.Printf("time in system %.2f, wait %.2f (random: %.2f)\n", t, t-1, 0.9/(1-0.9))
	// Output: time in system 2.61, wait 1.61 (random: 9.00)
}
