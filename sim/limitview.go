package sim

// Limit returns the concurrency limit in force at server id (per-server
// queues) or for the pool (id 0, the pooled queue), for a view; false when
// the run has no concurrency limit or id is not a live server of the
// balancer. It reads and changes nothing of the run.
func (b *Balancer) Limit(id int) (int, bool) {
	if b.lim == nil {
		return 0, false
	}
	if !b.perServer {
		if id != 0 {
			return 0, false
		}
		return b.limitOf(0), true
	}
	s := b.slotOf(id)
	if s == 0 || b.srv[s-1].gone {
		return 0, false
	}
	return b.limitOf(s), true
}
