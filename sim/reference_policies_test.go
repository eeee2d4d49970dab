package sim_test

import (
	"encoding/binary"
	"hash/fnv"
	"slices"

	"github.com/lbsim/lbsim/sim"
)

// The plain versions of today's policies, one registration each (see
// refPolicy). Ties go to the lowest id unless a policy says otherwise.
func init() {
	registerRefPolicy(sim.FirstIdle, refPolicy{Pooled: lowestIdle})
	registerRefPolicy(sim.RoundRobin, refPolicy{
		Pooled: func(b *refBalancer, idle []*refServer) *refServer { return nextAfter(b, idle) },
		Route: func(b *refBalancer, r *refReq, cands []*refServer) *refServer {
			return nextAfterID(b.rrLasts[r.bal], byID(cands))
		},
	})
	registerRefPolicy(sim.Random, refPolicy{Pooled: uniformIdle, Route: uniformCandidate})
	registerRefPolicy(sim.SWRR, refPolicy{
		Pooled: func(_ *refBalancer, idle []*refServer) *refServer { return smoothWeighted(idle, 0) },
		Route: func(_ *refBalancer, r *refReq, cands []*refServer) *refServer {
			return smoothWeighted(byID(cands), r.bal) // each balancer its own scores
		},
	})
	registerRefPolicy(sim.LeastConnections, refPolicy{Pooled: lowestIdle, Route: leastConnections})
	registerRefPolicy(sim.P2C, refPolicy{Pooled: uniformIdle, Route: leastOfDrawn})
	registerRefPolicy(sim.LeastWork, refPolicy{Pooled: fastestIdle, Route: leastWork})
	registerRefPolicy(sim.Hash, refPolicy{Route: ringOwner})
	registerRefPolicy(sim.JIQ, refPolicy{Route: idleQueueHead})
}

// nextAfterID is round-robin for a balancer of a fleet that last routed to
// server last: the first of ss (ascending ids) after it, wrapping.
func nextAfterID(last int, ss []*refServer) *refServer {
	for _, s := range ss {
		if s.id > last {
			return s
		}
	}
	return ss[0]
}

// idleQueueHead is join-idle-queue: the head of r's balancer's I-queue
// (skipping servers no longer candidates), unregistered, or with none a
// uniform draw among the candidates. Over a part of the candidates
// (fan-out), a candidate left out keeps its place in the queue.
func idleQueueHead(b *refBalancer, r *refReq, cands []*refServer) *refServer {
	q := &b.iq[r.bal]
	var kept []int
	for len(*q) > 0 {
		id := (*q)[0]
		*q = (*q)[1:]
		s := b.server(id)
		if s.active() && !slices.Contains(cands, s) {
			kept = append(kept, id)
			continue
		}
		delete(b.reg, id)
		if s.active() {
			*q = append(kept, *q...)
			return s
		}
	}
	*q = kept
	return uniformCandidate(b, r, cands)
}

// byID returns the servers sorted by id.
func byID(ss []*refServer) []*refServer {
	out := make([]*refServer, 0, len(ss))
	for id := 1; len(out) < len(ss); id++ {
		for _, s := range ss {
			if s.id == id {
				out = append(out, s)
			}
		}
	}
	return out
}

func lowestIdle(_ *refBalancer, idle []*refServer) *refServer { return idle[0] }

// nextAfter is round-robin: the first of ss (ascending ids) after the last
// server given a request, wrapping to the first.
func nextAfter(b *refBalancer, ss []*refServer) *refServer {
	pick := ss[0]
	for _, s := range ss {
		if s.id > b.rrLast {
			pick = s
			break
		}
	}
	b.rrLast = pick.id
	return pick
}

// uniformIdle draws one idle server, by ascending id, from the routing
// generator.
func uniformIdle(b *refBalancer, idle []*refServer) *refServer {
	return idle[b.m.route.IntN(len(idle))]
}

// uniformCandidate draws one candidate, in draw order.
func uniformCandidate(b *refBalancer, _ *refReq, cands []*refServer) *refServer {
	return cands[b.m.route.IntN(len(cands))]
}

