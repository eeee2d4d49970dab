package sim

// outTimes holds the cycle each server down or ejected went out (a
// replacement counts from there): a set of ids with a cycle each, kept by
// id, so noting and dropping a server cost O(1) (random faults do both
// for each failure) and the servers out come in id order.
type outTimes struct {
	ids   idset
	since []int64 // by id−1: the cycle server id went out, while ids has it
}

// note records that server id went out at cycle t, unless it already was.
func (o *outTimes) note(id int, t int64) {
	if o.ids.has(id) {
		return
	}
	if id > len(o.since) {
		o.since = append(o.since, make([]int64, id-len(o.since))...)
	}
	o.since[id-1] = t
	o.ids.add(id)
}

// drop forgets server id.
func (o *outTimes) drop(id int) { o.ids.remove(id) }

// len returns the number of servers out.
func (o *outTimes) len() int { return o.ids.n }

// at returns the cycle server id went out, and whether it is out.
func (o *outTimes) at(id int) (int64, bool) {
	if !o.ids.has(id) {
		return 0, false
	}
	return o.since[id-1], true
}

// outFor returns, in id order, the servers out for r cycles or more at
// cycle t.
func (o *outTimes) outFor(t, r int64) []int {
	var due []int
	for id := o.ids.first(); id != 0; id = o.ids.next(id + 1) {
		if t-o.since[id-1] >= r {
			due = append(due, id)
		}
	}
	return due
}

// renumber moves the servers out to their new slots.
func (o *outTimes) renumber(r *renumbering) {
	old := *o
	*o = outTimes{}
	for id := old.ids.first(); id != 0; id = old.ids.next(id + 1) {
		if n := r.of(id); n != 0 {
			o.note(n, old.since[id-1])
		}
	}
}
