package swrr

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestIndexSiblingsMatchPickAvailable holds the Index's sorted mode to the
// plain path. Random sequences on an Index and on a Pool picking with
// PickAvailable:
//   - requests of K parts, as fan-out routes them: each part picks, and its
//     winner is made unavailable until after the last part;
//   - picks among all but a random set of backends (made unavailable,
//     pick, made available again, in random orders);
//   - plain picks, random availability changes and new backends.
//
// Every pick and every score must agree. Most runs have one positive
// weight (and some 0), the case sorted mode takes; and some runs must
// pick in sorted mode.
func TestIndexSiblingsMatchPickAvailable(t *testing.T) {
	sortedPicks := 0
	rapid.Check(t, func(t *rapid.T) {
		var weight *rapid.Generator[int]
		if rapid.IntRange(0, 4).Draw(t, "mixed") == 0 {
			weight = rapid.IntRange(0, 4)
		} else {
			w := rapid.SampledFrom([]int{1, 3, MaxWeight}).Draw(t, "w")
			weight = rapid.SampledFrom([]int{w, w, w, w, w, 0})
		}
		var x Index
		var p Pool
		var avail []bool
		pick := func(step int) (int, bool) {
			if x.sorted {
				sortedPicks++
			}
			got, gok := x.PickRotating()
			if !gok && rapid.Bool().Draw(t, "fast") {
				got, gok = x.PickSorted()
			}
			if !gok {
				got, gok = x.Pick()
			}
			want, wok := p.PickAvailable(func(i int) bool { return avail[i] })
			if got != want || gok != wok {
				t.Fatalf("step %d: Index picked %d %v (sorted %v rotating %v), PickAvailable %d %v", step, got, gok, x.sorted, x.rotating, want, wok)
			}
			return got, gok
		}
		set := func(i int, on bool) {
			avail[i] = on
			x.SetAvailable(i, on)
		}
		sitOut := func(i int) {
			avail[i] = false
			x.SitOut(i)
		}
		for range rapid.IntRange(1, 30).Draw(t, "start") {
			w := weight.Draw(t, "weight")
			x.Add(w)
			p.Add(w)
			avail = append(avail, false)
		}
		for i := range avail {
			set(i, rapid.IntRange(0, 9).Draw(t, "on") > 0)
		}
		for step := range rapid.IntRange(1, 300).Draw(t, "steps") {
			switch op := rapid.IntRange(0, 19).Draw(t, "op"); {
			case op == 0:
				w := weight.Draw(t, "weight")
				x.Add(w)
				p.Add(w)
				avail = append(avail, false)
			case op <= 2:
				i := rapid.IntRange(0, len(avail)-1).Draw(t, "backend")
				set(i, !avail[i])
			case op <= 4:
				pick(step)
			case op <= 7: // all but a random set
				var out []int
				for _, i := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(avail)-1), 0, 6, rapid.ID).Draw(t, "skip") {
					if avail[i] {
						sitOut(i)
						out = append(out, i)
					}
				}
				pick(step)
				for _, j := range rapid.Permutation(out).Draw(t, "back") {
					set(j, true)
				}
			default: // a request of k parts
				var sib []int
				for range rapid.IntRange(1, 24).Draw(t, "k") {
					i, ok := pick(step)
					if !ok {
						break
					}
					sitOut(i)
					sib = append(sib, i)
				}
				for _, i := range sib {
					set(i, true)
				}
			}
			if err := x.checkSorted(); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			for i, s := range p.Scores(nil) {
				if x.Score(i) != s || x.Available(i) != avail[i] {
					t.Fatalf("step %d: backend %d: score %d available %v, want %d %v", step, i, x.Score(i), x.Available(i), s, avail[i])
				}
			}
		}
	})
	t.Logf("sorted picks %d", sortedPicks)
	if sortedPicks == 0 {
		t.Fatal("no pick in sorted mode")
	}
}

// checkSorted checks sorted mode's invariants (sorted.go), and rotation's:
// main in order and where rotAt says, the block where rotAt says with back
// of it available, every available backend of the class in one of them.
func (x *Index) checkSorted() error {
	if !x.sorted && !x.rotating {
		return nil
	}
	seen := map[int32]bool{}
	loose := 0
	if x.loose {
		loose = 1
	}
	n := len(x.rot) - len(x.out) - loose
	if x.rotating && (len(x.out) > 0 || x.loose) {
		return fmt.Errorf("rotating with a block of %d, loose %v", len(x.out), x.loose)
	}
	prev := int32(-1)
	for j, p := 0, x.at; j < n+loose; j++ {
		if j == n {
			p = x.behind(1) // the loose winner
		}
		i := x.rot[p]
		if !x.avail[i] || x.rotAt[i] != int32(p) || seen[i] {
			return fmt.Errorf("main's %d: backend %d at %d, available %v, rotAt %d", j, i, p, x.avail[i], x.rotAt[i])
		}
		seen[i] = true
		if j < n && prev >= 0 && !x.ahead(prev, i) {
			return fmt.Errorf("main's %d: backend %d sorts ahead of the one before it", j, i)
		}
		prev = i
		if p++; p == len(x.rot) {
			p = 0
		}
	}
	back := 0
	for j, i := range x.out {
		if x.rotAt[i] != int32(-1-j) || seen[i] {
			return fmt.Errorf("out[%d] = %d: rotAt %d", j, i, x.rotAt[i])
		}
		seen[i] = true
		if x.avail[i] {
			back++
		}
	}
	if back != x.back {
		return fmt.Errorf("%d of the block available, back = %d", back, x.back)
	}
	for _, i := range x.cls[0].members {
		if x.avail[i] && !seen[i] {
			return fmt.Errorf("available backend %d neither in main nor in the block", i)
		}
	}
	return nil
}
