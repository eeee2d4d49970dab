package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Client-side adaptive throttling (Google SRE book, "Handling Overload"):
// before routing, each first attempt and each retry is rejected by its own
// client with probability max(0, (requests − K·accepts) ÷ (requests + 1)),
// requests being the attempts that reached this point in the last 1000
// cycles (throttled ones included) and accepts the attempts that completed
// in them. The window is fixed for a whole cycle, kept per balancer of a
// switch and shared by a fleet; the draws come from a generator of their
// own, so turning the throttle on leaves every other stream as it was.

// throttleStream is the stream constant of the throttle generator.
const throttleStream = 0x6c6273696d2d7468 // "lbsim-th"

// throttleWindow is how many cycles the throttle looks back over.
const throttleWindow = 1000

// throttleSlots is the number of slots in a throttle window's ring: a
// power of two, at least throttleWindow.
const throttleSlots = 1024

// Hundredths is a value with at most two decimals, in hundredths (the
// throttle's K).
type Hundredths int64

// HundredthsScale is the number of Hundredths in 1.
const HundredthsScale = 100

// The throttle's K: 1 to 10.
const (
	MinThrottle Hundredths = 1 * HundredthsScale
	MaxThrottle Hundredths = 10 * HundredthsScale
)

// String formats v as a decimal with no trailing zeros, as
// ParseHundredths reads it.
func (v Hundredths) String() string { return formatFixed(int64(v), HundredthsScale) }

// ParseHundredths reads a number with at most two decimals.
func ParseHundredths(s string) (Hundredths, error) {
	v, err := parseFixed(s, HundredthsScale, 2)
	if err != nil {
		return 0, err
	}
	return Hundredths(v), nil
}

// throttleErr says what the throttle's K must be.
func throttleErr(k Hundredths) error {
	return &FieldError{Field: "throttle", Value: k.String(), Allowed: fmt.Sprintf("must be 0 (off) or from %v to %v, with at most two decimals", MinThrottle, MaxThrottle)}
}

// throttle is one balancer's throttle window: the attempts that reached
// it and the attempts completed, per cycle, their sums, and this cycle's
// counts. Slot c mod throttleSlots holds cycle c's counts for each of the
// last throttleSlots cycles up to at (a cycle that wrote nothing counts
// zero); the sums are over the last throttleWindow of them, cycles
// at − 999 … at (the older slots are kept only until written over). A
// power of two of slots makes a slot's index a mask.
type throttle struct {
	reqs, accs      [throttleSlots]int64
	sumReq, sumAcc  int64
	nowReq          int64 // attempts that reached it this cycle
	completedBefore int64 // the balancer's completed attempts at the end of the last cycle recorded
	at              int64 // the last cycle recorded (−1 before cycle 0)
}

// throttleOn reports whether the throttle is on.
func (m *Model) throttleOn() bool { return m.cfg.Throttle > 0 }

// startThrottle makes the throttle generator and each balancer's window
// (at New, before cycle 0's arrivals).
func (m *Model) startThrottle() {
	m.tpcg = rand.NewPCG(m.cfg.Seed, throttleStream)
	m.trng = rand.New(m.tpcg)
	for _, b := range m.bal {
		b.th = &throttle{at: -1}
	}
}

// record is step e of cycle t: the cycle's counts join the window (those
// of cycle t − 1000 leave the sums), so the sums are the window fixed for
// the next cycle.
// Cycles after the last one recorded and before t, which a shortcut
// passed, are recorded first, each with nothing that reached the throttle
// and nothing completed (see pass); a cycle recorded already is left as
// it is (a shortcut may record it at its end, after step e did).
func (th *throttle) record(b *Balancer, t int64) {
	if t <= th.at {
		return
	}
	if t > th.at+1 {
		th.pass(t - 1)
	}
	th.at = t
	i, o := t&(throttleSlots-1), (t-throttleWindow)&(throttleSlots-1)
	done := b.tot.Completed + b.tot.PartsDone // attempts_completed: with fan-out, parts before their request's last too
	acc := done - th.completedBefore
	th.completedBefore = done
	th.sumReq += th.nowReq - th.reqs[o]
	th.sumAcc += acc - th.accs[o]
	th.reqs[i], th.accs[i] = th.nowReq, acc
	th.nowReq = 0
}

