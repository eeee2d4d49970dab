package sim

import (
	"testing"

	"pgregory.net/rapid"
)

// TestLtreeBest runs random changes on an index of loads or keys and
// compares its best server after each with a scan: the lowest
// load/weight (or key), the lowest id on a tie. Loads move by one mostly,
// now and then jump (past maxBucket too), and weights differ in some runs,
// so the buckets, the tree and the change from one to the other all run.
// The best is sometimes left unread, so that changes meet walks still
// waiting.
func TestLtreeBest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		load := rapid.Bool().Draw(t, "load")
		var ix *ltree
		if load {
			ix = newLoadTree()
		} else {
			ix = &ltree{}
		}
		n := rapid.OneOf(rapid.IntRange(1, 6), rapid.IntRange(60, 150)).Draw(t, "servers")
		weights := rapid.SampledFrom([][]int64{{1}, {3}, {1, 2}, {0, 1}}).Draw(t, "weights")
		ix.ensure(n)
		in := make([]bool, n)
		for id := 1; id <= n; id++ {
			ix.weight[id-1] = weights[(id-1)%len(weights)]
			ix.key[id-1] = 0
		}
		for step := range rapid.IntRange(1, 300).Draw(t, "steps") {
			id := rapid.IntRange(1, n).Draw(t, "id")
			op := rapid.IntRange(0, 9).Draw(t, "op")
			bumped := false
			switch {
			case op < 6: // a load goes up or down by one
				d := int64(1)
				if ix.key[id-1] > 0 && rapid.Bool().Draw(t, "down") {
					d = -1
				}
				if load && in[id-1] {
					ix.bump(id, d) // as the balancer counts a request in or out
					bumped = true
					break
				}
				ix.key[id-1] += d
			case op == 6:
				ix.key[id-1] = rapid.SampledFrom([]int64{0, 7, maxBucket - 1, maxBucket, 1<<32 + 5}).Draw(t, "jump")
			default:
				in[id-1] = !in[id-1]
			}
			switch taking := in[id-1] && (!load || ix.weight[id-1] > 0); {
			case bumped:
			default:
				ix.set(id, taking)
			}
			if rapid.IntRange(0, 3).Draw(t, "look") == 0 {
				continue // leave the walks waiting, for the next change to find
			}
			want := 0
			for j := 1; j <= n; j++ {
				if !in[j-1] || load && ix.weight[j-1] == 0 {
					continue
				}
				kj := ix.key[j-1]
				if want == 0 {
					want = j
					continue
				}
				kw := ix.key[want-1]
				if load {
					kj, kw = kj*ix.weight[want-1], kw*ix.weight[j-1]
				}
				if kj < kw {
					want = j
				}
			}
			if got := ix.best(); got != want {
				t.Fatalf("step %d: best %d, want %d (bucketed %v, mixed %v)", step, got, want, ix.bucketed, ix.mixed)
			}
		}
	})
}

// TestClimbMatchesRebuild changes one leaf of a settled tree by key at a
// time, to any value (a rise of the best, as least-work's windows make,
// or anything else, none included), climbs from it, and compares every
// inner node with the tree rebuilt from its leaves.
func TestClimbMatchesRebuild(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 130).Draw(t, "servers")
		ix := &ltree{}
		ix.ensure(n)
		for id := 1; id <= n; id++ {
			ix.key[id-1] = rapid.Int64Range(0, 50).Draw(t, "key")
			ix.set(id, rapid.Bool().Draw(t, "in"))
		}
		ix.best() // settles
		leaves := len(ix.node) / 2
		for range rapid.IntRange(1, 50).Draw(t, "steps") {
			id := rapid.IntRange(1, n).Draw(t, "id")
			if best := ix.best(); best != 0 && rapid.Bool().Draw(t, "best") {
				id = best // least-work's case: the best's key rises
			}
			v := noNode
			if rapid.IntRange(0, 4).Draw(t, "none") > 0 {
				v = uint64(rapid.Int64Range(0, 60).Draw(t, "new"))<<32 | uint64(id)
			}
			i := leaves + id - 1
			ix.node[i] = v
			climb(ix.node, i)
			want := &ltree{node: append([]uint64(nil), ix.node...)}
			want.rebuild()
			for j := 1; j < leaves; j++ {
				if ix.node[j] != want.node[j] {
					t.Fatalf("node %d after climbing from server %d: %#x, rebuilt %#x", j, id, ix.node[j], want.node[j])
				}
			}
		}
	})
}

