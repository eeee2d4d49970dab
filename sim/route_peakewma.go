package sim

import (
	"fmt"
	"strconv"

	"github.com/lbsim/lbsim/detmath"
)

// peak-ewma's parameter τ (Config.EwmaDecay, --ewma-decay): its default
// and range, with its row (ewmaDecayRow) and the router that reads it.
const (
	DefaultEwmaDecay = 1000
	MaxEwmaDecay     = 1_000_000_000
)

// peakEWMA is Finagle's and Linkerd's balancer: each server keeps a cost,
// the peak-EWMA of its response times (cycles from being routed there to
// completion), and a request goes to the lower cost·(load + 1) of two
// candidates drawn as p2c draws them, the first drawn on a tie. A cost
// starts, when the server is created or the policy comes into force, at
// the mean service time at speed 1, as Linkerd starts from a default round
// trip so that a new server is not flooded before its first answer. On a
// completion with response r, Δ cycles after the server's last update:
// cost = r if r > cost, else cost + (r − cost)·(1 − e^(−Δ/τ)), τ =
// Config.EwmaDecay, with the project's deterministic exp (the same bits
// natively, in WebAssembly and on arm64). The pooled queue refuses it.
type peakEWMA struct {
	quietRouter
	b    *Balancer
	cost []float64 // by slot−1
	at   []int64   // by slot−1: the cycle of the cost's last update
	// routed holds, by request id, the cycle a request at a server was
	// routed there, when that is not its arrival (a retry, a request
	// routed again or out of the lobby): a request routed at its arrival,
	// most of them, needs no entry, as completed reads the arrival when
	// it finds none.
	routed map[int64]int64
	// weights[Δ] is 1 − e^(−Δ/τ) for τ = tau, filled up to len(weights)
	// as ages are met (a table by integer age: the same bits as working
	// it out, for the same Δ and τ).
	weights []float64
	tau     int64
	// member is the balancer of a fleet whose router this is (0 for one
	// balancer): its load term is what that balancer knows.
	member int
}

// maxWeights bounds the table of weights by age; older ages are worked
// out each time.
const maxWeights = 1 << 14

// weight returns 1 − e^(−dt/τ), dt the integer age of a cost, from the
// table where it holds dt.
func (r *peakEWMA) weight(dt int64) float64 {
	tau := r.decay()
	if tau != r.tau {
		r.weights, r.tau = r.weights[:0], tau
	}
	if dt < int64(len(r.weights)) {
		return r.weights[dt]
	}
	w := func(d int64) float64 { return 1 - detmath.ExpNeg(float64(d)/float64(tau)) }
	if dt >= maxWeights {
		return w(dt)
	}
	for d := int64(len(r.weights)); d <= dt; d++ {
		r.weights = append(r.weights, w(d))
	}
	return r.weights[dt]
}

// sweepMin is the least size of routed at which joined sweeps it (a
// variable: a test lowers it, to sweep at every chance).
var sweepMin = 1024

func newPeakEWMA(b *Balancer) router {
	return &peakEWMA{b: b, routed: map[int64]int64{}}
}

func (r *peakEWMA) caps() Caps    { return Caps{Reads: ReadsLoads, Draws: true, Hears: true} }
func (r *peakEWMA) pickIdle() int { return 0 }

// start is a new cost's value: the mean service time at speed 1.
func (r *peakEWMA) start() float64 { return r.b.m.cfg.NominalMean() }

// activate starts every server's cost afresh at cycle t, and notes when
// the requests already queued or in service were routed: the cycle they
// started waiting (their arrival, or their requeue).
func (r *peakEWMA) activate(t int64) {
	b := r.b
	r.cost, r.at = r.cost[:0], r.at[:0]
	for range b.srv {
		r.cost = append(r.cost, r.start())
		r.at = append(r.at, t)
	}
	r.routed = map[int64]int64{}
}

// added starts the cost of a server created at cycle t (warming or not).
func (r *peakEWMA) added(id int, t int64) { r.candidate(id, t) }

// candidate starts the cost of a server just created at cycle t; one back
// from a fault or a warm-up keeps its cost.
func (r *peakEWMA) candidate(id int, t int64) {
	for len(r.cost) < id {
		r.cost = append(r.cost, r.start())
		r.at = append(r.at, t)
	}
}

// renumber moves the costs to their new slots (the requests routed are
// named by their ids, which stay).
func (r *peakEWMA) renumber(rn *renumbering) {
	n := 0
	for s := 1; s <= len(r.cost); s++ {
		if to := rn.of(s); to != 0 {
			r.cost[to-1], r.at[to-1] = r.cost[s-1], r.at[s-1]
			n = to
		}
	}
	r.cost = append([]float64(nil), r.cost[:n]...)
	r.at = append([]int64(nil), r.at[:n]...)
}

// abandon forgets request q, whose client gave up on it in service: its
// retry is routed afresh, and the end of its abandoned work is no
// response.
func (r *peakEWMA) abandon(_ int, q packed) { delete(r.routed, q.id) }

// left forgets request q, which left its queue unserved.
func (r *peakEWMA) left(_ int, q packed, _ int64, _ bool) { delete(r.routed, q.id) }

// joined notes the cycle request q was routed to its server, unless it
// is its arrival.
func (r *peakEWMA) joined(_ int, q packed, t int64) {
	if t == q.arrival() {
		if len(r.routed) > 0 {
			delete(r.routed, q.id)
		}
		return
	}
	if b := r.b; len(r.routed) >= max(2*(b.queued+b.busy), sweepMin) {
		r.sweep()
	}
	r.routed[q.id] = t
}

