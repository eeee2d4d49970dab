package sim

// watch sets whether the balancer runs the client side and detection:
// while any of their settings is on, and from then on while any of their
// state remains.
func (b *Balancer) watch() {
	b.watching = b.m.cfg.ClientSide() || b.cl != nil || b.det != nil || len(b.ejected) > 0 || len(b.warming) > 0
	if b.m.cfg.ClientSide() {
		b.client()
	}
}

// startWatch is the start of cycle t for the client side and detection:
// warming servers whose warm-up ends become candidates, and the pooled
// servers that refused an attempt last cycle are idle again.
func (m *Model) startWatch(t int64) {
	for _, b := range m.bal {
		if len(b.warming) > 0 {
			b.warmUps(t)
		}
		if len(b.refused) > 0 {
			b.unrefuse()
		}
	}
}

// detect is step c's detection at cycle t, before scaling: health probes
// (at the multiples of the interval), ejection ends, then replacement.
func (m *Model) detect(t int64) {
	cfg := &m.cfg
	for _, b := range m.bal {
		if cfg.HealthInterval > 0 && t%cfg.HealthInterval == 0 {
			b.probe(t)
		}
		if len(b.ejected) > 0 {
			b.ejectionsEnd(t)
		}
		if cfg.ReplaceAfter > 0 && b.outSince.len() > 0 {
			b.replace(t)
		}
	}
}

// downKnown makes the down servers still candidates known at once (health
// checks were turned off): they stop being candidates.
func (b *Balancer) downKnown() {
	for id := 1; id <= len(b.srv); id++ {
		s := &b.srv[id-1]
		if !s.down || s.gone {
			continue
		}
		if b.active.has(id) {
			b.uncandidate(id)
			b.unsetIdle(id)
		}
	}
}

// keepKnown records in known the down servers, all known while health
// checks were off, as they come on: they stay known until they come back.
func (b *Balancer) keepKnown() {
	for id := 1; id <= len(b.srv); id++ {
		if s := &b.srv[id-1]; s.down && !s.gone {
			if b.known == nil {
				b.known = map[int]bool{}
			}
			b.known[id] = true
		}
	}
}

// watching reports whether any balancer runs the client side or detection.
func (m *Model) watching() bool {
	for _, b := range m.bal {
		if b.watching {
			return true
		}
	}
	return false
}
