package sim

import (
	"math"
	"slices"
	"sort"
	"testing"

	"pgregory.net/rapid"
)

// plainOwner is the reference lookup: points sorted by position, then id,
// then k; the owner is the first point at or after key, wrapping, whose
// server is a member of active, or 0 when none is.
func plainOwner(points []ringPoint, key uint64, active *rankedSet) int {
	i := sort.Search(len(points), func(i int) bool { return points[i].at >= key })
	for range points {
		if i == len(points) {
			i = 0
		}
		if id := int(points[i].id); active.has(id) {
			return id
		}
		i++
	}
	return 0
}

// keysNear returns lookup keys that fall on the ring's edges: 0, the
// largest key, and each of a few points' positions and the keys either
// side of them.
func keysNear(t *rapid.T, points []ringPoint) []uint64 {
	keys := []uint64{0, math.MaxUint64, rapid.Uint64().Draw(t, "key")}
	if len(points) > 0 {
		for range 3 {
			at := points[rapid.IntRange(0, len(points)-1).Draw(t, "point")].at
			keys = append(keys, at-1, at, at+1)
		}
	}
	return keys
}

// TestHashRouterMatchesPlain runs random joins (some warming up first),
// departures, faults and lookups on a hash-routed pool and compares every owner the router gives
// (one source at a time, a batch of them, and keys on the points' edges)
// with plainOwner over the points of every server ever created, sorted
// afresh. The pools grow past the sizes at which the points of new servers
// wait beside the ring and are merged into it (by their number, and by
// lookups) and change the index's bits; many servers down switch lookups
// to the ring of the candidates alone.
func TestHashRouterMatchesPlain(t *testing.T) {
	rapidDefaults(100)
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.Queues, cfg.Policy = PerServer, Hash
		cfg.Servers = rapid.IntRange(1, 40).Draw(t, "servers")
		cfg.MaxServers = MaxServersLimit
		cfg.InitialPerServer, cfg.Rate = 0, 0
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.cycle = 1 // servers added by scaling may warm up (addServer) after cycle 0
		b := m.bal[0]
		h := b.rt.(*hashRouter)
		var plain []ringPoint
		plainOf := func() []ringPoint {
			if n := RingPoints * len(b.srv); len(plain) != n {
				plain = plain[:0]
				for id := 1; id <= len(b.srv); id++ {
					plain = appendPoints(plain, b.idOf(id), id)
				}
				slices.SortFunc(plain, cmpPoints)
			}
			return plain
		}
		// pickFrom draws a server id from those for which ok holds, or 0.
		pickFrom := func(t *rapid.T, ok func(id int) bool) int {
			var ids []int
			for id := 1; id <= len(b.srv); id++ {
				if ok(id) {
					ids = append(ids, id)
				}
			}
			if len(ids) == 0 {
				return 0
			}
			return rapid.SampledFrom(ids).Draw(t, "id")
		}
		active := func(id int) bool {
			_, warming := b.warming[id]
			return !b.srv[id-1].gone && !b.srv[id-1].down && !warming
		}
		look := func(t *rapid.T, keys []uint64) {
			for _, key := range keys {
				if got, want := h.lookupRing().owner(key, &b.active), plainOwner(plainOf(), key, &b.active); got != want {
					t.Fatalf("key %#x: owner %d, want %d", key, got, want)
				}
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"join": func(t *rapid.T) {
				// Some warm up first: their points are on the ring at once,
				// passed over until they are candidates.
				warm := rapid.SampledFrom([]int64{0, 0, 5}).Draw(t, "warm")
				for range rapid.IntRange(1, 40).Draw(t, "joins") {
					b.addServer(warm)
				}
			},
			"warm up": func(t *rapid.T) {
				m.cycle += 5
				b.warmUps(m.cycle)
			},
			"leave": func(t *rapid.T) {
				if id := pickFrom(t, active); id != 0 && b.active.n > 1 {
					b.unsetIdle(id)
					b.uncandidate(id)
					b.depart(id)
					b.live--
				}
			},
			"down": func(t *rapid.T) {
				for range rapid.IntRange(1, 20).Draw(t, "downs") {
					if id := pickFrom(t, active); id != 0 {
						b.takeDown(id, m.cycle)
					}
				}
			},
			"up": func(t *rapid.T) {
				if id := pickFrom(t, func(id int) bool { return b.srv[id-1].down }); id != 0 {
					b.bringUp(id, m.cycle)
				}
			},
			"switch": func(t *rapid.T) { h.activate(m.cycle) }, // as after another policy
			"look":   func(t *rapid.T) { look(t, keysNear(t, plainOf())) },
			"pick": func(t *rapid.T) {
				src := rapid.Uint32().Draw(t, "src")
				key := HashKey(src)
				if got, want := h.pick(packed{addr: uint64(src) << 32}, 0), plainOwner(plainOf(), key, &b.active); got != want {
					t.Fatalf("source %#x: owner %d, want %d", src, got, want)
				}
			},
			"batch": func(t *rapid.T) {
				if b.active.n == 0 {
					return // a window, which looks up batches, needs a candidate
				}
				batch := make([]packed, rapid.IntRange(1, 20).Draw(t, "batch"))
				for i := range batch {
					batch[i].addr = uint64(rapid.Uint32().Draw(t, "src")) << 32
				}
				got := slices.Clone(h.owners(batch))
				for i, q := range batch {
					if want := plainOwner(plainOf(), HashKey(uint32(q.addr>>32)), &b.active); int(got[i]) != want {
						t.Fatalf("batch source %#x: owner %d, want %d", q.addr>>32, got[i], want)
					}
				}
			},
			"many looks": func(t *rapid.T) {
				// As many lookups as the ring has points merge the waiting ones.
				n := len(h.ring.points) + 1
				src := rapid.Uint32().Draw(t, "src")
				for range n {
					src = src*1664525 + 1013904223
					if got, want := h.pick(packed{addr: uint64(src) << 32}, 0), plainOwner(plainOf(), HashKey(src), &b.active); got != want {
						t.Fatalf("source %#x: owner %d, want %d", src, got, want)
					}
				}
				if len(h.ring.over) != 0 {
					t.Fatalf("%d lookups without a scale-up left %d points waiting beside a ring of %d", n, len(h.ring.over), len(h.ring.points))
				}
			},
			"check": func(t *rapid.T) {
				// The ring and its waiting points hold every point of the
				// servers that have not left (those that have left may stay).
				r := &h.ring
				if r.stale || len(r.points) == 0 {
					return
				}
				checkRingIndex(t, r)
				gone := func(p ringPoint) bool { return b.srv[p.id-1].gone }
				got := slices.DeleteFunc(ringAll(t, r), gone)
				if want := slices.DeleteFunc(slices.Clone(plainOf()), gone); !slices.Equal(got, want) {
					t.Fatalf("the ring holds %d points of servers that have not left, want %d", len(got), len(want))
				}
			},
			"": func(t *rapid.T) {
				if r := &h.ring; overShare*len(r.over) > len(r.points) {
					t.Fatalf("%d points wait beside a ring of %d", len(r.over), len(r.points))
				}
			},
		})
	})
}

