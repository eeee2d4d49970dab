package sim

import (
	"math/bits"
	"slices"
)

// Slots and ids. Inside the package a server is named by its slot, a
// number from 1 that indexes every per-server structure: Balancer.srv,
// the server queues, the sets of idle, free and active servers, the
// candidates, the timing wheel and the routers' arrays (the code calls a
// slot id where it reads a server). Ids, what events, views and faults
// call a server, are given in creation order and never reused, so a pool
// that scales up and down for long would index ever longer arrays if
// slots were ids. Instead the balancer renumbers its slots now and then
// (compact): the servers that have left give theirs up and the others
// move down, keeping their order. Slots and ids so rise together, and
// every rule that reads "the lowest id" or "the next id after" reads the
// same on slots; only what reads an id's value (events, views, faults,
// weights, speeds, hash positions, Model.Hash) asks idOf.

// renumbering is one compaction's map from old slots to new ones; it
// keeps their order.
type renumbering struct {
	to []int32 // by old slot−1: the new slot, or 0 for a slot given up
	n  int     // the number of slots after
}

// of returns the new slot of old slot s, or 0 when s was given up (or
// is 0).
func (r *renumbering) of(s int) int {
	if s < 1 || s > len(r.to) {
		return 0
	}
	return int(r.to[s-1])
}

// idOf returns the id of the server in slot s.
func (b *Balancer) idOf(s int) int { return int(b.ids[s-1]) }

// slotOf returns the slot of the server with id, or 0 when it has given
// its slot up or was never created.
func (b *Balancer) slotOf(id int) int {
	if id < 1 || id > b.created {
		return 0
	}
	if id <= len(b.ids) && b.ids[id-1] == int32(id) {
		return id // no slot below it given up: the common case, no search
	}
	if i, ok := slices.BinarySearch(b.ids, int32(id)); ok {
		return i + 1
	}
	return 0
}

// compactMin is the fewest slots given up at once: below it the servers
// that have left keep theirs (a few kilobytes), so compacting costs
// nothing in a pool that seldom shrinks. The package's tests lower it to
// 1, so every run they make compacts at each chance (its benchmarks keep
// compactMinDefault).
var compactMin = compactMinDefault

const compactMinDefault = 1024

// compactDue reports whether enough servers have left for compact to give
// up their slots: at least compactMin, and at least half the slots (so the work of a
// compaction, linear in the slots, is paid for by the departures).
func (b *Balancer) compactDue() bool {
	if b.left < compactMin {
		return false // the common case, read every cycle (record)
	}
	n := b.left // the slots compact would give up: not lastGiven's
	if g := b.lastGiven; g > 0 && b.srv[g-1].gone {
		n--
	}
	return n >= compactMin && 2*n >= len(b.srv)
}

// compact renumbers the slots: the servers that have left give theirs
// up, except the last one given a request (round-robin goes on from it),
// and the others move down in order. It runs at the end of a cycle, when
// nothing holds a slot but the balancer's structures and its routers.
//
// The invariant it keeps: the run goes on exactly as without it. Every
// structure keeps its members and their order, under their new slots; a
// reference to a server that has left (a stale wheel entry, a pending
// repair) becomes what a reference to a server that has left reads as.
func (b *Balancer) compact() {
	r := &renumbering{to: make([]int32, len(b.srv))}
	for i := range b.srv {
		if !b.srv[i].gone || i+1 == b.lastGiven {
			r.n++
			r.to[i] = int32(r.n)
		}
	}
	keep := func(i int) bool { return r.to[i] != 0 }
	b.srv = compactSlice(b.srv, keep)
	b.ids = compactSlice(b.ids, keep)
	if b.perServer {
		b.sq = compactSlice(b.sq, keep)
	}
	b.det = compactSlice(b.det, keep)
	if l := b.lim; l != nil {
		l.per = compactSlice(l.per, keep)
		l.abandonedJoined = renumberKeys(l.abandonedJoined, r)
	}
	b.left, b.firstLive = 0, 0
	if b.lastGiven > 0 {
		b.lastGiven = r.of(b.lastGiven)
		if b.srv[b.lastGiven-1].gone {
			b.left = 1
		}
	}
	b.free.renumber(r)
	b.ready.renumber(r)
	b.idle.renumber(r)
	b.active.renumber(r)
	b.cands.renumber(r)
	b.wheel.renumber(r)
	b.repairs.renumber(r)
	b.refused = renumberSlots(b.refused, r)
	b.grays = renumberKeys(b.grays, r)
	b.ends = renumberKeys(b.ends, r)
	b.grayStart = renumberKeys(b.grayStart, r)
	b.ejected = renumberKeys(b.ejected, r)
	b.warming = renumberKeys(b.warming, r)
	b.outSince.renumber(r)
	b.known = renumberKeys(b.known, r)
	if c := b.cl; c != nil {
		c.abandonAt = renumberKeys(c.abandonAt, r)
		for _, f := range c.flights {
			f.server = r.of(f.server)
		}
		for i := c.firsts.base; i < c.firsts.end(); i++ {
			if v := c.firsts.get(i); v != 0 {
				if id, in := placeOf(v); id != 0 {
					c.firsts.set(i, v&^locMask|locOf(r.of(id), in))
				}
			}
		}
	}
	for _, rt := range b.routers {
		if rt != nil {
			rt.renumber(r)
		}
	}
	if b.fleet != nil {
		b.fleet.renumber(r)
	}
	b.tally.renumber(r)
}

