package swrr

import (
	"slices"
	"strings"
	"testing"
)

// fataler is what the helpers need of *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// verify checks the pool's invariants: the cached total is the sum of the
// weights, weights are in range, and a zero-weight backend's score is 0
// (it never takes part in a pick).
func verify(t fataler, p *Pool) {
	t.Helper()
	var total int64
	for i, pe := range p.peers {
		if pe.weight < 0 || pe.weight > MaxWeight {
			t.Fatalf("backend %d: weight %d out of range", i, pe.weight)
		}
		if pe.weight == 0 && pe.current != 0 {
			t.Fatalf("backend %d: zero weight but score %d", i, pe.current)
		}
		total += pe.weight
	}
	if total != p.total {
		t.Fatalf("cached total %d, sum of weights %d", p.total, total)
	}
}

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

// letters names backend i "a", "b", … for readable sequences.
func letters(idx []int) string {
	var b strings.Builder
	for k, i := range idx {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(byte('a' + i))
	}
	return b.String()
}

func mustNew(t fataler, weights ...int) *Pool {
	t.Helper()
	p, err := New(weights)
	if err != nil {
		t.Fatalf("New(%v): %v", weights, err)
	}
	return p
}

// TestPickLessonTrace checks the lesson's worked table for a=3, b=1 step by
// step: the scores after step 1, the winner, and the scores after step 3.
func TestPickLessonTrace(t *testing.T) {
	p := mustNew(t, 3, 1)
	steps := []struct {
		afterAdd []int64
		winner   int
		after    []int64
	}{
		{[]int64{3, 1}, 0, []int64{-1, 1}},
		{[]int64{2, 2}, 0, []int64{-2, 2}}, // tie: a is listed first
		{[]int64{1, 3}, 1, []int64{1, -1}},
		{[]int64{4, 0}, 0, []int64{0, 0}},
	}
	for k, st := range steps {
		before := p.Scores(nil)
		for i := range before {
			before[i] += int64(p.Weight(i))
		}
		if !slices.Equal(before, st.afterAdd) {
			t.Errorf("pick %d: after step 1 got %v, want %v", k+1, before, st.afterAdd)
		}
		got, ok := p.Pick()
		if !ok || got != st.winner {
			t.Errorf("pick %d: winner got %d,%v, want %d", k+1, got, ok, st.winner)
		}
		if s := p.Scores(nil); !slices.Equal(s, st.after) {
			t.Errorf("pick %d: after step 3 got %v, want %v", k+1, s, st.after)
		}
		verify(t, p)
	}
}

func TestPickSequences(t *testing.T) {
	tests := []struct {
		name    string
		weights []int
		want    string // one period
	}{
		{"3:1", []int{3, 1}, "a a b a"},
		{"5:1:1", []int{5, 1, 1}, "a a b a c a a"},
		{"10:1 serves small in the middle", []int{10, 1}, "a a a a a b a a a a a"},
		{"equal weights are round-robin", []int{2, 2, 2}, "a b c a b c"},
		{"zero weight never wins", []int{0, 1, 0, 2, 0}, "d b d"},
		{"single backend", []int{7}, "a a a a a a a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustNew(t, tt.weights...)
			var got []int
			for range 2 * p.Total() { // two periods: the second repeats the first
				i, ok := p.Pick()
				if !ok {
					t.Fatalf("Pick: ok=false with weights %v", tt.weights)
				}
				got = append(got, i)
				verify(t, p)
			}
			if s := letters(got); s != tt.want+" "+tt.want {
				t.Errorf("got %q, want %q twice", s, tt.want)
			}
		})
	}
}

func TestPickNothing(t *testing.T) {
	tests := []struct {
		name string
		pool *Pool
	}{
		{"zero value", &Pool{}},
		{"New(nil)", mustNew(t)},
		{"all weights zero", mustNew(t, 0, 0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.pool.Scores(nil)
			if i, ok := tt.pool.Pick(); ok {
				t.Errorf("Pick = %d, true; want false", i)
			}
			if i, ok := tt.pool.PickAvailable(func(int) bool { return true }); ok {
				t.Errorf("PickAvailable = %d, true; want false", i)
			}
			if after := tt.pool.Scores(nil); !slices.Equal(before, after) {
				t.Errorf("scores changed from %v to %v", before, after)
			}
		})
	}
}

