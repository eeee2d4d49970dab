package sim

// A server that --replace-after took out of the pool is gone for good:
// explicit faults that name it later are skipped (counted in
// FaultsSkipped), as SPEC §13 has it, and are no FaultError, so `lbsim
// run` does not refuse a scenario whose outage is ended by replacement
// before its scripted `up` (a sweep over replace-after makes such runs).
// Only the servers that a scheduled fault names are remembered, so what
// is held is bounded by the change log, not by the replacements.

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
