package swrr_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/lbsim/lbsim/swrr"
)

// The lesson's worked trace: weights a=3, b=1 (total 4). Each pick adds the
// weights, the highest score wins (the earliest on a tie), and the winner
// loses the total. After one period of 4 picks the scores are back to 0.
func ExamplePool_Pick() {
	names := []string{"a", "b"}
	p, err := swrr.New([]int{3, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	var scores []int64
	for range 4 {
		i, _ := p.Pick()
		scores = p.Scores(scores[:0])
		fmt.Println(names[i], scores)
	}
	// Output:
	// a [-1 1]
	// a [-2 2]
	// b [1 -1]
	// a [0 0]
}

// Only the available backends take part in a pick; here b is busy.
func ExamplePool_PickAvailable() {
	p, _ := swrr.New([]int{3, 1, 2}) // a, b, c
	idle := func(i int) bool { return i != 1 }
	var got []string
	for range 5 {
		i, _ := p.PickAvailable(idle)
		got = append(got, string(rune('a'+i)))
	}
	fmt.Println(strings.Join(got, " "))
	// Output: a c a c a
}

// A session of the `lbsim wrr` protocol, with the worked trace.
func ExampleServe() {
	session := "POOL a=3 b=1\nPICK\nPICKN 3\nPICKN 0\n"
	var trace strings.Builder
	if err := swrr.Serve(strings.NewReader(session), os.Stdout, &trace); err != nil {
		fmt.Println(err)
	}
	fmt.Print("trace:\n", trace.String())
	// Output:
	// OK
	// a
	// a,b,a
	// ERR bad n "0" for PICKN: allowed is a whole number from 1 to 9223372036854775807
	// trace:
	// POOL: 2 backends, total weight 4, scores reset to [0, 0]
	// pick 1: add weights → [3, 1]; a wins; subtract 4 → [-1, 1]
	// pick 2: add weights → [2, 2]; a wins (tie: earliest listed); subtract 4 → [-2, 2]
	// pick 3: add weights → [1, 3]; b wins; subtract 4 → [1, -1]
	// pick 4: add weights → [4, 0]; a wins; subtract 4 → [0, 0]
}