func TestNewRejectsBadWeights(t *testing.T) {
	for _, w := range [][]int{{-1}, {1, MaxWeight + 1}, {3, 1, -5}} {
		if p, err := New(w); err == nil || p != nil {
			t.Errorf("New(%v) = %v, %v; want an error", w, p, err)
		} else if !strings.Contains(err.Error(), "allowed 0 to 1000000000") {
			t.Errorf("New(%v) error %q does not say what is allowed", w, err)
		}
	}
	if _, err := New([]int{0, MaxWeight}); err != nil {
		t.Errorf("New with weights 0 and MaxWeight: %v", err)
	}
}

func TestAddRemoveReset(t *testing.T) {
	var p Pool
	for _, w := range []int{3, 1} {
		if _, err := p.Add(w); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Add(-1); err == nil {
		t.Error("Add(-1) succeeded")
	}
	if _, err := p.Add(MaxWeight + 1); err == nil {
		t.Error("Add(MaxWeight+1) succeeded")
	}
	p.Pick() // [-1, 1]
	i, err := p.Add(2)
	if err != nil || i != 2 {
		t.Fatalf("Add(2) = %d, %v", i, err)
	}
	verify(t, &p)
	if got := p.Scores(nil); !slices.Equal(got, []int64{-1, 1, 0}) {
		t.Errorf("after Add: scores %v, want [-1 1 0]", got)
	}
	if err := p.Remove(0); err != nil {
		t.Fatal(err)
	}
	verify(t, &p)
	if got := p.Scores(nil); !slices.Equal(got, []int64{1, 0}) || p.Weight(0) != 1 || p.Weight(1) != 2 || p.Total() != 3 {
		t.Errorf("after Remove(0): scores %v weights %d,%d total %d", got, p.Weight(0), p.Weight(1), p.Total())
	}
	for _, bad := range []int{-1, 2} {
		if err := p.Remove(bad); err == nil {
			t.Errorf("Remove(%d) succeeded on a pool of 2", bad)
		}
	}
	if p.Weight(-1) != 0 || p.Weight(5) != 0 {
		t.Error("Weight out of range is not 0")
	}
	p.Reset()
	if got := p.Scores(nil); !slices.Equal(got, []int64{0, 0}) {
		t.Errorf("after Reset: scores %v", got)
	}
}

// TestPickAvailable checks the nginx rule by hand: only available backends
// get their weight added, and the winner loses the available total.
func TestPickAvailable(t *testing.T) {
	p := mustNew(t, 3, 1, 2) // a, b, c
	notB := func(i int) bool { return i != 1 }
	steps := []struct {
		avail  func(int) bool
		winner int
		after  []int64
	}{
		{notB, 0, []int64{-2, 0, 2}},                               // a 3, c 2: a wins, loses 5
		{notB, 2, []int64{1, 0, -1}},                               // a 1, c 4: c wins, loses 5
		{nil, 0, []int64{-2, 1, 1}},                                // a 4, b 1, c 1: a wins, loses 6
		{func(i int) bool { return i == 1 }, 1, []int64{-2, 1, 1}}, // b alone: +1 then −1
		{func(int) bool { return false }, -1, []int64{-2, 1, 1}},   // nobody: nothing changes
		{func(i int) bool { return i != 0 }, 2, []int64{-2, 2, 0}}, // b 2, c 3: c wins, loses 3
	}
	for k, st := range steps {
		got, ok := p.PickAvailable(st.avail)
		if ok != (st.winner >= 0) || (ok && got != st.winner) {
			t.Errorf("step %d: got %d,%v, want %d", k+1, got, ok, st.winner)
		}
		if s := p.Scores(nil); !slices.Equal(s, st.after) {
			t.Errorf("step %d: scores %v, want %v", k+1, s, st.after)
		}
		verify(t, p)
	}
}