// checkTree checks that every inner node of ix is the better of its
// children (or the buckets hold what the leaves say) and that the best
// server is want.
func checkTree(ix *ltree, want int, fail func(string, ...any)) {
	got := ix.best() // brings the inner nodes up to date
	if ix.bucketed {
		checkBuckets(ix, fail)
	} else {
		for i := len(ix.node)/2 - 1; i >= 1; i-- {
			if w := ix.better(ix.node[2*i], ix.node[2*i+1]); ix.node[i] != w {
				fail("index node %d holds %x, the better of its children is %x", i, ix.node[i], w)
			}
		}
	}
	if got != want {
		fail("the index's best server is %d, want %d", got, want)
	}
}

// TestLtreeRenumber runs random changes on a tree and on its twin, which
// is renumbered now and then (slots that take no part given up, the rest
// moved down in order, as Balancer.compact does, and servers added after
// it), and compares their best servers after each change: the twin's must
// be the same server under its new slot. Both see the same changes, each
// under its own names; the renumbered tree's arrays shrink to the slots
// kept.
func TestLtreeRenumber(t *testing.T) {
	rapidDefaults(200)
	rapid.Check(t, func(t *rapid.T) {
		load := rapid.Bool().Draw(t, "load")
		var ix, re *ltree
		if load {
			ix, re = newLoadTree(), newLoadTree()
		} else {
			ix, re = &ltree{}, &ltree{}
		}
		weights := rapid.SampledFrom([][]int64{{1}, {3}, {1, 2}, {0, 1}}).Draw(t, "weights")
		var in []bool  // by id−1 of ix (ids are never reused)
		var slot []int // by id−1 of ix: the server's slot in re, 0 once given up
		add := func() {
			id := len(in) + 1
			in, slot = append(in, false), append(slot, len(re.key)+1)
			w := weights[(id-1)%len(weights)]
			ix.ensure(id)
			re.ensure(slot[id-1])
			ix.key[id-1], re.key[slot[id-1]-1] = 0, 0
			ix.weight[id-1], re.weight[slot[id-1]-1] = w, w
		}
		for range rapid.OneOf(rapid.IntRange(1, 6), rapid.IntRange(60, 150)).Draw(t, "servers") {
			add()
		}
		for step := range rapid.IntRange(1, 300).Draw(t, "steps") {
			op := rapid.IntRange(0, 12).Draw(t, "op")
			if op == 11 {
				add()
				continue
			}
			if op == 12 {
				// Renumber: some of the servers taking no part give their
				// slots up.
				rn := &renumbering{to: make([]int32, len(re.key))}
				for id := range in {
					if s := slot[id]; s != 0 && !in[id] && rapid.IntRange(0, 2).Draw(t, "giveUp") > 0 {
						slot[id] = 0
					}
				}
				for id, s := range slot {
					if s != 0 {
						rn.n++
						rn.to[s-1] = int32(rn.n)
						slot[id] = rn.n
					}
				}
				re.renumber(rn)
				if len(re.key) != rn.n || len(re.weight) != rn.n || len(re.node) > 2*max(2*rn.n, 1) {
					t.Fatalf("step %d: after renumbering to %d slots the tree holds %d keys, %d weights, %d nodes", step, rn.n, len(re.key), len(re.weight), len(re.node))
				}
			} else {
				var kept []int
				for id, s := range slot {
					if s != 0 {
						kept = append(kept, id+1)
					}
				}
				if len(kept) == 0 {
					add()
					continue
				}
				id := rapid.SampledFrom(kept).Draw(t, "id")
				s := slot[id-1]
				switch {
				case op < 7: // a load goes up or down by one
					d := int64(1)
					if ix.key[id-1] > 0 && rapid.Bool().Draw(t, "down") {
						d = -1
					}
					if load && in[id-1] {
						ix.bump(id, d)
						re.bump(s, d)
						break
					}
					ix.key[id-1] += d
					re.key[s-1] += d
					fallthrough
				case op == 7:
					if op == 7 {
						k := rapid.SampledFrom([]int64{0, 7, maxBucket - 1, maxBucket, 1<<32 + 5}).Draw(t, "jump")
						ix.key[id-1], re.key[s-1] = k, k
					}
					taking := in[id-1] && (!load || ix.weight[id-1] > 0)
					ix.set(id, taking)
					re.set(s, taking)
				default:
					in[id-1] = !in[id-1]
					taking := in[id-1] && (!load || ix.weight[id-1] > 0)
					ix.set(id, taking)
					re.set(s, taking)
				}
			}
			if rapid.IntRange(0, 3).Draw(t, "look") == 0 {
				continue // leave the walks waiting
			}
			want := ix.best()
			if want != 0 {
				want = slot[want-1]
			}
			if got := re.best(); got != want {
				t.Fatalf("step %d: the renumbered tree's best is slot %d, want %d (bucketed %v, mixed %v)", step, got, want, re.bucketed, re.mixed)
			}
		}
	})
}
