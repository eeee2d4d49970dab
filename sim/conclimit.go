package sim

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// This file is the concurrency limit (Netflix's concurrency-limits,
// Envoy's adaptive concurrency): with per-server queues each server has a
// limit, with the pooled queue the pool has one. An attempt routed at
// step b (a first attempt, a retry, cycle 0's; never a lobby drain or a
// re-route) to a server whose attempts in flight (queued + in service,
// abandoned work included; pooled: the central queue + busy servers) are
// already at its limit is refused at once without occupying anything: it
// ends in error, counted limited, and the retry rules apply. An adaptive
// limit (AIMD) moves at step a, in server-id order, with every attempt
// that ends at a server: down by a tenth (at least to the minimum) when
// it ended in error or took longer than the latency bound since it last
// joined its queue, else up by one (at most to the maximum) when the
// attempts in flight just before it ended were at least half the limit.

// LimitAIMD is Config.ConcurrencyLimit's value for an adaptive limit.
const LimitAIMD = -1

// MaxConcurrencyLimit is the largest fixed limit, and the largest
// adaptive limit's bound.
const MaxConcurrencyLimit = 1_000_000

// The adaptive limit's defaults (a Config's 0 stands for them).
const (
	DefaultLimitInitial = 20
	DefaultLimitMin     = 1
	DefaultLimitMax     = 200
)

// limitSyntax is what a concurrency-limit value looks like.
var limitSyntax = fmt.Sprintf("want off, fixed:L (L a whole number from 1 to %d) or aimd", MaxConcurrencyLimit)

// ParseConcurrencyLimit reads a concurrency-limit value: "off" (0),
// "fixed:L" (L, 1 ≤ L ≤ MaxConcurrencyLimit) or "aimd" (LimitAIMD).
func ParseConcurrencyLimit(s string) (int, error) {
	s = strings.TrimSpace(s) // spaces around a value or a piece of it are ignored
	switch s {
	case "off":
		return 0, nil
	case "aimd":
		return LimitAIMD, nil
	}
	l, ok := strings.CutPrefix(s, "fixed:")
	if !ok {
		return 0, fmt.Errorf("%q is not off, fixed:L or aimd", s)
	}
	l = strings.TrimSpace(l)
	n, err := strconv.Atoi(l)
	if err != nil || n < 1 || n > MaxConcurrencyLimit {
		return 0, fmt.Errorf("the fixed limit %q must be a whole number from 1 to %d", l, MaxConcurrencyLimit)
	}
	return n, nil
}

// FormatConcurrencyLimit writes a concurrency-limit value as
// ParseConcurrencyLimit reads it.
func FormatConcurrencyLimit(v int64) string {
	switch {
	case v == 0:
		return "off"
	case v == LimitAIMD:
		return "aimd"
	case v > 0:
		return "fixed:" + strconv.FormatInt(v, 10)
	}
	return fmt.Sprintf("concurrency-limit(%d)", v)
}

// limitInitial, limitMin and limitMax return the adaptive limit's start
// and bounds, 0 read as the defaults.
func (c *Config) limitInitial() int { return cmp.Or(c.LimitInitial, DefaultLimitInitial) }
func (c *Config) limitMin() int     { return cmp.Or(c.LimitMin, DefaultLimitMin) }
func (c *Config) limitMax() int     { return cmp.Or(c.LimitMax, DefaultLimitMax) }

// aimdOn reports whether the adaptive limit is in force.
func aimdOn(c *Config) bool { return c.ConcurrencyLimit == LimitAIMD }

// limitRows are the concurrency limit's settings.
func limitRows() []Row {
	allowed := fmt.Sprintf("must be off, fixed:L with L from 1 to %d, or aimd", MaxConcurrencyLimit)
	bound := func(name, help string, field func(*Config) *int, def, example, key string, place int) Row {
		return whole(name, help, "attempts", field, 1, MaxConcurrencyLimit,
			fmt.Sprintf("must be a whole number from 1 to %d", MaxConcurrencyLimit)).zero().defaults(def).example(example).
			wire(key, place).small(0, 8).needsAIMD(name).group(GroupQueues)
	}
	return []Row{
		Row{Name: "concurrency-limit", Help: "cap each server's attempts in flight (per-server; pooled: the pool's): off, fixed:L, or aimd (an adaptive limit)",
			Unit: "attempts", Range: "off, fixed:1..10⁶, aimd", def: "off", Example: "aimd",
			lo: LimitAIMD, hi: MaxConcurrencyLimit, allowed: allowed, syntax: limitSyntax, detail: true, narrow: true,
			parse:  func(s string) (int64, error) { v, err := ParseConcurrencyLimit(s); return int64(v), err },
			format: FormatConcurrencyLimit,
			load:   func(c *Config) int64 { return int64(c.ConcurrencyLimit) },
			store:  func(c *Config, v int64) { c.ConcurrencyLimit = int(clampInt(v)) },
			Wire:   Wire{Key: "cl", Seq: 66, Kind: WireInt},
			forms:  []string{"off", "fixed:", "aimd"},
			Group:  GroupQueues}.small(-2, 6),
		bound("limit-initial", "the adaptive limit's start (a server added later starts there too)", func(c *Config) *int { return &c.LimitInitial }, strconv.Itoa(DefaultLimitInitial), "5", "lin", 67),
		bound("limit-min", "the adaptive limit's floor", func(c *Config) *int { return &c.LimitMin }, strconv.Itoa(DefaultLimitMin), "3", "lmn", 68),
		bound("limit-max", "the adaptive limit's ceiling", func(c *Config) *int { return &c.LimitMax }, strconv.Itoa(DefaultLimitMax), "30", "lmx", 69),
		whole("limit-latency", "R: an attempt that took longer than R cycles since it joined its queue lowers the adaptive limit (0 = never)", "cycles", func(c *Config) *int64 { return &c.LimitLatency }, 0, MaxCycles,
			fmt.Sprintf("must be 0 (never) or a whole number of cycles up to %d", MaxCycles)).defaults("0").example("40").wire("ll", 70).small(0, 30).needsAIMD("limit-latency").group(GroupQueues),
	}
}