// compactSlice returns s with the elements keep refuses taken out, in
// order; it keeps s's array when that is at most twice as long as needed.
func compactSlice[T any](s []T, keep func(i int) bool) []T {
	out := s[:0]
	for i := range s {
		if keep(i) {
			out = append(out, s[i])
		}
	}
	clear(s[len(out):])
	if cap(out) > 2*len(out)+64 {
		out = append([]T(nil), out...) // give the long array back
	}
	return out
}

// renumberSlots renumbers a list of slots in place, dropping those given
// up.
func renumberSlots(s []int, r *renumbering) []int {
	out := s[:0]
	for _, v := range s {
		if n := r.of(v); n != 0 {
			out = append(out, n)
		}
	}
	return out
}

// renumberKeys returns map m with its slot keys renumbered, dropping
// those given up (nil stays nil).
func renumberKeys[V any](m map[int]V, r *renumbering) map[int]V {
	if m == nil {
		return nil
	}
	out := make(map[int]V, len(m))
	for s, v := range m {
		if n := r.of(s); n != 0 {
			out[n] = v
		}
	}
	return out
}

// renumber moves the set's members to their new slots.
func (s *idset) renumber(r *renumbering) {
	old := s.w
	*s = idset{}
	for wi, w := range old {
		for ; w != 0; w &= w - 1 {
			if n := r.of(wi<<6 + bits.TrailingZeros64(w) + 1); n != 0 {
				s.add(n)
			}
		}
	}
}

// renumber moves the set's members to their new slots; the counts are
// rebuilt by the next nth.
func (s *rankedSet) renumber(r *renumbering) {
	s.idset.renumber(r)
	s.fen = nil
}

// renumber moves the candidates to their new slots, each keeping its
// place in the draw order (and its load).
func (c *cands) renumber(r *renumbering) {
	n := 0 // the slots pos covers, renumbered
	for i := range c.pos {
		if r.to[i] != 0 {
			n = int(r.to[i])
		}
	}
	c.pos = make([]int32, n)
	for i, id := range c.ids {
		c.ids[i] = int32(r.of(int(id)))
		c.pos[c.ids[i]-1] = int32(i + 1)
	}
}

// renumber moves the wheel's entries to their new slots, dropping those
// of servers that have left (stale: they complete nothing).
func (w *wheel) renumber(r *renumbering) {
	for wi, word := range w.used {
		for ; word != 0; word &= word - 1 {
			i := wi<<6 + bits.TrailingZeros64(word)
			out := w.buckets[i][:0]
			for _, id := range w.buckets[i] {
				if n := r.of(int(id)); n != 0 {
					out = append(out, int32(n))
				}
			}
			w.buckets[i] = out
			if len(out) == 0 {
				w.used[wi] &^= 1 << (i & 63)
			}
		}
	}
}

// renumber moves the pending comebacks to their new slots; one of a
// server that has left keeps its place as slot 0, which does not exist.
func (q *repairQueue) renumber(r *renumbering) {
	for i := range q.h {
		q.h[i].id = r.of(q.h[i].id)
	}
	for i := q.next; i < len(q.run); i++ {
		q.run[i].id = r.of(q.run[i].id)
	}
}
