package sim

import (
	"cmp"
	"fmt"
	"strconv"
)

// p2c's parameter d (Config.Choices, --choices): its default and range,
// with its row (choicesRow) and the router that reads it.
const (
	DefaultChoices = 2
	MaxChoices     = 100
)

// choices returns p2c's d, with 0 read as DefaultChoices.
func (c *Config) choices() int { return cmp.Or(c.Choices, DefaultChoices) }

// p2c (the power of d choices) draws Config.Choices distinct candidates
// uniformly with the routing generator (all of them when there are fewer)
// and routes to the least loaded, the first drawn on a tie. It keeps each
// candidate's load beside its id in the balancer's dense array of
// candidates (cands.load), so that a choice reads one array at one index.
// Pooled it picks uniformly among the idle servers, as random.
type p2c struct {
	quietRouter
	b *Balancer
}

func newP2C(b *Balancer) router { return &p2c{b: b} }

// caps: p2c reads loads, which the balancer keeps beside the candidates
// for it (cands.load, moved by every request in and out), so it hears no
// hooks.
func (r *p2c) caps() Caps { return Caps{Reads: ReadsLoads, Draws: true} }

// activate has the dense array keep the candidates' loads.
func (r *p2c) activate(int64) {
	c := &r.b.cands
	if !r.b.perServer {
		return
	}
	c.loads = true
	c.load = c.load[:0]
	for _, id := range c.ids {
		c.load = append(c.load, int32(r.b.load(int(id))))
	}
}

func (r *p2c) pickIdle() int {
	b := r.b
	return b.idle.nth(b.m.routeDraw(b.idle.n))
}

func (r *p2c) pick(q packed, _ int64) int {
	b := r.b
	n := len(b.cands.ids)
	d := min(b.m.cfg.choices(), n)
	if d == 2 { // the usual case, written out
		if b.tap != nil {
			return r.notedTwo(0, q, func(x int) int64 { return int64(b.cands.load[x]) })
		}
		x := b.m.routeDraw(n)
		y := b.m.routeDraw(n - 1)
		y += int(btou(y >= x)) // step over x
		// y if it is less loaded, without a branch: which one is, is a
		// coin the processor cannot call.
		load := b.cands.load
		x += (y - x) & -int(btou(load[y] < load[x]))
		return int(b.cands.ids[x])
	}
	load := b.cands.load
	return pickDrawnBy(b, 0, q.id, n, d, func(x int) int64 { return int64(load[x]) }, b.cands.ids)
}

// notedTwo is the two-choice pick of member k for request q while a tap
// is on (draws.go): the same draws and choice as pick's and fleetPick's,
// load read by index into cands, and noted. Kept apart so that the picks
// without a tap pay one test for it.
func (r *p2c) notedTwo(k int, q packed, load func(x int) int64) int {
	b := r.b
	ids := b.cands.ids
	n := len(ids)
	x := b.m.routeDraw(n)
	y := b.m.routeDraw(n - 1)
	y += int(btou(y >= x)) // step over x
	w := x
	if load(y) < load(x) {
		w = y
	}
	b.noteDraw(k, q.id, []int{x, y}, ids, load, nil, int(ids[w]))
	return int(ids[w])
}

// fleetPick is p2c's pick for attempt q's balancer of a fleet, drawing
// as one balancer does and comparing the loads that balancer sees.
func (r *p2c) fleetPick(f *fleet, q packed, t int64) int {
	if !f.viewed() {
		return r.pick(q, t)
	}
	b, k := r.b, q.member()
	ids := b.cands.ids
	n := len(ids)
	d := min(b.m.cfg.choices(), n)
	if d == 2 { // the usual case, written out as pick's
		if b.tap != nil {
			return r.notedTwo(k, q, func(x int) int64 { return f.v.load(k, int(ids[x])) })
		}
		x := b.m.routeDraw(n)
		y := b.m.routeDraw(n - 1)
		y += int(btou(y >= x)) // step over x
		if f.v.load(k, int(ids[y])) < f.v.load(k, int(ids[x])) {
			x = y
		}
		return int(ids[x])
	}
	return pickDrawnBy(b, k, q.id, n, d, func(x int) int64 { return f.v.load(k, int(ids[x])) }, ids)
}

func (r *p2c) ownPicks(f *fleet) bool { return f.viewed() }

