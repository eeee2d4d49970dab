package sim

// cands is the set of candidates as a dense array, for uniform draws in
// constant time: order is that of additions, with a removal moving the last
// one into the gap.
//
// Under p2c it also keeps each candidate's load (its queue and the request
// in service) beside its id, so that a choice reads one array at one index,
// not an id and then that id's load.
type cands struct {
	ids  []int32
	load []int32 // by index in ids, under p2c (loads); empty otherwise
	pos  []int32 // by id−1: index in ids + 1, or 0
	// loads: load is kept (p2c).
	loads bool
}

// add makes server id a candidate, with load 0: a server becomes one when it
// is created or comes back from a fault, idle with an empty queue.
func (c *cands) add(id int) {
	for len(c.pos) < id {
		c.pos = append(c.pos, 0)
	}
	if c.pos[id-1] != 0 {
		return
	}
	c.ids = append(c.ids, int32(id))
	if c.loads {
		c.load = append(c.load, 0)
	}
	c.pos[id-1] = int32(len(c.ids))
}

// addLoad adds d to server id's load, if it is a candidate and loads are
// kept.
func (c *cands) addLoad(id int, d int32) {
	if c.loads {
		if p := c.pos[id-1]; p != 0 {
			c.load[p-1] += d
		}
	}
}

// reserve makes room for server id, not (yet) a candidate.
func (c *cands) reserve(id int) {
	for len(c.pos) < id {
		c.pos = append(c.pos, 0)
	}
}

func (c *cands) remove(id int) {
	if id > len(c.pos) || c.pos[id-1] == 0 {
		return
	}
	i := c.pos[id-1] - 1
	n := len(c.ids) - 1
	last := c.ids[n]
	c.ids[i] = last
	c.pos[last-1] = i + 1
	c.ids = c.ids[:n]
	if c.loads {
		c.load[i] = c.load[n]
		c.load = c.load[:n]
	}
	c.pos[id-1] = 0
}
