package sim

// An explicit fault that cannot happen is skipped (counted in
// FaultsSkipped) and, as a rule, is the run's FaultError, which `lbsim run`
// refuses before the run. Two kinds of skip are expected instead, and are
// no FaultError, so that whether a run is accepted does not depend on its
// seed or its replacement setting.
//
// Random faults (MTBF) take servers down and bring them back when the
// fault generator says: an explicit down of a server a random fault has
// already taken down, or an up of one already repaired, collides with them
// and is skipped. (Before, such a run was refused or accepted depending on
// the seed, and `lbsim size`, which checks one seed first, failed in the
// middle of its search.)
//
// A server that --replace-after took out of the pool is gone for good:
// explicit faults that name it later are skipped (counted in
// FaultsSkipped), as docs/cli.md says, and are no FaultError, so `lbsim
// run` does not refuse a scenario whose outage is ended by replacement
// before its scripted `up` (a sweep over replace-after makes such runs).
// Only the servers that a scheduled fault names are remembered, so what
// is held is bounded by the change log, not by the replacements.

// expectedSkip reports whether fault c, naming server ref (in slot id of
// b, 0 when it has none), is skipped as expected (see above).
func (m *Model) expectedSkip(b *Balancer, c Change, ref ServerRef, id int) bool {
	if m.replacedNamed[ref] {
		return true
	}
	exists := id >= 1 && id <= len(b.srv) && !b.srv[id-1].gone
	return m.cfg.MTBF > 0 && exists && (c.Setting == SetDown || c.Setting == SetUp)
}

// nameFaulted notes every server an explicit fault of changes names.
func (m *Model) nameFaulted(changes []Change) {
	for _, c := range changes {
		if !c.IsFault() {
			continue
		}
		if m.faultNamed == nil {
			m.faultNamed = map[ServerRef]bool{}
		}
		m.faultNamed[c.faultRef()] = true
	}
}

// noteReplaced is told of the server in slot s replaced: it is remembered
// when a scheduled fault names it.
func (b *Balancer) noteReplaced(s int) {
	ref := MakeServerRef(b.index, b.idOf(s))
	if !b.m.faultNamed[ref] {
		return
	}
	if b.m.replacedNamed == nil {
		b.m.replacedNamed = map[ServerRef]bool{}
	}
	b.m.replacedNamed[ref] = true
}
