package sim

import "slices"

// This file lets fan-out's parts take the per-server shortcuts (routed.go,
// window.go) as plain requests do. A part is an attempt like any other:
// it joins its server's queue and is served in turn there, so the cycle
// loop and the windows serve it as they serve a request. What differs is
// routing and completion. A request's parts are routed one after another
// in one cycle, each among the candidates holding no other part of it,
// and nothing else reads where a part went until one of them completes;
// the request completes at its last part, which only counts. So the cycle
// loop admits a request through fanAdmit and completes its parts through
// workParts (Step's own), and a window routes a request's parts in pass 1
// as fanAdmit does (windowParts) and completes them in pass 2 through
// partCompleted, in whatever order the servers come: a request's response
// time, its counts and the histogram do not depend on it.

// fanRouted reports whether fan-out's parts may take the per-server
// shortcuts: with hedging off, or where hedging says when it next acts
// (hedgeSkips), and then only the cycle loop (routeCycles), which takes
// the hedges due at their cycles and completes and cancels through
// workParts as Step does (windows serve each server apart, and a part's
// completion cancels its hedges across servers). The gate's other conditions (one balancer, no random faults,
// no gray server, no attempt that ends in error or is abandoned, so no
// part ends for good in a stretch and nothing is cancelled, no events,
// no shedding, throttle or limit, a quiet client side) hold as for plain
// requests; anything else that fan-out may meet closes this gate until
// it is tested against stepping.
func (m *Model) fanRouted() bool {
	return m.fan.hedge == nil || m.hedgeSkips()
}

// partsWindowed reports whether a window may route fan-out's parts:
// the router reads nothing of the servers (round-robin, random, swrr,
// hash), so a part's pick among the candidates but its siblings depends
// only on the arrivals, the candidates and its siblings' places, which
// pass 1 knows (the parts placed before it, windowParts).
func (b *Balancer) partsWindowed() bool {
	return b.caps.Reads == ReadsNothing
}

// windowParts is pass 1 (routeWindow) for request r of a run with
// fan-out, generated at cycle c: its parts' times are drawn, it passes
// the firewall, and its parts are routed in order, each picked as
// pickPart picks it (its siblings live are the parts placed before it)
// and put into its server's queue as the window puts a request (no cap, no lobby, every part placeable: windowed). It returns
// the parts queued.
func (b *Balancer) windowParts(r packed, c int64) int32 {
	m := b.m
	f := m.fan
	m.drawParts(r) // right after the request is generated, rejected or not
	b.tot.Generated++
	b.last.Generated++
	if m.fw.Blocks(uint32(r.addr >> 32)) {
		b.tot.Rejected++
		b.last.Rejected++
		return 0
	}
	req := f.newReq(f.k)
	f.reqs.put(r.id, req)
	f.live[b.index]++
	w := m.win
	// The siblings of a part are the parts placed before it, live
	// candidates all: their slots (place), or for a router that picks
	// from their positions or has them sit out, noted as fanAdmit notes
	// them (fanadmit.go).
	place := f.place[:0]
	f.startSiblings(b)
	noting := f.gp != nil || f.sp != nil
	for j := range f.k {
		p := f.partOf(r, j)
		var id int
		if noting {
			id = b.pickAmongSiblings(p, c)
			f.placedSibling(b, id)
		} else {
			id = b.pickPartAmong(p, c, place)
			place = append(place, id)
		}
		req.at[j] = int32(b.idOf(id))
		if b.caps.Hears {
			b.rt.joined(id, p, c)
		}
		b.lastGiven = id
		b.queued++
		b.sq[id-1].pushBack(p, c)
		if b.free.has(id) {
			b.free.remove(id)
			w.woke = append(w.woke, int32(id))
		}
	}
	f.endSiblings()
	f.place = place
	b.tot.Admitted++
	b.tot.ExtraParts += int64(f.k - 1)
	return int32(f.k)
}