// pass records cycles th.at+1 … t as step e of each would: no attempt
// reached the throttle in them and none completed (the shortcuts that
// pass cycles call it only so: nothing arrives in a cycle they pass, and
// they visit every cycle with a completion). Each such cycle's slot is
// emptied and the cycle 1000 before it leaves the sums, so only the slots
// the gap spans are touched, and a gap of throttleSlots cycles or more
// empties them all: the slots are then what stepping leaves, written over
// or not. completedBefore holds, as nothing completed.
func (th *throttle) pass(t int64) {
	if t-th.at >= throttleSlots {
		clear(th.reqs[:]) // every slot passed
		clear(th.accs[:])
		th.sumReq, th.sumAcc = 0, 0
		th.at = t
		return
	}
	for c := th.at + 1; c <= t; c++ {
		i, o := c&(throttleSlots-1), (c-throttleWindow)&(throttleSlots-1)
		th.sumReq -= th.reqs[o]
		th.sumAcc -= th.accs[o]
		th.reqs[i], th.accs[i] = 0, 0
	}
	th.at = t
}

// throttles reports whether the client of the attempt reaching the
// throttle at cycle t throttles it: every attempt that reaches it counts,
// and draws. Cycles before t that a shortcut passed without recording
// them (nothing reached the throttle and nothing completed in them, see
// pass) are passed first, so the draw is against the window fixed for t.
func (b *Balancer) throttles(t int64) bool {
	th := b.th
	if th.at < t-1 {
		th.pass(t - 1)
	}
	th.nowReq++
	// The window fixed for t: the sums through cycle t − 1 (recorded).
	limit := HundredthsScale*th.sumReq - int64(b.m.cfg.Throttle)*th.sumAcc
	return b.m.trng.Int64N(HundredthsScale*(th.sumReq+1)) < limit
}

// throttled ends attempt r, throttled by its client at step b of cycle t:
// counted throttled and in errors; a retry follows the client's rules.
func (b *Balancer) throttled(r packed, t int64) {
	b.tot.Throttled++
	b.last.Throttled++
	b.tot.Errors++
	b.last.Errors++
	if b.m.recordEvents {
		b.emit(Throttled, 0, 0, r.unpack())
	}
	b.attemptEnded(r, t, endError, true)
}

// digestThrottle hashes the balancer's throttle window.
func (b *Balancer) digestThrottle(put func(int64)) {
	th := b.th
	for _, v := range []int64{th.sumReq, th.sumAcc, th.nowReq, th.completedBefore, b.tot.Throttled, b.tot.Errors, b.tot.Failed} {
		put(v)
	}
}

// throttleRange is the throttle row's range, in words.
var throttleRange = strings.Join([]string{"0 (off)", MinThrottle.String() + ".." + MaxThrottle.String() + ", two decimals"}, ", or ")

// throttleWindowed reports whether per-server balancer b's throttle lets
// a window (window.go) run from the current cycle, and bounds it in the
// window's scratch space (windowBound).
func (m *Model) throttleWindowed(b *Balancer) bool {
	if m.win == nil {
		m.win = &window{}
	}
	w := m.win
	w.thLast, w.drawCap = b.th.windowBound(b, m.cycle)
	return w.thLast > m.cycle
}

