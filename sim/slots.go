package sim

import "slices"

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
func (b *Balancer) idOf(s int) int { return b.ids[s-1] }

// slotOf returns the slot of the server with id, or 0 when it has given
// its slot up or was never created.
func (b *Balancer) slotOf(id int) int {
	if i, ok := slices.BinarySearch(b.ids, id); ok {
		return i + 1
	}
	return 0
}
