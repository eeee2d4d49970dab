package sim_test

import (
	"cmp"

	"github.com/lbsim/lbsim/sim"
)

// The reference model's concurrency limit, written from the rules alone:
// a limit per server (per-server) or one for the pool; an attempt routed
// at step b (first attempts and parts, retries, hedges, cycle 0's; never
// lobby drains or re-routes), after the cap and the down-server refusal, to a server
// whose queue plus attempt in service (pooled: the central queue plus
// the busy servers) is already at the limit ends in error at once,
// limited, and the retry rules apply. An adaptive limit takes a sample
// at step a for every attempt a server ends, in id order.

// limitOn reports whether a concurrency limit is in force.
func (b *refBalancer) limitOn() bool { return b.m.cfg.ConcurrencyLimit != 0 }

// limitOf returns server s's limit, or the pool's (s nil): a server not
// yet sampled, or the pool, holds the start value.
func (b *refBalancer) limitOf(s *refServer) int {
	cfg := &b.m.cfg
	if cfg.ConcurrencyLimit > 0 {
		return cfg.ConcurrencyLimit
	}
	l := b.poolLimit
	if s != nil {
		l = b.limits[s.id]
	}
	if l == 0 {
		l = cmp.Or(cfg.LimitInitial, 20)
	}
	return l
}

// setLimit sets server s's adaptive limit, or the pool's (s nil).
func (b *refBalancer) setLimit(s *refServer, l int) {
	if s == nil {
		b.poolLimit = l
		return
	}
	if b.limits == nil {
		b.limits = map[int]int{}
	}
	b.limits[s.id] = l
}

// overLimit reports whether an attempt routed now to s (per-server) or
// to the pool (s nil) is refused by the limit.
func (b *refBalancer) overLimit(s *refServer) bool {
	if !b.limitOn() {
		return false
	}
	if s == nil {
		return len(b.queue)+b.busyCount() >= b.limitOf(nil)
	}
	return s.Load() >= int64(b.limitOf(s))
}

// refuseLimited ends attempt r, refused by the limit of server id (0:
// the pool) at t: an error, limited, with no run of errors at the server.
func (b *refBalancer) refuseLimited(id int, r refReq, t int64) {
	b.tot.Errors++
	b.last.Errors++
	b.tot.Limited++
	b.last.Limited++
	b.m.emit(b, sim.Error, id, 0, r.Request)
	b.ended(r, t, refErrored, true)
}

// aimdSample is the adaptive limit's sample for the attempt busy server
// s ends at step a of t, before s is freed: down a tenth after an error
// or a latency above R since it joined its queue, else up one when the
// attempts in flight (its own included) are at least half the limit.
func (b *refBalancer) aimdSample(s *refServer, t int64) {
	cfg := &b.m.cfg
	if cfg.ConcurrencyLimit != sim.LimitAIMD {
		return
	}
	var holder *refServer
	inflight, joined := int64(len(b.queue)+b.busyCount()), s.req.from
	if b.m.perServer() {
		holder, inflight, joined = s, s.Load(), s.req.routed
	}
	l := b.limitOf(holder)
	lo, hi := cmp.Or(cfg.LimitMin, 1), cmp.Or(cfg.LimitMax, 200)
	switch {
	case (s.ends == sim.Failing && !s.abandoned) || (cfg.LimitLatency > 0 && t-joined > cfg.LimitLatency):
		l = max(lo, 9*l/10)
	case inflight >= int64(l+1)/2:
		l = min(hi, l+1)
	}
	b.setLimit(holder, l)
}

// limitSummary sets the summary's final limits over the balancers ts:
// each pool's limit, or each live server's (Derive takes their mean).
func limitSummary(s *sim.Summary, ts []*refBalancer) {
	for _, b := range ts {
		if !b.limitOn() {
			continue
		}
		add := func(v int64) {
			if s.LimitCount == 0 || v < s.LimitFinalMin {
				s.LimitFinalMin = v
			}
			s.LimitFinalMax = max(s.LimitFinalMax, v)
			s.LimitSum, s.LimitCount = s.LimitSum+v, s.LimitCount+1
		}
		if !b.m.perServer() {
			add(int64(b.limitOf(nil)))
			continue
		}
		for _, v := range b.servers {
			if v.live() {
				add(int64(b.limitOf(v)))
			}
		}
	}
}