// sweep forgets the requests routed that are at no server now. A request
// that completes on a server retiring, or while its server is ejected, is
// never heard of (completed is not called), so without it routed would
// grow with every server that ever retired holding requests. No entry it
// drops is read again: completed reads the request in service, which is
// at a server now or will have been routed (joined) by then. It runs when
// routed holds twice the requests queued and in service (and sweepMin):
// the requests at servers are at most half of it, so the other half, at
// least, are forgotten, which pays for its cost, a look at every request
// at a server. The map is made afresh, so that its memory shrinks too.
func (r *peakEWMA) sweep() {
	b := r.b
	kept := make(map[int64]int64, len(r.routed)/2)
	note := func(id int64) {
		if t, ok := r.routed[id]; ok {
			kept[id] = t
		}
	}
	for i := range b.srv {
		s := &b.srv[i]
		if s.gone {
			continue
		}
		if s.busy {
			note(s.req.id)
		}
		q := &b.sq[i]
		for k := range q.n {
			note(q.at(k).id)
		}
	}
	r.routed = kept
}

// completed updates server id's cost with the response of the request it
// completed at cycle t (still its request in service); an attempt that
// ended in error updates nothing.
func (r *peakEWMA) completed(id int, t int64, _, ok bool) {
	if !ok && r.b.endsOf(id) == abandons {
		return // abandoned work: abandon forgot it, and its retry may be routed by now
	}
	q := r.b.srv[id-1].req
	from := q.arrival() // routed at its arrival, or before the policy came into force
	if len(r.routed) > 0 {
		if c, routed := r.routed[q.id]; routed {
			from = c
			delete(r.routed, q.id)
		}
	}
	if !ok {
		return
	}
	resp := float64(t - from)
	cost := r.cost[id-1]
	if resp > cost {
		cost = resp
	} else {
		// float64(…) rounds the product, so that no processor fuses it
		// with the sum (arm64 would).
		cost += float64((resp - cost) * r.weight(t-r.at[id-1]))
	}
	r.cost[id-1], r.at[id-1] = cost, t
}

func (r *peakEWMA) decay() int64 {
	if d := r.b.m.cfg.EwmaDecay; d > 0 {
		return d
	}
	return DefaultEwmaDecay
}

// score is server id's cost·(load + 1), load as load reads it (written
// out, so that score stays inlined in pick).
func (r *peakEWMA) score(id int) float64 {
	load := int64(0)
	if f := r.b.fleet; f != nil {
		load = f.v.load(r.member, id)
	} else {
		load = r.b.load(id)
	}
	return r.cost[id-1] * float64(load+1)
}

// load is server id's load as this router's balancer knows it.
func (r *peakEWMA) load(id int) int64 {
	if f := r.b.fleet; f != nil {
		return f.v.load(r.member, id)
	}
	return r.b.load(id)
}

// fleetPick is the pick of the balancer this router is (member): score
// reads that balancer's view of the loads.
func (r *peakEWMA) fleetPick(_ *fleet, q packed, t int64) int { return r.pick(q, t) }

// ownPicks: the picks of a balancer's own router (member) read its view
// through score.
func (r *peakEWMA) ownPicks(*fleet) bool { return false }

// pick draws two distinct candidates (one when there is one) as p2c does
// and takes the lower score, the first drawn on a tie.
func (r *peakEWMA) pick(q packed, _ int64) int {
	b := r.b
	if b.tap != nil {
		return r.notedPick(q)
	}
	ids := b.cands.ids
	n := len(ids)
	x := b.m.routeDraw(n)
	if n == 1 {
		return int(ids[x])
	}
	y := b.m.routeDraw(n - 1)
	y += int(btou(y >= x)) // step over x
	if r.score(int(ids[y])) < r.score(int(ids[x])) {
		return int(ids[y])
	}
	return int(ids[x])
}

// notedPick is pick while a tap is on (draws.go): the same draws and
// choice, noted. Kept apart so that the picks without a tap pay one test
// for it.
func (r *peakEWMA) notedPick(q packed) int {
	b := r.b
	ids := b.cands.ids
	n := len(ids)
	xs := []int{b.m.routeDraw(n)}
	w := xs[0]
	if n > 1 {
		y := b.m.routeDraw(n - 1)
		y += int(btou(y >= w)) // step over x
		xs = append(xs, y)
		if r.score(int(ids[y])) < r.score(int(ids[w])) {
			w = y
		}
	}
	load := func(x int) int64 { return r.load(int(ids[x])) }
	cost := func(s int) float64 { return r.cost[s-1] }
	b.noteDraw(r.member, q.id, xs, ids, load, cost, int(ids[w]))
	return int(ids[w])
}

// ewmaDecayRow is peak-EWMA's τ, a row of the settings table.
var ewmaDecayRow = whole("ewma-decay", "peak-ewma: τ, the cycles over which a server's cost forgets a response", "cycles", func(c *Config) *int64 { return &c.EwmaDecay }, 1, MaxEwmaDecay,
	fmt.Sprintf("must be a whole number of cycles from 1 to %d", MaxEwmaDecay)).zero().defaults(strconv.Itoa(DefaultEwmaDecay)).example("200").wire("ewd", 30).small(0, 50)

// pickAmong draws two distinct candidates but those in skip (one when
// there is one), in the dense array's order, and takes the lower score,
// as pick does over them all (fan-out).
func (r *peakEWMA) pickAmong(_ packed, _ int64, skip []int) int {
	b := r.b
	ids := b.candidatesBut(skip)
	n := len(ids)
	if n == 0 {
		return 0
	}
	x := b.m.routeDraw(n)
	if n == 1 {
		return int(ids[x])
	}
	y := b.m.routeDraw(n - 1)
	y += int(btou(y >= x)) // step over x
	if r.score(int(ids[y])) < r.score(int(ids[x])) {
		return int(ids[y])
	}
	return int(ids[x])
}