// windowPartDone is partCompleted for pass 2 (serveQueue), which serves
// one server's queue after another: the part server s had in service
// completed at cycle at, and its request completes with its last part
// counted, at the latest cycle any of its parts completed (those counted
// before it may have come later).
func (b *Balancer) windowPartDone(s *server, at int64) {
	f := b.m.fan
	id, j := f.split(s.req.id)
	req := f.reqs.get(id)
	req.at[j] = 0 // without hedging, a part's slot is its index
	req.left--
	if req.left > 0 {
		b.tot.PartsDone++
		req.latest = max(req.latest, at)
		return
	}
	f.reqs.del(id)
	f.live[b.index]--
	b.resps.add(b.completed(s, max(at, req.latest)))
}

// partsCycle is step a, and with hedging the hedges' part of step b, of
// routeCycles at cycle c for a run with fan-out: Step's own workParts and
// hedgesDue. With early, a server freed with a queue, or given a hedge
// while idle, takes its next attempt at once, as step d would (see
// workEach), so that no arrival routed straight into service (serveNow)
// comes ahead of it. Hedges come after the completions and before the
// arrivals, as in Step (one balancer, no client side: hedgeSkips).
func (b *Balancer) partsCycle(c int64, early, hedged bool) {
	if b.wheel.has(c) {
		b.workParts(c)
	}
	if hedged {
		b.m.hedgesDue(c) // one balancer here (hedgeSkips)
	}
	if early && b.ready.n > 0 {
		b.dispatchEach(c)
	}
}

// maxGaps is the most candidates left out that candidatesGaps takes (it
// sorts them by insertion; candidatesBut costs less beyond).
const maxGaps = 8

// candidatesGaps is candidatesBut without the list, for a router that
// reads only a few of them (p2c's two): it returns how many candidates
// are left, and the positions in the dense array of those left out,
// ascending (nthBut reads the x-th one left through them). Needs fan-out's
// scratch space (m.fan).
func (b *Balancer) candidatesGaps(skip []int) (int, []int32) {
	f, pos := b.m.fan, b.cands.pos
	gaps := f.gaps[:0]
	for _, s := range skip {
		if uint(s-1) >= uint(len(pos)) || pos[s-1] == 0 || slices.Contains(gaps, pos[s-1]-1) {
			continue // not a candidate, or skipped twice
		}
		g := pos[s-1] - 1
		gaps = append(gaps, g)
		i := len(gaps) - 1
		for ; i > 0 && gaps[i-1] > g; i-- {
			gaps[i] = gaps[i-1]
		}
		gaps[i] = g
	}
	f.gaps = gaps
	return len(b.cands.ids) - len(gaps), gaps
}

// nthBut returns the position in the dense array of the x-th (from 0)
// candidate not at one of the positions gaps (ascending).
func nthBut(x int, gaps []int32) int {
	for _, g := range gaps {
		if int(g) > x {
			break
		}
		x++
	}
	return x
}

// partsMode is what routeCycles does for parts, as bits: partsOn with
// fan-out or hedging (partsCycle, fanAdmit); partsQueued where an arrival
// may not go straight into service (serveNow) though the server is idle:
// while the client side watches, fanAdmit tells it of the parts once all
// are placed, which must find them queued; partsHedged with hedging.
type partsMode uint8

const (
	partsOn     partsMode = 1 << iota
	partsQueued           // fan-out with the client side watching
	partsHedged           // hedging: greater than the others
)

// partsMode returns routeCycles's parts mode for b.
func (m *Model) partsMode(b *Balancer) partsMode {
	var p partsMode
	if m.fan != nil {
		p = partsOn
		if b.watching || b.lim != nil {
			p |= partsQueued // a limit's refusal of a later part takes the placed ones back (limitskip.go)
		}
		if m.fan.hedge != nil {
			p |= partsHedged
		}
	}
	return p
}
