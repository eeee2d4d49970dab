package swrr

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestIndexMatchesPickAvailable runs random sequences of additions,
// availability changes and picks on an Index and on a Pool picking with
// PickAvailable: every pick and every score must agree.
func TestIndexMatchesPickAvailable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		weight := rapid.OneOf(rapid.IntRange(0, 4), rapid.SampledFrom([]int{1, 7, MaxWeight}))
		checkIndex(t, weight, 1)
	})
}

// TestIndexRotationMatchesPickAvailable is the same with one positive weight
// (and 0), in runs of picks long enough for the index to rotate: the
// rotation's picks and scores must agree too, and some runs must rotate.
func TestIndexRotationMatchesPickAvailable(t *testing.T) {
	rotated := 0
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.SampledFrom([]int{1, 3, MaxWeight}).Draw(t, "w")
		weight := rapid.SampledFrom([]int{w, w, w, 0})
		rotated += checkIndex(t, weight, rapid.IntRange(1, 40).Draw(t, "burst"))
	})
	if rotated == 0 {
		t.Fatal("no run picked while rotating")
	}
}

// checkIndex runs one random sequence of additions, availability changes
// and bursts of picks on an Index and a Pool, comparing every pick and
// every score. It returns how many picks the index made while rotating.
func checkIndex(t *rapid.T, weight *rapid.Generator[int], burst int) (rotated int) {
	var x Index
	var p Pool
	var avail []bool
	for step := range rapid.IntRange(1, 400).Draw(t, "steps") {
		switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
		case op == 0 || len(avail) == 0:
			w := weight.Draw(t, "weight")
			i, err := x.Add(w)
			j, _ := p.Add(w)
			if err != nil || i != j {
				t.Fatalf("Add(%d) = %d, %v; the pool gave %d", w, i, err, j)
			}
			avail = append(avail, false)
		case op <= 2:
			i := rapid.IntRange(0, len(avail)-1).Draw(t, "backend")
			avail[i] = !avail[i]
			x.SetAvailable(i, avail[i])
		default:
			for range burst {
				if x.rotating {
					rotated++
				}
				got, gok := x.Pick()
				want, wok := p.PickAvailable(func(i int) bool { return avail[i] })
				if got != want || gok != wok {
					t.Fatalf("step %d: Index picked %d %v (rotating %v), PickAvailable %d %v", step, got, gok, x.rotating, want, wok)
				}
			}
		}
		if x.sorted {
			t.Fatalf("step %d: sorted mode with no SitOut", step)
		}
		scores := p.Scores(nil)
		for i, s := range scores {
			if x.Score(i) != s || x.Available(i) != avail[i] {
				t.Fatalf("step %d: backend %d: score %d available %v, want %d %v", step, i, x.Score(i), x.Available(i), s, avail[i])
			}
		}
	}
	return rotated
}

// TestIndexRebase runs picks across the rebase of the pick count with
// weights of 1, 2 and MaxWeight: the scores must stay those of the Pool.
func TestIndexRebase(t *testing.T) {
	weights := []int{1, 2, MaxWeight, 0, 2}
	var x Index
	p := mustNew(t, weights...)
	x.k = rebaseAt - 5 // as if 2^31 − 5 picks had happened before the backends came
	for i, w := range weights {
		x.Add(w)
		x.SetAvailable(i, true)
	}
	for n := range 20 {
		got, _ := x.Pick()
		want, _ := p.Pick()
		if got != want {
			t.Fatalf("pick %d: %d, want %d", n, got, want)
		}
	}
	if x.k >= rebaseAt {
		t.Fatalf("k = %d: the index did not rebase", x.k)
	}
	var scores []int64
	for i := range weights {
		scores = append(scores, x.Score(i))
	}
	if want := p.Scores(nil); !slices.Equal(scores, want) {
		t.Fatalf("scores %v, want %v", scores, want)
	}
}

// ExampleIndex: weights 5, 1, 1 give nginx's sequence a a b a c a a; with
// the first backend unavailable the other two alternate.
func ExampleIndex() {
	var x Index
	for i, w := range []int{5, 1, 1} {
		x.Add(w)
		x.SetAvailable(i, true)
	}
	name := "abc"
	var seq []byte
	for range 7 {
		i, _ := x.Pick()
		seq = append(seq, name[i])
	}
	x.SetAvailable(0, false)
	seq = append(seq, ' ')
	for range 4 {
		i, _ := x.Pick()
		seq = append(seq, name[i])
	}
	fmt.Println(string(seq))
	// Output: aabacaa bcbc
}

// BenchmarkIndexPick picks among n available backends of weights 1 to 10.
func BenchmarkIndexPick(b *testing.B) {
	for _, n := range []int{3, 100, 10_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var x Index
			for i, w := range benchWeights(n) {
				x.Add(w)
				x.SetAvailable(i, true)
			}
			for b.Loop() {
				x.Pick()
			}
		})
	}
}

// TestIndexRotatesOnlyWhenExact asks the index to rotate right after
// changes (it asks by itself only after a calm spell, by which time the
// scores have mostly come within the total): it must rotate exactly when
// the picks go round, and its picks must agree with the Pool's either way.
func TestIndexRotatesOnlyWhenExact(t *testing.T) {
	for _, c := range []struct {
		name   string
		picks  int   // picks with all three available
		off    []int // then made unavailable
		rotate bool
	}{
		{"fresh", 0, nil, true},
		{"one pick", 1, nil, true},                     // −2, 1, 1: spread 3 = total 3, and the first winner (1) comes back after the last (0)
		{"winner kept, third off", 1, []int{2}, false}, // −2, 1: spread 3 ≥ total 2
		{"third off", 3, []int{2}, true},               // 0, 0: spread 0
		{"first off", 1, []int{0}, true},               // 1, 1
	} {
		t.Run(c.name, func(t *testing.T) {
			var x Index
			p := mustNew(t, 1, 1, 1)
			avail := []bool{true, true, true}
			for i := range avail {
				x.Add(1)
				x.SetAvailable(i, true)
			}
			for range c.picks {
				x.Pick()
				p.Pick()
			}
			for _, i := range c.off {
				x.SetAvailable(i, false)
				avail[i] = false
			}
			x.rotate()
			if x.rotating != c.rotate {
				t.Fatalf("rotating = %v, want %v (scores %v)", x.rotating, c.rotate, p.Scores(nil))
			}
			for n := range 12 {
				got, _ := x.Pick()
				want, _ := p.PickAvailable(func(i int) bool { return avail[i] })
				if got != want {
					t.Fatalf("pick %d: %d, want %d", n, got, want)
				}
			}
		})
	}
}
