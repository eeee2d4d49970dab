package sim

import "slices"

// This file routes the parts of a request being admitted (fanAdmit) one
// after another without going over the request's record for each: the
// siblings a part must avoid are the parts placed before it, which
// fanAdmit notes as it places them (placedSibling). pickPartFrom would
// find the same: at admission a request's record holds a live place only
// for the parts placed so far (a part throttled, refused, or in the lobby
// holds none; later parts and hedges none yet), each at the slot it was
// picked for, an active candidate, and nothing between two parts changes
// the candidates. So pickSibling makes pickPart's choice, the same draws
// in the same order (the reference model and the golden hashes hold it to
// that, TestPickSiblingMatchesPickPart to pickPart itself, and
// TestSiblingGapsMatchCandidatesGaps holds the positions).

// siblingsByRecord, set by tests only, has fanAdmit route each part
// through pickPart, which finds its siblings in the request's record: the
// plain path pickSibling is held to (TestPickSiblingMatchesPickPart).
var siblingsByRecord bool

// gapsPicker is an amongPicker that picks as well from the positions in
// the dense array of the candidates left out, ascending and distinct, n
// the candidates left (candidatesGaps's form), so that fan-out's parts
// need not list them (p2c).
type gapsPicker interface {
	pickAmongGaps(q packed, t int64, skip []int, n int, gaps []int32) int
}

// sittingPicker is an amongPicker whose candidates can sit its picks out
// from when they become siblings to the request's last part. swrr:
// pickAmong turns each sibling's availability off before each pick and
// back on after it, which costs a fix of its index each time; a server's
// score depends only on how long it sat out, so turning each off once
// when placed and all back on after the last part gives the same picks.
// hash: pickAmong copies the active set and takes the siblings out for
// each pick; nothing between two parts changes the active set, so one
// copy a request, each sibling taken out once, gives the same picks.
type sittingPicker interface {
	sitOut(id int)   // server slot id sits out the picks from now on
	sitIn(ids []int) // the servers ids sit in again
	// pickSitting is pickAmong for attempt q at cycle t among the
	// servers not sitting out, 0 if none.
	pickSitting(q packed, t int64) int
}

// startSiblings readies f to note the siblings of the parts of a request
// b admits: none yet, and b's router as a gapsPicker or a sittingPicker
// (nil if it is neither).
func (f *fanState) startSiblings(b *Balancer) {
	f.sib, f.sibGaps = f.sib[:0], f.sibGaps[:0]
	f.gp, _ = b.rt.(gapsPicker)
	f.sp, _ = b.rt.(sittingPicker)
	if siblingsByRecord {
		f.sp = nil // pickPart's pickAmong turns them off and on itself
	}
}

// endSiblings ends the admission of a request's parts: its siblings
// sit in again.
func (f *fanState) endSiblings() {
	if f.sp != nil {
		f.sp.sitIn(f.sib)
	}
}

// pickSibling is pickPart for part j of request req, which fanAdmit is
// admitting at cycle t (attempt p, its first): among the candidates but
// its siblings placed so far (f.sib, their positions f.sibGaps), noted in
// the record as pickPart notes it.
func (b *Balancer) pickSibling(req *fanReq, j int, p packed, t int64) int {
	if siblingsByRecord {
		return b.pickPart(p, t)
	}
	id := b.pickAmongSiblings(p, t)
	if id != 0 {
		req.at[j*b.m.fan.a] = int32(b.idOf(id)) // placedPart
	}
	return id
}

// pickAmongSiblings is pickPartAmong for attempt p at cycle t, its
// siblings' slots f.sib and their positions f.sibGaps.
func (b *Balancer) pickAmongSiblings(p packed, t int64) int {
	f := b.m.fan
	skip := f.sib
	if len(skip) == 0 {
		return b.pickFor(p, t)
	}
	id := 0
	switch {
	case f.gp != nil:
		id = f.gp.pickAmongGaps(p, t, skip, len(b.cands.ids)-len(f.sibGaps), f.sibGaps)
	case f.sp != nil:
		if id = f.sp.pickSitting(p, t); id == 0 {
			// The policy can pick none but the siblings: among all, as
			// pickPartAmong falls back, with the siblings in.
			f.sp.sitIn(skip)
			id = b.pickFor(p, t)
			for _, s := range skip {
				f.sp.sitOut(s)
			}
			return id
		}
	default:
		if ap, ok := b.rt.(amongPicker); ok {
			id = ap.pickAmong(p, t, skip)
		}
	}
	if id == 0 {
		return b.pickFor(p, t)
	}
	b.tally.add(p.member(), id)
	if fl := b.fleet; fl != nil {
		fl.picked(p.member(), id, p)
	}
	return id
}

// placedSibling notes that a part of the request being admitted is live
// at server slot id: a sibling of the parts after it, if id is active
// (pickPartFrom's test); for a gapsPicker its position among the
// candidates left out, kept ascending and distinct (candidatesGaps's), if
// it is one; a sittingPicker has it sit out.
func (f *fanState) placedSibling(b *Balancer, id int) {
	if !b.active.has(id) {
		return
	}
	f.sib = append(f.sib, id)
	if f.sp != nil {
		f.sp.sitOut(id)
	}
	if f.gp == nil {
		return
	}
	pos := b.cands.pos
	if uint(id-1) >= uint(len(pos)) || pos[id-1] == 0 {
		return
	}
	g, gs := pos[id-1]-1, f.sibGaps
	if slices.Contains(gs, g) {
		return // a second part there
	}
	gs = append(gs, g)
	for i := len(gs) - 1; i > 0 && gs[i-1] > g; i-- {
		gs[i-1], gs[i] = g, gs[i-1]
	}
	f.sibGaps = gs
}

// newReq returns the record of a request just admitted, its K parts left
// and n attempt slots (fanReq.at) none live: with up to 8 slots, in one
// allocation with the record (the size class the two took apart, or 8
// bytes more with 2 slots), else apart.
func (f *fanState) newReq(n int) *fanReq {
	switch {
	case n <= 4:
		r := &struct {
			fanReq
			slots [4]int32
		}{}
		r.fanReq = fanReq{left: int32(f.k), at: r.slots[:n:n]}
		return &r.fanReq
	case n <= 8:
		r := &struct {
			fanReq
			slots [8]int32
		}{}
		r.fanReq = fanReq{left: int32(f.k), at: r.slots[:n:n]}
		return &r.fanReq
	}
	return &fanReq{left: int32(f.k), at: make([]int32, n)}
}

// newHedgedReq is newReq for hedged request r: with it its hedging record
// and the attempts' order of sending, in the same allocation up to 4
// attempt slots (K = 1 or 2 hedged once, K = 1 hedged up to three times).
func (f *fanState) newHedgedReq(r packed) *fanReq {
	n := f.k * f.a
	if n > 4 {
		req := f.newReq(n)
		req.hedgeReq = &hedgeReq{r: r, sent: make([]int64, n)}
		return req
	}
	x := &struct {
		fanReq
		hedgeReq
		slots [4]int32
		sent  [4]int64
	}{}
	x.fanReq = fanReq{left: int32(f.k), at: x.slots[:n:n], hedgeReq: &x.hedgeReq}
	x.hedgeReq = hedgeReq{r: r, sent: x.sent[:n:n]}
	return &x.fanReq
}
