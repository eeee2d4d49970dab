package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPackRoundTrip checks that packing keeps every field, at the bounds
// the packing relies on and in between.
func TestPackRoundTrip(t *testing.T) {
	tests := []Request{
		{ID: 1, Time: 1},
		{ID: 1<<63 - 1, Arrival: MaxCycles, Src: 1<<32 - 1, Dst: 1<<32 - 1, Time: MaxTaskTime, Type: Streaming, Requeued: true},
		{ID: 42, Arrival: 7, Src: 0x0a000001, Dst: 0xc0000209, Time: 17, Type: Processing, Requeued: true},
		{ID: 43, Arrival: packedArrivalMask, Src: 1, Dst: 2, Time: packedTimeMask, Type: Streaming},
	}
	for _, r := range tests {
		if got := pack(r).unpack(); got != r {
			t.Errorf("pack(%+v).unpack() = %+v", r, got)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		r := Request{
			ID:       rapid.Int64Min(1).Draw(t, "id"),
			Arrival:  rapid.Int64Range(0, MaxCycles).Draw(t, "arrival"),
			Src:      rapid.Uint32().Draw(t, "src"),
			Dst:      rapid.Uint32().Draw(t, "dst"),
			Time:     rapid.Uint32Range(1, MaxTaskTime).Draw(t, "time"),
			Type:     Type(rapid.IntRange(0, 1).Draw(t, "type")),
			Requeued: rapid.Bool().Draw(t, "requeued"),
		}
		p := pack(r)
		if got := p.unpack(); got != r {
			t.Fatalf("pack(%+v).unpack() = %+v", r, got)
		}
		k := rapid.IntRange(0, MaxBalancers-1).Draw(t, "member")
		withK := r
		withK.Member = uint8(k)
		if q := p.withMember(k); q.member() != k || q.unpack() != withK || pack(withK) != q || q.withMember(0) != p {
			t.Fatalf("pack(%+v).withMember(%d): member %d, unpacks to %+v", r, k, q.member(), q.unpack())
		}
		if p.time() != r.Time || p.arrival() != r.Arrival || p.requeued() != r.Requeued {
			t.Fatalf("accessors of pack(%+v) = %d %d %v", r, p.time(), p.arrival(), p.requeued())
		}
	})
}

// TestFifoOrder pushes at both ends across several growths and checks the
// order the requests come out in.
func TestFifoOrder(t *testing.T) {
	var q fifo
	var want []int64
	for i := int64(1); i <= 300; i++ {
		if i%7 == 0 {
			q.pushFront(pack(Request{ID: i, Time: 1}), 0)
			want = append([]int64{i}, want...)
		} else {
			q.pushBack(pack(Request{ID: i, Time: 1}), 0)
			want = append(want, i)
		}
		if i%5 == 0 {
			if got := q.popFront(0).id; got != want[0] {
				t.Fatalf("after %d pushes popFront = #%d, want #%d", i, got, want[0])
			}
			want = want[1:]
		}
	}
	if q.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", q.Len(), len(want))
	}
	for i, id := range want {
		if got := q.at(i).id; got != id {
			t.Fatalf("at(%d) = #%d, want #%d", i, got, id)
		}
	}
}

// TestWheelNext checks the search for the next cycle with a completion
// against a cycle-by-cycle scan, across word and wrap-around boundaries.
func TestWheelNext(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var w wheel
		w.fit(rapid.Int64Range(1, 300).Draw(t, "span"))
		now := rapid.Int64Range(0, 10_000).Draw(t, "now")
		size := w.mask + 1
		for _, d := range rapid.SliceOfN(rapid.Int64Range(1, size-1), 0, 8).Draw(t, "due") {
			w.add(now+d, 1)
		}
		from := now + 1
		to := from + rapid.Int64Range(-1, 2*size).Draw(t, "len")
		want := to + 1
		for c := from; c <= to && c < from+size; c++ {
			if len(w.buckets[c&w.mask]) > 0 {
				want = c
				break
			}
		}
		if got := w.next(from, to); got != want {
			t.Fatalf("next(%d, %d) = %d, want %d", from, to, got, want)
		}
		for c := from; c < from+size; c++ {
			if w.has(c) != (len(w.buckets[c&w.mask]) > 0) {
				t.Fatalf("has(%d) = %v, bucket holds %d", c, w.has(c), len(w.buckets[c&w.mask]))
			}
		}
	})
}

// TestFifoRemove takes every position out of queues of several lengths,
// wrapped around their buffer, searched from every hint, against a slice
// doing the same; the search looks at no more places than the distance
// to the nearest end or onwards from the hint.
func TestFifoRemove(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for head := range 8 {
			for hint := -1; hint <= n+1; hint++ {
				for i := range n {
					fifoRemoveOne(t, n, head, hint, i)
				}
			}
		}
	}
}

