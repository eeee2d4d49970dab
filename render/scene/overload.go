package scene

import (
	"image/color"
	"slices"

	"github.com/lbsim/lbsim/sim"
)

// The overload controls on screen: an attempt shed by its queue drops out
// of it (flyShed), an attempt refused by a concurrency limit bounces off
// its server (flyRefuse), an attempt its client throttled stops dead at a
// bar just past the gate (flyThrottle), each server's limit is written
// beside its queue ("≤7", LimitCol) and the HUD names the discipline
// (when not fifo) and counts shed, limited and throttled.

// refusal names an attempt ended in one cycle: its balancer, server,
// request and part.
type refusal struct {
	bal, server int
	id          int64
	part        uint8
}

func refusalOf(e sim.Event) refusal {
	return refusal{e.Balancer, e.Server, e.Request.ID, e.Request.Part}
}

// limitRefusals picks out of one cycle's events of m the attempts a
// concurrency limit refused. The model writes such a refusal as an Error
// event right after the attempt's Arrive, Retry or Hedge to the same server (0:
// the pool) in the same cycle; a server that is down refuses the same
// way, so an Error at a failed server is not the limit's. An error of
// work in service cannot follow its own routing in one cycle (its server
// ends it at step a, before routing). Nil without a limit.
func limitRefusals(m *sim.Model, evs []sim.Event) map[refusal]bool {
	cfg := m.Config()
	if cfg.ConcurrencyLimit == 0 {
		return nil
	}
	var routed, refused map[refusal]bool
	bals := m.Balancers()
	for _, e := range evs {
		switch e.Kind {
		case sim.Arrive, sim.Retry, sim.Hedge:
			if routed == nil {
				routed = map[refusal]bool{}
			}
			routed[refusalOf(e)] = true
		case sim.Error:
			k := refusalOf(e)
			if !routed[k] {
				continue
			}
			if e.Server != 0 {
				if v, ok := bals[e.Balancer].Server(e.Server); !ok || v.State == sim.Failed {
					continue
				}
			}
			if refused == nil {
				refused = map[refusal]bool{}
			}
			refused[k] = true
		}
	}
	return refused
}

// ShedCol is an attempt shed by its queue, dropping out of it: orange,
// as the queue's other turning away (a discard at a full queue).
var ShedCol = DiscardCol

// LimitCol is a server's concurrency limit written beside its queue
// ("≤7"): a pale lavender-blue, apart from the count's white and the
// share's yellow.
var LimitCol = color.RGBA{0xb4, 0xc8, 0xff, 0xff}

// drawShed draws shed attempt fl at progress t: it drops out of its queue
// at from, down by most of the lane's queue height, shrinking and fading
// from its own colour to ShedCol.
func drawShed(f *Frame, fl *flight, from Point, d, t, fall float32) {
	to := Point{from.X + fl.jit*d, from.Y + max(fall*0.8, 4*d)}
	c := mix(RequestColor(fl.typ), ShedCol, min(t*3, 1))
	f.request(SceneLayer, lerp(from, to, t*t), d*(1-0.3*t), fl.typ, fade(c, 1-0.7*t))
}

// drawRefusal draws refused attempt fl at progress t: from the gate to
// the server (turn), where it flashes and bounces back towards the gate,
// growing like a rejected request at the firewall (in the retry colour
// when its client retries it).
func drawRefusal(f *Frame, fl *flight, gate, turn Point, d, t float32, col color.RGBA) {
	if t < 0.5 {
		f.request(SceneLayer, lerp(gate, turn, smooth(t/0.5)), d, fl.typ, col)
		return
	}
	k := (t - 0.5) / 0.5
	back := lerp(turn, gate, 0.6)
	back.Y += fl.jit * 6 * d
	c := RejectFlash
	if fl.retry {
		c = mix(RejectFlash, RetryColor, k)
	}
	f.request(SceneLayer, lerp(turn, back, smooth(k)), d*(1+0.4*k), fl.typ, fade(c, 1-0.6*k))
}

// boxIndex is the grid index of server id among ids (ascending).
func boxIndex(ids []int, id int) int {
	i, _ := slices.BinarySearch(ids, id)
	return i
}

