package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lbsim/lbsim/swrr"
)

// swrrRouter is nginx's smooth weighted round-robin (package swrr) over
// the idle active servers (pooled) or the candidates (per-server), with
// Config.Weights. It holds one backend per slot (index slot−1), each with
// its score, and drops those of the slots given up (renumber); scores move
// only with picks, so they carry over a switch of policy away and back.
// Per-server, a backend is available while its server is a candidate.
type swrrRouter struct {
	quietRouter
	b      *Balancer
	pooled swrr.Pool
	each   swrr.Index
}

func newSWRR(b *Balancer) router { return &swrrRouter{b: b} }

func (r *swrrRouter) caps() Caps { return Caps{MayRefuse: true} }

// sync adds the backends of the servers created since the router last
// looked, up to id.
func (r *swrrRouter) sync(id int) {
	b := r.b
	if b.perServer {
		if n := max(id, b.m.cfg.Servers) - r.each.Len(); n > 0 {
			r.each.Grow(n) // the servers at the start: their arrays once
		}
		for r.each.Len() < id {
			r.each.Add(b.weightOf(r.each.Len() + 1)) // cannot fail: weights were validated
		}
		return
	}
	for r.pooled.Len() < id {
		r.pooled.Add(b.weightOf(r.pooled.Len() + 1))
	}
}

func (r *swrrRouter) activate(int64) {
	b := r.b
	r.sync(len(b.srv))
	if b.perServer {
		r.each.SetAvailableEach(func(i int) bool { return b.active.has(i + 1) })
	}
}

func (r *swrrRouter) candidate(id int, _ int64) {
	r.sync(id)
	if r.b.perServer {
		r.each.SetAvailable(id-1, true)
	}
}

// renumber drops the backends of the slots given up; the others move down
// with their scores. No pick reads a dropped one: its server has left, so
// it is neither idle nor a candidate again.
func (r *swrrRouter) renumber(rn *renumbering) {
	kept := func(i int) bool { return rn.of(i+1) != 0 }
	r.pooled.Keep(kept)
	r.each.Keep(kept)
}

func (r *swrrRouter) uncandidate(id int) {
	if r.b.perServer {
		r.each.SetAvailable(id-1, false)
	}
}

// placeable reports whether a per-server pick finds a candidate: one
// weighs more than 0.
func (r *swrrRouter) placeable() bool { return !r.b.perServer || r.each.Total() > 0 }

func (r *swrrRouter) pickIdle() int {
	idle := &r.b.idle
	i, ok := r.pooled.PickAvailable(func(i int) bool { return idle.has(i + 1) })
	if !ok {
		return 0 // only weight-0 servers are idle
	}
	return i + 1
}

func (r *swrrRouter) pick(packed, int64) int {
	if i, ok := r.each.PickRotating(); ok {
		return i + 1
	}
	i, ok := r.each.Pick()
	if !ok {
		return 0
	}
	return i + 1
}

// weightsRow is the server weights that swrr and least-connections read,
// a row of the settings table.
var weightsRow = Row{Name: "weights", Help: "server weights W1,W2,… for servers 1, 2, …; others weigh 1",
	Range: fmt.Sprintf("0..%d each", swrr.MaxWeight), Example: "5,1,1",
	setText: func(c *Config, value string) error {
		var ws []int
		if value != "" {
			for _, f := range strings.Split(value, ",") {
				w, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil {
					return &FieldError{Field: "weights", Value: strconv.Quote(f), Allowed: "want whole-number weights separated by commas, like 5,1,1"}
				}
				ws = append(ws, w)
			}
		}
		c.Weights = ws
		return nil
	},
	getText: func(c *Config) string {
		s := make([]string, len(c.Weights))
		for i, w := range c.Weights {
			s[i] = strconv.Itoa(w)
		}
		return strings.Join(s, ",")
	},
	check: func(c *Config) error {
		if len(c.Weights) > MaxServersLimit {
			return intErr("weights", int64(len(c.Weights)), "at most %d weights", MaxServersLimit)
		}
		for i, w := range c.Weights {
			if w < 0 || w > swrr.MaxWeight {
				return &FieldError{Field: "weights", Value: strconv.Itoa(w), Allowed: fmt.Sprintf("server %d's weight must be a whole number from 0 to %d", i+1, swrr.MaxWeight)}
			}
		}
		return nil
	},
}.wireBytes("wt", 23, 1_000_000, appendWeights, readWeights)

// pickAmong picks among the candidates but those in skip, adding weights
// to those members only: the skipped backends sit the pick out, their
// scores kept (fan-out).
func (r *swrrRouter) pickAmong(_ packed, _ int64, skip []int) int {
	for _, id := range skip {
		r.each.SetAvailable(id-1, false)
	}
	i, ok := r.each.Pick()
	for _, id := range skip {
		r.each.SetAvailable(id-1, true)
	}
	if !ok {
		return 0
	}
	return i + 1
}

// sitOut, sitIn and pickSitting have fan-out's siblings sit the picks
// out from when each is placed to the request's last part (fanadmit.go):
// pickAmong's picks, turning each off once rather than once a part.
func (r *swrrRouter) sitOut(id int) { r.each.SitOut(id - 1) }

func (r *swrrRouter) sitIn(ids []int) {
	for _, id := range ids {
		r.each.SetAvailable(id-1, true)
	}
}

func (r *swrrRouter) pickSitting(packed, int64) int {
	if i, ok := r.each.PickSorted(); ok {
		return i + 1
	}
	i, ok := r.each.Pick()
	if !ok {
		return 0
	}
	return i + 1
}