// windowBound bounds a throttled window from cycle c0 on. A window's pass
// 1 routes a stretch's arrivals before pass 2 serves them, so a draw at
// cycle c cannot see the completions of the window's cycles before c; it
// need not where it cannot throttle, which is where the window fixed for
// c gives 100·requests − K·accepts ≤ 0. Requests grow only by the draws,
// and accepts only by completions: with the sums through c0 and the
// cycles that have left the window by c (j − 1 of them at c = c0 + j),
// 100·(requests left + D) − K·(accepts left) ≤ 0, D the draws from c0 + 1
// to c − 1, proves it. windowBound walks the leaving cycles once, and
// returns the window's last cycle at most and the draws D allowed before
// any of its cycles: pass 1 ends the window at a cycle whose draws pass
// it. It stops where the draws expected at the rate of the last 1000
// cycles would pass the bound (a longer window would only allow fewer),
// and returns c0 where even the next cycle's first draw could throttle.
func (th *throttle) windowBound(b *Balancer, c0 int64) (last, draws int64) {
	th.record(b, c0) // recorded already: the window starts after step e
	k := int64(b.m.cfg.Throttle)
	req, acc := th.sumReq, th.sumAcc
	room := k*acc - HundredthsScale*req // 100 times the draws allowed so far
	if room < 0 {
		return c0, 0
	}
	last = c0 + 1
	expected := th.sumReq            // the draws expected by last, times 1000
	for x := c0 - 999; x < c0; x++ { // cycle x leaves the window fixed for x + 1001
		expected += th.sumReq
		o := x & (throttleSlots - 1)
		req -= th.reqs[o]
		acc -= th.accs[o]
		r := min(room, k*acc-HundredthsScale*req)
		if r < 0 || (r+HundredthsScale)*(throttleWindow/HundredthsScale) < expected {
			break
		}
		room, last = r, x+1001
	}
	return last, room / HundredthsScale
}

// window records a throttled window's cycles after its first, through
// its last e, as step e of each would (see windowBound): each cycle's
// draws, one per attempt pass 1 admitted in it and in order, against the
// window fixed for it (none throttles), and its requests and the accepts
// pass 2 counted.
func (th *throttle) window(b *Balancer, e int64) {
	w, rng := b.m.win, b.m.trng
	sumReq, sumAcc, accs := th.sumReq, th.sumAcc, w.accs
	c := w.c0 + 1
	for _, a := range append(w.arrived, arrivalCount{e + 1, 0}) {
		for ; c <= min(a.cycle, e); c++ {
			n := int64(0)
			if c == a.cycle {
				n = int64(a.n)
				for range n {
					rng.Int64N(HundredthsScale * (sumReq + 1))
				}
			}
			i, o := c&(throttleSlots-1), (c-throttleWindow)&(throttleSlots-1)
			acc := int64(accs[c-w.c0-1])
			sumReq += n - th.reqs[o]
			sumAcc += acc - th.accs[o]
			th.reqs[i], th.accs[i] = n, acc
		}
	}
	th.sumReq, th.sumAcc, th.at = sumReq, sumAcc, e
	th.completedBefore = b.tot.Completed + b.tot.PartsDone
}

// windowAccepts counts the completions of each cycle of a throttled
// window after pass 1, up to its last cycle e, as pass 2 will make them
// (serveQueue): each server completes the request in service at its
// done, then serves its queue in order, each request starting at the
// later of its arrival and the completion before it (the window's first
// cycle for a server free then), and one starting at e or later
// completes after the window.
func (th *throttle) windowAccepts(b *Balancer, e int64) {
	w := b.m.win
	c0 := w.c0
	w.accs = resize(w.accs, int(e-c0))
	for i := range b.srv {
		s, q := &b.srv[i], &b.sq[i]
		at := c0
		if s.busy {
			if s.done > e {
				continue
			}
			at = s.done
			w.accs[at-c0-1]++
		}
		for j := 0; j < q.n; j++ {
			r := q.at(j)
			start := max(r.arrival(), at)
			if start >= e {
				break
			}
			at = start + int64(s.speed.Cycles(r.time()))
			if at > e {
				break
			}
			w.accs[at-c0-1]++
		}
	}
}