// pickDrawnBy is p2c's pick for any d ≤ n: d distinct candidates of the n
// (ids) drawn in turn on the routing generator, the least loaded of them
// by load (by index in ids), the first drawn on a tie. Member k of b's
// fleet draws (0 for one balancer) for request q; a tap on b notes the
// draw.
func pickDrawnBy(b *Balancer, k int, q int64, n, d int, load func(x int) int64, ids []int32) int {
	m := b.m
	var drawn [MaxChoices]int // drawn indices into cands, ascending
	var order []int           // in the order drawn, for a tap
	best, bestLoad := 0, int64(0)
	for j := range d {
		// A uniform index among the n − j not drawn yet: draw below n − j,
		// then step over the drawn ones at or below it.
		x := m.routeDraw(n - j)
		i := 0
		for i < j && drawn[i] <= x {
			x++
			i++
		}
		copy(drawn[i+1:j+1], drawn[i:j])
		drawn[i] = x
		if b.tap != nil {
			order = append(order, x)
		}
		if l := load(x); best == 0 || l < bestLoad {
			best, bestLoad = int(ids[x]), l
		}
	}
	if b.tap != nil {
		b.noteDraw(k, q, order, ids, load, nil, best)
	}
	return best
}

// btou is 1 for true and 0 for false, without a branch.
func btou(v bool) uint {
	var u uint
	if v {
		u = 1
	}
	return u
}

// choicesRow is p2c's parameter d, a row of the settings table; --set may
// change it during a run (each pick reads it).
var choicesRow = whole("choices", "p2c: how many candidates to draw", "servers", func(c *Config) *int { return &c.Choices }, 1, MaxChoices,
	fmt.Sprintf("must be a whole number from 1 to %d", MaxChoices)).zero().defaults(strconv.Itoa(DefaultChoices)).example("3").changeable(SetChoices).wire("ch", 29).small(0, 4)

// pickAmong draws d of the candidates but those in skip (in the dense
// array's order) and takes the least loaded, as pick does over them all
// (fan-out).
func (r *p2c) pickAmong(q packed, _ int64, skip []int) int {
	b := r.b
	if b.m.cfg.choices() == 2 && b.tap == nil && b.m.fan != nil && len(skip) <= maxGaps {
		if n, gaps := b.candidatesGaps(skip); n >= 2 { // the usual case, without the list (fanroute.go)
			return r.twoAmong(q, n, gaps)
		}
	}
	return r.listAmong(q, skip)
}

// pickAmongGaps is pickAmong given the positions of the candidates in
// skip (gaps, ascending and distinct) and n, the candidates left, for
// parts routed one after another (fanadmit.go): without candidatesGaps,
// for any number of them.
func (r *p2c) pickAmongGaps(q packed, _ int64, skip []int, n int, gaps []int32) int {
	b := r.b
	if b.m.cfg.choices() != 2 || b.tap != nil || n < 2 {
		return r.listAmong(q, skip)
	}
	if b.fleet != nil || !b.cands.loads {
		return r.twoAmong(q, n, gaps)
	}
	// One balancer: the loads kept beside the candidates, as pick reads
	// them (each the server's queue and the attempt in service, as
	// seenLoad's).
	x := b.m.routeDraw(n)
	y := b.m.routeDraw(n - 1)
	y += int(btou(y >= x)) // step over x
	x, y = nthBut(x, gaps), nthBut(y, gaps)
	load := b.cands.load
	x += (y - x) & -int(btou(load[y] < load[x]))
	return int(b.cands.ids[x])
}

// twoAmong is pickAmong's two draws among the n candidates but those at
// the positions gaps (ascending): the draws and the choice of
// pickDrawnBy over candidatesBut's list, without the list.
func (r *p2c) twoAmong(q packed, n int, gaps []int32) int {
	b := r.b
	k, ids := q.member(), b.cands.ids
	x := b.m.routeDraw(n)
	y := b.m.routeDraw(n - 1)
	y += int(btou(y >= x)) // step over x
	ix, iy := int(ids[nthBut(x, gaps)]), int(ids[nthBut(y, gaps)])
	if b.seenLoad(k, iy) < b.seenLoad(k, ix) {
		return iy
	}
	return ix
}

// listAmong is pickAmong over candidatesBut's list.
func (r *p2c) listAmong(q packed, skip []int) int {
	b := r.b
	ids := b.candidatesBut(skip)
	n := len(ids)
	if n == 0 {
		return 0
	}
	k := q.member()
	return pickDrawnBy(b, k, q.id, n, min(b.m.cfg.choices(), n), func(x int) int64 { return b.seenLoad(k, int(ids[x])) }, ids)
}