// TestRingWaitingMatchesPlain adds made-up points, many of them at the
// same positions (ties, which real points almost never have), beside a
// ring and merges them, and compares owner after each change with
// plainOwner: ties go to the lower id, then the lower k, waiting or not.
func TestRingWaitingMatchesPlain(t *testing.T) {
	rapidDefaults(100)
	rapid.Check(t, func(t *rapid.T) {
		// A few positions, spread over the buckets and at their edges, so
		// that points share them.
		spots := rapid.SliceOfN(rapid.OneOf(rapid.Uint64(), rapid.SampledFrom([]uint64{0, 1, 1 << 60, 1<<60 - 1, math.MaxUint64})), 1, 12).Draw(t, "spots")
		position := func(t *rapid.T) uint64 {
			if rapid.IntRange(0, 3).Draw(t, "fresh") == 0 {
				return rapid.Uint64().Draw(t, "at")
			}
			return rapid.SampledFrom(spots).Draw(t, "spot")
		}
		server := func(t *rapid.T, id int) []ringPoint {
			ps := make([]ringPoint, rapid.IntRange(1, 2*RingPoints).Draw(t, "points"))
			for k := range ps {
				ps[k] = ringPoint{position(t), int32(id), int32(k)}
			}
			return ps
		}
		var active rankedSet
		var r ring
		var plain []ringPoint
		used := map[int]bool{}
		ids := rapid.IntRange(1, 30).Draw(t, "servers")
		for id := 1; id <= ids; id++ {
			used[id] = true
			plain = append(plain, server(t, id)...)
			active.add(id)
		}
		slices.SortFunc(plain, cmpPoints)
		r.points = slices.Clone(plain)
		r.index()
		t.Repeat(map[string]func(*rapid.T){
			"add": func(t *rapid.T) {
				// Ids out of order too: a tie then goes to a waiting point.
				id := rapid.IntRange(1, 1000).Draw(t, "id")
				if used[id] {
					return // a server's points are added once
				}
				used[id] = true
				ps := server(t, id)
				r.add(ps)
				plain = append(plain, ps...)
				slices.SortFunc(plain, cmpPoints)
			},
			"toggle": func(t *rapid.T) {
				id := int(rapid.SampledFrom(plain).Draw(t, "of").id)
				if active.has(id) {
					active.remove(id)
				} else {
					active.add(id)
				}
			},
			"merge": func(t *rapid.T) {
				if len(r.over) > 0 {
					r.merge()
				}
			},
			"look": func(t *rapid.T) {
				for _, key := range keysNear(t, plain) {
					if got, want := r.owner(key, &active), plainOwner(plain, key, &active); got != want {
						t.Fatalf("key %#x: owner %d, want %d", key, got, want)
					}
				}
			},
			"": func(t *rapid.T) {
				checkRingIndex(t, &r)
				if all := ringAll(t, &r); !slices.Equal(all, plain) {
					t.Fatalf("the ring and its waiting points hold %d points, not the %d added", len(all), len(plain))
				}
			},
		})
	})
}