// needsAIMD is needs for a setting of the adaptive limit.
func (r Row) needsAIMD(name string) Row {
	return r.needs([]string{"--concurrency-limit", "aimd"}, aimdOn, func(c *Config) string {
		return fmt.Sprintf("applies only to --concurrency-limit aimd, and the limit is %s: give --concurrency-limit aimd, or drop --%s",
			FormatConcurrencyLimit(int64(c.ConcurrencyLimit)), name)
	})
}

// concLimit is a balancer's concurrency limit, nil while it is off (the
// setting is fixed for a run).
type concLimit struct {
	aimd bool
	// fixed is the fixed limit; pool the pooled balancer's adaptive one.
	fixed, pool int
	// lo, hi and r are the adaptive limit's bounds and latency bound R.
	lo, hi int
	r      int64
	// per holds, by slot, each server's adaptive limit (per-server).
	per []int32
	// With a latency bound, the cycle an attempt last joined its queue is
	// its arrival (a first attempt) or its flight's (a retry), unless it
	// joined again later: rejoined holds, by request id, the last cycle
	// an attempt was requeued, routed again or routed out of the lobby
	// (an entry older than the attempt is an earlier attempt's, and the
	// later of the two cycles is the right one); abandonedJoined holds,
	// by slot, the cycle of the attempt in service its client abandoned
	// (its flight moves on to the next attempt).
	rejoined        map[int64]int64
	abandonedJoined map[int]int64
}

// newLimit makes balancer b's limit state from the configuration, before
// its servers are added.
func (b *Balancer) newLimit() {
	c := &b.m.cfg
	switch c.ConcurrencyLimit {
	case 0:
		return
	case LimitAIMD:
		b.lim = &concLimit{aimd: true, pool: c.limitInitial(), lo: c.limitMin(), hi: c.limitMax(), r: c.LimitLatency}
	default:
		b.lim = &concLimit{fixed: c.ConcurrencyLimit}
	}
}

// added gives the balancer's new server its limit: the start value, for
// life.
func (l *concLimit) added(b *Balancer) {
	if l.aimd && b.perServer {
		l.per = append(l.per, int32(b.m.cfg.limitInitial()))
	}
}

// limitOf returns the limit of server id (per-server) or of the pool
// (id 0, pooled).
func (b *Balancer) limitOf(id int) int {
	l := b.lim
	switch {
	case !l.aimd:
		return l.fixed
	case id == 0:
		return l.pool
	}
	return int(l.per[id-1])
}

// overLimit reports whether an attempt routed now to server id
// (per-server) or to the pool (id 0) is refused: the attempts in flight
// there are already at the limit.
func (b *Balancer) overLimit(id int) bool {
	if id == 0 {
		return b.queue.Len()+b.busy >= b.limitOf(0)
	}
	return b.load(id) >= int64(b.limitOf(id))
}

// admitLimited is admit's path past the firewall for a pooled balancer
// with a concurrency limit: the queue's capacity, then the limit, which
// refuses a first attempt after admitting it. It reports whether r was
// queued.
func (b *Balancer) admitLimited(r packed, t int64) bool {
	if c := b.m.cfg.QueueCap; c > 0 && b.queue.Len() >= c {
		b.tot.Discarded++
		b.last.Discarded++
		if b.m.recordEvents {
			b.emit(Discard, 0, 0, r.unpack())
		}
		return false
	}
	b.tot.Admitted++
	if b.m.recordEvents {
		b.emit(Arrive, 0, 0, r.unpack())
	}
	if b.overLimit(0) {
		b.refuseLimited(0, r, t)
		return false
	}
	b.queue.pushBack(r, t)
	if b.watching {
		b.arrived(r, t)
	}
	return true
}