// smoothWeighted is one smooth weighted round-robin pick over ss: each
// positive weight added to its server's score, the highest score wins (the
// lowest id on a tie) and loses the total added; nil when no weight is
// positive.
func smoothWeighted(ss []*refServer, k int) *refServer {
	var best *refServer
	var total int64
	for _, s := range ss {
		if s.weight == 0 {
			continue
		}
		for len(s.score) <= k {
			s.score = append(s.score, 0)
		}
		s.score[k] += int64(s.weight)
		total += int64(s.weight)
		if best == nil || s.score[k] > best.score[k] {
			best = s
		}
	}
	if best != nil {
		best.score[k] -= total
	}
	return best
}

// leastConnections takes the least load per weight, compared as
// load(a)·w(b) < load(b)·w(a); weight-0 servers never.
func leastConnections(b *refBalancer, r *refReq, cands []*refServer) *refServer {
	var best *refServer
	for _, s := range byID(cands) {
		if s.weight == 0 {
			continue
		}
		if best == nil || b.loadSeen(r, s)*int64(best.weight) < b.loadSeen(r, best)*int64(s.weight) {
			best = s
		}
	}
	return best
}

// leastOfDrawn is p2c: Choices (default 2) distinct candidates drawn
// uniformly without replacement (all when fewer), the least loaded, the
// first drawn on a tie. Each draw is uniform over the candidates not yet
// drawn, in draw order.
func leastOfDrawn(b *refBalancer, r *refReq, cands []*refServer) *refServer {
	d := b.m.cfg.Choices
	if d == 0 {
		d = sim.DefaultChoices
	}
	left := append([]*refServer(nil), cands...)
	var best *refServer
	for range min(d, len(cands)) {
		i := b.m.route.IntN(len(left))
		s := left[i]
		left = append(left[:i], left[i+1:]...)
		if best == nil || b.loadSeen(r, s) < b.loadSeen(r, best) {
			best = s
		}
	}
	return best
}

// fastestIdle takes the fastest idle server, then the lowest id.
func fastestIdle(_ *refBalancer, idle []*refServer) *refServer {
	best := idle[0]
	for _, s := range idle {
		if s.speed > best.speed {
			best = s
		}
	}
	return best
}

// leastWork takes the least work at the cycle of routing, the lowest id
// on a tie (before step a, a server whose request completes this very
// cycle has work 0, as a free one).
func leastWork(b *refBalancer, r *refReq, cands []*refServer) *refServer {
	t := b.m.cycle
	var best *refServer
	for _, s := range byID(cands) {
		if best == nil || b.workSeen(r, s, t) < b.workSeen(r, best, t) {
			best = s
		}
	}
	return best
}

// ringOwner is consistent hashing: server s has 64 points at
// mix(FNV-1a-64(s ‖ k)), k = 0…63, 4 bytes big-endian each; the request's
// key is mix(FNV-1a-64(its source's 4 bytes)); the candidate owning the
// first point at or after the key wins, wrapping, ties by lower id then
// lower k.
func ringOwner(_ *refBalancer, r *refReq, cands []*refServer) *refServer {
	key := murmurMix(fnv64a(r.Src))
	type point struct {
		at    uint64
		id, k int
	}
	less := func(a, b point) bool {
		if a.at != b.at {
			return a.at < b.at
		}
		if a.id != b.id {
			return a.id < b.id
		}
		return a.k < b.k
	}
	var first, after *point
	var owner, lowest *refServer
	for _, s := range cands {
		for k := range 64 {
			p := point{murmurMix(fnv64a(uint32(s.id), uint32(k))), s.id, k}
			if first == nil || less(p, *first) {
				first, lowest = &p, s
			}
			if p.at >= key && (after == nil || less(p, *after)) {
				after, owner = &p, s
			}
		}
	}
	if owner == nil {
		return lowest
	}
	return owner
}

// fnv64a is FNV-1a-64 over the words, 4 bytes big-endian each.
func fnv64a(words ...uint32) uint64 {
	h := fnv.New64a()
	for _, w := range words {
		h.Write(binary.BigEndian.AppendUint32(nil, w))
	}
	return h.Sum64()
}

// murmurMix is MurmurHash3's 64-bit finalizer.
func murmurMix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