// TestRingOwnerWaiting: the owner read from key on, wrapping, over a ring
// and the points waiting beside it, in cases the random tests seldom make.
// Bucket b of the 16 starts at position b<<60; server 1, never a candidate,
// has two points in each bucket (the ring must hold overShare times the
// waiting points, or add merges them).
func TestRingOwnerWaiting(t *testing.T) {
	at := func(bucket, off uint64) uint64 { return bucket<<60 | off }
	for _, c := range []struct {
		name    string
		main    []ringPoint // besides server 1's
		waiting []ringPoint
		key     uint64
		want    int
	}{
		{"the ring's candidate wraps within key's bucket; a waiting one comes before it",
			[]ringPoint{{at(0, 5), 2, 0}}, []ringPoint{{at(7, 1), 3, 0}}, at(0, 9), 3},
		{"the ring's candidate wraps within key's bucket and comes first",
			[]ringPoint{{at(0, 5), 2, 0}}, []ringPoint{{at(0, 7), 3, 0}}, at(0, 9), 2},
		{"a waiting point below key in key's bucket comes last",
			[]ringPoint{{at(3, 5), 2, 0}}, []ringPoint{{at(0, 7), 3, 0}}, at(0, 9), 2},
		{"only waiting candidates, key past the last of them",
			nil, []ringPoint{{at(2, 1), 3, 0}, {at(9, 1), 4, 0}}, at(12, 0), 3},
		{"a tie of position: the waiting point's lower id wins",
			[]ringPoint{{at(4, 4), 5, 0}}, []ringPoint{{at(4, 4), 3, 0}}, at(4, 1), 3},
		{"a tie of position: the ring's lower id wins",
			[]ringPoint{{at(4, 4), 2, 0}}, []ringPoint{{at(4, 4), 3, 0}}, at(4, 1), 2},
		{"a key on a waiting point",
			[]ringPoint{{at(4, 8), 2, 0}}, []ringPoint{{at(4, 4), 3, 0}}, at(4, 4), 3},
		{"no candidate at all", nil, []ringPoint{{at(4, 4), 6, 0}}, at(4, 4), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var active rankedSet
			var r ring
			for b := range uint64(16) {
				r.points = append(r.points, ringPoint{at(b, 0), 1, int32(b)}, ringPoint{at(b, 2), 1, int32(16 + b)})
			}
			for _, p := range c.main {
				r.points = append(r.points, p)
				active.add(int(p.id))
			}
			slices.SortFunc(r.points, cmpPoints)
			r.index()
			r.add(c.waiting)
			if len(r.over) != len(c.waiting) {
				t.Fatalf("%d points wait, want %d", len(r.over), len(c.waiting))
			}
			for _, p := range c.waiting {
				if p.id != 6 {
					active.add(int(p.id))
				}
			}
			plain := append(slices.Clone(r.points), r.over...)
			slices.SortFunc(plain, cmpPoints)
			if want := plainOwner(plain, c.key, &active); want != c.want {
				t.Fatalf("the plain owner is %d, the case says %d", want, c.want)
			}
			if got := r.owner(c.key, &active); got != c.want {
				t.Fatalf("owner %d, want %d", got, c.want)
			}
			// With no candidate on the ring itself, the lookup merged the
			// waiting points rather than walk every bucket.
			if merged := !slices.ContainsFunc(c.main, func(p ringPoint) bool { return active.has(int(p.id)) }); merged != (len(r.over) == 0) {
				t.Fatalf("%d points wait after the lookup; merged: %v", len(r.over), merged)
			}
			checkRingIndex(t, &r)
			if !slices.Equal(ringAll(t, &r), plain) {
				t.Fatal("the lookup changed the points")
			}
		})
	}
}

