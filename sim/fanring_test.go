package sim

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestReqRingMatchesMap holds reqRing to a plain map under random puts
// (mostly the next ids, some far ahead, some below the span, some again),
// deletions (mostly of old ids, some of ids not there) and lookups: the
// same record for every id asked, the same length and the same records
// listed; the ring keeps its invariants, and its buffer stays within four
// times the most records held at once (or its first length).
func TestReqRingMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var r reqRing
		want := map[int64]*fanReq{}
		next, peak := rapid.Int64Range(0, 1000).Draw(t, "first"), 0
		recs := map[int64]*fanReq{}
		rec := func(id int64) *fanReq {
			if recs[id] == nil {
				recs[id] = &fanReq{left: int32(id)}
			}
			return recs[id]
		}
		ops := rapid.IntRange(1, 3000).Draw(t, "ops")
		for range ops {
			id := next
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 4: // the next id, or a little further
				id = next + rapid.Int64Range(0, 3).Draw(t, "gap")
				if rapid.IntRange(0, 50).Draw(t, "far") == 0 {
					id += rapid.Int64Range(0, 500).Draw(t, "jump")
				}
				next = id + 1
				r.put(id, rec(id))
				want[id] = rec(id)
			case op == 4: // out of order: below the ring's span or within it
				id = next - rapid.Int64Range(1, 300).Draw(t, "back")
				r.put(id, rec(id))
				want[id] = rec(id)
			case op < 8 && len(want) > 0: // an id in flight, most often among the oldest
				ids := slices.Sorted(maps.Keys(want))
				i := rapid.IntRange(0, len(ids)-1).Draw(t, "which")
				if rapid.Bool().Draw(t, "oldest") {
					i = min(i, rapid.IntRange(0, 2).Draw(t, "near"))
				}
				id = ids[i]
				r.del(id)
				delete(want, id)
			default: // an id perhaps not in flight
				id = next - rapid.Int64Range(-5, 400).Draw(t, "any")
				r.del(id)
				delete(want, id)
			}
			peak = max(peak, len(want))
			for _, q := range []int64{id, id - 1, id + 1, r.lo, r.lo - 1, r.lo + int64(r.n)} {
				if got := r.get(q); got != want[q] {
					t.Fatalf("get(%d) = %v, want %v", q, got, want[q])
				}
			}
			checkReqRing(t, &r, want, peak)
		}
	})
}

// checkReqRing fails t unless ring r holds exactly want and keeps the
// invariants reqRing states, its buffer within 4 × peak (or minReqRing).
func checkReqRing(t *rapid.T, r *reqRing, want map[int64]*fanReq, peak int) {
	if r.len() != len(want) {
		t.Fatalf("len %d, want %d", r.len(), len(want))
	}
	got := map[int64]*fanReq{}
	r.each(func(id int64, q *fanReq) {
		if _, twice := got[id]; twice {
			t.Fatalf("id %d listed twice", id)
		}
		got[id] = q
	})
	if !maps.Equal(got, want) {
		t.Fatalf("records %s, want %s", fmt.Sprint(got), fmt.Sprint(want))
	}
	live := 0
	for i := range r.n {
		if r.buf[(r.head+i)&(len(r.buf)-1)] != nil {
			live++
		}
	}
	if live != r.live {
		t.Fatalf("live %d, the ring holds %d", r.live, live)
	}
	if r.n > 0 && r.buf[r.head] == nil {
		t.Fatalf("the span starts at an id with no record (lo %d)", r.lo)
	}
	for id := range r.old {
		if id >= r.lo {
			t.Fatalf("old holds id %d, not below lo %d", id, r.lo)
		}
	}
	if len(r.buf) > max(minReqRing, 4*peak) {
		t.Fatalf("buffer %d, past 4 × %d records at most in flight", len(r.buf), peak)
	}
}