// limitText is server v's concurrency limit as drawn beside its queue,
// " ≤7", or "" while the run has none.
func limitText(b *sim.Balancer, v sim.ServerView) string {
	if l, ok := b.Limit(v.ID); ok {
		return " ≤" + Commas(int64(l))
	}
	return ""
}

// overloadTexts are the HUD's counts of the overload controls in force in
// a run (or that have acted in it): "shed N" with a CoDel target,
// "limited N" with a concurrency limit, "throttled N" with client
// throttling; none while all are off.
func overloadTexts(sum sim.Summary, cfg sim.Config) []string {
	var ts []string
	if cfg.CodelTarget > 0 || sum.Shed > 0 {
		ts = append(ts, "shed "+Commas(sum.Shed))
	}
	if cfg.ConcurrencyLimit != 0 || sum.Limited > 0 {
		ts = append(ts, "limited "+Commas(sum.Limited))
	}
	if cfg.Throttle > 0 || sum.Throttled > 0 {
		ts = append(ts, "throttled "+Commas(sum.Throttled))
	}
	return ts
}

// anyShedding reports whether a lane shown sheds (a CoDel target in
// force, or an attempt shed so far): the legend then keys the drop.
func (s *Session) anyShedding() bool {
	for _, l := range s.set.Lanes {
		if l.Model.Config().CodelTarget > 0 || l.Model.Totals().Shed > 0 {
			return true
		}
	}
	return false
}

// ThrottleCol is the bar a client puts before an attempt it throttles,
// and the attempt fading there: rose, apart from the firewall's yellow
// flash and the shed attempt's orange.
var ThrottleCol = color.RGBA{0xff, 0x8f, 0xb0, 0xff}

// throttleStop is where a throttled attempt in a lane at height y stops,
// and its client's bar across its path: just past the gate (the client
// throttles after the firewall, before any queue), the bar one size
// ahead of the attempt, tall and thin.
func throttleStop(gate Rect, y, d float32) (stop Point, bar Rect) {
	x := gate.X + gate.W + 1.8*d
	return Point{x - 1.1*d, y}, Rect{x - 0.15*d, y - 1.2*d, 0.3 * d, 2.4 * d}
}

// drawThrottle draws throttled attempt fl at progress t: from from (the
// left edge, or the gate for a retry) through the gate to its stop, where
// its client's bar stands across its path; it stops dead there and
// shrinks and fades into ThrottleCol in place. It never bounces back (a
// rejection at the firewall and a limit's refusal do) and never reaches a
// queue.
func drawThrottle(f *Frame, fl *flight, from Point, gate Rect, d, t float32, col color.RGBA) {
	stop, bar := throttleStop(gate, from.Y, d)
	if t < 0.4 {
		f.request(SceneLayer, lerp(from, stop, smooth(t/0.4)), d, fl.typ, col)
		if t > 0.25 {
			f.rect(SceneLayer, bar, fade(ThrottleCol, (t-0.25)/0.15))
		}
		return
	}
	k := (t - 0.4) / 0.6
	f.rect(SceneLayer, bar, fade(ThrottleCol, 1-0.5*k))
	f.request(SceneLayer, stop, d*(1-0.3*k), fl.typ, fade(mix(col, ThrottleCol, min(k*3, 1)), 1-0.6*k))
}

// drawThrottleKey draws the legend's key of a throttled attempt at p, of
// size d: an attempt stopped before its bar (●|).
func drawThrottleKey(f *Frame, p Point, d float32) {
	f.rect(SceneLayer, Rect{p.X - d/2, p.Y - d*0.3, d * 0.6, d * 0.6}, ThrottleCol)
	f.rect(SceneLayer, Rect{p.X + d*0.25, p.Y - d/2, d * 0.2, d}, ThrottleCol)
}

// anyThrottling reports whether a lane shown throttles (client throttling
// on, or an attempt throttled so far): the legend then keys the stop.
func (s *Session) anyThrottling() bool {
	for _, l := range s.set.Lanes {
		if l.Model.Config().Throttle > 0 || l.Model.Totals().Throttled > 0 {
			return true
		}
	}
	return false
}
