package swrr

import (
	"flag"
	"os"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// seedRapid makes rapid's runs the same each time (seed 1) unless the
// command line or RAPID_SEED chose a seed.
func seedRapid() {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.seed" })
	if _, env := os.LookupEnv("RAPID_SEED"); !set && !env {
		flag.Set("rapid.seed", "1")
	}
}

// TestKeepMatchesUnavailable runs random additions, changes of
// availability, picks and Keeps on a Pool and an Index, and compares them
// with a twin Pool that never deletes: a backend Keep deletes is one the
// twin has made unavailable for good (as the simulator gives up the slots
// of servers that have left). Every pick, score and availability must be
// the twin's, under the backend's new index, and the index must hold no
// more backends than it kept.
func TestKeepMatchesUnavailable(t *testing.T) {
	seedRapid()
	rapid.Check(t, func(t *rapid.T) {
		weight := rapid.OneOf(rapid.IntRange(0, 4), rapid.SampledFrom([]int{1, 7, MaxWeight}))
		burst := rapid.SampledFrom([]int{1, 1, 30}).Draw(t, "burst") // long bursts rotate
		var twin, p Pool
		var x Index
		var avail []bool // by the twin's index
		var at []int     // by the twin's index: the index in p and x, −1 once deleted
		check := func(step int) {
			n := 0
			for i, j := range at {
				if j < 0 {
					continue
				}
				n++
				if s := twin.Scores(nil)[i]; p.Scores(nil)[j] != s || x.Score(j) != s || x.Available(j) != avail[i] {
					t.Fatalf("step %d: backend %d (now %d): scores %d and %d, available %v; want %d, %v", step, i, j, p.Scores(nil)[j], x.Score(j), x.Available(j), s, avail[i])
				}
			}
			if p.Len() != n || x.Len() != n || len(x.base) != n {
				t.Fatalf("step %d: %d backends kept, the pool holds %d and the index %d", step, n, p.Len(), x.Len())
			}
		}
		for step := range rapid.IntRange(1, 200).Draw(t, "steps") {
			var live []int
			for i, j := range at {
				if j >= 0 {
					live = append(live, i)
				}
			}
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op == 0 || len(live) == 0:
				w := weight.Draw(t, "weight")
				twin.Add(w)
				j, _ := p.Add(w)
				x.Add(w)
				avail, at = append(avail, false), append(at, j)
			case op <= 2:
				i := rapid.SampledFrom(live).Draw(t, "backend")
				avail[i] = !avail[i]
				x.SetAvailable(at[i], avail[i])
			case op == 3:
				// Delete some of the unavailable backends (their scores
				// may be anything).
				drop := map[int]bool{}
				for _, i := range live {
					if !avail[i] && rapid.Bool().Draw(t, "drop") {
						drop[at[i]] = true
					}
				}
				p.Keep(func(j int) bool { return !drop[j] })
				x.Keep(func(j int) bool { return !drop[j] })
				n := 0
				for i, j := range at {
					switch {
					case j < 0:
					case drop[j]:
						at[i] = -1
					default:
						at[i] = n
						n++
					}
				}
			default:
				for range burst {
					want, wok := twin.PickAvailable(func(i int) bool { return avail[i] })
					got, gok := x.Pick()
					pgot, pok := p.PickAvailable(func(j int) bool { return x.Available(j) })
					if wok {
						want = at[want]
					}
					if got != want || gok != wok || pgot != want || pok != wok {
						t.Fatalf("step %d: the index picked %d %v, the pool %d %v, want %d %v", step, got, gok, pgot, pok, want, wok)
					}
				}
			}
			check(step)
		}
	})
}

// TestPoolKeepIsRemove: Keep deletes as Remove would, one backend after
// another from the highest index down, scores and total included.
func TestPoolKeepIsRemove(t *testing.T) {
	weights := []int{3, 0, 5, 1, 2, 4}
	a, b := mustNew(t, weights...), mustNew(t, weights...)
	for range 7 {
		a.Pick()
		b.Pick()
	}
	drop := []int{1, 3, 4}
	a.Keep(func(i int) bool { return !slices.Contains(drop, i) })
	for _, i := range slices.Backward(drop) {
		if err := b.Remove(i); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(a.Scores(nil), b.Scores(nil)) || a.Total() != b.Total() || a.Len() != 3 {
		t.Fatalf("after Keep: scores %v total %d; after Remove: %v total %d", a.Scores(nil), a.Total(), b.Scores(nil), b.Total())
	}
	for i := range a.Len() {
		if a.Weight(i) != b.Weight(i) {
			t.Fatalf("backend %d weighs %d after Keep, %d after Remove", i, a.Weight(i), b.Weight(i))
		}
	}
}
