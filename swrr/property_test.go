package swrr

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// weightsGen draws 1 to 8 weights from 0 to 12, at least one positive.
func weightsGen() *rapid.Generator[[]int] {
	return rapid.SliceOfN(rapid.IntRange(0, 12), 1, 8).Filter(func(w []int) bool {
		return slices.ContainsFunc(w, func(x int) bool { return x > 0 })
	})
}

// TestPropertyPeriod: the sequence repeats with period = total weight, each
// backend wins exactly its weight per period, scores sum to zero after every
// pick and are all back to zero after each period, and zero weights never win.
func TestPropertyPeriod(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		weights := weightsGen().Draw(t, "weights")
		p := mustNew(t, weights...)
		period := int(p.Total())
		seq := make([]int, 0, 3*period)
		for range 3 * period {
			i, ok := p.Pick()
			if !ok {
				t.Fatalf("Pick failed with weights %v", weights)
			}
			if weights[i] == 0 {
				t.Fatalf("zero-weight backend %d won", i)
			}
			if s := sum(p.Scores(nil)); s != 0 {
				t.Fatalf("scores sum to %d after pick %d", s, len(seq)+1)
			}
			seq = append(seq, i)
			if len(seq)%period == 0 && slices.ContainsFunc(p.Scores(nil), func(c int64) bool { return c != 0 }) {
				t.Fatalf("scores %v after %d whole periods, want all 0", p.Scores(nil), len(seq)/period)
			}
		}
		verify(t, p)
		for k := period; k < len(seq); k++ {
			if seq[k] != seq[k-period] {
				t.Fatalf("pick %d is %d but pick %d was %d: not periodic", k, seq[k], k-period, seq[k-period])
			}
		}
		counts := make([]int, len(weights))
		for _, i := range seq[:period] {
			counts[i]++
		}
		if !slices.Equal(counts, weights) {
			t.Fatalf("wins per period %v, want the weights %v", counts, weights)
		}
	})
}

// TestPropertyEqualWeights: equal positive weights give plain round-robin.
func TestPropertyEqualWeights(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 20).Draw(t, "n")
		w := rapid.IntRange(1, MaxWeight).Draw(t, "weight")
		p := mustNew(t, slices.Repeat([]int{w}, n)...)
		for k := range 3 * n {
			if i, ok := p.Pick(); !ok || i != k%n {
				t.Fatalf("pick %d = %d,%v; want %d", k, i, ok, k%n)
			}
		}
	})
}

// TestPropertyAvailableFixedSet: from fresh scores, picking over a fixed
// available set is exactly a pool of only the available backends, and the
// others' scores never move.
func TestPropertyAvailableFixedSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		weights := weightsGen().Draw(t, "weights")
		avail := rapid.SliceOfN(rapid.Bool(), len(weights), len(weights)).Draw(t, "available")
		var subIndex []int
		var subWeights []int
		for i, w := range weights {
			if avail[i] {
				subIndex = append(subIndex, i)
				subWeights = append(subWeights, w)
			}
		}
		p := mustNew(t, weights...)
		sub := mustNew(t, subWeights...)
		isAvail := func(i int) bool { return avail[i] }
		period := max(int(sub.Total()), 1)
		counts := make([]int, len(weights))
		for k := range 2 * period {
			i, ok := p.PickAvailable(isAvail)
			j, subOK := sub.Pick()
			if ok != subOK || (ok && i != subIndex[j]) {
				t.Fatalf("pick %d: got %d,%v; the available-only pool picks %v", k, i, ok, j)
			}
			if !ok {
				continue
			}
			if k < period {
				counts[i]++
			}
			for i, c := range p.Scores(nil) {
				if !avail[i] && c != 0 {
					t.Fatalf("unavailable backend %d has score %d", i, c)
				}
			}
		}
		for i, w := range weights {
			want := 0
			if avail[i] {
				want = w
			}
			if counts[i] != want {
				t.Fatalf("backend %d won %d times in a period, want %d", i, counts[i], want)
			}
		}
	})
}

// TestPropertyAvailableChanging: with the available set changing at random,
// only available backends with positive weight win, unavailable scores do
// not move, the scores keep summing to zero, and every score stays within
// ±Total() (observed, not proven). After the set stops changing, each
// available backend's wins over many periods are proportional to its weight
// within that bound.
func TestPropertyAvailableChanging(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		weights := weightsGen().Draw(t, "weights")
		p := mustNew(t, weights...)
		n := len(weights)
		masks := rapid.SliceOfN(rapid.Uint64Range(0, 1<<n-1), 1, 200).Draw(t, "masks")
		for k, mask := range masks {
			before := p.Scores(nil)
			i, ok := p.PickAvailable(func(i int) bool { return mask>>i&1 == 1 })
			after := p.Scores(nil)
			if ok && (mask>>i&1 == 0 || weights[i] == 0) {
				t.Fatalf("pick %d: backend %d won but is unavailable or zero-weight", k, i)
			}
			for j := range after {
				if mask>>j&1 == 0 && after[j] != before[j] {
					t.Fatalf("pick %d: unavailable backend %d moved from %d to %d", k, j, before[j], after[j])
				}
				if after[j] > p.Total() || after[j] < -p.Total() {
					t.Fatalf("pick %d: score %d of backend %d is beyond ±%d", k, after[j], j, p.Total())
				}
			}
			if s := sum(after); s != 0 {
				t.Fatalf("pick %d: scores sum to %d", k, s)
			}
		}
		verify(t, p)

		// Now a fixed set for many periods.
		mask := masks[len(masks)-1]
		isAvail := func(i int) bool { return mask>>i&1 == 1 }
		var availTotal int64
		for i, w := range weights {
			if isAvail(i) {
				availTotal += int64(w)
			}
		}
		if availTotal == 0 {
			return
		}
		const periods = 50
		counts := make([]int64, n)
		for range periods * availTotal {
			i, _ := p.PickAvailable(isAvail)
			counts[i]++
		}
		for i, w := range weights {
			want := int64(0)
			if isAvail(i) {
				want = periods * int64(w)
			}
			// current_i changes by w·picks − wins·availTotal and stays
			// within ±Total(), so wins are off by at most 2·Total()/availTotal.
			if d := counts[i] - want; d*availTotal > 2*p.Total() || -d*availTotal > 2*p.Total() {
				t.Fatalf("backend %d won %d times in %d periods, want about %d", i, counts[i], periods, want)
			}
		}
	})
}