// fifoRemoveOne is TestFifoRemove's case: the request at place i out of
// a queue of n whose head has moved head places, searched from hint.
func fifoRemoveOne(t *testing.T, n, head, hint, i int) {
	t.Helper()
	var q fifo
	for k := range head { // move the head so that the queue wraps
		q.pushBack(packed{id: int64(-k - 1)}, 0)
		q.popFront(0)
	}
	var want []int64
	for k := range n {
		q.pushBack(packed{id: int64(k + 1)}, 0)
		want = append(want, int64(k+1))
	}
	r, at, searched := q.remove(int64(i+1), hint, 0)
	if r.id != int64(i+1) || at != i {
		t.Fatalf("n %d head %d: remove(%d) returned %d at %d", n, head, i+1, r.id, at)
	}
	near := min(i, n-1-i)
	if hint >= 0 && hint <= i {
		near = min(near, i-hint)
	}
	if searched > near+1 {
		t.Fatalf("n %d head %d hint %d: remove(%d) searched %d places, want at most %d", n, head, hint, i+1, searched, near+1)
	}
	want = append(want[:i], want[i+1:]...)
	var got []int64
	for q.Len() > 0 {
		got = append(got, q.popFront(0).id)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("n %d head %d remove %d: left %v, want %v", n, head, i+1, got, want)
	}
}

// blocks returns the queue's blocks, none while it is a ring.
func (q *fifo) blocks() [][]packed {
	if q.blk == nil {
		return nil
	}
	return *q.blk
}

// TestFifoBlocks runs a queue past several blocks against a slice, with
// requests put at the front (across a block's start) and taken out of the
// middle, and checks that no buffer is larger than a block (a long queue
// asks for no large piece of memory, and grows without copying).
func TestFifoBlocks(t *testing.T) {
	var q fifo
	var want []int64
	next := int64(1)
	push := func(front bool) {
		p := packed{id: next}
		if front {
			q.pushFront(p, 0)
			want = append([]int64{next}, want...)
		} else {
			q.pushBack(p, 0)
			want = append(want, next)
		}
		next++
	}
	check := func(stage string) {
		t.Helper()
		if q.Len() != len(want) {
			t.Fatalf("%s: Len = %d, want %d", stage, q.Len(), len(want))
		}
		for _, i := range []int{0, len(want) / 3, len(want) / 2, len(want) - 1} {
			if got := q.at(i).id; got != want[i] {
				t.Fatalf("%s: at(%d) = #%d, want #%d", stage, i, got, want[i])
			}
		}
		if len(q.buf) > fifoBlock {
			t.Fatalf("%s: a ring of %d requests, more than a block (%d)", stage, len(q.buf), fifoBlock)
		}
		for _, b := range q.blocks() {
			if len(b) > fifoBlock {
				t.Fatalf("%s: a block of %d requests, more than %d", stage, len(b), fifoBlock)
			}
		}
	}
	for range 3*fifoBlock + 5 {
		push(false)
	}
	check("pushed 3 blocks")
	if len(q.blocks()) < 3 {
		t.Fatalf("a queue of %d requests in %d blocks", q.Len(), len(q.blocks()))
	}
	for range fifoBlock + 7 { // the first block empties and goes
		if got := q.popFront(0).id; got != want[0] {
			t.Fatalf("popFront = #%d, want #%d", got, want[0])
		}
		want = want[1:]
	}
	check("popped a block")
	var front []int64 // back across the first block's start
	for range fifoBlock + 3 {
		q.pushFront(packed{id: next}, 0)
		front = append(front, next)
		next++
	}
	slices.Reverse(front)
	want = append(front, want...)
	check("pushed to the front")
	for _, i := range []int{5, len(want) / 2, len(want) - 9} {
		id := want[i]
		r, at, _ := q.remove(id, i, 0)
		if r.id != id || at != i {
			t.Fatalf("remove(#%d) = #%d at %d, want at %d", id, r.id, at, i)
		}
		want = append(want[:i], want[i+1:]...)
	}
	check("removed three")
	for i, id := range want {
		if got := q.popFront(0).id; got != id {
			t.Fatalf("draining: popFront %d = #%d, want #%d", i, got, id)
		}
	}
	want = nil
	push(true)
	push(false)
	check("emptied and pushed again")
}

// TestFifoFullRingPushFront: a full ring of a block's size that takes a
// request at the front becomes blocks with it first.
func TestFifoFullRingPushFront(t *testing.T) {
	var q fifo
	for i := range fifoBlock {
		q.pushBack(packed{id: int64(i + 1)}, 0)
	}
	if q.blk != nil || len(q.buf) != fifoBlock {
		t.Fatalf("%d requests: a ring of %d (blocks %v), want a full ring of a block", q.Len(), len(q.buf), q.blk != nil)
	}
	q.pushFront(packed{id: -1}, 0)
	if q.Len() != fifoBlock+1 || q.at(0).id != -1 || q.at(1).id != 1 || q.at(fifoBlock).id != fifoBlock {
		t.Fatalf("after pushFront: Len %d, at(0) #%d, at(1) #%d, last #%d", q.Len(), q.at(0).id, q.at(1).id, q.at(fifoBlock).id)
	}
	for i := range fifoBlock + 1 {
		want := int64(i)
		if i == 0 {
			want = -1
		}
		if got := q.popFront(0).id; got != want {
			t.Fatalf("popFront %d = #%d, want #%d", i, got, want)
		}
	}
}
