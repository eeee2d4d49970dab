package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/lbsim/lbsim/queueing"
)

// TestNeededByBisection: needed gives the fewest replications a linear
// search gives, and returns at once where the estimate overflows (it
// looped up to a billion times per point).
func TestNeededByBisection(t *testing.T) {
	linear := func(sd, target float64, from int) int {
		for n := max(from, 2); n <= 100_000; n++ {
			if queueing.TQuantile975(n-1)*sd/math.Sqrt(float64(n)) <= target {
				return n
			}
		}
		return -1
	}
	for _, tc := range []struct {
		sd, target float64
		from       int
	}{
		{1, 0.5, 2}, {1, 0.1, 2}, {3, 0.2, 5}, {10, 10, 2}, {1, 1e-2, 40}, {0.5, 0.5, 100},
	} {
		if got, want := needed(tc.sd, tc.target, tc.from), linear(tc.sd, tc.target, tc.from); got != want {
			t.Errorf("needed(%v, %v, %d) = %d, want %d", tc.sd, tc.target, tc.from, got, want)
		}
	}
	// needed is a binary search over 2 … maxNeeded, so these take a few
	// dozen steps; the linear search before took up to a billion.
	for _, tc := range []struct{ sd, target float64 }{
		{1.4, 2.5e-13}, {1e300, 1e-300}, {math.Inf(1), 1}, {1, 0}, {math.NaN(), 1}, {1e-300, 1e300},
	} {
		got := needed(tc.sd, tc.target, 2)
		if tc.sd/tc.target > 1e6 && got != -1 {
			t.Errorf("needed(%v, %v) = %d, want -1 (more than a billion)", tc.sd, tc.target, got)
		}
	}
}

// TestRunOfIsIndexed: resuming reads each line's point through an index,
// built once, not a search of every value (quadratic: 100,000 lines
// against a 100,000-value dimension took seconds); the index gives each
// value's place.
func TestRunOfIsIndexed(t *testing.T) {
	const n = 20_000
	d := Dimension{Name: "rate"}
	for i := range n {
		d.Values = append(d.Values, strconv.Itoa(i))
	}
	g, err := NewGrid([]Dimension{d}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		k, ok := g.RunOf(Line{Point: []byte(fmt.Sprintf(`{"rate":%d}`, i))})
		if !ok || k != int64(i) {
			t.Fatalf("value %d: run %d, %v", i, k, ok)
		}
	}
	if len(g.index) != 1 || len(g.index[0]) != n {
		t.Fatalf("the index holds %d dimensions, want 1 holding all %d values", len(g.index), n)
	}
	if _, ok := g.RunOf(Line{Point: []byte(`{"rate":"x"}`)}); ok {
		t.Error("a value not in the grid was found")
	}
}

// TestRepeatedLinesCounted: a file repeating a line is counted, and only
// its first repeats kept (every one was kept, so memory grew with them).
func TestRepeatedLinesCounted(t *testing.T) {
	line := `{"point":{"rate":0.3},"replication":0,"seed":7,"summary":{"avg_wait":1}}` + "\n"
	other := `{"point":{"rate":0.3},"replication":0,"seed":7,"summary":{"avg_wait":2}}` + "\n"
	rep, err := Aggregate([]Input{{Name: "f", R: strings.NewReader(strings.Repeat(line, 1000) + strings.Repeat(other, 50))}}, []string{"avg_wait"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.DuplicateRuns != 999 || len(rep.Duplicates) != MaxListed || rep.ConflictRuns != 50 || len(rep.Conflicts) != MaxListed {
		t.Errorf("duplicates %d (%d listed), conflicts %d (%d listed)", rep.DuplicateRuns, len(rep.Duplicates), rep.ConflictRuns, len(rep.Conflicts))
	}
}
