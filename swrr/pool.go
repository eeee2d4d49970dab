// Package swrr implements nginx's smooth weighted round-robin (docs/cli.md
// describes it and the protocol).
//
// Contract. Every backend of a [Pool] has a fixed integer weight in
// [0, MaxWeight] and a running score, current, that starts at 0. One pick:
//
//  1. adds each backend's weight to its current;
//  2. chooses the backend with the highest current, the earliest-listed on a tie;
//  3. subtracts the total of all weights from the winner's current.
//
// A zero-weight backend never wins; when every weight is zero nothing can be
// picked. Scores persist across picks; only a new pool (or [Pool.Reset])
// clears them. After every [Pool.Pick] the scores sum to zero, the sequence
// repeats with a period equal to the total weight, and each backend wins
// exactly its weight times per period, spread out rather than in bursts.
//
// [Pool.PickAvailable] is the variant the simulator uses: like nginx, which
// skips unavailable peers, only the available backends take part in a pick,
// and the total subtracted from the winner is the total over them.
//
// Picking costs O(n) time in the number of backends and allocates nothing.
// [Index] gives the same picks in O(g + log n), for g distinct weights, when
// availability changes seldom; with [Index.SitOut], for backends that sit
// a few picks out (fan-out's siblings), such changes cost O(1) too. Nothing in this package keeps global state,
// and neither type is safe for concurrent use.
//
// [Serve] speaks the `lbsim wrr` line protocol (docs/cli.md) on top of a Pool.
package swrr

import "fmt"

// MaxWeight is the largest weight a backend may have. With it, a pool would
// need more than nine billion backends before a score could overflow int64.
const MaxWeight = 1_000_000_000

// peer is one backend: its fixed weight and its running score.
type peer struct {
	weight  int64
	current int64
}

// Pool is an ordered list of weighted backends with their running scores.
// Backends are identified by their index, in the order they were added; the
// caller keeps whatever names or servers go with the indexes.
//
// The zero value is an empty pool, ready to use.
type Pool struct {
	peers []peer
	total int64 // sum of all weights
}

// New returns a pool with one backend per weight, in order, all scores 0.
// It fails, naming the first offending index, if a weight is negative or
// larger than MaxWeight.
func New(weights []int) (*Pool, error) {
	p := &Pool{peers: make([]peer, 0, len(weights))}
	for i, w := range weights {
		if _, err := p.Add(w); err != nil {
			return nil, fmt.Errorf("backend %d: %w", i, err)
		}
	}
	return p, nil
}

func checkWeight(w int) error {
	if w < 0 || w > MaxWeight {
		return fmt.Errorf("weight %d is out of range: allowed 0 to %d", w, MaxWeight)
	}
	return nil
}

// Add appends a backend with the given weight and a score of 0, and returns
// its index. It fails, changing nothing, if the weight is negative or larger
// than MaxWeight. Amortised O(1).
func (p *Pool) Add(weight int) (int, error) {
	if err := checkWeight(weight); err != nil {
		return 0, err
	}
	p.peers = append(p.peers, peer{weight: int64(weight)})
	p.total += int64(weight)
	return len(p.peers) - 1, nil
}

// Remove deletes backend i. The backends after it move down one index and
// keep their scores and order. The scores of the remaining backends then sum
// to minus the removed backend's score rather than to zero, which the
// following picks carry along unchanged. It fails, changing nothing, if i is
// not an index of the pool. O(n).
func (p *Pool) Remove(i int) error {
	if i < 0 || i >= len(p.peers) {
		return fmt.Errorf("no backend %d: the pool has indexes 0 to %d", i, len(p.peers)-1)
	}
	p.total -= p.peers[i].weight
	p.peers = append(p.peers[:i], p.peers[i+1:]...)
	return nil
}

// Keep keeps the backends i for which keep(i) is true and deletes the
// others, as Remove would one by one: the backends kept move down, keeping
// their order, weights and scores. keep is called once per backend, in
// index order. The pool's memory shrinks with it when it halves. O(n).
func (p *Pool) Keep(keep func(i int) bool) {
	n := 0
	p.total = 0
	for i, pe := range p.peers {
		if keep(i) {
			p.peers[n] = pe
			p.total += pe.weight
			n++
		}
	}
	p.peers = shrink(p.peers, n)
}

// shrink returns s cut to its first n elements, in a new array of its own
// when that leaves less than half of s's capacity in use.
func shrink[T any](s []T, n int) []T {
	if 2*n < cap(s) {
		return append([]T(nil), s[:n]...)
	}
	return s[:n]
}

// Reset sets every score back to 0, as a new pool with the same weights
// would have. O(n).
func (p *Pool) Reset() {
	for i := range p.peers {
		p.peers[i].current = 0
	}
}

// Len returns the number of backends. O(1).
func (p *Pool) Len() int { return len(p.peers) }

// Total returns the sum of all weights. O(1).
func (p *Pool) Total() int64 { return p.total }

// Weight returns the weight of backend i, or 0 if i is not an index of the
// pool. O(1).
func (p *Pool) Weight(i int) int {
	if i < 0 || i >= len(p.peers) {
		return 0
	}
	return int(p.peers[i].weight)
}

// Scores appends every backend's current score to dst, in index order, and
// returns the extended slice. Passing the previous result's dst[:0] reuses
// its memory. O(n).
func (p *Pool) Scores(dst []int64) []int64 {
	for _, pe := range p.peers {
		dst = append(dst, pe.current)
	}
	return dst
}

// Pick performs one smooth weighted round-robin pick over all backends and
// returns the winner's index. It returns ok == false, changing nothing, when
// no backend has a positive weight. O(n), no allocation.
func (p *Pool) Pick() (index int, ok bool) {
	if p.total == 0 {
		return -1, false
	}
	best := -1
	var bestCurrent int64
	for i := range p.peers {
		pe := &p.peers[i]
		if pe.weight == 0 {
			continue
		}
		pe.current += pe.weight
		if best < 0 || pe.current > bestCurrent {
			best, bestCurrent = i, pe.current
		}
	}
	p.peers[best].current -= p.total
	return best, true
}

// PickAvailable performs one pick among the backends i for which
// available(i) is true, as nginx does when it skips unavailable peers: only
// the available backends get their weight added, the highest current among
// them wins (the earliest-listed on a tie), and the winner loses the total
// weight of the available backends. Unavailable backends keep their scores.
// A nil available means every backend is available, which is [Pool.Pick].
//
// It returns ok == false, changing nothing, when no available backend has a
// positive weight. available is called once per backend with a positive
// weight, in index order. O(n), no allocation.
func (p *Pool) PickAvailable(available func(i int) bool) (index int, ok bool) {
	if available == nil {
		return p.Pick()
	}
	best := -1
	var bestCurrent, total int64
	for i := range p.peers {
		pe := &p.peers[i]
		if pe.weight == 0 || !available(i) {
			continue
		}
		pe.current += pe.weight
		total += pe.weight
		if best < 0 || pe.current > bestCurrent {
			best, bestCurrent = i, pe.current
		}
	}
	if best < 0 {
		return -1, false
	}
	p.peers[best].current -= total
	return best, true
}