// TestRingRenumber adds made-up servers (many points at the same
// positions: ties) to a ring and to its twin, which is renumbered now and
// then: some servers that are no candidates give their slots up, the rest
// move down in order, as Balancer.compact does. Servers are added in the
// order of their ids, as the balancer creates them. After each change the
// renumbered ring's owner of keys on the points' edges must be the twin's
// (under its new slot) and plainOwner's over the twin's points renamed,
// and it must hold only the points of the slots kept.
func TestRingRenumber(t *testing.T) {
	rapidDefaults(100)
	rapid.Check(t, func(t *rapid.T) {
		spots := rapid.SliceOfN(rapid.OneOf(rapid.Uint64(), rapid.SampledFrom([]uint64{0, 1 << 60, math.MaxUint64})), 1, 8).Draw(t, "spots")
		server := func(t *rapid.T, id int) []ringPoint {
			ps := make([]ringPoint, rapid.IntRange(1, RingPoints).Draw(t, "points"))
			for k := range ps {
				at := rapid.SampledFrom(spots).Draw(t, "spot")
				if rapid.Bool().Draw(t, "fresh") {
					at = rapid.Uint64().Draw(t, "at")
				}
				ps[k] = ringPoint{at, int32(id), int32(k)}
			}
			return ps
		}
		var twin, r ring
		var twinActive, active rankedSet
		var plain []ringPoint // the twin's points, sorted
		var slot []int        // by id−1: the server's slot in r, 0 once given up
		add := func(t *rapid.T, built bool) {
			id := len(slot) + 1
			s := 1
			for _, o := range slot {
				s = max(s, o+1)
			}
			slot = append(slot, s)
			ps := server(t, id)
			mine := slices.Clone(ps)
			for k := range mine {
				mine[k].id = int32(s)
			}
			if built {
				twin.add(ps)
				r.add(mine)
			} else {
				twin.points = append(twin.points, ps...)
				r.points = append(r.points, mine...)
			}
			plain = append(plain, ps...)
			slices.SortFunc(plain, cmpPoints)
			twinActive.add(id)
			active.add(s)
		}
		for range rapid.IntRange(1, 30).Draw(t, "servers") {
			add(t, false)
		}
		slices.SortFunc(twin.points, cmpPoints)
		slices.SortFunc(r.points, cmpPoints)
		twin.index()
		r.index()
		t.Repeat(map[string]func(*rapid.T){
			"add": func(t *rapid.T) { add(t, true) },
			"toggle": func(t *rapid.T) {
				id := int(rapid.SampledFrom(plain).Draw(t, "of").id)
				if slot[id-1] == 0 {
					return // gone for good
				}
				if twinActive.has(id) {
					twinActive.remove(id)
					active.remove(slot[id-1])
				} else {
					twinActive.add(id)
					active.add(slot[id-1])
				}
			},
			"merge": func(t *rapid.T) {
				if len(r.over) > 0 {
					r.merge()
				}
			},
			"renumber": func(t *rapid.T) {
				rn := &renumbering{}
				for _, s := range slot {
					if s != 0 {
						rn.to = append(rn.to, 0)
					}
				}
				for id, s := range slot {
					if s != 0 && !twinActive.has(id+1) && rapid.Bool().Draw(t, "giveUp") {
						slot[id] = 0
					}
				}
				for id, s := range slot {
					if s != 0 {
						rn.n++
						rn.to[s-1] = int32(rn.n)
						active.remove(s)
						slot[id] = rn.n
					}
				}
				active = rankedSet{}
				for id, s := range slot {
					if s != 0 && twinActive.has(id+1) {
						active.add(s)
					}
				}
				r.renumber(rn)
				for _, p := range r.points {
					if int(p.id) > rn.n {
						t.Fatalf("the ring holds a point of slot %d after renumbering to %d slots", p.id, rn.n)
					}
				}
			},
			"look": func(t *rapid.T) {
				renamed := slices.DeleteFunc(slices.Clone(plain), func(p ringPoint) bool { return slot[p.id-1] == 0 })
				for i := range renamed {
					renamed[i].id = int32(slot[renamed[i].id-1])
				}
				for _, key := range keysNear(t, plain) {
					want := twin.owner(key, &twinActive)
					if want != 0 {
						want = slot[want-1]
					}
					if got, plain := r.owner(key, &active), plainOwner(renamed, key, &active); got != want || plain != want {
						t.Fatalf("key %#x: owner %d, the twin's %d, plainOwner's %d", key, got, want, plain)
					}
				}
			},
			"": func(t *rapid.T) {
				checkRingIndex(t, &r)
				var kept []ringPoint
				for _, p := range plain {
					if s := slot[p.id-1]; s != 0 {
						p.id = int32(s)
						kept = append(kept, p)
					}
				}
				if all := ringAll(t, &r); !slices.Equal(all, kept) {
					t.Fatalf("the ring and its waiting points hold %d points, not the %d kept", len(all), len(kept))
				}
			},
		})
	})
}