// refuseLimited ends attempt r, refused by the limit of server id (0:
// the pool) at step b of cycle t, in error without occupying anything;
// the server's run of errors does not move.
func (b *Balancer) refuseLimited(id int, r packed, t int64) {
	b.tot.Limited++
	b.last.Limited++
	b.tot.Errors++
	b.last.Errors++
	if b.m.recordEvents {
		b.emit(Error, id, 0, r.unpack())
	}
	b.attemptEnded(r, t, endError, true)
}

// rejoin notes that attempt r joined a queue again at cycle t: it was
// requeued, routed again, or routed out of the lobby.
func (l *concLimit) rejoin(r packed, t int64) {
	if l.rejoined == nil {
		l.rejoined = map[int64]int64{}
	}
	l.rejoined[r.id] = t
}

// joined returns the cycle attempt r, with flight f (nil for none), last
// joined its queue, and forgets its rejoining.
func (l *concLimit) joined(r packed, f *flight) int64 {
	at := r.arrival()
	if r.retry() && f != nil {
		at = f.at
	}
	if len(l.rejoined) > 0 {
		if j, ok := l.rejoined[r.id]; ok {
			at = max(at, j)
			delete(l.rejoined, r.id)
		}
	}
	return at
}

// abandoned notes the cycle attempt r, with flight f, in service at
// server id and just abandoned by its client, joined its queue: its work
// goes on, and its ending still moves the limit.
func (l *concLimit) abandoned(b *Balancer, id int, r packed, f *flight) {
	if l.abandonedJoined == nil {
		l.abandonedJoined = map[int]int64{}
	}
	l.abandonedJoined[id] = l.joined(r, f)
}

// sample is the adaptive limit's step for the attempt server id has in
// service ending at step a of cycle t, with inflight attempts in flight
// at its server (pooled: the pool's) just before, itself included.
func (b *Balancer) sample(id int, t int64, inflight int64) {
	l := b.lim
	cur := l.pool
	if b.perServer {
		cur = int(l.per[id-1])
	}
	end := completes
	if len(b.ends) > 0 {
		end = b.endsOf(id) // a map: read only while some attempt ends otherwise
	}
	slow := false
	if l.r > 0 {
		var at int64
		if end == abandons {
			at = l.abandonedJoined[id] // forgotten when the work ends (abandonedEnds)
		} else {
			r := b.srv[id-1].req
			at = l.joined(r, b.flightOf(r.id))
		}
		slow = t-at > l.r
	}
	switch {
	case end == errs || slow:
		cur = max(l.lo, 9*cur/10)
	case inflight >= int64(cur+1)/2:
		cur = min(l.hi, cur+1)
	default:
		return
	}
	if b.perServer {
		l.per[id-1] = int32(cur)
	} else {
		l.pool = cur
	}
}

// digest writes the limit's state into the model's hash: the refusals,
// the errors and failures (which the client side's digest holds only
// while it has state), and each limit by server id.
func (l *concLimit) digest(b *Balancer, put func(int64)) {
	put(b.tot.Limited)
	put(b.tot.Errors)
	put(b.tot.Failed)
	if !l.aimd {
		return
	}
	if !b.perServer {
		put(int64(l.pool))
		return
	}
	for i := range l.per {
		if !b.srv[i].gone {
			put(int64(b.ids[i]))
			put(int64(l.per[i]))
		}
	}
}

// limits returns the sum, count, lowest and highest of the limits in
// force at the end: the pool's, or each live server's.
func (b *Balancer) limits() (sum, n, lo, hi int64) {
	if b.lim == nil {
		return 0, 0, 0, 0
	}
	lo = MaxConcurrencyLimit
	add := func(v int64) {
		sum, n, lo, hi = sum+v, n+1, min(lo, v), max(hi, v)
	}
	if !b.perServer {
		add(int64(b.limitOf(0)))
		return
	}
	for i := range b.srv {
		if !b.srv[i].gone {
			add(int64(b.limitOf(i + 1)))
		}
	}
	if n == 0 {
		lo = 0
	}
	return
}

// setLimits sets the summary's final limits from the limits' sum, count,
// lowest and highest (all 0 when the limit is off).
func (s *Summary) setLimits(sum, n, lo, hi int64) {
	s.LimitSum, s.LimitCount, s.LimitFinalMin, s.LimitFinalMax = sum, n, lo, hi
	s.deriveLimit()
}

// deriveLimit sets LimitFinal, the mean of the final limits, from
// LimitSum and LimitCount (0 with none).
func (s *Summary) deriveLimit() {
	s.LimitFinal = 0
	if s.LimitCount > 0 {
		s.LimitFinal = float64(s.LimitSum) / float64(s.LimitCount)
	}
}

// limits is Balancer.limits over the balancers of a switch: the lowest
// is over the balancers that have a limit in force (one with no live
// server has none), 0 when none has.
func (m *Model) limits() (sum, n, lo, hi int64) {
	for _, b := range m.bal {
		s, k, l, h := b.limits()
		if k > 0 && (n == 0 || l < lo) {
			lo = l
		}
		sum, n, hi = sum+s, n+k, max(hi, h)
	}
	return
}
